"""The capacity and the fleet of an answer: pure steps (:class:`model.present.parts.Answer` calls them).

Capacity is what one node of each series carries under the view's SLA at the interactivity you need
(:func:`model.core.fleet.node_capacity`); the fleet sizes it for the view's demand or budget
(:func:`model.core.fleet.size_fleet`), and says in words how each series is priced.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Mapping

import pandas as pd

from model.core.cost import resolve_rates
from model.core.cost_profiles import CostProfile
from model.core.demand import SECONDS_PER_MONTH, TOKEN_BASES, Demand, load_of, tokens_per_request
from model.core.fleet import (
    bill_following,
    demand,
    fleet_over_time,
    node_capacity,
    preset_kw_per_gpu,
    pricing_options,
    size_fleet,
)
from model.core.plausible import fleet_question
from model.core.shape import curve_of
from model.core.sla import SLA
from model.core.trace import Trace
from model.core.view import View
from model.present import fmt
from model.present.parts import FleetAnswer

__all__ = ["fleet_headline", "capacity_of", "fleet_of", "fleet_sentence", "power_words", "capacity_lines", "demand_of", "demand_words",
           "load_sentence", "workload_notes"]


def capacity_of(view: View, points: pd.DataFrame, by: tuple[str, ...], x: float | None) -> pd.DataFrame:
    """What one node of each series carries under the view's SLA at ``x`` [tok/s/user], its knees read by the view's
    rule, with its GPUs per node where the rows do not say. A node's requests per second do not depend on the token
    basis; the blended basis (tokens weighted for pricing) reads capacity on the tokens a file states (``auto``), so
    a fleet and a volume count real tokens."""
    sla = SLA.from_text(view.sla) if view.sla else None
    basis = "auto" if view.basis in ("total", "blended") else view.basis
    return node_capacity(points, sla, by, basis, view.rule, view.gpus_per_node, interactivity_min=x)


def fleet_of(view: View, capacity: pd.DataFrame, x: float | None, presets: pd.DataFrame,
             rates: pd.DataFrame, bands: Mapping[str, tuple[float, float]] | None = None) -> FleetAnswer | None:
    """The fleet for the view's demand (req/s, tokens/day, tokens/month or a trace) or budget; None when the view
    has neither. Tokens per month become tokens per day as ``× 24 / 730`` (a month is 730 hours). ``rates``: the
    answer's rate table (its words say how a series is priced); the view's ``kw_per_gpu``, ``pue``, ``rack_kw`` and
    ``token_basis`` tune it. ``bands``: each series' band of its $/M at ``x`` as (down, up) fractions (its capacity's
    band, as the volume step reads it): a fleet for a demand gives, beside its nodes, the nodes and $ a month a node
    carrying from ``1 / (1 + up)`` to ``1 / (1 − down)`` times its measured capacity would need (``nodes_low``,
    ``nodes_high``, ``usd_per_month_low``, ``usd_per_month_high``; equal to the nodes for a ramp's knee, NaN without
    a band)."""
    s = view
    wants_demand, wants_budget = s.has_demand, s.has_budget
    if not (wants_demand or wants_budget):
        return None
    sla = SLA.from_text(s.sla) if s.sla else None
    hardware = sorted(capacity["hardware"].dropna().unique()) if not capacity.empty else []
    chosen = [p for p in s.cost_profiles() if p.name in s.priced_by]
    resolved = resolve_rates(hardware, presets, s.price_set, s.tier, dict(s.rates))
    words = {r["hardware"].lower(): r["detail"] for r in rates.to_dict("records")}
    priced = pricing_options(hardware, resolved, preset_kw_per_gpu(presets, s.price_set), chosen,
                             dict(s.kw_per_gpu) or None, s.pue)
    priced = [{**o, "pricing": words.get(str(o["hardware"]).lower(), "not set")} if o["pricing"] == "rate"
              else {**o, "pricing": _profile_pricing(o, chosen)} for o in priced]
    basis = s.token_basis or _basis(capacity)
    need = demand_of(s, basis) if wants_demand else None
    sized = size_fleet(capacity, priced, need, s.budget_mw if not wants_demand else None,
                       s.budget_usd_month if not wants_demand else None, s.rack_kw)
    if need is not None and not sized.empty:
        sized = _within_band(sized, capacity, priced, need, s.rack_kw, bands or {})
    if need is not None:      # following the load is a cost only where the view rents on demand, at its rate
        sized = bill_following(sized, dict(s.rent) if s.on_demand else None)
    notes = _kw_notes(s.kw_per_gpu, hardware)
    if capacity.empty:
        notes.append("no load ramps or sweeps in this view to size a fleet from")
    elif capacity["per_node_rps"].isna().all():
        notes.append("no measured point in view meets the SLA" + (f" and {fmt.interactivity(x)}" if x else ""))
    if not capacity.empty and "contradiction" in capacity.columns:
        for row in capacity[capacity["contradiction"].notna()].to_dict("records"):
            notes.append(f"{row['series']}: the capacity rests on a measured point, and {row['contradiction']}")
    sentences, said, over_time = [], "", None
    if need is not None and not sized.empty:
        curved = need.shape is not None
        for row in sized[sized["nodes"].notna() & (sized["nodes"] > 0)].to_dict("records"):
            sentences.append(fleet_sentence(row, curved))
        usable = capacity[capacity["per_node_rps"] > 0] if not capacity.empty else capacity
        first = usable.iloc[0] if not usable.empty else (capacity.iloc[0] if not capacity.empty else None)
        if first is not None:
            per_request = tokens_per_request(first.get("isl"), first.get("osl"), need.token_basis)
            said = load_sentence(need, per_request)
            notes.extend(workload_notes(need, load_of(need, per_request), first.get("isl"), first.get("osl")))
        over_time = fleet_over_time(capacity, need) if curved else None
    fleet = FleetAnswer("demand" if need is not None else "budget", demand_words(s, basis), x,
                        sla.describe() if sla else "none", capacity, sized, tuple(sentences), tuple(notes), said,
                        over_time, capacity_lines(sized))
    question = fleet_question(dict(zip(sized["series"], sized["nodes"]))) \
        if fleet.kind == "demand" and not sized.empty and "nodes" in sized.columns else None
    return replace(fleet, headline=fleet_headline(fleet), question=question)


def fleet_headline(fleet: FleetAnswer) -> str:
    """The fleet's answer in one sentence (:attr:`model.present.parts.FleetAnswer.headline`): for a demand the
    cheapest fleet bought for the peak (and the cheapest rented on demand, following the load, where the view rents
    so); for a budget the series that serves most."""
    sized = fleet.sized
    if sized.empty or "nodes" not in sized.columns:
        return ""
    have = sized[sized["nodes"].notna() & (sized["nodes"] > 0) & sized["usd_per_month"].notna()]
    if have.empty:
        return "No series in view can be sized for this " + ("demand." if fleet.kind == "demand" else "budget.")
    if fleet.kind != "demand":
        best = have.sort_values("requests_per_second", ascending=False, kind="stable").iloc[0]
        return (f"{fleet.need[:1].upper() + fleet.need[1:]} serves most with {best['series']}: "
                f"{best['nodes']:,.0f} nodes, {best['requests_per_second']:,.3g} req/s, "
                f"${best['usd_per_month']:,.0f} a month.")
    best = have.sort_values("usd_per_month", kind="stable").iloc[0]
    text = (f"Cheapest fleet for {fleet.need}, bought for the peak: {best['series']}, {best['nodes']:,.0f} nodes "
            f"({best['gpus']:,.0f} GPUs, {power_words(best)}), ${best['usd_per_month']:,.0f} a month at "
            f"{fmt.usd(best['usd_per_gpu_hour'], '/GPU-hour')}, every hour paid.")
    if "usd_per_month_autoscaled" in fleet.columns:
        billed = have[have["usd_per_month_autoscaled"].notna()]
        if not billed.empty:
            od = billed.sort_values("usd_per_month_autoscaled", kind="stable").iloc[0]
            text += (f" Rented on demand, following the load: {od['series']}, ${od['usd_per_month_autoscaled']:,.0f}"
                     f" a month at {fmt.usd(od['usd_per_gpu_hour_autoscaled'], '/GPU-hour')} (set in this view).")
    return text


def _kw_notes(kw_per_gpu, hardware) -> list[str]:
    """What the view's kW per GPU applies to: every hardware without its own (``*``, a link's ``kwg=1.4``), named;
    a hardware it names that has no rows in view."""
    own = {str(hw).lower() for hw, _ in kw_per_gpu}
    notes = [f"kW per GPU {kw:g} (all-in IT) applies to every hardware without its own: "
             + (", ".join(h for h in map(str, hardware) if h.lower() not in own) or "none in view")
             for hw, kw in kw_per_gpu if hw == "*"]
    return notes + [f"kW per GPU {kw:g} for {hw}: no {hw} rows in view" for hw, kw in kw_per_gpu
                    if hw != "*" and hw.lower() not in {str(h).lower() for h in hardware}]


def _scaled(capacity: pd.DataFrame, factor: Mapping[str, float]) -> pd.DataFrame:
    """``capacity`` with each frontier point's per-node rate and tokens scaled by its series' factor (a ramp's knee,
    a measured rate, unchanged)."""
    f = capacity["series"].map(factor).astype(float).where(capacity["method"] != "ramp knee", 1.0).fillna(1.0)
    return capacity.assign(per_node_rps=capacity["per_node_rps"] * f,
                           tokens_per_second_per_node=capacity["tokens_per_second_per_node"] * f)


def _within_band(sized: pd.DataFrame, capacity: pd.DataFrame, priced: list[dict], need, rack_kw,
                 bands: Mapping[str, tuple[float, float]]) -> pd.DataFrame:
    """``sized`` with the nodes and $ a month each row would need with its capacity as high and as low as its
    series' band allows (:func:`fleet_of`)."""
    most = {k: 1 / (1 - d) for k, (d, u) in bands.items() if math.isfinite(d) and d < 1}
    least = {k: 1 / (1 + u) for k, (d, u) in bands.items() if math.isfinite(u)}
    high_capacity = size_fleet(_scaled(capacity, most), priced, need, None, None, rack_kw)
    low_capacity = size_fleet(_scaled(capacity, least), priced, need, None, None, rack_kw)
    banded = sized["series"].isin(set(most) & set(least)) | (sized["method"] == "ramp knee")
    out = sized.assign(nodes_low=high_capacity["nodes"].where(banded), nodes_high=low_capacity["nodes"].where(banded),
                       usd_per_month_low=high_capacity["usd_per_month"].where(banded),
                       usd_per_month_high=low_capacity["usd_per_month"].where(banded))
    return out


def fleet_sentence(row: Mapping, curved: bool) -> str:
    """One sized series in words: nodes, GPUs, kW, $/month at its rate and how it is priced; where the view rents
    its hardware on demand (:func:`model.core.fleet.bill_following`), what renting it on demand, following the load,
    would cost at the rental rate."""
    text = (f"{row['series']}: {row['nodes']:,.0f} nodes{_nodes_range(row)}, {row['gpus']:,.0f} GPUs, "
            f"{power_words(row)}, ${row['usd_per_month']:,.0f} a month at "
            f"{fmt.usd(row['usd_per_gpu_hour'], '/GPU-hour')}; rate: {row['pricing']}")
    usd = row.get("usd_per_month_autoscaled")
    if curved and usd is not None and usd == usd:
        mean = row["mean_nodes"]
        text += (f"; rented on demand at {fmt.usd(row['usd_per_gpu_hour_autoscaled'], '/GPU-hour')} (set in this "
                 f"view), following the load: {mean:,.3g} node{'' if mean == 1 else 's'} on average, ${usd:,.0f} a "
                 "month")
    return text


def power_words(row: Mapping) -> str:
    """``276 kW`` (IT power); with a PUE other than 1, ``276 kW IT, 358 kW facility at PUE 1.3``."""
    pue = row.get("pue")
    facility = row.get("facility_kw")
    if pue is None or pue != pue or pue == 1 or facility is None or facility != facility:
        return f"{row['kw']:,.0f} kW"
    return f"{row['kw']:,.0f} kW IT, {facility:,.0f} kW facility at PUE {pue:g}"


def _nodes_range(row: Mapping) -> str:
    """`` (12 to 14 within its capacity's range)`` where the band moves the node count, else empty."""
    low, high = row.get("nodes_low"), row.get("nodes_high")
    if low is None or high is None or not (math.isfinite(low) and math.isfinite(high)) or low == high:
        return ""
    return f" ({low:,.0f} to {high:,.0f} within its capacity's range)"


def capacity_lines(sized: pd.DataFrame) -> tuple[str, ...]:
    """Where each series' per-node capacity comes from, one line per series and method (the page, the report and
    ``size`` print these)."""
    if sized.empty or "capacity_from" not in sized.columns:
        return ()
    return tuple(f"{series} ({method}): {where}" for series, method, where in
                 sized.drop_duplicates(["series", "method"])[["series", "method", "capacity_from"]]
                 .itertuples(index=False))


def _basis(capacity: pd.DataFrame) -> str:
    """What a volume counts when none is said: the capacity's token basis (as Buy, rent or API reads it)."""
    usable = capacity[capacity["per_node_rps"] > 0] if not capacity.empty else capacity
    basis = str(usable.iloc[0].get("basis") or "total") if not usable.empty else "total"
    return basis if basis in TOKEN_BASES else "total"


def demand_of(view: View, token_basis: str | None = None) -> Demand:
    """The view's demand (:class:`model.core.demand.Demand`): its peak, volume, shape or trace, headroom,
    spares, minimum kept up and scale-up step."""
    s = view
    return demand(requests_per_second=s.demand_rps, tokens_per_day=s.tokens_per_day,
                  tokens_per_month=s.tokens_per_month, peak_to_average=s.peak_to_average,
                  curve=curve_of(s.shape), trace=Trace.from_text(s.trace) if s.trace else None,
                  window_minutes=s.trace_window, token_basis=token_basis, headroom=s.headroom, spares=s.spares,
                  min_nodes=s.min_nodes, step=s.scale_step)


def _number(value: float) -> str:
    return fmt.compact(value) if value >= 1000 else f"{value:.3g}"


def demand_words(view: View, basis: str = "total") -> str | None:
    """The view's demand or budget as typed, the one sentence every surface prints: ``"16 B total tokens a month
    (peak 2× the average)"``, ``"6 req/s at peak and 3 B total tokens a month (business-hours shape)"``, ``"a
    budget of 2.5 MW"``; None when it states neither."""
    s = view
    if not s.has_demand and s.has_budget:
        parts = ([f"{s.budget_mw:g} MW"] if s.budget_mw is not None else []) + \
            ([f"${s.budget_usd_month:,.0f} a month"] if s.budget_usd_month is not None else [])
        return "a budget of " + " and ".join(parts)
    typed = ((s.demand_rps, lambda v: f"{_number(v)} req/s at peak"),
             (s.tokens_per_month, lambda v: f"{fmt.compact(v)} {basis} tokens a month"),
             (s.tokens_per_day, lambda v: f"{fmt.compact(v)} {basis} tokens a day"),
             (s.trace or None, lambda v: f"the {Trace.from_text(v).words()} ({s.trace_window}-minute windows)"))
    parts = [say(value) for value, say in typed if value is not None]
    if not parts:
        return None
    extra = []
    if s.shape and not s.trace:
        extra.append(f"{s.shape} shape" if s.shape in ("flat", "business-hours", "diurnal") else "a typed 24-hour shape")
    elif not s.trace and s.peak_to_average != 1:
        extra.append(f"peak {s.peak_to_average:g}× the average")
    if s.headroom != 1:
        extra.append(f"headroom {s.headroom:g}×")
    if s.spares:
        extra.append(fmt.count(s.spares, "spare node"))
    return " and ".join(parts) + (f" ({', '.join(extra)})" if extra else "")


def load_sentence(need: Demand, per_request: float) -> str:
    """The peak and the volume of ``need``, the one not typed derived by the shape, in one sentence."""
    load = load_of(need, per_request)
    shape = need.shape
    how = shape.words() if shape is not None else \
        (f"peak {need.factor:.3g}× the average" if need.factor != 1 else "flat (no shape given)")
    volume = f"{fmt.compact(load.tokens_per_month)} {need.token_basis} tokens a month"
    trace = need.trace
    if trace is not None and not load.volume_typed:    # a trace's volume is its own requests' tokens
        own = load.mean_rps * tokens_per_request(trace.mean_isl, trace.mean_osl, need.token_basis) * SECONDS_PER_MONTH
        if math.isfinite(own) and own > 0:
            volume = f"{fmt.compact(own)} {need.token_basis} tokens a month of the trace's own requests"
            if abs(own - load.tokens_per_month) > 0.005 * own:
                volume += (f" ({fmt.compact(load.tokens_per_month)} at the view's workload, which sizes and prices "
                           "the fleet)")
    mean = f"{_number(load.mean_rps)} req/s on average"
    if load.peak_typed and load.volume_typed:
        text = (f"Peak {_number(load.peak_rps)} req/s (typed) sizes the fleet bought for the peak; {volume} (typed), "
                f"{mean}, prices it; shape {how}")
        if shape is not None and abs(load.curve_peak_rps - load.peak_rps) > 0.01 * load.peak_rps:
            text += (f". The curve at your volume peaks at {_number(load.curve_peak_rps)} req/s, not "
                     f"{_number(load.peak_rps)}: on demand follows the curve")
        return text + "."
    if load.peak_typed:
        return f"Peak {_number(load.peak_rps)} req/s (typed), shape {how}: {mean}, {volume} (derived)."
    if load.volume_typed:
        return f"{volume[:1].upper() + volume[1:]} (typed), shape {how}: {mean}, peak {_number(load.peak_rps)} req/s (derived)."
    return f"The {how}: {mean}, peak {_number(load.peak_rps)} req/s, {volume}."


#: a typed peak more than this many times what the shape gives for a typed volume is named (a slip, or a shape left out)
PEAK_SLIP = 2.0


def workload_notes(need: Demand, load, isl, osl) -> list[str]:
    """Where the demand does not fit the view's workload: a trace whose mean ISL/OSL differ by more than 10 %
    (it is sized at the view's workload, and says so), a typed peak below the volume's mean, or, with no curve, a
    typed peak more than :data:`PEAK_SLIP` times the one the shape gives the typed volume."""
    notes = []
    trace = need.trace
    if trace is not None and need.curve is not None:
        notes.append(f"the trace gives the shape over time: the {need.curve.name} shape is not used")
    if trace is not None:
        view_isl, view_osl = float(isl) if isl == isl and isl is not None else math.nan, \
            float(osl) if osl == osl and osl is not None else math.nan
        off = [f"{name} {mine:,.0f} (the view's {theirs:,.0f})" for name, mine, theirs in
               (("ISL", trace.mean_isl, view_isl), ("OSL", trace.mean_osl, view_osl))
               if math.isfinite(theirs) and theirs > 0 and abs(mine - theirs) > 0.1 * theirs]
        if off:
            notes.append(f"the trace's requests average {' and '.join(off)}: its requests are sized at the view's "
                         "workload's throughput, not their own; choose a workload near the trace's for a true answer")
    if load.peak_typed and load.volume_typed and load.peak_rps < load.mean_rps:
        notes.append(f"the peak you gave ({_number(load.peak_rps)} req/s) is below the volume's average "
                     f"({_number(load.mean_rps)} req/s): the fleet bought for the peak cannot carry the volume")
    elif (load.peak_typed and load.volume_typed and need.shape is None and load.mean_rps > 0
          and load.peak_rps > PEAK_SLIP * need.factor * load.mean_rps):
        said = "flat: the peak is the average" if need.factor == 1 else f"peak {need.factor:.3g}× the average"
        notes.append(f"the peak you gave ({_number(load.peak_rps)} req/s) is {load.peak_rps / load.mean_rps:,.3g}× "
                     f"the volume's average ({_number(load.mean_rps)} req/s), where the shape says {said}: the "
                     "fleet bought for the peak is sized for your peak and on demand is priced by the shape; if "
                     "both numbers are right, give the shape that relates them (a day's curve or a peak-to-average "
                     "factor)")
    return notes


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
