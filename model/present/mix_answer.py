"""The cheapest mix of GPU types of a view's answer: the step ``mix`` (:data:`model.present.view_answer.STEPS`).

The view is a :func:`model.core.mix.mix_view` (every workload of its model, so each bucket of the request mix
can be matched to a measured ISL/OSL) holding a request mix and a demand; each series' per-node capacity and price
are its fleet's (:class:`model.present.parts.FleetAnswer`: the same ``size`` prints), and
:func:`model.core.mix.cheapest_mix` solves the mix. The page, ``costfrontier mix`` and the report's section read
this one value.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Mapping

from model.core.demand import load_of
from model.core.mix import MATCH_FACTOR, MixAnswer, MixLimits, cheapest_mix, offers_of
from model.core.request_mix import MixError, RequestMix, parse_mix
from model.core.view import View
from model.present.fleet_answer import demand_of
from model.present.parts import FleetAnswer

__all__ = ["mix_of", "limits_of", "MIX_PARTS"]

#: the parts of a mix view's answer the GPU mix page, ``costfrontier mix`` and the report's section read
MIX_PARTS = ("mix", "fleet", "rates", "notes")


def limits_of(view: View, max_nodes: dict | None = None, max_kw: dict | None = None) -> MixLimits:
    """The mix's limits: nodes and kW per type (``max_nodes``, ``max_kw``: the command line's), and the view's power
    budget for the whole mix (``budget_mw``)."""
    return MixLimits(dict(max_nodes or {}), dict(max_kw or {}),
                     view.budget_mw * 1000 if view.budget_mw is not None else None)


def mix_of(view: View, fleet: FleetAnswer | None, limits: MixLimits | None = None, factor: float | None = None,
           bucketed: RequestMix | None = None, bands: Mapping[str, tuple[float, float]] | None = None
           ) -> MixAnswer | None:
    """The cheapest mix (:class:`model.core.mix.MixAnswer`) for ``view``'s request mix and demand from its fleet's
    per-node capacity and pricing per series (:func:`model.core.mix.offers_of`): the demand's peak and mean at the
    mix's mean tokens per request on the view's token basis (default total), its headroom and spares. None when
    the view holds no request mix. ``bucketed``: the trace's mix the view's was written from
    (:func:`model.data.trace_files.mix_of_trace`): its buckets' labels (edges) and request counts are shown, the numbers
    are the view's. ``bands``: each series' range of its $/M at the interactivity you need as (down, up) fractions
    (its capacity's, as the fleet reads it): the mix is solved again with every type's capacity at the top and at the
    bottom of its range, for the answer's ``usd_per_month_low`` and ``_high``. Raises :class:`model.core.request_mix.MixError`
    for a mix with no demand."""
    if not view.request_mix:
        return None
    if fleet is None or fleet.kind != "demand":
        raise MixError("the mix needs a demand: a peak (req/s), a volume (tokens a month or a day) or a trace")
    mix = parse_mix(view.request_mix)
    if bucketed is not None and [(b.isl, b.osl) for b in bucketed.buckets] == [(b.isl, b.osl) for b in mix.buckets]:
        mix = RequestMix(tuple(replace(b, label=t.label, requests=t.requests)
                               for b, t in zip(mix.buckets, bucketed.buckets)),
                         bucketed.source, bucketed.isl_edges, bucketed.osl_edges)
    basis = view.token_basis or "total"
    per_request = sum(b.share * b.tokens(basis) for b in mix.buckets)
    load = load_of(demand_of(view, basis), per_request)
    offers = offers_of(fleet.sized, fleet.capacity)

    def solve(these):
        return cheapest_mix(mix, these, peak_rps=load.peak_rps, mean_rps=load.mean_rps, token_basis=basis,
                            headroom=view.headroom, spares=view.spares,
                            limits=limits if limits is not None else limits_of(view),
                            factor=factor if factor is not None else MATCH_FACTOR)

    answer = solve(offers)
    if not bands or offers.empty or not math.isfinite(answer.usd_per_month):
        return answer
    down = offers["series"].map(lambda s: bands.get(s, (math.nan, math.nan))[0]).astype(float)
    up = offers["series"].map(lambda s: bands.get(s, (math.nan, math.nan))[1]).astype(float)
    able = offers["per_node_rps"].astype(float).gt(0)       # a type with no capacity is no offer, with or without
    if not (down[able].notna().all() and up[able].notna().all()) or (down[able] >= 1).any():
        return answer
    down, up = down.fillna(0.0), up.fillna(0.0)
    most = solve(offers.assign(per_node_rps=offers["per_node_rps"] / (1 - down)))
    least = solve(offers.assign(per_node_rps=offers["per_node_rps"] / (1 + up)))
    low, high = most.usd_per_month, least.usd_per_month
    said = (f" With every type's capacity at the top and at the bottom of its range (where 9 in 10 measured points "
            f"left out fell), it costs ${low:,.0f} to ${high:,.0f} a month." if low != high else
            f" The capacities' ranges move no node: ${low:,.0f} a month either way.")
    return replace(answer, usd_per_month_low=low, usd_per_month_high=high, verdict=answer.verdict + said)
