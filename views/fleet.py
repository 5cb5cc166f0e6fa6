"""Fleet sizing, both ways: from a demand to nodes, GPUs, kW and $/month; from a power or money budget
to the load it serves. Capacity per node comes from a measured point under the sidebar's SLA, at the
interactivity you need (the same as the Overview's and the report's)."""

import streamlit as st

from model.present import fmt
from ui import frame, widgets
from ui.state import bind, plain

ctx = frame.context()
st.title("Fleet sizing")
st.caption("Per-node capacity is the knee of a request-rate ramp, or for a concurrency sweep the best measured point "
           "that meets the SLA and the interactivity you need. Every GPU-hour is paid for (730 hours a month), so "
           "an on-prem profile's full-use rate applies here, where token costs use its effective rate.")
if widgets.no_data(ctx):
    st.stop()
way = st.radio("Size from", ("a demand", "a budget"), horizontal=True, key="fleet_way",
               index=1 if (ctx.state.budget_mw or ctx.state.budget_usd_month) else 0)
c1, c2, c3 = st.columns(3)
if way == "a demand":
    bind(c1.number_input, "demand_rps", "Peak demand [req/s]", value=None, step=1.0, format="%g",
         placeholder="e.g. 10")
    bind(c2.number_input, "headroom", "Headroom [capacity ÷ peak]", min_value=1.0, max_value=100.0, step=0.05)
    bind(c3.number_input, "spares", "Spare nodes (N+1 = 1)", min_value=0, max_value=100_000, step=1)
else:
    bind(c1.number_input, "budget_mw", "Power budget [MW, facility]", value=None, step=0.5, format="%g")
    bind(c2.number_input, "budget_usd_month", "Money budget [$/month]", value=None, step=10_000.0, format="%g")
answer = ctx.answer
x = answer.interactivity_needed
st.caption(plain(f"SLA: {ctx.state.sla or 'none'}; interactivity you need: "
                 + (fmt.interactivity(x) if x else "not set (Overview page)")))
fleet = answer.fleet
if fleet is None:
    st.info("Enter a demand or a budget above.")
    st.stop()
for note in fleet.notes:
    st.info(plain(note[:1].upper() + note[1:] + "."))
if fleet.sized.empty:
    st.stop()
for sentence in fleet.sentences:
    st.markdown(plain(sentence))
# the numbers a decision needs first, so they fit a 1280-pixel screen; where the rate comes from and the notes
# follow behind the table's "More columns" switch (and say the same as the sentences above and the captions below)
columns = (["series", "nodes", "gpus", "kw", "usd_per_month", "per_node_rps", "usd_per_gpu_hour", "pricing", "note"]
           if fleet.kind == "demand" else ["series", "limit", "nodes", "gpus", "kw", "usd_per_month",
                                           "requests_per_second", "tokens_per_second", "users", "pricing", "note"])
widgets.table(fleet.sized[[c for c in columns if c in fleet.sized.columns]], key="fleet_table",
              details=("pricing", "note"))
for series, method, text in fleet.sized.drop_duplicates(["series", "method"])[["series", "method", "capacity_from"]] \
        .itertuples(index=False):
    st.caption(plain(f"{series} ({method}): {text}"))
