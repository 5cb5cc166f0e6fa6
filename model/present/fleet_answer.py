"""The capacity and the fleet of an answer: pure steps (:class:`model.present.view_answer.Answer` calls them).

Capacity is what one node of each series carries under the view's SLA at the interactivity you need
(:func:`model.core.fleet.node_capacity`); the fleet sizes it for the view's demand or budget
(:func:`model.core.fleet.size_fleet`), and says in words how each series is priced.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import pandas as pd

from model.core.cost import resolve_rates
from model.core.cost_profiles import CostProfile
from model.core.fleet import demand, node_capacity, preset_kw_per_gpu, pricing_options, size_fleet
from model.core.sla import SLA
from model.core.tco import HOURS_PER_MONTH
from model.core.view import View
from model.present import fmt

__all__ = ["FleetAnswer", "capacity_of", "fleet_of"]


@dataclass(frozen=True)
class FleetAnswer:
    """The fleet for the view's demand or budget (:func:`model.core.fleet.size_fleet`)."""

    kind: str                                  # "demand" or "budget"
    need: str                                  # the demand or budget in words
    x: float | None                            # interactivity the capacity was read at [tok/s/user]
    sla: str                                   # the SLA in words
    capacity: pd.DataFrame                     # model.core.fleet.node_capacity
    sized: pd.DataFrame                        # model.core.fleet.size_fleet
    sentences: tuple[str, ...]                 # one per sized series, with how it is priced
    notes: tuple[str, ...] = ()


def capacity_of(view: View, points: pd.DataFrame, by: tuple[str, ...], x: float | None,
                options: dict) -> pd.DataFrame:
    """What one node of each series carries under the view's SLA at ``x`` [tok/s/user]; ``options`` (``basis``,
    ``rule``, ``gpus_per_node``) tune it."""
    sla = SLA.from_text(view.sla) if view.sla else None
    basis = options.get("basis") or ("auto" if view.basis == "total" else view.basis)
    return node_capacity(points, sla, by, basis, options.get("rule", "first_failure"), options.get("gpus_per_node"),
                         interactivity_min=x)


def fleet_of(view: View, capacity: pd.DataFrame, x: float | None, presets: pd.DataFrame,
             rates: pd.DataFrame, options: Mapping) -> FleetAnswer | None:
    """The fleet for the view's demand (req/s, tokens/day or tokens/month) or budget; None when the view has
    neither. Tokens per month become tokens per day as ``× 24 / 730`` (a month is 730 hours). ``rates``: the
    answer's rate table (its words say how a series is priced); ``options`` (``kw_per_gpu``, ``pue``,
    ``rack_kw``, ``token_basis``) tune it."""
    s = view
    wants_demand = s.demand_rps is not None or s.tokens_per_day is not None or s.tokens_per_month is not None
    wants_budget = s.budget_mw is not None or s.budget_usd_month is not None
    if not (wants_demand or wants_budget):
        return None
    sla = SLA.from_text(s.sla) if s.sla else None
    hardware = sorted(capacity["hardware"].dropna().unique()) if not capacity.empty else []
    chosen = [p for p in s.cost_profiles() if p.name in s.priced_by]
    resolved = resolve_rates(hardware, presets, s.price_set, s.tier, dict(s.rates))
    words = {r["hardware"].lower(): r["detail"] for r in rates.to_dict("records")}
    priced = pricing_options(hardware, resolved, preset_kw_per_gpu(presets, s.price_set), chosen,
                             options.get("kw_per_gpu"), options.get("pue"))
    priced = [{**o, "pricing": words.get(str(o["hardware"]).lower(), "not set")} if o["pricing"] == "rate"
              else {**o, "pricing": _profile_pricing(o, chosen)} for o in priced]
    per_day = s.tokens_per_day if s.tokens_per_month is None else s.tokens_per_month * 24 / HOURS_PER_MONTH
    need = demand(requests_per_second=s.demand_rps, tokens_per_day=per_day,
                  peak_to_average=s.peak_to_average if per_day else None,
                  token_basis=options.get("token_basis"), headroom=s.headroom, spares=s.spares) \
        if wants_demand else None
    sized = size_fleet(capacity, priced, need, s.budget_mw if not wants_demand else None,
                       s.budget_usd_month if not wants_demand else None, options.get("rack_kw"))
    notes = []
    if capacity.empty:
        notes.append("no load ramps or sweeps in this view to size a fleet from")
    elif capacity["per_node_rps"].isna().all():
        notes.append("no measured point in view meets the SLA" + (f" and {fmt.interactivity(x)}" if x else ""))
    sentences = []
    if need is not None and not sized.empty:
        for row in sized[sized["nodes"].notna() & (sized["nodes"] > 0)].to_dict("records"):
            sentences.append(f"{row['series']}: {row['nodes']:,.0f} nodes, {row['gpus']:,.0f} GPUs, "
                             f"{row['kw']:,.0f} kW, ${row['usd_per_month']:,.0f} a month at "
                             f"{fmt.usd(row['usd_per_gpu_hour'], '/GPU-hour')}; rate: {row['pricing']}")
    return FleetAnswer("demand" if need is not None else "budget",
                       need.describe() if need is not None else
                       f"{s.budget_mw or 0:g} MW, ${s.budget_usd_month or 0:,.0f} a month", x,
                       sla.describe() if sla else "none", capacity, sized, tuple(sentences), tuple(notes))


def _profile_pricing(option: dict, chosen: list[CostProfile]) -> str:
    name = option["pricing"].removeprefix("profile ")
    p = next((q for q in chosen if q.name == name), None)
    if p is None:
        return option["pricing"]
    rate, full = p.rate(), p.paid_rate()
    if p.onprem is not None and rate is not None and full is not None and abs(rate - full) > 1e-12:
        return (f"cost profile '{p.name}' at its full-use rate {fmt.usd(full, '/GPU-hour')}, every hour of every "
                f"GPU being paid for (the cost pages price tokens at its effective {fmt.usd(rate, '/GPU-hour')} "
                f"= full use ÷ {fmt.percent(p.onprem.utilization)} utilisation)")
    return f"cost profile '{p.name}'" + (f" at {fmt.usd(full, '/GPU-hour')}" if full is not None else ", no price yet")
