"""Cost at matched interactivity, crossovers, reach and break-even rates.

Every series' frontier becomes a *cost curve*: $/M tokens against interactivity
[tok/s/user], defined only between the frontier's first and last point.

Methods (:data:`METHODS`):

``linear``
    linear in $/M between neighbouring frontier points. Reproduces the
    InferenceX iso-interactivity tables.
``monotone``
    a monotone cubic (PCHIP) through throughput per dollar, then cost
    (for a single-hardware series: through tok/s/GPU, then $/M).

No extrapolation: a target past a frontier's end has no value ("out of reach"),
except within :data:`CLAMP_TOLERANCE` of the end, where the end value is used and
flagged as clamped.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.interpolate import PchipInterpolator
from scipy.optimize import brentq

from model.cost import usd_per_mtok

__all__ = [
    "METHODS",
    "CLAMP_TOLERANCE",
    "CostCurve",
    "cost_curves",
    "evaluate",
    "iso_table",
    "crossovers",
    "reach",
    "break_even_rates",
    "default_targets",
]

METHODS = ("linear", "monotone")
CLAMP_TOLERANCE = 0.01  # 1 % of the frontier's end


@dataclass(frozen=True)
class CostCurve:
    """One series' frontier in cost terms; ``x`` ascending.

    x : interactivity [tok/s/user]; usd_per_mtok : [$/M]; tokens_per_usd : [tok/$]
    (the quantity the monotone method interpolates); hardware : the hardware of each point.
    """

    series: str
    x: np.ndarray
    usd_per_mtok: np.ndarray
    tokens_per_second_per_gpu: np.ndarray
    usd_per_gpu_hour: np.ndarray
    hardware: tuple[str, ...]

    @property
    def x_min(self) -> float:
        return float(self.x[0])

    @property
    def x_max(self) -> float:
        return float(self.x[-1])

    def _pchip(self) -> PchipInterpolator | None:
        if len(self.x) < 2:
            return None
        cached = self.__dict__.get("_pchip_cache")
        if cached is None:
            cached = PchipInterpolator(self.x, 1e6 / self.usd_per_mtok, extrapolate=False)
            object.__setattr__(self, "_pchip_cache", cached)
        return cached


def _check_method(method: str) -> None:
    if method not in METHODS:
        raise ValueError(f"unknown interpolation method {method!r}; choose one of {', '.join(METHODS)}")


def cost_curves(frontier: pd.DataFrame, usd_per_gpu_hour: dict[str, float]) -> dict[str, CostCurve]:
    """Cost curves of every series in ``frontier`` (from :func:`model.frontier.fit_frontiers`).

    Points whose hardware has no rate are dropped; a series left empty has no curve.
    Where several frontier points share one interactivity, the cheapest is kept.
    """
    if frontier.empty:
        return {}
    hardware = frontier["hardware"].astype(object).to_numpy()
    rate = np.array([usd_per_gpu_hour.get(h, np.nan) for h in hardware], dtype=float)
    tps = frontier["tokens_per_second_per_gpu"].to_numpy(dtype=float)
    x = frontier["interactivity"].to_numpy(dtype=float)
    cost = usd_per_mtok(rate, tps)
    names, codes = np.unique(frontier["series"].astype(object).to_numpy(), return_inverse=True)
    keep = np.isfinite(cost)
    if not keep.any():          # no hardware in view has a rate: nothing to price
        return {}
    # series, then x, then cost: the first of equal (series, x) is the cheapest
    order = np.lexsort((cost, x, codes))
    order = order[keep[order]]
    c, xs = codes[order], x[order]
    first = np.r_[True, (c[1:] != c[:-1]) | (xs[1:] != xs[:-1])]
    order = order[first]
    bounds = np.flatnonzero(np.r_[True, codes[order][1:] != codes[order][:-1], True])
    curves = {}
    for start, stop in zip(bounds[:-1], bounds[1:]):
        idx = order[start:stop]
        name = str(names[codes[idx[0]]])
        curves[name] = CostCurve(name, x[idx], cost[idx], tps[idx], rate[idx], tuple(hardware[idx]))
    return curves


def _inside(curve: CostCurve, x: np.ndarray, method: str) -> np.ndarray:
    """Cost at x within [x_min, x_max]; NaN outside."""
    x = np.asarray(x, dtype=float)
    out = np.full(x.shape, np.nan)
    within = (x >= curve.x_min) & (x <= curve.x_max)
    if not within.any():
        return out
    if len(curve.x) == 1 or method == "linear":
        out[within] = np.interp(x[within], curve.x, curve.usd_per_mtok)
    else:
        out[within] = 1e6 / curve._pchip()(x[within])
    return out


def evaluate(curve: CostCurve, targets, method: str = "linear") -> tuple[np.ndarray, np.ndarray]:
    """$/M at each target interactivity, and a status per target.

    Returns
    -------
    usd_per_mtok : array [$/M], NaN when out of reach
    status : array of str: ``ok``, ``clamped`` (within 1 % past an end),
        ``above reach`` or ``below reach``
    """
    _check_method(method)
    x = np.atleast_1d(np.asarray(targets, dtype=float))
    values = _inside(curve, x, method)
    status = np.where(np.isfinite(values), "ok", "").astype(object)
    hi = x > curve.x_max
    lo = x < curve.x_min
    clamp_hi = hi & (x <= curve.x_max * (1 + CLAMP_TOLERANCE))
    clamp_lo = lo & (x >= curve.x_min * (1 - CLAMP_TOLERANCE))
    values[clamp_hi] = curve.usd_per_mtok[-1]
    values[clamp_lo] = curve.usd_per_mtok[0]
    status[clamp_hi | clamp_lo] = "clamped"
    status[hi & ~clamp_hi] = "above reach"
    status[lo & ~clamp_lo] = "below reach"
    return values, status


def iso_table(curves: dict[str, CostCurve], targets, method: str = "linear",
              baseline: str | None = None) -> pd.DataFrame:
    """$/M of every series at every target interactivity, with ratios to a baseline series.

    Columns: series, interactivity, usd_per_mtok (NaN when out of reach), clamped, status,
    hardware, usd_per_gpu_hour, tokens_per_second_per_gpu, ratio_to_baseline
    (this series' $/M over the baseline's: above 1 means dearer than the baseline).
    """
    _check_method(method)
    if baseline is not None and baseline not in curves:
        raise ValueError(f"baseline series {baseline!r} is not among: {', '.join(curves)}")
    targets = np.atleast_1d(np.asarray(targets, dtype=float))
    columns = ["series", "interactivity", "usd_per_mtok", "clamped", "status", "hardware",
               "usd_per_gpu_hour", "tokens_per_second_per_gpu", "ratio_to_baseline"]
    if not curves:
        return pd.DataFrame(columns=columns)
    base_values = evaluate(curves[baseline], targets, method)[0] if baseline else None
    n, k = len(curves), len(targets)
    values, statuses, rates, hardware = np.empty((n, k)), np.empty((n, k), dtype=object), np.empty((n, k)), []
    for i, curve in enumerate(curves.values()):
        values[i], statuses[i] = evaluate(curve, targets, method)
        mixed = len(set(curve.hardware)) > 1
        rates[i] = np.interp(np.clip(targets, curve.x_min, curve.x_max), curve.x, curve.usd_per_gpu_hour) \
            if mixed else curve.usd_per_gpu_hour[0]
        hardware.append("mixed" if mixed else curve.hardware[0])
    flat = values.ravel()
    return pd.DataFrame({
        "series": np.repeat(list(curves), k),
        "interactivity": np.tile(targets, n),
        "usd_per_mtok": flat,
        "clamped": statuses.ravel() == "clamped",
        "status": statuses.ravel().astype(str),
        "hardware": np.repeat(hardware, k),
        "usd_per_gpu_hour": rates.ravel(),
        "tokens_per_second_per_gpu": rates.ravel() / (flat * 3600 / 1e6),
        "ratio_to_baseline": (values / base_values).ravel() if base_values is not None else np.nan,
    }, columns=columns)


def reach(curves: dict[str, CostCurve]) -> pd.DataFrame:
    """Interactivity range of each series' frontier [tok/s/user] and the $/M at its ends."""
    return pd.DataFrame([
        {"series": c.series, "min_interactivity": c.x_min, "max_interactivity": c.x_max,
         "usd_per_mtok_at_min": float(c.usd_per_mtok[0]), "usd_per_mtok_at_max": float(c.usd_per_mtok[-1])}
        for c in curves.values()
    ], columns=["series", "min_interactivity", "max_interactivity", "usd_per_mtok_at_min", "usd_per_mtok_at_max"])


def crossovers(curves: dict[str, CostCurve], method: str = "linear",
               groups: dict[str, object] | None = None) -> pd.DataFrame:
    """Every interactivity where two series' cost curves cross, inside their common range.

    Roots are exact for ``linear`` (both curves are linear between the union of their
    breakpoints) and found with Brent's method for ``monotone``; never snapped to a grid.
    ``groups`` maps series -> comparison group (e.g. the workload); only series of the
    same group are paired. Columns: series_a, series_b, interactivity, usd_per_mtok,
    cheaper_below, cheaper_above.
    """
    _check_method(method)
    columns = ["series_a", "series_b", "interactivity", "usd_per_mtok", "cheaper_below", "cheaper_above"]
    names = sorted(curves)
    by_group: dict[object, list[str]] = {}
    for name in names:
        by_group.setdefault((groups or {}).get(name), []).append(name)
    parts: list[tuple[np.ndarray, ...]] = []
    for members in by_group.values():
        if len(members) < 2:
            continue
        grid = np.unique(np.concatenate([curves[m].x for m in members]))
        values = np.vstack([_inside(curves[m], grid, method) for m in members])
        for a in range(len(members) - 1):
            diff = values[a] - values[a + 1:]                   # (others, grid)
            sign = np.sign(diff)
            strict = (sign[:, :-1] * sign[:, 1:]) < 0            # crossing strictly inside a segment
            touch = np.zeros_like(strict)                        # crossing exactly on a grid point
            if grid.size >= 3:
                touch[:, 1:] = (sign[:, 1:-1] == 0) & ((sign[:, :-2] * sign[:, 2:]) < 0)
            other, seg = np.nonzero(strict | touch)
            if other.size == 0:
                continue
            on_point = touch[other, seg]
            d0, d1 = diff[other, seg], diff[other, seg + 1]
            with np.errstate(invalid="ignore", divide="ignore"):
                t = np.where(on_point, 1.0, d0 / (d0 - d1))
            x_root = grid[seg] + t * (grid[seg + 1] - grid[seg])
            # between grid points both linear curves are linear, so is the cost at the root
            cost = values[a, seg] + t * (values[a, seg + 1] - values[a, seg])
            if method != "linear":
                ca = curves[members[a]]
                for i in np.flatnonzero(~on_point):
                    cb = curves[members[a + 1 + other[i]]]
                    x_root[i] = brentq(lambda v, ca=ca, cb=cb: _inside(ca, v, method) - _inside(cb, v, method),
                                       grid[seg[i]], grid[seg[i] + 1], xtol=1e-9)
                    cost[i] = float(_inside(ca, np.array([x_root[i]]), method)[0])
            names_b = np.array(members, dtype=object)[a + 1 + other]
            a_below = sign[other, seg] < 0                       # A is cheaper just below the crossing
            name_a = np.full(other.size, members[a], dtype=object)
            parts.append((name_a, names_b, x_root, cost, np.where(a_below, name_a, names_b),
                          np.where(a_below, names_b, name_a)))
    if not parts:
        return pd.DataFrame(columns=columns)
    stacked = [np.concatenate(column) for column in zip(*parts)]
    return pd.DataFrame(dict(zip(columns, stacked))).sort_values(
        ["series_a", "series_b", "interactivity"], ignore_index=True)


def break_even_rates(curves: dict[str, CostCurve], series: str, against: str, targets,
                     method: str = "linear") -> pd.DataFrame:
    """The $/GPU-hour at which ``series`` costs the same per M tokens as ``against``.

    At interactivity x, cost is proportional to the rate, so the break-even rate is
    ``rate_series * cost_against(x) / cost_series(x)`` [$/GPU/h]. NaN where either is out of reach.
    """
    ca, cb = curves[series], curves[against]
    targets = np.atleast_1d(np.asarray(targets, dtype=float))
    va, vb = _inside(ca, targets, method), _inside(cb, targets, method)
    rate_a = np.interp(np.clip(targets, ca.x_min, ca.x_max), ca.x, ca.usd_per_gpu_hour)
    return pd.DataFrame({
        "interactivity": targets,
        "usd_per_mtok": va,
        "usd_per_mtok_against": vb,
        "usd_per_gpu_hour": rate_a,
        "break_even_usd_per_gpu_hour": rate_a * vb / va,
    })


def default_targets(curves: dict[str, CostCurve], count: int = 5) -> list[float]:
    """Round interactivity targets spread over the range every series reaches
    (or over the union of ranges when they share none) [tok/s/user]."""
    if not curves:
        return []
    lo = max(c.x_min for c in curves.values())
    hi = min(c.x_max for c in curves.values())
    if hi <= lo:
        lo, hi = min(c.x_min for c in curves.values()), max(c.x_max for c in curves.values())
    if hi <= lo:
        return [round(lo, 1)]
    # the smallest round step (1, 2, 5 x 10^k) that puts at most `count + 3` targets inside [lo, hi]
    for exponent in range(int(np.floor(np.log10(hi - lo))) - 2, int(np.ceil(np.log10(hi))) + 1):
        for mantissa in (1, 2, 5):
            step = mantissa * 10.0 ** exponent
            values = np.arange(np.ceil(lo / step) * step, hi + step * 1e-9, step)
            if 0 < len(values) <= count + 3:
                return [float(round(v, 6)) for v in values]
    return [float(round((lo + hi) / 2, 1))]
