"""Load ramps and capacity: the highest load that meets the SLA, tokens per dollar, and accuracy beside cost.

Renders the ramp part of the view's answer (:attr:`model.present.parts.Answer.ramps`), the one
``costfrontier capacity`` and ``compare`` print; the page computes nothing of its own.
"""

import streamlit as st

from model.present import fmt
from model.present.ramp_answer import EVAL_TABLE_COLUMNS, REFERENCE_PRECISION
from model.present.ramp_figures import ramp_figure
from ui import frame, widgets
from ui.state import bind, plain

ctx = frame.context()
st.title("Load ramps and capacity")
st.caption("Request-rate ramps against a latency SLA: the highest measured load that meets it, and what a million "
           "tokens costs there. Set the SLA in the sidebar.")
if widgets.no_data(ctx):
    st.stop()
ramps = ctx.answer("ramps").ramps
if ramps.empty:
    st.info("No request-rate ramps in view. A ramp is rows with a request rate and no interactivity, such as the "
            "bundled Wafer GLM-5.2 sample: pick its workload in the sidebar. Its filters and 'As of (run date)' leave rows out too.")
    for note in ramps.notes:
        st.caption(plain(fmt.sentence(note)))
    st.stop()
knees = ramps.knees
st.plotly_chart(ramp_figure(ramps.points, ramps.sla, knees), width="stretch", key="ramp_chart")
st.markdown("**Knee of each ramp** under "
            + plain(ramps.sla.describe() if ramps.sla else "no SLA (the highest rate measured)"))
widgets.table(knees[["series", "status", "request_rate", "usd_per_mtok", "ttft_s", "bracket_low", "bracket_high",
                     "crossing_rate", "tokens_per_second_per_gpu", "tokens_per_second_per_node", "basis",
                     "usd_per_gpu_hour", "first_failure", "bracket_text"]], key="knee_table",
              details=("bracket_low", "bracket_high", "crossing_rate", "tokens_per_second_per_gpu",
                       "tokens_per_second_per_node", "basis", "usd_per_gpu_hour", "first_failure", "bracket_text"))
st.caption("Each knee between the measured rates around it (More columns: bracket low, the knee, measured; bracket "
           "high, the first rate that breaks the SLA; the crossing, where the binding limit is reached on a straight "
           "line between them). The capacity reads the measured knee, never the crossing.")
for row in knees.to_dict("records"):
    st.markdown(f"**{plain(row['series'])}**: {plain(str(row['bracket_text']))}.")
    if isinstance(row.get("contradiction"), str):
        st.warning(plain(f"{row['series']}, the knee at {row['request_rate']:g} req/s: {row['contradiction']}."))
for basis in sorted(set(knees["basis"].dropna())):
    words = {"output": "output (generated) tokens", "total": "total (input + output) tokens",
             "input": "input tokens", "blended": "blended tokens"}.get(basis, f"{basis} tokens")
    st.caption(plain(f"Numbers on basis '{basis}' count {words}, as the source reports them; nothing is converted."))

st.subheader("Tokens per dollar, side by side")
bind(st.toggle, "compare_peaks", "Compare peaks (ignore the SLA)")
comparison = ramps.comparison
names = list(comparison.systems)
if len(names) < 2:
    st.info(plain(comparison.message))
else:
    bind(st.multiselect, "compare", "Systems", names,
         to_widget=lambda v: list(comparison.chosen), from_widget=tuple)
    bind(st.selectbox, "compare_base", "Against", names, to_widget=lambda v: comparison.base)
    if comparison.message:
        st.warning(plain(comparison.message))
    for _, row in comparison.table.iterrows():
        c1, c2, c3 = st.columns(3)
        c1.metric("Throughput ratio", fmt.ratio(row["throughput_ratio"]))
        c2.metric("Tokens per $ ratio", fmt.ratio(row["tokens_per_usd_ratio"]))
        c3.metric("Break-even price", fmt.usd(row["break_even_usd_per_gpu_hour"], "/GPU-h"))
        st.text(row["arithmetic"])

if not ramps.evals.empty:
    st.subheader("Accuracy beside cost")
    bind(st.number_input, "eval_tolerance", "Flag a score drop larger than", min_value=0.0,
         max_value=1.0, step=0.005, format="%.3f")
    widgets.table(ramps.evals[EVAL_TABLE_COLUMNS], key="evals_table")
    st.caption(f"Reference precision: {REFERENCE_PRECISION}. Source: the evaluation file's own rows (see the Data page).")
