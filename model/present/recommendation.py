"""The recommendation of a view: one answer composed from every part the view holds
(:attr:`model.present.parts.Answer.recommendation`), said the same way by the Overview, the break-even box,
the report's first page and the CLI.

At the interactivity you need it ranks the priced series by $/M with each one's band (where 9 in 10 measured points
left out fell: :mod:`model.core.uncertainty`); when the view holds a monthly volume it ranks owning, renting and the
API at that volume by their effective $/M (idle capacity included); it names the fleet and its monthly cost, and
the break-even $/GPU-hour of the pair the view compares. When the best two bands overlap it names no winner: the
ranking is "not settled by the data", given as ranges, and so is the break-even rate.
"""

from __future__ import annotations

import math

from model.core.status import priced_mask
from model.core.view import View
from model.present import fmt
from model.present.fleet_answer import demand_words, power_words
from model.present.parts import Choice, Cost, Crossed, FleetAnswer, Recommendation, Rows
from model.present.recommendation_words import (
    NOT_SETTLED,
    PAID,
    PLUS_MINUS,
    held_sentence,
    series_sentence,
    unpriced_sentence,
    volume_sentence,
    with_method,
    with_text,
    workload_words,
)

__all__ = ["recommendation_of"]


def _num(value):
    return None if value is None or (isinstance(value, float) and not math.isfinite(value)) else float(value)


def _series(cost: Cost) -> list[Choice]:
    x = cost.interactivity_needed
    if x is None or cost.at_x.empty:
        return []
    at = cost.at_x[priced_mask(cost.at_x)]    # only measured and interpolated cells are ranked (model.core.status)
    return [with_text(Choice(str(r["series"]), "series", float(r["usd_per_mtok"]), float(r["usd_per_mtok_low"]),
                             float(r["usd_per_mtok_high"]), str(r["error_from"]) or "none", status=str(r["status"])))
            for r in at.to_dict("records")]


def _contenders(series: list[Choice]) -> tuple[bool | None, tuple[str, ...]]:
    if not series:
        return None, ()
    if len(series) == 1:
        return None, (series[0].name,)
    best = series[0]
    if not best.banded or not series[1].banded:     # no range: every priced series could be the cheapest
        return None, tuple(c.name for c in series)
    tied = [c.name for c in series if c is best or (c.banded and c.low <= best.high)]
    return len(tied) == 1, tuple(tied)


def _options(volume) -> list[Choice]:
    if volume is None or volume.rows.empty:
        return []
    out = []
    for r in volume.rows.to_dict("records"):
        kind = str(r["kind"])
        error = float(r["capacity_error"]) if r["capacity_error"] is not None else math.nan
        out.append(with_text(Choice(str(r["option"]), kind, float(r["effective_usd_per_mtok"]),
                          float(r["effective_usd_per_mtok_low"]), float(r["effective_usd_per_mtok_high"]),
                          "price" if kind == "api" else "none" if not math.isfinite(error) else
                          "measured" if error == 0 else "capacity",
                          float(r["usd_per_month"]),
                          float(r["nodes"]) if r["nodes"] is not None else math.nan,
                          float(r["utilization"]) if r["utilization"] is not None else math.nan,
                          status=str(r.get("status", "")),
                          usd_per_month_span=(float(r["usd_per_month_low"]), float(r["usd_per_month_high"])),
                          nodes_span=(float(r["nodes_low"]), float(r["nodes_high"]))
                          if r["nodes_low"] is not None else None,
                          capacity_band=(float(r.get("capacity_down", math.nan)), float(r.get("capacity_up", math.nan)))
                          if kind != "api" else None)))
    return out


def _fleet(fleet: FleetAnswer | None, name: str | None) -> dict | None:
    if name is None or fleet is None or fleet.kind != "demand" or fleet.sized.empty:
        return None
    mine = fleet.sized[(fleet.sized["series"] == name) & fleet.sized["nodes"].notna()]
    if mine.empty:
        return {"series": name, "nodes": math.nan, "gpus": math.nan, "kw": math.nan, "usd_per_month": math.nan,
                "usd_per_gpu_hour": math.nan, "pricing": "", "text": f"{name} cannot be sized from this view's rows"}
    row = mine.iloc[0]
    out = {"series": name, "nodes": float(row["nodes"]), "gpus": float(row["gpus"]), "kw": float(row["kw"]),
           "facility_kw": float(row.get("facility_kw", math.nan)),
           "usd_per_month": float(row["usd_per_month"]), "usd_per_gpu_hour": float(row["usd_per_gpu_hour"]),
           "pricing": str(row["pricing"])}
    low, high = (float(row.get(k, math.nan)) for k in ("nodes_low", "nodes_high"))
    within = f" ({low:,.0f} to {high:,.0f} within its capacity's range)" if math.isfinite(low) and \
        math.isfinite(high) and low != high else ""
    out.update(nodes_low=low, nodes_high=high)
    out["text"] = (f"{name}: {row['nodes']:,.0f} nodes{within}, {row['gpus']:,.0f} GPUs, {power_words(row)}, "
                   f"${row['usd_per_month']:,.0f} a month at {fmt.usd(row['usd_per_gpu_hour'], '/GPU-hour')}")
    return out


def _break_even(cost: Cost, series: list[Choice]) -> dict | None:
    pair, x, found = cost.pair, cost.interactivity_needed, cost.break_even
    if pair is None or x is None or found is None or not math.isfinite(found["rate"]):
        return None
    by_name = {c.name: c for c in series}
    a, b = by_name.get(pair[0]), by_name.get(pair[1])
    rate, current = float(found["rate"]), float(found["current"])
    if a is None or b is None or not (a.banded and b.banded) or a.low <= 0:
        low = high = math.nan
    else:     # the rate at which a matches b is rate_a × $/M_b ÷ $/M_a: lowest with b low and a high
        low = rate * (b.low / b.usd_per_mtok) / (a.high / a.usd_per_mtok)
        high = rate * (b.high / b.usd_per_mtok) / (a.low / a.usd_per_mtok)
    where = fmt.interactivity(x)
    settled = None if not math.isfinite(low) else not (low <= current <= high)
    if settled is None:
        text = (f"At {where}, {pair[0]} would have to cost {fmt.usd(rate, '/GPU-hour')} instead of "
                f"{fmt.usd(current, '/GPU-hour')} to match {pair[1]} (no range can be estimated here).")
    elif settled:
        verb = "stays cheaper than" if current < rate else "becomes cheaper than"
        text = (f"At {where}, {pair[0]} {verb} {pair[1]} below {fmt.usd_band(rate, low, high, per='/GPU-hour')} "
                f"(now {fmt.usd(current, '/GPU-hour')}); which is cheaper now is settled by the data.")
    else:
        text = (f"At {where}, {pair[0]} would match {pair[1]} at a rate from {fmt.usd_span(low, high, '/GPU-hour')} "
                f"(now {fmt.usd(current, '/GPU-hour')}, inside that range): which is cheaper now is {NOT_SETTLED}.")
    return {"series": pair[0], "against": pair[1], "rate": rate, "low": low, "high": high, "current": current,
            "settled": settled, "text": text}


def recommendation_of(view: View, rows: Rows, cost: Cost, crossed: Crossed, fleet: FleetAnswer | None = None,
                      volume=None, mix=None) -> Recommendation:
    """The one recommendation of a view's answer: its series at the interactivity you need (``cost``, ``crossed``),
    and, when the view states a demand (:attr:`model.core.view.View.has_demand`), owning, renting and the API at its
    volume (``volume``: :class:`model.present.parts.VolumeAnswer`) and the fleet (``fleet``).

    ``mix`` (:class:`model.core.mix.MixAnswer`, the answer of the view's request mix: :func:`model.core.mix.mix_view`):
    the fleet is the mix's (the cheapest mix of types, or the single type no mix beats), said first with the share of
    requests no priced type measured; the fleet and the options at the volume of the view's own workload, which size
    every request at that workload's lengths, are left to their sections, and a note says so (the report's first
    page of a view with a request mix)."""
    x = cost.interactivity_needed
    scenario = rows.scenario
    series = _series(cost)
    settled, contenders = _contenders(series)
    volume = volume if view.has_demand and mix is None else None
    options = _options(volume)
    basis = volume.basis if volume is not None else scenario.basis
    demand = demand_words(view, basis)
    head = f"At {fmt.interactivity(x)}" if x is not None else "In this view"
    good = rows.good.caps      # goodput caps: every $/M is per good M tokens (model.core.goodput)
    if good is not None:
        head += f", per good M tokens ({good.words()})"
    lines: list[str] = []
    unpriced = _unpriced(cost)
    blocked = any(u["reaches"] for u in unpriced)
    held = _held(cost, series)
    if blocked:          # no winner without prices: the rates at which the unpriced would match come first
        lines.append(unpriced_sentence(unpriced, x))
        head += ", of the series with a rate"
    if held:             # no winner on a clamped cell, nor past one that may be cheaper
        lines.append(held_sentence(held, x))
        head += ", of the priced series" if series and not blocked else ""
        blocked = True
    lead = len(lines)        # the sentences why no series is named come first; a request mix's fleet next
    if options:
        lines.append(volume_sentence(options, f"{demand}, of the options with a price" if blocked else demand,
                                      series, volume))
        lines.append(with_method(series_sentence(cost, crossed, series, settled, contenders,
                                                   f"Per {'good ' if good else ''}million {scenario.basis} tokens at "
                                                   f"{fmt.interactivity(x)} and the rates in view"
                                                   if x is not None else "Per million tokens at the rates in view"),
                                  view, cost, series))
    elif x is None:
        lines.append("No series in this view can be priced." if not rows.rows.empty else
                     "No benchmark rows match this view's filters.")
    else:
        lines.append(with_method(series_sentence(cost, crossed, series, settled, contenders, head), view, cost,
                                  series))
    fleet = fleet if view.has_demand and mix is None else None
    owned = next((o for o in options if o.kind == "owned"), None)
    fleet_series = (owned.name.removeprefix("owned ").split(" (")[0] if owned is not None else
                    series[0].name if series and (settled is True or len(series) == 1) else None)
    sized = _fleet(fleet, fleet_series)
    if sized is None and settled is not True and demand is not None:
        each = [f for name in contenders if (f := _fleet(fleet, name)) is not None]
        if each:
            lines.append(f"Fleet for {demand}: " + "; ".join(f["text"] for f in each) + PAID)
    elif sized is not None:
        lines.append(f"Fleet for {demand}: {sized['text']}{PAID}")
    break_even = _break_even(cost, series)
    if break_even is not None:
        lines.append(break_even["text"])
    notes = []
    unbanded = [c.name for c in series if c.error_from == "none"]
    if unbanded:
        calibration = cost.uncertainty.calibration
        notes.append(f"No range for {', '.join(unbanded)}: this store holds "
                     f"{fmt.count(calibration.points, 'measured point')} with a neighbour on each side to test the "
                     f"interpolation on, and a range that holds 9 times in 10 needs at least 9.")
    if series:
        notes.append(PLUS_MINUS)
    notes.extend(f"{u['series']} has no $/GPU-hour, and its frontier does not reach {fmt.interactivity(x)}."
                 for u in unpriced if not u["reaches"] and x is not None)
    mixed = None
    if mix is not None:
        mixed, said = _mix_fleet(mix)
        shares = ", ".join(f"{r['label']} {fmt.percent(r['share'])}" for r in mix.buckets.to_dict("records"))
        whence = "" if mix.source == "typed" else f", from the {mix.source}"
        verdict = mix.verdict[:1].lower() + mix.verdict[1:] if mix.verdict[:2] in ("No", "A ") else mix.verdict
        lines[lead:lead] = [f"At {demand_words(view, mix.token_basis)} with its request mix ({shares}{whence}): "
                            f"{verdict}", *said]
        notes.append(f"The fleet above is the request mix's (the GPU mix section); the Fleet and Buy, rent or API "
                     f"sections size every request as {workload_words(view)}, the view's workload.")
    return Recommendation(x, cost.method, basis, demand, tuple(series), settled, contenders,
                          tuple(options), sized, break_even, tuple(lines + notes), tuple(notes), tuple(unpriced),
                          tuple(held), volume.settled if volume is not None else None,
                          volume.contenders if volume is not None else (), mixed)


def _mix_fleet(mix) -> tuple[dict, list[str]]:
    """The mix's fleet as page 1's figures read it, and the sentence naming the requests it does not serve."""
    buckets = mix.buckets
    missing = buckets[~buckets["measured"].astype(bool)] if not buckets.empty else buckets
    types = [{"type": str(r["type"]), "nodes": float(r["nodes"]), "gpus": float(r["gpus"]),
              "usd_per_month": float(r["usd_per_month"])} for r in mix.fleet.to_dict("records")]
    out = {"types": types, "usd_per_month": float(mix.usd_per_month), "usd_per_month_low": float(mix.usd_per_month_low),
           "usd_per_month_high": float(mix.usd_per_month_high), "covered_share": float(mix.covered_share),
           "unmeasured": [str(label) for label in missing["label"]] if not missing.empty else []}
    said = []
    if not missing.empty:
        share = float(missing["share"].sum())
        each = ", ".join(f"{r['label']} ({fmt.percent(r['share'], 1)})" for r in missing.to_dict("records"))
        said.append(f"{fmt.percent(share, 1)} of the requests ({each}) were measured on no priced type near their "
                    "lengths: no fleet above serves them, and their cost is in none of its figures; measure those "
                    "lengths to size them.")
    return out, said


# ------------------------------------------------------------------ series without a rate: no winner without prices


def _unpriced(cost: Cost) -> list[dict]:
    """Each series in view without a $/GPU-hour at the interactivity you need (:attr:`Cost.unpriced`): whether its
    frontier reaches there, its tok/s/GPU, and the rate at which it would match each priced series (cheapest
    first)."""
    table = cost.unpriced
    if table is None or table.empty:
        return []
    out = []
    for series, part in table.groupby("series", sort=True):
        first = part.iloc[0]
        matches = [{"against": str(r["against"]), "usd_per_mtok": float(r["against_usd_per_mtok"]),
                    "usd_per_gpu_hour": float(r["against_usd_per_gpu_hour"]),
                    "break_even_usd_per_gpu_hour": float(r["break_even_usd_per_gpu_hour"])}
                   for r in part.to_dict("records") if r["against"]]
        out.append({"series": str(series), "hardware": str(first["hardware"]), "reaches": bool(first["reaches"]),
                    "tokens_per_second_per_gpu": float(first["tokens_per_second_per_gpu"]), "matches": matches})
    return out


def _held(cost: Cost, series: list[Choice]) -> list[dict]:
    """The series clamped at the interactivity you need (held at their frontier's end: never priced, never ranked)
    whose held $/M is within reach of the cheapest priced series' (at or below its ± band's top): the data do not
    settle that the cheapest priced one is cheaper."""
    at = cost.at_x
    if at is None or at.empty or cost.interactivity_needed is None:
        return []
    best = series[0].high if series and math.isfinite(series[0].high) else \
        series[0].usd_per_mtok if series else math.inf
    mine = at[(at["status"] == "clamped") & (at["usd_per_mtok"] <= best)]
    return [{"series": str(r["series"]), "usd_per_mtok": float(r["usd_per_mtok"]), "side": str(r.get("side", ""))}
            for r in mine.to_dict("records")]


