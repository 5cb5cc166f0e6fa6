"""Load ramps and capacity: the highest load that meets the SLA, tokens per dollar, and accuracy beside cost."""

import streamlit as st

from model.core.capacity import compare_systems, knee, ramp_points
from model.core.sla import SLA
from model.data.evals import flag_regressions
from model.present import fmt
from model.present.ramp_figures import ramp_figure
from ui import data, frame, widgets
from ui.state import bind, plain

ctx = frame.context()
st.title("Load ramps and capacity")
st.caption("Request-rate ramps against a latency SLA: the highest measured load that meets it, and what a million "
           "tokens costs there. Set the SLA in the sidebar.")
if widgets.no_data(ctx):
    st.stop()
sla = SLA.from_text(ctx.state.sla) if ctx.state.sla else None
rates = ctx.rates()
ramp = ramp_points(ctx.points, ctx.state.by, sla)
if ramp.empty:
    st.info("No request-rate ramps in view. A ramp is rows with a request rate and no interactivity, such as the "
            "bundled Wafer GLM-5.2 sample: pick its workload in the sidebar.")
    st.stop()
knees = knee(ctx.points, sla, rates, "auto", ctx.state.by)
st.plotly_chart(ramp_figure(ramp, sla, knees), width="stretch", key="ramp_chart")
st.markdown("**Knee of each ramp** under " + plain(sla.describe() if sla else "no SLA (the highest rate measured)"))
widgets.table(knees[["series", "status", "request_rate", "tokens_per_second_per_node", "tokens_per_second_per_gpu",
                     "basis", "usd_per_gpu_hour", "usd_per_mtok", "ttft_s", "first_failure"]], key="knee_table")
for basis in sorted(set(knees["basis"].dropna())):
    words = {"output": "output (generated) tokens", "total": "total (input + output) tokens",
             "input": "input tokens", "blended": "blended tokens"}.get(basis, f"{basis} tokens")
    st.caption(plain(f"Numbers on basis '{basis}' count {words}, as the source reports them; nothing is converted."))

st.subheader("Tokens per dollar, side by side")
peaks = bind(st.toggle, "peak", "compare_peaks", "Compare peaks (ignore the SLA)",
             help="A system with no point meeting the SLA (e.g. a published peak without TTFT) can only be compared "
                  "at its peak.")
rows = knee(ctx.points, None if peaks else sla, rates, "auto", ctx.state.by)
rows = rows[rows["tokens_per_second_per_node"].notna()]
names = rows["series"].tolist()
if len(names) < 2:
    st.info("Fewer than two systems have a throughput to compare"
            + (" under this SLA; try comparing peaks." if sla and not peaks else "."))
else:
    chosen = bind(st.multiselect, "cmp", "compare", "Systems", names,
                  to_widget=lambda v: [n for n in v if n in names] or names, from_widget=tuple)
    base = bind(st.selectbox, "cmpb", "compare_base", "Against", names,
                to_widget=lambda v: v if v in names else names[0])
    try:
        table = compare_systems(rows[rows["series"].isin(set(chosen) | {base})], rates, baseline=base)
    except ValueError as exc:
        st.warning(plain(str(exc)))
    else:
        for _, row in table.iterrows():
            c1, c2, c3 = st.columns(3)
            c1.metric("Throughput ratio", fmt.ratio(row["throughput_ratio"]))
            c2.metric("Tokens per $ ratio", fmt.ratio(row["tokens_per_usd_ratio"]))
            c3.metric("Break-even price", fmt.usd(row["break_even_usd_per_gpu_hour"], "/GPU-h"))
            st.text(row["arithmetic"])

evals = data.evals(ctx.version)
models = set(ctx.points["model"].dropna()) if "model" in ctx.points else set()
evals = evals[evals["model"].isin(models)] if not evals.empty else evals
if not evals.empty:
    st.subheader("Accuracy beside cost")
    tolerance = bind(st.number_input, "tol", "eval_tolerance", "Flag a score drop larger than", min_value=0.0,
                     max_value=1.0, step=0.005, format="%.3f",
                     help="...or larger than the two scores' combined standard error.")
    flags = flag_regressions(evals, "fp8", tolerance)
    widgets.table(flags[["model", "eval", "setting", "precision", "score", "stderr", "drop", "flagged", "reason"]],
                  key="evals_table")
    st.caption("Reference precision: fp8. Source: the evaluation file's own rows (see the Data page).")
