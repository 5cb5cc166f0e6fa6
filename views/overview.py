"""Overview: the view's recommendation at the interactivity you need, and what data it comes from."""

import streamlit as st

from model.data.samples import load_samples
from model.present import fmt
from model.present.answers import cell_words
from ui import data, frame, widgets
from ui.state import bind, plain

ctx = frame.context()
st.title("Cost Frontier")
st.caption("What does a million tokens cost on this hardware, at this speed?")
if ctx.empty:
    st.subheader("No benchmark data loaded")
    st.markdown("This is a read-only deployment and its database holds no benchmark data yet: ask whoever runs "
                "it to load data with `costfrontier ingest` or `costfrontier load-samples`." if data.read_only() else
                "Load the bundled samples (SemiAnalysis InferenceX GLM-5 FP8 on B200 and MI355X, Wafer's GLM-5.2 "
                "MXFP4 ramp, TCO price sets), or upload your own files on the **Data** page.")
    if not data.read_only() and st.button("Load the bundled samples", key="load_samples", type="primary"):
        if data.write(load_samples, "load the samples") is not None:
            st.rerun()
    st.stop()

if widgets.no_data(ctx):
    st.stop()
answer = ctx.answer("recommendation", "rates", "overview")
cost = answer.cost
result = answer.crossed.analysis
if not result.curves:
    st.info("No series has both interactivity and throughput on this basis, so there is no frontier to price.")
    st.stop()
lo, hi = cost.x_range
bind(st.number_input, "interactivity_needed", min_value=lo, max_value=hi, step=1.0, format="%.1f",
     to_widget=lambda v: cost.interactivity_needed)
recommendation = answer.recommendation
st.subheader(plain(recommendation.headline))
st.markdown("\n".join(f"- {plain(line)}" for line in recommendation.lines[1:] if line not in recommendation.notes))
st.caption(plain(" ".join(recommendation.notes)))
if recommendation.break_even is not None:
    st.page_link("views/crossovers.py", label="The break-even $/GPU-hour of any two series: Crossovers",
                 icon=":material/swap_horiz:", query_params=ctx.state.to_query())
st.space(28)   # room for the table's toolbar (a phone always shows it), which covered the headline's end
widgets.table(cost.at_x[["series", "usd_per_mtok", "status", "usd_per_gpu_hour", "tokens_per_second_per_gpu",
                          "break_even_usd_per_gpu_hour"]].assign(status=cell_words(cost.at_x)), key="headline_table")
widgets.notes(result)   # after the answer, so a phone's first screen holds it
widgets.rate_sources(answer.rates)
sources = data.sources(ctx.version)
seen = answer.overview           # the rows the answer above priced: after the view's as-of and repeats
c1, c2, c3, c4 = st.columns([1, 1, 1, 1.6])
c1.metric("Sources", len(sources))
c2.metric("Rows in view", f"{seen.rows:,}")
c3.metric("Hardware in view", len(seen.hardware))
c3.caption(plain(", ".join(seen.hardware)) or "—")
c4.metric("Latest run", fmt.date(seen.latest_run) if seen.latest_run is not None else "not stated")
if seen.latest_run is not None and seen.earliest_run != seen.latest_run:
    c4.caption(f"earliest {fmt.date(seen.earliest_run)}")
with st.expander("Sources loaded", expanded=False):
    widgets.table(sources.drop(columns=["sha256"]))
