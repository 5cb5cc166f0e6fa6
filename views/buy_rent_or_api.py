"""Buy, rent or call an API: the monthly cost of each way to serve a monthly token volume, the break-even
volumes and the cheapest option at yours (the view's volume answer, as the report and `costfrontier volume`)."""

import streamlit as st

from model.core.view_fields import MAX_USD_PER_GPU_HOUR
from model.present import fmt
from model.present.volume_answer import shown_rows
from model.present.volume_figures import volume_figure
from ui import data, frame, numbers, widgets
from ui.demand import day_chart, fleet_boxes, shape_boxes
from ui.sidebar import RATE_BOUNDS
from ui.state import bind, commit, plain, pop_notices

ctx = frame.context()
st.title("Buy, rent or API")
if widgets.no_data(ctx):
    st.stop()
state = ctx.state
answer_box = st.container()     # the answer first (a phone's first screen too); the inputs that change it below
c1, c2, c3 = st.columns(3)
numbers.field_box(c1, "tokens_per_month", placeholder="e.g. 2e9 or 2,000,000,000")
shape_boxes(c2)
bind(c3.radio, "lens", ("full", "marginal"), horizontal=True,
     format_func=lambda v: "full cost" if v == "full" else "marginal (owned: power + operations)")
if state.demand_rps is not None:
    c3.caption(plain(f"Peak set on the Fleet page: {state.demand_rps:g} req/s (it sizes the fleet bought for the peak; "
                     "the volume prices it)."))
answer = ctx.answer("volume", "fleet")
volume = answer.volume
if volume is None:
    with answer_box:
        st.info("Enter a monthly volume below (tokens per month; a month is 730 hours), or a peak on the Fleet page, "
                "or upload a request trace: the one not given is derived by the shape.")
    st.stop()
with answer_box:
    st.success(plain(volume.verdict))
    if not volume.rows.empty:
        widgets.answer_table(volume.rows, ["option", "usd_per_month", "effective_usd_per_mtok", "nodes"])

# ---------------------------------------------------------------- the API and the rented rates
st.subheader("The alternatives")
a1, a2 = st.columns(2)
AUTO, CUSTOM = "matched by the model's name", "custom prices"
choices = [AUTO, *volume.api_choices, CUSTOM]
current = CUSTOM if state.api_usd else (state.api if state.api in volume.api_choices else AUTO)


def _api_choice():
    picked = st.session_state["api_pick"]
    if picked == AUTO:
        commit(api=None, api_usd=())
    elif picked != CUSTOM:
        commit(api=picked, api_usd=())


st.session_state["api_pick"] = current   # the view decides what it shows (custom prices typed below, a link)
a1.selectbox("API model", choices, key="api_pick", on_change=_api_choice)
with a1.form("api_custom"):
    st.caption("Custom API prices [$ per million tokens]")
    f1, f2, f3 = st.columns(3)
    typed = state.api_usd or (None, None, None)
    t_in = f1.text_input("Input", value=numbers.shown(typed[0]), key="api_in")
    t_cached = f2.text_input("Cached input", value=numbers.shown(typed[1]), key="api_cached")
    t_out = f3.text_input("Output", value=numbers.shown(typed[2]), key="api_out")
    if st.form_submit_button("Use these prices"):
        read = [numbers.read(label, text) for label, text in (("API input [$/M]", t_in),
                                                               ("API cached input [$/M]", t_cached),
                                                               ("API output [$/M]", t_out))]
        p_in, p_cached, p_out = (value for _, value in read)
        if not all(ok for ok, _ in read):
            for text in pop_notices():
                st.error(plain(text))
        elif p_in is None or p_out is None:
            st.warning("Give at least the input and output prices (cached input defaults to the input price).")
        elif commit(api=None, api_usd=(p_in, p_in if p_cached is None else p_cached, p_out)):
            st.rerun()
numbers.field_box(a2, "cache_hit", "Prefix-cache hit rate [0–1] (empty: the rows', else 0)", percent=False)
rented = dict(state.rent)
for hw in sorted(answer.capacity["hardware"].dropna().unique()) if not answer.capacity.empty else []:
    def _rent(hw=hw):
        ok, value = numbers.read(f"Rented {hw} [$/GPU-hour]", st.session_state[f"rent_{hw}"], bounds=RATE_BOUNDS)
        if ok:
            rest = tuple((h, r) for h, r in state.rent if h != hw)
            commit(rent=rest + (((hw, value),) if value else ()))

    st.session_state[f"rent_{hw}"] = numbers.shown(rented.get(hw))
    a2.text_input(f"Rented {hw} [$/GPU-hour] (empty: not compared)", key=f"rent_{hw}", on_change=_rent,
                  help=f"More than $0 and at most ${MAX_USD_PER_GPU_HOUR:,.0f}/GPU-hour.")
if state.rent:
    bind(a2.checkbox, "on_demand")
    if state.on_demand:
        fleet_boxes(a2)

# ---------------------------------------------------------------- how the answer is made
st.subheader("Every option")
if volume.said:
    st.info(plain(volume.said))
for note in volume.notes:
    st.info(plain(fmt.sentence(note)))
if volume.options:
    st.plotly_chart(volume_figure(volume), width="stretch", key="volume_chart")
for b in volume.break_evens:
    st.markdown("- " + plain(b["text"]))
day_chart(answer.fleet, "volume_day")
widgets.table(shown_rows(volume), key="volume_table")
if volume.api_line:
    st.caption(plain(volume.api_line))
st.caption(plain("Capacity at " + (fmt.interactivity(volume.x) if volume.x else "the best measured point")
                 + f" under SLA {state.sla or 'none'} (the interactivity you need: Overview page)."))
st.caption("Owned and reserved nodes are whole nodes bought for the peak (set on the Fleet page, or the volume's "
           "mean × the shape's peak ÷ average) at the measured point that meets the SLA and the interactivity you "
           "need, paid every hour; on demand follows the shape over the day, paying the node-hours it runs (at least "
           "the minimum kept up; with a peak-to-average factor alone, the average load: a lower bound); the API "
           "bills the workload's input, cached input and output tokens. Each owned or rented option carries its "
           "capacity's ±: the nodes, and so the $ a month, a node carrying that much more or less would need; two "
           "options whose ranges meet, or within 2 % of each other, are about the same. A month is 730 hours.")

# ---------------------------------------------------------------- add a price
if not data.read_only():
    with st.expander("Add an API price for the team"):
        with st.form("api_add"):
            g1, g2 = st.columns(2)
            model = g1.text_input("Model", max_chars=120)
            provider = g2.text_input("Provider", max_chars=120)
            h1, h2, h3 = st.columns(3)
            typed_prices = {label: box.text_input(label) for box, label in
                            ((h1, "Input [$/M]"), (h2, "Cached input [$/M]"), (h3, "Output [$/M]"))}
            read_on = g1.date_input("Read on", value="today")
            source = g2.text_input("Source (where you read it)", max_chars=300)
            if st.form_submit_button("Save price"):
                from model.data.api_prices import add_prices
                from model.data.importers.base import IngestError

                read = [numbers.read(label, text) for label, text in typed_prices.items()]
                new_in, new_cached, new_out = ("" if value is None else value for _, value in read)
                record = {"model": model, "provider": provider, "usd_per_m_input": new_in,
                          "usd_per_m_cached_input": new_cached, "usd_per_m_output": new_out,
                          "read_on": read_on.isoformat() if read_on else "", "source": source}
                try:
                    if not all(ok for ok, _ in read):
                        for text in pop_notices():
                            st.error(plain(text))
                    elif data.write(lambda con: add_prices(con, [record]), "save the API price") is not None:
                        st.success(plain(f"Saved the price of {model}."))
                except IngestError as exc:
                    st.error(plain(f"Not saved: {exc.message} ({exc.field})"))
