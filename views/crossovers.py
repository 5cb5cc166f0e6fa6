"""Crossovers: where one series becomes cheaper than another, and the rate at which it would."""

import streamlit as st

from model.core.analysis import ALL_PAIRS_LIMIT
from model.core.view import pair_text
from model.present import figures
from model.present.answers import method_errors_text, pair_intervals, uncertain_crossings_text
from model.present.tables import CAPS_TABLE
from ui import frame, report, widgets
from ui.state import bind, commit, plain

ctx = frame.context()
st.title("Crossovers")
if widgets.no_data(ctx):
    st.stop()
answer = ctx.answer("crossed", "goodput_caps", "recommendation")
cost = answer.cost
result = answer.crossed.analysis
widgets.notes(result)
marked = answer.crossed.marked
curves, shown, reach = figures.only(widgets.drawn(answer.crossed), result.curves, marked, result.reach)
st.plotly_chart(figures.on_good_tokens(figures.crossover_figure(curves, shown, reach, cost.method,
                                                               cost.uncertainty), answer.rows.good.caps),
                width="stretch", key="crossover_chart")
widgets.band_note(curves)
if result.crossovers.empty:
    if result.crossover_pairs != "none":   # else no pair was crossed (many series): the note above says why
        st.info("No two cost curves cross inside their common range: the cheaper series stays cheaper.")
else:
    if len(shown) < len(marked):
        st.caption(f"{len(shown):,} of {len(marked):,} crossings: those between the series drawn. The download "
                   "lists all of them.")
    st.markdown("\n".join(   # one sentence per pair; the numbers are the chart's crossing markers
        f"- **{plain(row['series_a'])} and {plain(row['series_b'])}** (crossing{'s' if len(row['crossings']) > 1 else ''}"
        f" {', '.join(map(str, row['crossings']))}): {plain(row['text'])}"
        for _, row in pair_intervals(shown, result.reach).iterrows()) if not shown.empty else "")
    unsure = uncertain_crossings_text(shown)
    if unsure:
        st.markdown("**Within uncertainty** (grey crossing marks; the shaded bands are each curve's interpolation "
                    "error):\n" + "\n".join(f"- {plain(s)}" for s in unsure))
    report.table_download(ctx, "Crossovers")
st.caption(plain(method_errors_text(cost.uncertainty)))
if result.envelope is not None and len(result.curves) > ALL_PAIRS_LIMIT:
    st.markdown(f"**Where the cheapest series changes**, across all {len(result.curves)} series (the lower envelope "
                "of their cost curves; the crossings above are " + plain(
                    {"baseline": "each series against the baseline", "selected": "the selected series",
                     "none": "not computed: choose a baseline or select series"}.get(
                        result.crossover_pairs, result.crossover_pairs)) + ")")
    widgets.table(result.envelope.changes, key="envelope_table")
bind(st.text_input, "goodput", "Goodput caps (TTFT in s, TPOT in ms)", placeholder="ttft=2,tpot=50")
caps = answer.goodput_caps
if not caps.empty and answer.interactivity_needed is not None:
    st.markdown(f"**The cheapest as the TTFT cap moves**, at {answer.interactivity_needed:.4g} tok/s/user, in $ per "
                "good M tokens: a point's throughput counts only its requests meeting the caps (points without "
                "per-request data keep their summary throughput; set caps for every page with the link's goodput)")
    widgets.table(caps, key="goodput_caps_table")
    report.table_download(ctx, CAPS_TABLE)          # the same table as the report's and the CSV download's
st.markdown("**Reach**: the interactivity range of each frontier")
widgets.table(result.reach, key="reach_table")

names = sorted(result.curves)
if len(names) >= 2:
    st.subheader("Break-even $/GPU-hour")
    lo, hi = cost.x_range
    c1, c2, c3 = st.columns(3)
    x = bind(c1.number_input, "interactivity_needed", "At interactivity [tok/s/user]", min_value=lo, max_value=hi,
             step=1.0, format="%.1f", to_widget=lambda v: answer.interactivity_needed)
    if ctx.state.pair and ctx.state.pair_names() != cost.pair:
        st.warning(plain(f"The pair {' and '.join(ctx.state.pair_names())} from the link is not among the series "
                         "shown; showing the two cheapest instead."))
    a, b = cost.pair or names[:2]

    def _on_pair() -> None:
        chosen_a, chosen_b = st.session_state["pair_a"], st.session_state["pair_b"]
        commit(pair=pair_text(chosen_a, chosen_b) if chosen_a != chosen_b else None)

    st.session_state["pair_a"], st.session_state["pair_b"] = a, b
    c2.selectbox("Price this series", names, key="pair_a", on_change=_on_pair)
    c3.selectbox("to match", names, key="pair_b", on_change=_on_pair)
    if a == b:
        st.info("Pick two different series.")
    else:
        found = answer.recommendation.break_even
        same = found is not None and (found["series"], found["against"]) == (a, b)
        st.markdown(f"### {plain(found['text'] if same else cost.break_even['text'])}")
        if same:
            st.caption(plain(" ".join(answer.recommendation.notes)))
        table = answer.crossed.break_even_curve
        if table is not None and (a, b) == cost.pair:
            st.plotly_chart(figures.break_even_figure(table, a, b, x), width="stretch", key="break_even_chart")
            st.caption(plain(f"Across interactivity: the rate at which {a} costs what {b} costs per million tokens "
                             f"(break-even rate = rate of {a} × cost of {b} ÷ cost of {a}, at the same "
                             "interactivity)."))
