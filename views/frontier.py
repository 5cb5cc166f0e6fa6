"""Frontier: every measured point and each series' Pareto frontier."""

import streamlit as st

from model.present import figures, fmt
from ui import data, frame, report, widgets
from ui.state import bind, plain

ctx = frame.context()
st.title("Frontier")
st.caption("Every measured point, and each series' Pareto frontier of throughput per GPU against interactivity.")
if widgets.no_data(ctx):
    st.stop()
c1, c2 = st.columns([2, 1])
y = bind(c1.radio, "frontier_y", "Y axis", ("throughput", "cost"), horizontal=True,
         format_func=lambda v: "tok/s/GPU" if v == "throughput" else "$ per million tokens")
optimal = bind(c2.toggle, "optimal_only", "Optimal only")
answer = ctx.answer("cloud", "frontier_table")
result = answer.cloud
widgets.notes(result)
for note in answer.rows.good.notes:           # what the interactivity definition and goodput caps did to the rows
    if note not in result.notes:
        st.warning(plain(fmt.sentence(note)))
if answer.frontier_table.empty:
    st.info("No series in this view has a frontier: no point has both an interactivity and a throughput on the "
            f"view's token basis ({ctx.state.basis}). The notes above say which; try another basis in the sidebar.")
    st.stop()
cloud = result.points
if len(cloud) > figures.CLOUD_LIMIT and not optimal:
    if not bind(st.toggle, "all_points", f"Draw all {len(cloud):,} measured points"):
        cloud = figures.thin_cloud(cloud)
        st.caption(f"Showing {len(cloud):,} of {len(result.points):,} measured points (every "
                   f"{-(-len(result.points) // figures.CLOUD_LIMIT)}th); every frontier point is drawn.")
frontier_table = answer.frontier_table
# built once per view and data version, for every session (the view holds y, 'Optimal only' and 'Draw all')
figure = data.per_view(ctx, "frontier_figure", lambda: figures.on_good_tokens(
    figures.frontier_figure(cloud, frontier_table, y, optimal), answer.rows.good.caps))
st.plotly_chart(figure, width="stretch", key="frontier_chart")
if frontier_table["tput_min"].notna().any():
    st.caption("Bars: the min–max of a frontier point's repeats (the same configuration measured in several files "
               "or on several run dates); which repeats build the frontier is the sidebar's 'Repeat runs'.")
if not optimal and len(result.points) > figures.DETAIL_LIMIT:
    st.caption(f"{len(result.points):,} measured points: hovering one shows its series and values; frontier "
               "points (and 'Optimal only') show hardware, recipe, parallelism, concurrency, date and source.")
st.markdown("**Frontier points** (the measured points no other point of the series beats on both axes)")
banded = frontier_table["run_to_run_low"].notna().any()     # a point measured over repeated runs: its band shown
widgets.view_table(ctx, "frontier_rows", lambda: frontier_table[
    ["series", "interactivity", "tokens_per_second_per_gpu", "usd_per_mtok", "repeats", "spread_pct",
     *(("run_to_run_low", "run_to_run_high", "run_to_run_from") if banded else ()), "concurrency",
     "tp", "ep", "dp", "pp", "tput_min", "tput_max", "run_date", "source_file", "source_line"]].rename(
    columns={"spread_pct": "spread [%]", "run_to_run_low": "run-to-run low ×", "run_to_run_high": "run-to-run high ×"}),
    key="frontier_table", details=("concurrency", "tp", "ep", "dp", "pp", "tput_min", "tput_max", "run_date",
                                   "source_file", "source_line", "run_to_run_from"))
if banded:
    st.caption("Run-to-run low × / high ×: the point's throughput interval over its repeated runs, as a multiple of "
               "its throughput (AIPerf --num-profile-runs, checked against mean ± t·se); a point of one run has none.")
report.table_download(ctx, "Frontier points")
