"""Fleet sizing, both ways: from a demand to nodes, GPUs, kW and $/month; from a power or money budget
to the load it serves. Capacity per node comes from a measured point under the sidebar's SLA, at the
interactivity you need (the same as the Overview's and the report's)."""

import streamlit as st

from model.core.fleet import preset_kw_per_gpu
from model.present import fmt
from model.present.run_to_run_answer import run_to_run_lines
from ui import frame, numbers, widgets
from ui.demand import day_chart, fleet_boxes, fleet_settings, nodes_question, shape_boxes
from ui.state import plain

ctx = frame.context()


st.title("Fleet sizing")
if widgets.no_data(ctx):
    st.stop()
answer_box = st.container()     # the answer first (a phone's first screen too); the inputs that change it below
way = st.radio("Size from", ("a demand", "a budget"), horizontal=True, key="fleet_way",
               index=1 if (ctx.state.budget_mw or ctx.state.budget_usd_month) else 0)
c1, c2, c3 = st.columns(3)
if way == "a demand":
    numbers.field_box(c1, "demand_rps", placeholder="e.g. 10", question=nodes_question)
    numbers.field_box(c2, "tokens_per_month", placeholder="e.g. 3e9")
    numbers.field_box(c3, "headroom")
    d1, d2, d3 = st.columns(3)
    shape_boxes(d1)
    numbers.field_box(d2, "spares")
    fleet_boxes(d3)
else:
    numbers.field_box(c1, "budget_mw")
    numbers.field_box(c2, "budget_usd_month")
with st.expander("How the fleet is sized: knee rule, GPUs per node, power, racks", expanded=False):
    fleet_settings(sorted(map(str, ctx.points["hardware"].dropna().unique())),
                   preset_kw_per_gpu(ctx.presets, ctx.state.price_set))
answer = ctx.answer("cost", "fleet", "run_to_run")
x = answer.interactivity_needed
fleet = answer.fleet
with answer_box:
    if fleet is None:
        st.info("Enter a demand or a budget below.")
    elif not fleet.sized.empty:
        st.success(plain(fleet.headline))
        widgets.answer_table(fleet.sized, fleet.answer_columns)
if fleet is None or fleet.sized.empty:
    for note in fleet.notes if fleet is not None else ():
        st.info(plain(fmt.sentence(note)))
    st.stop()
st.subheader("Every series")
st.caption(plain(f"SLA: {ctx.state.sla or 'none'}; interactivity you need: "
                 + (fmt.interactivity(x) if x else "not set (Overview page)")))
for note in fleet.notes:
    st.info(plain(fmt.sentence(note)))
if fleet.said:
    st.info(plain(fleet.said))
for sentence in fleet.sentences:
    st.markdown(plain(sentence))
# the numbers a decision needs first (model.present.parts.FLEET_SPEC), so they fit a 1280-pixel screen; where the
# rate comes from and the notes follow behind the table's "More columns" switch
widgets.table(fleet.sized[fleet.columns], key="fleet_table",
              details=("method", "pricing", "status", "note", "effective_usd_per_mtok", "utilization", "tokens_per_month",
                       "nodes_low", "nodes_high", "usd_per_month_low", "usd_per_month_high",
                       "effective_usd_per_mtok_autoscaled", "utilization_autoscaled", "usd_per_gpu_hour_autoscaled"))
if fleet.kind == "demand":
    day_chart(fleet, "fleet_day")
for line in fleet.capacity_lines:
    st.caption(plain(line))
for line in run_to_run_lines(answer.run_to_run.fleet):     # the capacity point's run-to-run band, named
    st.caption(plain(line))
st.caption("Per-node capacity is the knee of a request-rate ramp, or for a concurrency sweep the best measured point "
           "that meets the SLA and the interactivity you need. A fleet bought for the peak pays every GPU-hour (730 "
           "hours a month), so an on-prem profile's full-use rate applies here, where token costs use its effective "
           "rate; only a fleet rented on demand (Buy, rent or API page) pays just the node-hours it runs, following "
           "the load. Give a peak, a monthly volume or both (the peak sizes the fleet, the volume prices it).")
