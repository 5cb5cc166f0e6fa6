"""TCO builder: cost profiles (a quoted rate, or an on-prem build-up from a server quote and a power bill)
that price every page, with their breakdown and sensitivity."""

from datetime import date

import streamlit as st

from model.core.cost_profiles import breakdown_frame, profiles_frame, profiles_from_frame
from model.core.dated import old_words
from model.core.hardware import CANONICAL_HARDWARE
from model.core.onprem_labels import ONPREM_LABELS
from model.core.tco import TcoInputError
from model.data.presets import onprem_default_dates, onprem_defaults
from model.present import fmt
from model.present.tco_figures import breakdown_figure, tornado_figure
from ui import data, frame, tco, widgets
from ui.state import bind, plain, pop_notices

ctx = frame.context()
st.title("TCO builder")
st.caption("A cost profile is a named way to pay for a GPU: a quoted $/GPU-hour, or an on-prem build-up. Profiles "
           "chosen below price their hardware on every page and travel in the share link.")
profiles = ctx.state.cost_profiles()
hardware = sorted({*(ctx.options["hardware"]), *CANONICAL_HARDWARE}, key=str.lower)

in_view = tuple(sorted(ctx.points["hardware"].dropna().astype(str).unique())) if not ctx.points.empty else ()
# the form starts from the hardware in view: the cheapest series' hardware, or the only one
at_x = ctx.answer("cost").cost.at_x if len(in_view) > 1 else None
start = (str(at_x["hardware"].iloc[0]) if at_x is not None and not at_x.empty and "hardware" in at_x.columns
         else in_view[0] if in_view else "H200")
st.subheader("On-prem build-up")
# outside the form: choosing a GPU reruns the page, so its own defaults (kW per GPU, ...) fill the form
hw = st.selectbox("Hardware", hardware, index=hardware.index(start) if start in hardware else 0, key="tco_hw",
                  help="Starts from the hardware in view (the cheapest series' hardware).")
with st.form("onprem_form"):
    name = st.text_input("Profile name", placeholder=f"{hw} on-prem 5y", key="tco_name")
    # the view's price set first, so the profile's kW per GPU is the one TCO rates and Fleet show
    kw_set = ctx.state.price_set
    defaults = onprem_defaults(hw, ctx.presets, kw_set)
    if "kw_per_gpu" not in defaults:
        kw_set = None
        defaults = onprem_defaults(hw, ctx.presets)
    typed = tco.build_up_inputs(defaults, hw)
    submitted = st.form_submit_button("Add to this view and price with it", type="primary")
# each cited default still in its box with the date it was read; one older than the view's price_stale_days is
# flagged (a value typed over it is the user's own: nothing old to say about it)
in_use = tco.defaults_in_use(typed, defaults)
dates = {n: d for n, d in onprem_default_dates(hw, ctx.presets, kw_set).items() if n in in_use}
dated = [f"{ONPREM_LABELS.get(n, n)}: read on {d.isoformat()}" for n, d in dates.items() if d is not None]
if dated:
    st.caption(plain("Defaults and the day each was read: " + "; ".join(dated) + "."))
for field, day in dates.items():
    if (words := old_words(f"the default {ONPREM_LABELS.get(field, field)}", day, date.today(),
                           ctx.state.price_stale_days)):
        st.warning(plain(f"Old default: {words}. Type your own value if you have a newer one."))
if submitted:
    values, question = tco.read_build_up(typed)
    for text in pop_notices():
        st.error(plain(text))
    if values is not None:
        chosen_name = name or f"{hw} on-prem {values.get('years') or 5:g}y"
        if question:
            st.session_state["_tco_held"] = (chosen_name, hw, values, question)
        else:
            tco.add_onprem(chosen_name, hw, values, profiles, in_view)
held = st.session_state.get("_tco_held")
if held:
    held_name, held_hw, held_values, held_question = held
    share = held_values["utilization"] * 100
    st.warning(plain(f"Not saved yet: {held_question}"))
    b1, b2, b3 = st.columns(3)
    if b1.button(f"Save with {share:g} %", key="tco_util_as_typed"):
        st.session_state.pop("_tco_held")
        tco.add_onprem(held_name, held_hw, held_values, profiles, in_view)
    if b2.button(f"Save with {share * 100:g} %", key="tco_util_times_100", type="primary"):
        st.session_state.pop("_tco_held")
        tco.add_onprem(held_name, held_hw, {**held_values, "utilization": held_values["utilization"] * 100},
                       profiles, in_view)
    if b3.button("Cancel", key="tco_util_cancel"):
        st.session_state.pop("_tco_held")
        st.rerun()

with st.expander("A quoted rate (cloud, reserved, neocloud)"):
    with st.form("rate_form"):
        c1, c2, c3 = st.columns(3)
        quote_hw = c1.selectbox("Hardware", hardware, key="quote_hw",
                                index=hardware.index(start) if start in hardware else 0)
        quote_name = c2.text_input("Profile name", key="quote_name", placeholder=f"{quote_hw} cloud 3y reserved")
        quote = c3.text_input("$/GPU-hour", key="quote_rate", placeholder="e.g. 2.10")
        if st.form_submit_button("Add"):
            tco.add_rate(quote_name or f"{quote_hw} quote", quote_hw, quote, profiles, in_view)
            for text in pop_notices():
                st.error(plain(text))

if profiles:
    st.subheader("Profiles in this view")
    editor_key = f"profiles_table_{st.session_state.setdefault('_profiles_edits', 0)}"
    shown = profiles_frame(profiles)
    edited = st.data_editor(shown, key=editor_key, hide_index=True, width="stretch", num_rows="dynamic",
                            disabled=["kind", "usd_per_gpu_hour"],
                            column_config={"usd_per_gpu_hour": st.column_config.NumberColumn(
                                "effective $/GPU-hour", format="$%.4f")})
    if not edited.equals(shown):
        try:
            tco.replace_profiles(profiles_from_frame(edited))
        except TcoInputError as exc:
            st.error(plain(str(exc)))
    bind(st.multiselect, "priced_by", "Price series with", [p.name for p in profiles], to_widget=list,
         from_widget=tuple)
    table = breakdown_frame(profiles)
    st.plotly_chart(breakdown_figure(table), width="stretch", key="breakdown_chart")
    widgets.table(table.rename(columns={"profile": "series"}), key="breakdown_table")
    tco.opencost_download(profiles)

    answer = ctx.answer("profiles")
    answered = [pa for pa in answer.profiles if pa.tornado is not None]
    if answered:
        st.subheader("Sensitivity: each input ±20 %")
        c1, c2 = st.columns(2)
        chosen = c1.selectbox("Profile", [pa.profile.name for pa in answered], key="tornado_profile")
        pa = next(pa for pa in answered if pa.profile.name == chosen)
        c2.markdown(plain(f"$/M of {pa.series} at {fmt.interactivity(answer.interactivity_needed)} (the interactivity you need)"
                          if pa.tornado_unit == "usd_per_mtok" else
                          "$/GPU-hour (no series of this hardware is in view to price tokens)"))
        st.plotly_chart(tornado_figure(pa.tornado, pa.tornado_base, pa.tornado_unit), width="stretch",
                        key="tornado_chart")
        for _, _, _, text in pa.break_even:
            st.markdown(plain(text + "."))
    tco.team_store(profiles, read_only=data.read_only())
else:
    tco.team_store([], read_only=data.read_only())
