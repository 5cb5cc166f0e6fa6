"""Crossovers: where one series becomes cheaper than another, and the rate at which it would."""

import numpy as np
import streamlit as st

from model import figures
from model.analysis import ALL_PAIRS_LIMIT
from model.answers import break_even_answer, cheapest_at, common_range, default_pair, pair_intervals
from model.iso import break_even_rates
from model.viewstate import pair_text
from ui import frame, report, widgets
from ui.state import bind, commit, plain

ctx = frame.context(__file__)
st.title("Crossovers")
if widgets.no_data(ctx):
    st.stop()
result = ctx.analysis(crossovers="auto")
widgets.notes(result)
st.plotly_chart(figures.crossover_figure(result.curves, result.crossovers, result.reach, ctx.state.method),
                width="stretch", key="crossover_chart")
if result.crossovers.empty:
    st.info("No two cost curves cross inside their common range: the cheaper series stays cheaper.")
else:
    st.markdown("\n".join(   # one sentence per pair; the numbers are the chart's crossing markers
        f"- **{plain(row['series_a'])} and {plain(row['series_b'])}** (crossing{'s' if len(row['crossings']) > 1 else ''}"
        f" {', '.join(map(str, row['crossings']))}): {plain(row['text'])}"
        for _, row in pair_intervals(result.crossovers, result.reach).iterrows()))
    report.table_download(ctx, "Crossovers")
if result.envelope is not None and len(result.curves) > ALL_PAIRS_LIMIT:
    st.markdown(f"**Where the cheapest series changes**, across all {len(result.curves)} series (the lower envelope "
                "of their cost curves; the crossings above are " + plain(
                    {"baseline": "each series against the baseline", "selected": "the selected series"}.get(
                        result.crossover_pairs, result.crossover_pairs)) + ")")
    widgets.table(result.envelope.changes, key="envelope_table")
st.markdown("**Reach**: the interactivity range of each frontier")
widgets.table(result.reach, key="reach_table")

names = sorted(result.curves)
if len(names) >= 2:
    st.subheader("Break-even $/GPU-hour")
    lo = min(c.x_min for c in result.curves.values())
    hi = max(c.x_max for c in result.curves.values())
    middle = result.targets[len(result.targets) // 2] if result.targets else lo
    c1, c2, c3 = st.columns(3)
    x = bind(c1.number_input, "x", "headline_x", "At interactivity [tok/s/user]", min_value=round(lo * 0.5, 1),
             max_value=round(hi * 1.5, 1), step=1.0, format="%.1f",
             to_widget=lambda v: float(min(max(v or middle, lo * 0.5), hi * 1.5)))
    pair = ctx.state.pair_names()
    if pair and not set(pair) <= set(names):
        st.warning(plain(f"The pair {' and '.join(pair)} from the link is not among the series shown; showing the "
                         "two cheapest instead."))
        pair = ()
    a, b = pair or default_pair(cheapest_at(result.curves, x, ctx.state.method)) or names[:2]

    def _on_pair() -> None:
        chosen_a, chosen_b = st.session_state["pair_a"], st.session_state["pair_b"]
        commit(pair=pair_text(chosen_a, chosen_b) if chosen_a != chosen_b else None)

    st.session_state["pair_a"], st.session_state["pair_b"] = a, b
    c2.selectbox("Price this series", names, key="pair_a", on_change=_on_pair)
    c3.selectbox("to match", names, key="pair_b", on_change=_on_pair)
    if a == b:
        st.info("Pick two different series.")
    else:
        answer = break_even_answer(result.curves, a, b, x, ctx.state.method)
        st.markdown(f"### {plain(answer['text'])}")
        span = common_range(result.curves, a, b)
        if span:
            table = break_even_rates(result.curves, a, b, np.linspace(*span, 60), ctx.state.method)
            st.plotly_chart(figures.break_even_figure(table, a, b, x), width="stretch", key="break_even_chart")
            st.caption(plain(f"Across interactivity: the rate at which {a} costs what {b} costs per million tokens "
                             f"(break-even rate = rate of {a} × cost of {b} ÷ cost of {a}, at the same "
                             "interactivity)."))
