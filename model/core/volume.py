"""Buy, rent or call an API: monthly cost of each way to serve a monthly token volume, and where they cross.

Pure arithmetic (no I/O). A month is 730 hours (:data:`model.core.tco.HOURS_PER_MONTH`), so
``S = 730 × 3600`` seconds, and a volume ``V`` [tokens/month, on the capacity's token basis] is an
average load of ``V / S`` tok/s; its peak is that × ``peak_to_average``.

- **owned** (a cost profile, or the view's $/GPU-hour): whole nodes bought for the peak, as the fleet
  sizing does (:func:`model.core.fleet.size_for_demand`): ``nodes = ceil(V / S × peak_to_average ×
  headroom / node tok/s) + spares``, every hour paid: ``usd = nodes × GPUs/node × rate × 730``. The
  rate is the profile's full-use rate (:meth:`~model.core.cost_profiles.CostProfile.paid_rate`), or
  in the *marginal* lens (capacity already owned) only its power and operations parts.
- **rented, reserved**: the same nodes at the rented $/GPU-hour.
- **rented, on demand** (autoscaled): paid per node-hour of a fleet that follows the demand's curve
  (:mod:`model.core.shape`, a trace's windows): in each interval ``ceil(V / S × weight × headroom / node tok/s) +
  spares`` nodes, at least ``min_nodes`` kept up, added ``step`` at a time; the month's cost is the mean over
  the intervals × 730 node-hours. With a peak-to-average factor and no curve there is nothing to follow: the
  average load (one weight), a lower bound.
- **API**: ``V / 1e6 × $/M``, the $/M of the workload's token mix (:func:`api_usd_per_mtok`).

Effective $/M = usd ÷ (V / 1e6). Utilisation = V ÷ (paid node-hours × node tokens per hour). Peak nodes,
mean nodes and node-hours a month are each option's.

Each owned or rented option carries its capacity's band (:class:`Option`: the interpolation band of its series at
the interactivity you need): the node counts, and so the $ a month and the effective $/M, that a node carrying
from ``1 / (1 + up)`` to ``1 / (1 − down)`` times its measured tokens would need. The API's price has none. The cheapest option is settled
only when no other reaches it within both ± ranges or :data:`NEAR_TIE` (:func:`ranking`): a 0.3 % gap is no win.

Costs are step functions (:class:`StepCost`) or lines (:class:`LineCost`); :func:`cheaper_where`
solves exactly where one is below another on the union of their steps (no sampling), up to the
volume past which their slopes alone decide, which it derives from bounds on both functions.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from datetime import date

import numpy as np

from model.core.tco import HOURS_PER_MONTH
from model.core.view_fields import DEFAULT_STALE_DAYS, LENSES

__all__ = ["SECONDS_PER_MONTH", "LENSES", "DEFAULT_STALE_DAYS", "ApiPrice", "api_usd_per_mtok", "match_api_model",
           "days_old", "StepCost", "LineCost", "cheaper_where", "above", "owned_rate", "owned_cost", "rented_cost",
           "api_cost", "Option", "evaluate", "NEAR_TIE", "ranking"]

SECONDS_PER_MONTH = HOURS_PER_MONTH * 3600.0
#: the most steps :func:`cheaper_where` walks before it reports only within that range
MAX_STEPS = 200_000
#: ... for a cost that follows a curve (each step costs an evaluation of every interval)
MAX_CURVE_STEPS = 4_000


# ------------------------------------------------------------------------------------------ API prices

@dataclass(frozen=True)
class ApiPrice:
    """A hosted API's list price [$ per million tokens] and where it was read."""

    model: str
    usd_input: float
    usd_cached_input: float | None       # None: the API bills cached input as input
    usd_output: float
    provider: str = ""
    read_on: date | None = None
    source: str = ""
    batch_discount_pct: float | None = None

    @property
    def cached(self) -> float:
        return self.usd_input if self.usd_cached_input is None else self.usd_cached_input


def api_usd_per_mtok(price: ApiPrice, isl: float, osl: float, cache_hit: float = 0.0, basis: str = "total") -> float:
    """The API's $ per million tokens of ``basis`` for requests of ``isl`` input and ``osl`` output tokens,
    a share ``cache_hit`` of the input served from the prefix cache (billed at the cached price):
    ``(ISL·(1−hit)·in + ISL·hit·cached + OSL·out) / tokens per request on the basis``.

    The issue's example: 8k/1k, no cache, $1.40/$4.40 → 8/9 × 1.40 + 1/9 × 4.40 = $1.733 per M total tokens.
    """
    if not (0 <= cache_hit <= 1):
        raise ValueError(f"cache-hit rate must be in [0, 1], got {cache_hit}")
    per_request = isl * (1 - cache_hit) * price.usd_input + isl * cache_hit * price.cached + osl * price.usd_output
    tokens = {"total": isl + osl, "output": osl, "input": isl}.get(basis)
    if tokens is None:
        raise ValueError(f"the API's $/M is per total, output or input token, not {basis!r}")
    return per_request / tokens if tokens > 0 else math.nan


def _tokens(name: str) -> list[str]:
    return re.findall(r"[a-z]+|\d+", str(name).lower())


def match_api_model(model: str | None, priced: list[str]) -> tuple[str | None, str, list[str]]:
    """Which priced API model stands for a benchmark's ``model``: ``(name, how, candidates)``.

    ``how`` is ``exact`` (same name, ignoring case and punctuation), ``family`` (one name's parts
    begin the other's: GLM-5 rows, GLM-5.2 price), ``ambiguous`` (several of either kind: the user
    picks) or ``none``. Never a guess past that: a model with no match gets no API price.
    """
    if not model:
        return None, "none", []
    mine = _tokens(model)
    exact = [p for p in priced if _tokens(p) == mine]
    if len(exact) == 1:
        return exact[0], "exact", exact
    if len(exact) > 1:
        return None, "ambiguous", exact
    family = [p for p in priced if (t := _tokens(p)) and (t[:len(mine)] == mine or mine[:len(t)] == t)]
    if len(family) == 1:
        return family[0], "family", family
    return None, ("ambiguous" if family else "none"), family


def days_old(price: ApiPrice, today: date) -> int | None:
    """Days since the price was read (None when the entry states no date)."""
    return (today - price.read_on).days if price.read_on is not None else None


# ------------------------------------------------------------------------------------------ cost curves

def _ceil(value: float) -> int:
    """Round up, ignoring floating noise below 1e-9 (the fleet sizing's rule); never past 1e300 (no overflow:
    node capacity under :data:`model.core.schema.MIN_TOKENS_PER_SECOND_PER_GPU` is not sized at all)."""
    return int(math.ceil(round(min(value, 1e300), 9)))


@dataclass(frozen=True)
class StepCost:
    """``usd(V) = per_node × mean over intervals of nodes_i(V)`` for V > 0 [$/month], where
    ``nodes_i = ⌈V × weight_i / width⌉ + extra`` (at least one node where the interval has load), at least
    ``min_nodes``, in whole ``step`` s, never more than the largest interval's (or the minimum).

    ``width`` is the volume one more node carries [tokens/month] at the mean load; ``per_node`` what a node
    costs a month. One weight (the default) is a fleet that never changes: nodes for ``V / width``.
    """

    per_node: float
    width: float
    extra: int = 0
    min_nodes: int = 0
    weights: tuple[float, ...] = (1.0,)
    step: int = 1

    def each(self, volume: float) -> list[int]:
        """Nodes of each interval at ``volume``."""
        if len(self.weights) == 1 and self.step == 1:
            return [max(self.min_nodes, (max(1, _ceil(volume / self.width)) if volume > 0 else 0) + self.extra)]
        load = np.asarray(self.weights) * (volume / self.width)
        need = np.where(load > 0, np.maximum(1, np.ceil(np.round(np.minimum(load, 1e300), 9))), 0) + self.extra
        top = max(float(need.max()), self.min_nodes)
        return np.minimum(np.maximum(np.ceil(need / self.step) * self.step, self.min_nodes), top).tolist()

    def nodes(self, volume: float) -> int:
        """Nodes at the peak."""
        return int(max(self.each(volume)))

    def mean_nodes(self, volume: float) -> float:
        each = self.each(volume)
        return sum(each) / len(each) if len(each) > 1 else float(each[0])

    def usd(self, volume: float) -> float:
        return self.per_node * self.mean_nodes(volume)

    @property
    def slope(self) -> float:
        return self.per_node / self.width

    def bounds(self) -> tuple[float, float, float]:
        """(intercept of an upper line, intercept of a lower line, a floor): usd ≤ max(floor, slope·V + upper),
        usd ≥ slope·V + lower."""
        if len(self.weights) == 1 and self.step == 1:
            return self.per_node * (1 + self.extra), self.per_node * self.extra, self.per_node * self.min_nodes
        return self.per_node * (self.extra + self.step + self.min_nodes), self.per_node * self.extra, \
            self.per_node * self.min_nodes


@dataclass(frozen=True)
class LineCost:
    """``usd(V) = V / 1e6 × usd_per_mtok`` [$/month]."""

    usd_per_mtok: float

    def usd(self, volume: float) -> float:
        return volume / 1e6 * self.usd_per_mtok

    @property
    def slope(self) -> float:
        return self.usd_per_mtok / 1e6

    def bounds(self) -> tuple[float, float, float]:
        return 0.0, 0.0, 0.0


def _horizon(f, g) -> float:
    """A volume past which only the slopes decide which of ``f``, ``g`` is cheaper (inf when equal slopes)."""
    if abs(f.slope - g.slope) <= 1e-15 * max(f.slope, g.slope):
        return math.inf
    lo, hi = (f, g) if f.slope < g.slope else (g, f)   # lo ends up cheaper
    upper, _, floor = lo.bounds()
    _, lower, _ = hi.bounds()
    cross = (upper - lower) / (hi.slope - lo.slope)
    floor_cross = (floor - lower) / hi.slope if hi.slope > 0 else math.inf
    return max(cross, floor_cross, 0.0)


def _breaks(cost, limit: float) -> list[float]:
    """Volumes up to ``limit`` where an interval of ``cost`` adds a node (at most :data:`MAX_STEPS` of them)."""
    if not isinstance(cost, StepCost):
        return []
    out: set[float] = set()
    for w in sorted(set(cost.weights), reverse=True):
        if w <= 0:
            continue
        width = cost.width / w
        n = min(int(math.floor(limit / width)), MAX_STEPS - len(out))
        out.update(j * width for j in range(1, n + 1))
        if len(out) >= MAX_STEPS:
            break
    return sorted(out)


def cheaper_where(f, g) -> tuple[list[tuple[float, float]], bool]:
    """Where ``f`` costs less than ``g``: volume intervals ``(lo, hi)`` [tokens/month] (``hi`` = inf: for
    every larger volume), and whether the walk was complete (False past :data:`MAX_STEPS` steps).

    Both functions are constant or linear between the union of their step volumes, so the answer is
    exact on each piece: the end of a piece where f − g changes sign is solved, not sampled.
    """
    horizon = _horizon(f, g)
    limit = horizon if math.isfinite(horizon) else max(
        [c.width * 10 for c in (f, g) if isinstance(c, StepCost)] or [1e9])
    complete = math.isfinite(horizon)
    for c in (f, g):
        if isinstance(c, StepCost):
            cap = MAX_STEPS if len(c.weights) == 1 else MAX_CURVE_STEPS
            per_token = sum(set(w for w in c.weights if w > 0)) / c.width      # node steps per token a month
            if limit * per_token > cap:
                limit, complete = cap / per_token, False
    points = sorted(set([0.0, *_breaks(f, limit), *_breaks(g, limit), limit]))
    points = [p for p in points if p <= limit]
    out: list[list[float]] = []
    for a, b in zip(points, points[1:]):
        if b - a <= 1e-12 * b:       # two steps at one volume (up to rounding): nothing between them
            continue
        # on (a, b] step functions are constant (their value at b), lines linear
        d_b = f.usd(b) - g.usd(b)
        mid = (a + b) / 2
        d_mid = f.usd(mid) - g.usd(mid)
        slope = (d_b - d_mid) / (b - mid)
        d_a = d_b - slope * (b - a)       # the limit of f − g as V → a from above
        lo = hi = None
        if d_a < 0 and d_b < 0:
            lo, hi = a, b
        elif d_a < 0 <= d_b:
            lo, hi = a, a + (-d_a) / slope
        elif d_b < 0 <= d_a:
            lo, hi = a + d_a / -slope, b
        if lo is not None and hi > lo:
            if out and abs(out[-1][1] - lo) <= 1e-9 * max(1.0, lo):
                out[-1][1] = hi
            else:
                out.append([lo, hi])
    if complete and f.slope < g.slope:   # past the horizon f stays cheaper
        if out and abs(out[-1][1] - limit) <= 1e-9 * max(1.0, limit):
            out[-1][1] = math.inf
        else:
            out.append([limit, math.inf])
    return [(lo, hi) for lo, hi in out], complete


def above(intervals: list[tuple[float, float]]) -> float | None:
    """The volume above which the cheaper option stays cheaper (the last interval's start when it is
    open-ended), else None."""
    return intervals[-1][0] if intervals and math.isinf(intervals[-1][1]) else None


# ------------------------------------------------------------------------------------------ options

def owned_rate(profile, preset_rate: float | None, lens: str = "full") -> tuple[float | None, str]:
    """The $/GPU-hour owned capacity costs every hour, and what it counts.

    ``full``: a profile's full-use rate, else ``preset_rate``. ``marginal`` (capacity already owned): only the
    power and operations parts of an on-prem build-up; a rate with no build-up has no parts, so it stays
    whole and the text says so.
    """
    if lens not in LENSES:
        raise ValueError(f"lens must be one of {', '.join(LENSES)}, got {lens!r}")
    full = profile.paid_rate() if profile is not None else preset_rate
    if lens == "full":
        return full, "full cost: every part of the rate, every hour"
    breakdown = profile.breakdown() if profile is not None else None
    if breakdown is None:
        return full, "marginal lens asked, but this rate has no build-up to split: counted whole"
    return breakdown.power + breakdown.operations, "marginal: power and operations only (capital and facility sunk)"


def owned_cost(node_tps: float, gpus_per_node: float, usd_per_gpu_hour: float, peak_to_average: float = 1.0,
               headroom: float = 1.0, spares: int = 0) -> StepCost:
    """Whole nodes bought for the peak, paid every hour (also a reserved rental at its rate)."""
    width = node_tps * SECONDS_PER_MONTH / (peak_to_average * headroom)
    return StepCost(gpus_per_node * usd_per_gpu_hour * HOURS_PER_MONTH, width, spares)


def rented_cost(node_tps: float, gpus_per_node: float, usd_per_gpu_hour: float, on_demand: bool,
                min_nodes: int = 1, peak_to_average: float = 1.0, headroom: float = 1.0, spares: int = 0,
                weights: tuple[float, ...] = (1.0,), step: int = 1) -> StepCost:
    """Rented nodes: reserved = the owned fleet at the rented rate; on demand = the nodes of each interval of the
    curve ``weights`` (mean 1; one weight: the average load, a lower bound for a load that varies), at least
    ``min_nodes``, in whole ``step`` s, each node-hour paid."""
    if not on_demand:
        return owned_cost(node_tps, gpus_per_node, usd_per_gpu_hour, peak_to_average, headroom, spares)
    width = node_tps * SECONDS_PER_MONTH / headroom
    return StepCost(gpus_per_node * usd_per_gpu_hour * HOURS_PER_MONTH, width, spares, min_nodes, tuple(weights), step)


def api_cost(usd_per_mtok: float) -> LineCost:
    return LineCost(usd_per_mtok)


@dataclass(frozen=True)
class Option:
    """One way to serve the volume, evaluated at it.

    ``band`` is the band of the $/M of the capacity a node carries, as (down, up) fractions (the interpolation band
    of its series at the interactivity you need, :mod:`model.core.uncertainty`; (0, 0) for a price or a measured
    point, NaN when none can be estimated): a node carries from ``1 / (1 + up)`` to ``1 / (1 − down)`` times
    ``node_tps``, so nodes, $ a month and the effective $/M lie in a range (:meth:`at`'s ``*_low`` and ``*_high``),
    which spans a node boundary or not."""

    name: str
    kind: str                      # owned | rented | api
    cost: object                   # StepCost or LineCost
    node_tps: float = math.nan     # tokens/s one node carries
    detail: str = ""
    band: tuple[float, float] = (0.0, 0.0)   # (down, up) of the capacity's $/M [-]
    hardware: str = ""             # what an owned or rented node is
    gpus_per_node: float = math.nan

    @property
    def error(self) -> float:
        """The larger side of :attr:`band` (NaN: none estimated)."""
        down, up = self.band
        return max(down, up) if math.isfinite(down) and math.isfinite(up) else math.nan

    def within_error(self) -> tuple[object, object]:
        """The cost with the most capacity the band allows (fewest nodes), and with the least (most nodes)."""
        down, up = self.band
        if not isinstance(self.cost, StepCost) or not (math.isfinite(down) and math.isfinite(up)) \
                or (down <= 0 and up <= 0):
            return self.cost, self.cost
        most = replace(self.cost, width=self.cost.width / (1 - down)) if down < 1 else \
            replace(self.cost, width=self.cost.width * 1e12)
        return most, replace(self.cost, width=self.cost.width / (1 + up))

    def at(self, volume: float) -> dict:
        usd = self.cost.usd(volume)
        per_m = volume / 1e6 if volume > 0 else math.nan
        low, high = self.within_error()
        usd_low, usd_high = low.usd(volume), high.usd(volume)
        row = {"option": self.name, "kind": self.kind, "usd_per_month": usd,
               "effective_usd_per_mtok": usd / per_m,
               "nodes": None, "mean_nodes": None, "node_hours": None, "utilization": None, "detail": self.detail,
               "capacity_error": self.error if self.kind != "api" else 0.0,
               "capacity_down": self.band[0] if self.kind != "api" else 0.0,
               "capacity_up": self.band[1] if self.kind != "api" else 0.0,
               "usd_per_month_low": usd_low, "usd_per_month_high": usd_high,
               "effective_usd_per_mtok_low": usd_low / per_m, "effective_usd_per_mtok_high": usd_high / per_m,
               "nodes_low": None, "nodes_high": None, "mean_nodes_low": None, "mean_nodes_high": None,
               "hardware": self.hardware, "gpus_per_node": self.gpus_per_node, "usd_per_gpu_hour": None,
               "tokens_per_month": volume}
        if isinstance(self.cost, StepCost):
            mean = self.cost.mean_nodes(volume)
            row.update(nodes=self.cost.nodes(volume), mean_nodes=mean, node_hours=mean * HOURS_PER_MONTH,
                       utilization=volume / (mean * self.node_tps * SECONDS_PER_MONTH) if mean else math.nan,
                       nodes_low=low.nodes(volume), nodes_high=high.nodes(volume),
                       mean_nodes_low=low.mean_nodes(volume), mean_nodes_high=high.mean_nodes(volume),
                       usd_per_gpu_hour=self.cost.per_node / (self.gpus_per_node * HOURS_PER_MONTH)
                       if self.gpus_per_node > 0 else math.nan)
        return row


def evaluate(options: list[Option], volume: float) -> list[dict]:
    """Every option at ``volume``, cheapest first."""
    return sorted((o.at(volume) for o in options), key=lambda r: r["usd_per_month"])


#: two options whose $ a month are closer than this share of the cheaper's are about the same, whatever their ±
NEAR_TIE = 0.02


def ranking(rows: list[dict], margin: float = NEAR_TIE) -> tuple[bool | None, tuple[str, ...]]:
    """Whether the cheapest of ``rows`` (:func:`evaluate`, cheapest first) is settled, and the options that are about
    the same as it: each whose $ a month, as low as its capacity's range allows, reaches the cheapest's as high as its
    range allows, or lies within ``margin`` of it; an owned or rented option whose capacity has no range
    (``capacity_error`` NaN) is about the same as any (and a cheapest without one is never settled). (None, the one
    name) with fewer than two options."""
    if not rows:
        return None, ()
    best = rows[0]
    if len(rows) == 1:
        return None, (best["option"],)

    def unknown(row) -> bool:      # an owned or rented option whose capacity has no range: it could be anywhere
        error = row.get("capacity_error", 0.0)
        return error is None or not math.isfinite(error)

    top = math.inf if unknown(best) else max(best["usd_per_month_high"], best["usd_per_month"] * (1 + margin))
    tied = [r["option"] for r in rows if r is best or unknown(r) or r["usd_per_month_low"] <= top]
    return len(tied) == 1, tuple(tied)

