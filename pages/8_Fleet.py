"""Fleet sizing, both ways: from a demand to nodes, GPUs, kW and $/month; from a power or money budget
to the load it serves. Capacity per node comes from a measured point under the sidebar's SLA."""

import streamlit as st

from model import fmt
from model.capacity import SLA
from model.fleet import demand, node_capacity, preset_kw_per_gpu, pricing_options, size_fleet
from model.tco import TcoInputError
from ui import frame, widgets
from ui.state import bind, plain

ctx = frame.context(__file__)
st.title("Fleet sizing")
st.caption("Per-node capacity is the knee of a request-rate ramp, or for a concurrency sweep the best measured point "
           "that meets the SLA and the interactivity you need. Every GPU-hour is paid for (730 hours a month).")
if widgets.no_data(ctx):
    st.stop()
way = st.radio("Size from", ("a demand", "a budget"), horizontal=True, key="fleet_way",
               index=1 if (ctx.state.budget_mw or ctx.state.budget_usd_month) else 0)
c1, c2, c3 = st.columns(3)
if way == "a demand":
    rps = bind(c1.number_input, "rps", "demand_rps", "Peak demand [req/s]", value=None, step=1.0, format="%g",
               placeholder="e.g. 10")
    bind(c2.number_input, "hr", "headroom", "Headroom [capacity ÷ peak]", min_value=1.0, max_value=100.0, step=0.05)
    bind(c3.number_input, "sp", "spares", "Spare nodes (N+1 = 1)", min_value=0, max_value=100_000, step=1)
else:
    bind(c1.number_input, "mw", "budget_mw", "Power budget [MW, facility]", value=None, step=0.5, format="%g")
    bind(c2.number_input, "bud", "budget_usd_month", "Money budget [$/month]", value=None, step=10_000.0, format="%g")
sla = SLA.from_text(ctx.state.sla) if ctx.state.sla else None
points, _, _ = ctx.priced()
capacity = node_capacity(points, sla, ctx.state.by, interactivity_min=ctx.state.headline_x)
chosen = [p for p in ctx.state.cost_profiles() if p.name in ctx.state.priced_by]
options = pricing_options(sorted(capacity["hardware"].dropna().unique()) if not capacity.empty else [], ctx.rates(),
                          preset_kw_per_gpu(ctx.presets, ctx.state.price_set), chosen)
by_hand = {hw.lower() for hw, _ in ctx.state.rates}
options = [{**o, "pricing": ("your rate" if o["hardware"].lower() in by_hand else
                             f"preset {ctx.state.price_set} / {ctx.state.tier}")} if o["pricing"] == "rate" else o
           for o in options]
try:
    need = demand(requests_per_second=ctx.state.demand_rps, headroom=ctx.state.headroom,
                  spares=ctx.state.spares) if way == "a demand" and ctx.state.demand_rps else None
    budgets = (ctx.state.budget_mw, ctx.state.budget_usd_month) if way == "a budget" else (None, None)
    sized = size_fleet(capacity, options, need, *budgets) if need or any(budgets) else None
except TcoInputError as exc:
    st.error(plain(str(exc)))
    st.stop()
st.caption(plain(f"SLA: {sla.describe() if sla else 'none'}; interactivity needed: "
                 + (fmt.interactivity(ctx.state.headline_x) if ctx.state.headline_x else "not set (Overview page)")))
if capacity.empty or capacity["per_node_rps"].isna().all():
    st.info("No measured point in view meets the limits: loosen the SLA, pick a ramp workload (e.g. the bundled "
            "Wafer GLM-5.2 sample), or set the interactivity you need on the Overview page.")
    st.stop()
if sized is None:
    st.info("Enter a demand or a budget above.")
    widgets.table(capacity[["series", "method", "per_node_rps", "tokens_per_second_per_node", "capacity_from"]],
                  key="capacity_table")
    st.stop()
columns = (["series", "pricing", "per_node_rps", "nodes", "gpus", "kw", "usd_per_gpu_hour", "usd_per_month", "note"]
           if need else ["series", "pricing", "limit", "nodes", "gpus", "kw", "usd_per_month", "requests_per_second",
                         "tokens_per_second", "users", "note"])
for row in sized[sized["nodes"].notna() & (sized["nodes"] > 0)].to_dict("records") if need else []:
    st.markdown(f"**{plain(row['series'])}** ({plain(row['pricing'])}): " + plain(
        f"{row['nodes']:,.0f} nodes, {row['gpus']:,.0f} GPUs, {row['kw']:,.0f} kW, ${row['usd_per_month']:,.0f} a month"))
widgets.table(sized[columns], key="fleet_table")
for series, method, text in sized.drop_duplicates(["series", "method"])[["series", "method", "capacity_from"]] \
        .itertuples(index=False):
    st.caption(plain(f"{series} ({method}): {text}"))
