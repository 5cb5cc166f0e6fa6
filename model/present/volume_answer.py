"""Buy, rent or call an API: the view's volume answer (:attr:`model.present.parts.Answer.volume`).

:func:`volume_of` turns a view with a monthly volume (``tokens_per_month``) into a :class:`VolumeAnswer`:
every way to serve it (owned per series, by a chosen cost profile or the view's rate; rented at the view's
rented rates; the API), each evaluated at the volume, the break-even volumes, and the verdict sentence.
The arithmetic is :mod:`model.core.volume`; the page, the report and ``costfrontier volume`` render this.
"""

from __future__ import annotations

import math
from datetime import date
from typing import Mapping

import pandas as pd

from model.core.dated import old_rate_notes
from model.core.demand import TOKEN_BASES, load_of, tokens_per_request
from model.core.fleet import finite_number
from model.core.plausible import fleet_question
from model.core.view import View
from model.core.volume import (
    NEAR_TIE,
    ApiPrice,
    LineCost,
    Option,
    StepCost,
    above,
    api_cost,
    api_usd_per_mtok,
    cheaper_where,
    days_old,
    evaluate,
    match_api_model,
    owned_cost,
    owned_rate,
    ranking,
    rented_cost,
)
from model.present import fmt
from model.present.fleet_answer import demand_of, load_sentence, workload_notes
from model.present.parts import VolumeAnswer

__all__ = ["api_line", "volume_of", "curve", "ROW_COLUMNS", "option_range", "about_the_same",
           "shown_rows", "SHOWN_COLUMNS", "api_price_of", "cache_hit_of"]

ROW_COLUMNS = ["option", "kind", "usd_per_month", "effective_usd_per_mtok", "nodes", "mean_nodes", "node_hours",
               "utilization", "detail", "capacity_error", "capacity_down", "capacity_up", "nodes_low", "nodes_high", "usd_per_month_low",
               "usd_per_month_high", "effective_usd_per_mtok_low", "effective_usd_per_mtok_high", "mean_nodes_low",
               "mean_nodes_high", "hardware", "gpus_per_node", "usd_per_gpu_hour", "tokens_per_month"]


def _unique(frame: pd.DataFrame, column: str) -> list:
    if column not in frame.columns:
        return []
    return list(dict.fromkeys(v for v in frame[column].dropna().tolist() if str(v) != ""))


def _api_price(s: View, points: pd.DataFrame, prices: list[ApiPrice], notes: list[str]) -> tuple[ApiPrice | None, str]:
    if s.api_usd:
        return ApiPrice("custom prices", *s.api_usd, source="set in this view"), "set in this view"
    names = [p.model for p in prices]
    if s.api is not None:
        found = next((p for p in prices if p.model.lower() == s.api.lower()), None)
        if found is None:
            notes.append(f"no stored API price for {s.api!r}; known: {', '.join(names) or 'none'}")
            return None, ""
        return found, "chosen in this view"
    models = _unique(points, "model")
    if len(models) != 1:
        notes.append("the rows in view hold " + ("no model name" if not models else f"{len(models)} models")
                     + ": choose the API model to compare with")
        return None, ""
    name, how, candidates = match_api_model(str(models[0]), names)
    if name is None:
        notes.append(f"no API price matches the benchmark's model {models[0]!r} by name"
                     + (f" (several could: {', '.join(candidates)})" if candidates else "")
                     + "; choose one, or enter custom prices")
        return None, ""
    price = next(p for p in prices if p.model == name)
    words = ("the same model by name" if how == "exact" else
             f"the closest priced model by name to the benchmark's {models[0]} (not necessarily the same weights)")
    return price, words


def _cache_hit(s: View, points: pd.DataFrame) -> tuple[float, str]:
    if s.cache_hit is not None:
        return s.cache_hit, "set in this view"
    hits = _unique(points, "prefix_cache_hit_rate")
    if len(hits) == 1:
        return float(hits[0]), "the benchmark rows' prefix-cache hit rate"
    return 0.0, "no cache hits (the rows state none)" if not hits else "0 (the rows state several hit rates)"


def api_price_of(view: View, points: pd.DataFrame, prices: list[ApiPrice]) -> tuple[ApiPrice | None, str, list[str]]:
    """The API price ``view`` compares with (or sells at: :mod:`model.present.sell_answer`): its typed prices, its
    chosen model, else the stored price matched by the name of ``points``' model; ``(price, how it was chosen,
    notes)``."""
    notes: list[str] = []
    price, words = _api_price(view, points, prices, notes)
    return price, words, notes


def cache_hit_of(view: View, points: pd.DataFrame) -> tuple[float, str]:
    """The prefix-cache hit rate of ``view``'s API bill and where it came from: typed, the rows', else 0."""
    return _cache_hit(view, points)


def _rate_of(rates: pd.DataFrame, hardware: str) -> tuple[float, str]:
    rows = rates[rates["hardware"].str.lower() == str(hardware).lower()]
    if rows.empty:
        return math.nan, "not set"
    row = rows.iloc[0]
    return finite_number(row["usd_per_gpu_hour_full_use"]), str(row["detail"])


def _demand(s, usable: pd.DataFrame, notes: list[str]) -> tuple[float | None, object, str]:
    """The volume [tokens/month], the view's demand (:class:`model.core.demand.Demand`) and the sentence saying
    its peak and volume; the volume derived from a peak or a trace by the shape at the first series' workload."""
    basis = str(usable.iloc[0].get("basis") or "total") if not usable.empty else "total"
    need = demand_of(s, basis if basis in TOKEN_BASES else "total")
    if usable.empty:
        return s.tokens_per_month, need, ""
    first = usable.iloc[0]
    per_request = tokens_per_request(first.get("isl"), first.get("osl"), need.token_basis)
    load = load_of(need, per_request)
    notes.extend(workload_notes(need, load, first.get("isl"), first.get("osl")))
    if need.shape is None and need.factor > 1 and s.rent and s.on_demand:
        notes.append("a peak-to-average factor has no curve to follow: on demand is priced at the average load, a "
                     "lower bound; choose a 24-hour shape or a trace to price it at its own billing")
    volume = load.tokens_per_month
    return (volume if math.isfinite(volume) and volume > 0 else s.tokens_per_month), need, \
        load_sentence(need, per_request)


def volume_of(view: View, capacity: pd.DataFrame, rates: pd.DataFrame, points: pd.DataFrame, x: float | None,
              prices: list[ApiPrice], today: date | None = None,
              bands: Mapping[str, tuple[float, float]] | None = None) -> VolumeAnswer | None:
    """Step ``volume``: buy, rent or call an API at the view's monthly volume, typed or derived from its peak or
    trace by the shape (None when the view states no demand: :attr:`model.core.view.View.has_demand`).

    ``capacity``: what one node of each series carries (:func:`model.present.fleet_answer.capacity_of`); ``rates``:
    the answer's rate table; ``points``: the rows priced (their model names the API, their prefix-cache hit rate
    its bill); ``x``: the interactivity you need [tok/s/user]; ``prices``: the stored API prices
    (:func:`model.data.api_prices.load_api_prices`); ``bands``: each series' band of its $/M at ``x`` as (down, up)
    fractions (its
    capacity's, :class:`model.core.volume.Option`; a series not in it has none estimated; a ramp's knee, a measured
    rate, has none).
    """
    s = view
    bands = bands or {}
    if not s.has_demand:
        return None
    today = today or date.today()
    notes: list[str] = old_rate_notes(rates, s.price_set, s.tier, today, s.price_stale_days)   # owned capacity
    usable = capacity[(capacity["tokens_per_second_per_node"] > 0)] if not capacity.empty else capacity
    usable = usable.drop_duplicates("series") if not usable.empty else usable
    volume, need, said = _demand(s, usable, notes)
    if volume is None:
        return None
    weights = need.shape.weights if need.shape is not None else (1.0,)
    chosen = [p for p in s.cost_profiles() if p.name in s.priced_by]
    options: list[Option] = []
    basis, isl, osl = "total", math.nan, math.nan
    for c in usable.to_dict("records"):
        hw, series, node_tps, gpn = c["hardware"], c["series"], float(c["tokens_per_second_per_node"]), \
            float(c["gpus_per_node"])
        basis = str(c.get("basis") or "total")
        if not math.isfinite(isl):
            isl, osl = finite_number(c.get("isl")), finite_number(c.get("osl"))
        where = f"{fmt.count(int(gpn), 'GPU')}/node, {node_tps:,.0f} tok/s/node: {c['capacity_from']}"
        # a ramp's knee is a measured rate (no interpolation: no ±); a frontier point stands for the curve at x
        error = (0.0, 0.0) if c.get("method") == "ramp knee" else bands.get(series, (math.nan, math.nan))
        load = load_of(need, tokens_per_request(c.get("isl"), c.get("osl"), need.token_basis))
        factor = load.peak_rps / load.mean_rps if load.peak_typed and load.mean_rps > 0 else need.factor
        factor = factor if math.isfinite(factor) and factor > 0 else need.factor
        mine = [p for p in chosen if p.hardware.lower() == str(hw).lower()]
        for p in mine or [None]:
            base_rate, source = (None, f"cost profile '{p.name}'") if p is not None else _rate_of(rates, hw)
            rate, lens_words = owned_rate(p, base_rate, s.lens)
            if rate is None or not math.isfinite(rate):
                notes.append(f"owned {series}: no $/GPU-hour ({source}), so it is left out")
                continue
            name = f"owned {series}" + (f" ({p.name})" if p is not None else "")
            options.append(Option(name, "owned", owned_cost(node_tps, gpn, rate, factor, s.headroom,
                                                            s.spares), node_tps,
                                  f"{fmt.usd(rate, '/GPU-hour')}, {lens_words}; {source}; {where}",
                                  error, str(hw), gpn))
        for rent_hw, usd in s.rent:
            if rent_hw.lower() != str(hw).lower():
                continue
            how = f"on demand (at least {fmt.count(s.min_nodes, 'node')} kept up)" if s.on_demand else "reserved"
            options.append(Option(f"rented {series}, {how}", "rented",
                                  rented_cost(node_tps, gpn, usd, s.on_demand, s.min_nodes, factor,
                                              s.headroom, s.spares, weights, s.scale_step), node_tps,
                                  f"{fmt.usd(usd, '/GPU-hour')} rented, set in this view; {where}",
                                  error, str(hw), gpn))
    if usable.empty:
        notes.append("no measured point in view meets the SLA" + (f" and {fmt.interactivity(x)}" if x else "")
                     + ": nothing to own or rent")
    price, matched = _api_price(s, points, prices, notes)
    api = None
    hit, hit_words = _cache_hit(s, points)
    if price is not None and math.isfinite(isl) and math.isfinite(osl) and basis in ("total", "output", "input"):
        per_m = api_usd_per_mtok(price, isl, osl, hit, basis)
        api = {"model": price.model, "provider": price.provider, "matched": matched, "usd_per_mtok": per_m,
               "usd_per_m_input": price.usd_input, "usd_per_m_cached_input": price.cached,
               "usd_per_m_output": price.usd_output, "read_on": price.read_on.isoformat() if price.read_on else None,
               "source": price.source, "cache_hit": hit, "cache_hit_from": hit_words, "isl": isl, "osl": osl}
        age = days_old(price, today)
        if age is not None and age > s.stale_days:
            notes.append(f"the {price.model} price was read on {price.read_on.isoformat()}, {age} days ago "
                         f"(more than {s.stale_days}): it may be stale")
        label = f"API {price.model}" + (f" ({price.provider})" if price.provider else "")
        options.append(Option(label, "api", api_cost(per_m),
                              detail=f"{fmt.usd(per_m)} {basis} tokens: ISL {isl:,.0f} / OSL {osl:,.0f}, "
                                     f"{fmt.percent(hit)} cache hits ({hit_words}); {matched}; read "
                                     f"{price.read_on.isoformat() if price.read_on else 'on an unstated date'}"
                                     + (f"; {price.source}" if price.source and price.source != matched else "")))
    elif price is not None:
        notes.append(f"the API cannot be priced on the {basis} basis without ISL and OSL" if basis in
                     ("total", "output", "input") else
                     f"the API is priced per total, output or input token, not on the {basis} basis")
    evaluated = evaluate(options, volume)
    settled, contenders = ranking(evaluated)
    rows = pd.DataFrame(evaluated, columns=ROW_COLUMNS)
    break_evens = tuple(_break_evens(options))
    owned = rows[rows["kind"] != "api"]
    question = fleet_question(dict(zip(owned["option"], owned["nodes"]))) if not owned.empty else None
    return VolumeAnswer(volume, basis, s.lens, x, api, tuple(p.model for p in prices), tuple(options),
                        rows, break_evens, _verdict(rows, volume, basis, s.lens, settled, contenders),
                        tuple(dict.fromkeys(notes)), said, settled, contenders,
                        question.replace("this demand", "this volume") if question else None, api_line(api))


def api_line(api: dict | None) -> str:
    """The API price a volume is compared with, in one line (:attr:`model.present.parts.VolumeAnswer.api_line`): its
    model and provider, its three $/M, the date read, how it was matched and its source; "" when none."""
    if not api:
        return ""
    whence = "; ".join(dict.fromkeys(w for w in (api["matched"], api["source"]) if w))
    return (f"API price: {api['model']} ({api['provider'] or 'provider not stated'}), "
            f"{fmt.usd(api['usd_per_m_input'])} input, {fmt.usd(api['usd_per_m_cached_input'])} cached input, "
            f"{fmt.usd(api['usd_per_m_output'])} output, read {api['read_on'] or 'on an unstated date'}; {whence}.")


def _pairs(options: list[Option]):
    apis = [o for o in options if o.kind == "api"]
    for o in options:
        if o.kind != "api":
            for a in apis:
                yield o, a
    for o in options:
        if o.kind == "owned":
            series = o.name.removeprefix("owned ").split(" (")[0]
            for r in options:
                if r.kind == "rented" and r.name.removeprefix("rented ").startswith(series + ","):
                    yield o, r


def _break_evens(options: list[Option]) -> list[dict]:
    out = []
    for a, b in _pairs(options):
        intervals, complete = cheaper_where(a.cost, b.cost)
        start = above(intervals)
        if not intervals:
            text = f"{a.name} never costs less than {b.name}"
        elif start is not None and len(intervals) == 1:
            text = (f"{a.name} costs less than {b.name} at every volume" if start == 0 else
                    f"{a.name} costs less than {b.name} above {fmt.tokens(start)} tokens a month")
        else:
            parts = [("above " + fmt.tokens(lo)) if math.isinf(hi) else f"from {fmt.tokens(lo)} to {fmt.tokens(hi)}"
                     for lo, hi in intervals[:6]]
            text = f"{a.name} costs less than {b.name} " + ", ".join(parts) + " tokens a month" + \
                (" (and more intervals)" if len(intervals) > 6 else "")
        if not complete:
            text += " (solved up to a bounded number of node steps)"
        out.append({"cheaper": a.name, "than": b.name, "above_tokens_per_month": start, "intervals": intervals,
                    "text": text})
    return out


#: the columns of the comparison a person reads (the page's table; ``within``: :func:`option_range`)
SHOWN_COLUMNS = ["option", "usd_per_month", "effective_usd_per_mtok", "nodes", "mean_nodes", "node_hours",
                 "utilization", "within", "detail"]


def shown_rows(volume: VolumeAnswer) -> pd.DataFrame:
    """The comparison as a person reads it (:data:`SHOWN_COLUMNS`): each option's range within its capacity's ± in
    words instead of the six numbers behind it."""
    rows = volume.rows
    within = [option_range(r) or ("a price: no ±" if r["kind"] == "api" else "") for r in rows.to_dict("records")]
    return rows.assign(within=within)[SHOWN_COLUMNS]


def option_range(row: Mapping) -> str:
    """What an owned or rented option's capacity ± allows, in words (empty for the API or no ±): ``"1 to 2 nodes
    within the capacity's ± 11 %: $8,643 to $17,286 a month"``, or ``"1 node whatever the capacity's ± 11 %"``."""
    error = row.get("capacity_error")
    if row.get("kind") == "api" or row.get("nodes") is None:
        return ""
    if error is None or not math.isfinite(error):
        return "no ± estimated for its capacity"
    if error <= 0:
        return "capacity measured at the interactivity you need: no ±"
    pm = fmt.band_pm(row.get("capacity_down", error), row.get("capacity_up", error))
    low, high = row["nodes_low"], row["nodes_high"]
    if low == high and row["usd_per_month_low"] == row["usd_per_month_high"]:
        return f"{fmt.count(int(row['nodes']), 'node')} whatever the capacity's {pm}"
    nodes = f"{int(low):,} to {fmt.count(int(high), 'node')}" if low != high else fmt.count(int(low), "node")
    return (f"{nodes} within the capacity's {pm}: ${row['usd_per_month_low']:,.0f} to "
            f"${row['usd_per_month_high']:,.0f} a month")


def about_the_same(rows: pd.DataFrame, contenders: tuple[str, ...]) -> str:
    """``"owned A and API B cost about the same ($24 a month apart, 0.3 %)"``: the options the ranking does not
    separate (:func:`model.core.volume.ranking`), the gap between the cheapest two."""
    best, second = rows.iloc[0], rows.iloc[1]
    gap = second["usd_per_month"] - best["usd_per_month"]
    names = list(contenders)
    said = " and ".join(names) if len(names) <= 2 else ", ".join(names[:-1]) + f" and {names[-1]}"
    return (f"{said} cost about the same (${gap:,.0f} a month apart, {fmt.percent(gap / best['usd_per_month'], 1)}"
            f"{'' if len(names) <= 2 else ' between the cheapest two'})")


def _option_words(row) -> str:
    text = f"{row['option']}: ${row['usd_per_month']:,.0f} a month, {fmt.usd(row['effective_usd_per_mtok'])} effective"
    if row["kind"] != "api":
        text += f" ({fmt.count(int(row['nodes']), 'node')}, {fmt.percent(row['utilization'])} of it used"
        spread = option_range(row)
        text += f"; {spread})" if spread else ")"
    return text


def _verdict(rows: pd.DataFrame, volume: float, basis: str, lens: str, settled: bool | None = None,
             contenders: tuple[str, ...] = ()) -> str:
    lens_words = "full cost" if lens == "full" else "marginal lens: owned capacity counts power and operations only"
    head = f"At {fmt.tokens(volume)} {basis} tokens a month ({lens_words})"
    if rows.empty:
        return head + ", no option can be priced."
    if settled is False:
        tied = rows[rows["option"].isin(contenders)]
        return (f"{head}, {about_the_same(rows, contenders)}, within their capacity's ± or "
                f"{fmt.percent(NEAR_TIE)} of each other: " + "; ".join(_option_words(r) for _, r in tied.iterrows())
                + ".")
    best = rows.iloc[0]
    text = (f"{head}, {best['option']} is cheapest: ${best['usd_per_month']:,.0f} a month, "
            f"{fmt.usd(best['effective_usd_per_mtok'])} effective")
    if best["kind"] != "api":
        text += f" ({fmt.count(int(best['nodes']), 'node')}, {fmt.percent(best['utilization'])} of it used"
        spread = option_range(best)
        text += f"; {spread})" if spread else ")"
    if len(rows) > 1:
        second = rows.iloc[1]
        text += (f"; ${second['usd_per_month'] - best['usd_per_month']:,.0f} a month less than {second['option']} "
                 f"({fmt.usd(second['effective_usd_per_mtok'])} effective)")
    return text + "."


def curve(option: Option, lo: float, hi: float, max_steps: int = 400) -> tuple[list[float], list[float]]:
    """Monthly cost of ``option`` from volume ``lo`` to ``hi``, with a vertical rise at every node added
    (the first ``max_steps`` of them, then sampled)."""
    cost = option.cost
    if isinstance(cost, LineCost):
        return [lo, hi], [cost.usd(lo), cost.usd(hi)]
    assert isinstance(cost, StepCost)
    if len(cost.weights) > 1:     # a fleet following a curve steps in every interval: sampled on the log axis
        xs = [lo * (hi / lo) ** (i / (max_steps - 1)) for i in range(max_steps)] if lo > 0 else [lo, hi]
        return xs, [cost.usd(v) for v in xs]
    first, last = math.floor(lo / cost.width) + 1, math.floor(hi / cost.width)
    stride = max(1, (last - first + 1) // max_steps) if last >= first else 1
    xs, ys = [lo], [cost.usd(lo)]
    for j in range(first, last + 1, stride):
        b = j * cost.width
        xs += [b, b]
        ys += [cost.usd(b), cost.usd(b * (1 + 1e-6))]   # past the fleet rounding (9 decimals of nodes)
    xs.append(hi)
    ys.append(cost.usd(hi))
    return xs, ys
