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

No extrapolation: a target past a frontier's end has no value (``unreachable``),
except within :data:`CLAMP_TOLERANCE` of the end, where the end value is shown and
flagged ``clamped`` (never priced as if measured). Every value's status is one of
:data:`model.core.status.STATUSES`: ``measured`` at a frontier point, ``interpolated``
between two, ``clamped`` or ``unreachable``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from model.core import pchip
from model.core.cost import usd_per_mtok

__all__ = [
    "METHODS",
    "CLAMP_TOLERANCE",
    "CostCurve",
    "cost_curves",
    "evaluate",
    "iso_table",
    "reach",
    "break_even_rates",
    "default_targets",
    "check_method",
    "cost_within",
    "PackedCurves",
]

METHODS = ("linear", "monotone")
CLAMP_TOLERANCE = 0.01  # 1 % of the frontier's end
#: a target this close to a frontier point's interactivity is that point (measured) [tok/s/user]
AT_POINT = 1e-9


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

    def _pchip(self) -> np.ndarray | None:
        """The monotone method's cubics of tokens per $ (:func:`model.core.pchip.coefficients`), made once."""
        if len(self.x) < 2:
            return None
        cached = self.__dict__.get("_pchip_cache")
        if cached is None:
            cached = pchip.coefficients(self.x, 1e6 / self.usd_per_mtok)
            object.__setattr__(self, "_pchip_cache", cached)
        return cached


def check_method(method: str) -> None:
    if method not in METHODS:
        raise ValueError(f"unknown interpolation method {method!r}; choose one of {', '.join(METHODS)}")


def cost_curves(frontier: pd.DataFrame, usd_per_gpu_hour: dict[str, float]) -> dict[str, CostCurve]:
    """Cost curves of every series in ``frontier`` (from :func:`model.core.frontier.fit_frontiers`).

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


def cost_within(curve: CostCurve, x: np.ndarray, method: str) -> np.ndarray:
    """Cost at x within [x_min, x_max]; NaN outside."""
    x = np.asarray(x, dtype=float)
    out = np.full(x.shape, np.nan)
    within = (x >= curve.x_min) & (x <= curve.x_max)
    if not within.any():
        return out
    if len(curve.x) == 1 or method == "linear":
        out[within] = np.interp(x[within], curve.x, curve.usd_per_mtok)
    else:
        out[within] = 1e6 / pchip.evaluate(curve.x, curve._pchip(), x[within])
    return out


def evaluate(curve: CostCurve, targets, method: str = "linear") -> tuple[np.ndarray, np.ndarray]:
    """$/M at each target interactivity, and a status per target.

    Returns
    -------
    usd_per_mtok : array [$/M], NaN when unreachable; the end's value when clamped
    status : array of str (:data:`model.core.status.STATUSES`): ``measured``, ``interpolated``,
        ``clamped`` (within 1 % past an end) or ``unreachable``
    """
    check_method(method)
    x = np.atleast_1d(np.asarray(targets, dtype=float))
    values = cost_within(curve, x, method)
    status = np.where(np.isfinite(values), "interpolated", "").astype(object)
    at_point = np.isclose(x[:, None], curve.x[None, :], rtol=0, atol=AT_POINT).any(axis=1)
    status[np.isfinite(values) & at_point] = "measured"
    hi = x > curve.x_max
    lo = x < curve.x_min
    clamp_hi = hi & (x <= curve.x_max * (1 + CLAMP_TOLERANCE))
    clamp_lo = lo & (x >= curve.x_min * (1 - CLAMP_TOLERANCE))
    values[clamp_hi] = curve.usd_per_mtok[-1]
    values[clamp_lo] = curve.usd_per_mtok[0]
    status[clamp_hi | clamp_lo] = "clamped"
    status[(hi & ~clamp_hi) | (lo & ~clamp_lo)] = "unreachable"
    return values, status


def iso_table(curves: dict[str, CostCurve], targets, method: str = "linear",
              baseline: str | None = None) -> pd.DataFrame:
    """$/M of every series at every target interactivity, with ratios to a baseline series.

    Columns: series, interactivity, usd_per_mtok (NaN when unreachable; the end's value when clamped),
    clamped, status (:data:`model.core.status.STATUSES`: measured, interpolated, clamped or unreachable),
    side (``below`` or ``above`` the measured range for a clamped or unreachable value, else ``""``),
    hardware, usd_per_gpu_hour, tokens_per_second_per_gpu, ratio_to_baseline
    (this series' $/M over the baseline's: above 1 means dearer than the baseline; a clamped value's ratio is
    shown as the value is, with its status, never ranked).
    """
    check_method(method)
    if baseline is not None and baseline not in curves:
        raise ValueError(f"baseline series {baseline!r} is not among: {', '.join(curves)}")
    targets = np.atleast_1d(np.asarray(targets, dtype=float))
    columns = ["series", "interactivity", "usd_per_mtok", "clamped", "status", "side", "hardware",
               "usd_per_gpu_hour", "tokens_per_second_per_gpu", "ratio_to_baseline"]
    if not curves:
        return pd.DataFrame(columns=columns)
    n, k = len(curves), len(targets)
    packed = PackedCurves(curves, method)
    index = {name: i for i, name in enumerate(packed.names)}
    owner = np.repeat([index[name] for name in curves], k)
    x = np.tile(targets, n)
    first, last = packed.start[owner], packed.start[owner] + packed.count[owner] - 1
    lo, hi = packed.x[first], packed.x[last]
    # as evaluate(), for every (series, target) at once
    values = np.full(n * k, np.nan)
    within = (x >= lo) & (x <= hi)
    inside = packed.row(owner[within], x[within])
    values[within] = packed.cost(packed.q(inside, x[within]))
    status = np.full(n * k, "interpolated", dtype=object)
    at_point = np.abs(packed.x[inside] - x[within]) <= AT_POINT
    at_next = np.abs(packed.x[np.minimum(inside + 1, last[within])] - x[within]) <= AT_POINT
    status[np.flatnonzero(within)[at_point | at_next]] = "measured"
    clamp_hi = (x > hi) & (x <= hi * (1 + CLAMP_TOLERANCE))
    clamp_lo = (x < lo) & (x >= lo * (1 - CLAMP_TOLERANCE))
    values[clamp_hi] = packed.cost(packed.coef[last[clamp_hi], 3])
    values[clamp_lo] = packed.cost(packed.coef[first[clamp_lo], 3])
    status[clamp_hi | clamp_lo] = "clamped"
    status[~within & ~clamp_hi & ~clamp_lo] = "unreachable"
    side = np.where(x > hi, "above", np.where(x < lo, "below", ""))
    # $/GPU-hour: constant for one hardware; for mixed series linear between points, held past the ends
    clipped = np.clip(x, lo, hi)
    row = packed.row(owner, clipped)
    nxt = np.minimum(row + 1, last)
    step = packed.x[nxt] - packed.x[row]
    with np.errstate(invalid="ignore", divide="ignore"):
        slope = np.where(nxt > row, (packed.rate[nxt] - packed.rate[row]) / step, 0.0)
    rates = slope * (clipped - packed.x[row]) + packed.rate[row]
    hardware = ["mixed" if len(set(c.hardware)) > 1 else c.hardware[0] for c in curves.values()]
    base_values = values.reshape(n, k)[list(curves).index(baseline)] if baseline else None
    return pd.DataFrame({
        "series": np.repeat(list(curves), k),
        "interactivity": x,
        "usd_per_mtok": values,
        "clamped": status == "clamped",
        "status": status.astype(str),
        "side": side,
        "hardware": np.repeat(hardware, k),
        "usd_per_gpu_hour": rates,
        "tokens_per_second_per_gpu": rates / (values * 3600 / 1e6),
        "ratio_to_baseline": (values.reshape(n, k) / base_values).ravel() if base_values is not None else np.nan,
    }, columns=columns)


def reach(curves: dict[str, CostCurve]) -> pd.DataFrame:
    """Interactivity range of each series' frontier [tok/s/user] and the $/M at its ends."""
    return pd.DataFrame([
        {"series": c.series, "min_interactivity": c.x_min, "max_interactivity": c.x_max,
         "usd_per_mtok_at_min": float(c.usd_per_mtok[0]), "usd_per_mtok_at_max": float(c.usd_per_mtok[-1])}
        for c in curves.values()
    ], columns=["series", "min_interactivity", "max_interactivity", "usd_per_mtok_at_min", "usd_per_mtok_at_max"])


# ----------------------------------------------------------------------------- many curves at once
#
# Crossovers and the lower envelope share one sweep: two sets of *pieces* (an interval of
# interactivity and the curve that owns it there) are laid over the union of their
# endpoints; on each elementary interval both owners are single polynomials, so where
# one is cheaper, and where they cross, is decided for every interval of every job at once.


class PackedCurves:
    """Every curve's breakpoints in flat arrays, to evaluate many (curve, x) at once.

    Curves are numbered in name order. ``q`` is the compared quantity, smaller = cheaper:
    $/M for ``linear``; minus tokens per $ for ``monotone`` (its PCHIP interpolates tokens per $).
    Row j of ``coef`` is the cubic of q on the segment starting at breakpoint j, in d = x - x[j].
    """

    def __init__(self, curves: dict[str, CostCurve], method: str):
        self.names = sorted(curves)
        self.method = method
        ordered = [curves[n] for n in self.names]
        self.count = np.array([len(c.x) for c in ordered], dtype=np.int64)
        self.start = np.r_[0, np.cumsum(self.count)[:-1]].astype(np.int64)
        self.x = np.concatenate([c.x for c in ordered]) if ordered else np.empty(0)
        cost = np.concatenate([c.usd_per_mtok for c in ordered]) if ordered else np.empty(0)
        owner = np.repeat(np.arange(len(ordered)), self.count)
        self.owner = owner
        self.rate = np.concatenate([c.usd_per_gpu_hour for c in ordered]) if ordered else np.empty(0)
        coef = np.zeros((len(self.x), 4))
        if not len(self.x):
            pass                            # no curve: nothing to pack
        elif method == "linear":
            coef[:, 3] = cost
            step = np.r_[self.x[1:] - self.x[:-1], 1.0]
            inner = np.r_[owner[1:] == owner[:-1], False]
            coef[inner, 2] = (cost[1:] - cost[:-1])[inner[:-1]] / step[inner]
        else:
            coef[:, 3] = -1e6 / cost
            for curve, s in zip(ordered, self.start):
                if len(curve.x) >= 2:
                    coef[s:s + len(curve.x) - 1] = -curve._pchip()
        self.coef = coef
        self._xs = np.unique(self.x)
        self._key = owner * (len(self._xs) + 1) + np.searchsorted(self._xs, self.x, side="right")

    def row(self, owner: np.ndarray, x: np.ndarray) -> np.ndarray:
        """Index of the last breakpoint of ``owner`` at or below ``x`` (x inside the curve's range)."""
        key = owner * (len(self._xs) + 1) + np.searchsorted(self._xs, x, side="right")
        return np.searchsorted(self._key, key, side="right") - 1

    def within(self, owner: np.ndarray, low: np.ndarray, high: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The breakpoints of curve ``owner[i]`` in ``[low[i], high[i]]``, for every i at once: (i of each, its x),
        in order of i then x."""
        first_row = self.start[owner]
        last_row = first_row + self.count[owner] - 1
        below = np.maximum(self.row(owner, low), first_row - 1)        # the last breakpoint at or below low
        first = np.where((below >= first_row) & (self.x[np.maximum(below, 0)] >= low), below, below + 1)
        last = np.minimum(self.row(owner, high), last_row)
        counts = np.maximum(last - first + 1, 0)
        return np.repeat(np.arange(len(owner)), counts), self.x[_ragged(first, counts)]

    def q(self, row: np.ndarray, x: np.ndarray) -> np.ndarray:
        d = x - self.x[row]
        c = self.coef[row]
        return ((c[:, 0] * d + c[:, 1]) * d + c[:, 2]) * d + c[:, 3]

    def q_at(self, owner: np.ndarray, x: np.ndarray) -> np.ndarray:
        """q of each owner at x, the same however x was reached (exact at breakpoints for ``linear``)."""
        return self.q(self.row(owner, x), x)

    def q_piece(self, row: np.ndarray, x: np.ndarray) -> np.ndarray:
        """q on segment ``row`` at x; at the segment's far breakpoint, that breakpoint's own value (as q_at)."""
        nxt = np.minimum(row + 1, len(self.x) - 1)
        return self.q(np.where((self.x[nxt] == x) & (self.owner[nxt] == self.owner[row]), nxt, row), x)

    def cost(self, q: np.ndarray) -> np.ndarray:
        """$/M from q."""
        return q if self.method == "linear" else -1e6 / q

    def segment_pieces(self, owners: np.ndarray, jobs: np.ndarray) -> tuple[np.ndarray, ...]:
        """Pieces (job, x0, x1, row): one per segment between neighbouring breakpoints of each owner."""
        segs = np.maximum(self.count[owners] - 1, 0)
        rows = _ragged(self.start[owners], segs)
        return np.repeat(jobs, segs), self.x[rows], self.x[rows + 1], rows


def _ragged(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Concatenated ``arange(s, s + n)`` for each start s and length n."""
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    offsets = np.repeat(starts - np.r_[0, np.cumsum(lengths)[:-1]], lengths)
    return offsets + np.arange(total)


# ----------------------------------------------------------------------------- crossovers


# ----------------------------------------------------------------------------- lower envelope


def break_even_rates(curves: dict[str, CostCurve], series: str, against: str, targets,
                     method: str = "linear") -> pd.DataFrame:
    """The $/GPU-hour at which ``series`` costs the same per M tokens as ``against``.

    At interactivity x, cost is proportional to the rate, so the break-even rate is
    ``rate_series * cost_against(x) / cost_series(x)`` [$/GPU/h]. NaN where either is out of reach.
    """
    ca, cb = curves[series], curves[against]
    targets = np.atleast_1d(np.asarray(targets, dtype=float))
    va, vb = cost_within(ca, targets, method), cost_within(cb, targets, method)
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
