"""How far an interpolated $/M can be off: a band calibrated on the store's own measured points, stated as a coverage.

**The claim.** Every interpolated $/M carries a band [low, high] at :data:`LEVEL` (0.9): had we not measured a
point, our method's value there would have been inside the band 9 times in 10. It is a claim about the store's own
data, and the product tests it the way it is stated: each interior frontier point of the store is left out in turn
and predicted from the rest (:mod:`model.core.leave_one_out`), and :attr:`Calibration.table` says how often the
truth lay inside the band so built, by method and kind of band.

**Scores** (split conformal prediction, made comparable across frontiers). A point i left out, measured ``t``,
predicted ``p`` by the method and ``o`` by the other method, between neighbours a < b whose $/M are y_a, y_b:

    scale  g_i = √(4 (x − a)(b − x) ÷ (b − a)²) × (|ln(y_b ÷ y_a)| + (b − a) ÷ x)
    score  s_i = 0 when t lies between p and o, else |ln(t ÷ p)| ÷ g_i

The scale is how much the curve can move there: zero at a knot, largest mid-way, larger where the neighbours'
prices are far apart or the gap is wide relative to x. **The quantile** q is the ⌈(n + 1) × LEVEL⌉-th smallest of
n scores: finite from n = :data:`MIN_SCORES` (9). **The band** of a value v at x between knots x_j < x_{j+1} of a
curve, with w = q × g(x) over that one gap:

    low = min(v × e^−w, o),  high = max(v × e^w, o)

so it is zero at a measured point, never below $0, asymmetric, and covers both methods' values (where the two
disagree by more than the scale says, the band says so by being wide). **Whose scores** (:data:`KINDS`): a series
with at least :data:`MIN_OWN` interior points of its own uses its own (``own``); any other uses every frontier of
the store's data version (``store``: :func:`store_frontiers`, on total tokens, the same whatever else is in view);
a store with fewer than :data:`MIN_SCORES` interior points has no band (``none``). A measured point is exact
(``measured``). It is not run-to-run noise, and it says nothing past a frontier's ends.

**The method** ``auto`` (the default) resolves to the method that fits the store's frontiers better by the same
leave-one-out (:func:`model.core.leave_one_out.better_method`), else :data:`FALLBACK_METHOD`: one method per data
version, whatever the view filters.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd

from model.core.frontier import DEFAULT_SERIES_KEYS, fit_frontiers
from model.core.iso import METHODS, CostCurve, PackedCurves, check_method, cost_within
from model.core.leave_one_out import better_method, error_summary, leave_one_out, leave_one_out_methods
from model.core.status import PRICED

__all__ = ["LEVEL", "MIN_SCORES", "MIN_OWN", "KINDS", "RULE", "AUTO", "METHOD_CHOICES", "FALLBACK_METHOD",
           "CALIBRATION_KEYS", "CALIBRATION_COLUMNS", "Calibration", "Uncertainty", "scale", "scores_of",
           "conformal_quantile", "jackknife", "calibrate", "store_frontiers", "store_calibration", "uncertainty",
           "chosen_method", "band_of", "iso_with_error", "relative_bands", "mark_crossovers", "other_method", "no_calibration",
           "calibration_of_curves"]

#: how often the band must hold: 9 points in 10 left out lie inside it
LEVEL = 0.9
#: scores a quantile at :data:`LEVEL` needs to be finite: ⌈(n + 1) × 0.9⌉ ≤ n from n = 9
MIN_SCORES = math.ceil(LEVEL / (1 - LEVEL) - 1e-9)
#: a series with this many interior points of its own is calibrated on them (``own``)
MIN_OWN = 10
#: where a cell's band comes from
KINDS = ("measured", "own", "store", "none")
#: the band's rule, in words
RULE = ("calibrated band: a point left out and predicted from its neighbours a < b is scored |ln(truth ÷ predicted)| "
        "÷ g, g = √(4(x − a)(b − x)/(b − a)²) × (|ln($/M at b ÷ $/M at a)| + (b − a)/x), 0 when the truth lies between "
        "the two methods' values; the band at x is value × e^(±q·g) over its own gap, widened to the other method's "
        "value, q the ⌈(n + 1)·0.9⌉-th smallest of n scores (the series' own with 10 or more, else every frontier of "
        "the store; fewer than 9 in the store: no band); measured points exact")
#: the method a view asks for by default: the one that fits the store's data better (:func:`chosen_method`)
AUTO = "auto"
#: what a view may ask for
METHOD_CHOICES = (AUTO, *METHODS)
#: the method :data:`AUTO` falls back on when neither fits better (it reproduces InferenceX's published numbers)
FALLBACK_METHOD = "linear"
#: the store's frontiers the band is calibrated on: a recipe's points of one workload
CALIBRATION_KEYS = (*DEFAULT_SERIES_KEYS, "disaggregated", "model", "isl", "osl", "scenario", "prefix_cache_hit_rate")
#: :attr:`Calibration.table`: each method and kind of band, its points left out, how many lay inside the band,
#: and the median distance of the band's ends from the value [%]
CALIBRATION_COLUMNS = ["method", "kind", "points", "inside", "share_inside", "median_low_pct", "median_high_pct"]


def other_method(method: str) -> str:
    check_method(method)
    return next(m for m in METHODS if m != method)


def scale(x, a, b, y_a, y_b) -> np.ndarray:
    """The scale g of an interpolated $/M at x between knots a < b whose $/M are y_a, y_b (module docstring): how
    much the curve can move there; 0 at a knot."""
    x, a, b = (np.asarray(v, dtype=float) for v in (x, a, b))
    with np.errstate(divide="ignore", invalid="ignore"):
        span = b - a
        shape = np.where(span > 0, np.sqrt((4 * (x - a) * (b - x) / span ** 2).clip(0)), 0.0)
        return np.clip(shape, 0, None) * (np.abs(np.log(np.asarray(y_b, dtype=float) / np.asarray(y_a, dtype=float)))
                                          + span / x)


def scores_of(loo_by_method: dict[str, pd.DataFrame], method: str) -> pd.DataFrame:
    """The points ``method``'s leave-one-out predicted, with the other method's prediction (``other``), their
    ``scale`` and ``score`` (module docstring). ``loo_by_method``: both methods' frames over the same curves."""
    own, other = loo_by_method[method], loo_by_method[other_method(method)]
    if own.empty:
        return pd.DataFrame(columns=["series", "interactivity", "usd_per_mtok", "predicted", "other", "scale",
                                     "score"])
    if len(own) != len(other):
        raise ValueError("the two methods' leave-one-out must cover the same points")
    truth = own["usd_per_mtok"].to_numpy(dtype=float)
    p = own["predicted_usd_per_mtok"].to_numpy(dtype=float)
    o = other["predicted_usd_per_mtok"].to_numpy(dtype=float)
    g = scale(own["interactivity"], own["left"], own["right"], own["left_usd_per_mtok"], own["right_usd_per_mtok"])
    with np.errstate(divide="ignore", invalid="ignore"):
        between = (truth >= np.minimum(p, o)) & (truth <= np.maximum(p, o))
        score = np.where(between, 0.0, np.abs(np.log(truth / p)) / g)
    ok = np.isfinite(truth) & np.isfinite(p) & (truth > 0) & (p > 0)
    score = np.where(ok, score, np.nan)
    score = np.where(ok & ~np.isfinite(score), np.inf, score)     # an error where no scale allows one
    return pd.DataFrame({"series": own["series"].to_numpy(), "interactivity": own["interactivity"].to_numpy(),
                         "usd_per_mtok": truth, "predicted": p, "other": o, "scale": g, "score": score})


def conformal_quantile(scores, level: float = LEVEL) -> float:
    """The ⌈(n + 1) × level⌉-th smallest of the n finite-or-infinite scores; NaN when that exceeds n (too few)."""
    s = np.sort(np.asarray(scores, dtype=float)[~np.isnan(np.asarray(scores, dtype=float))])
    k = math.ceil((len(s) + 1) * level - 1e-9)
    return float(s[k - 1]) if 0 < k <= len(s) else math.nan


def jackknife(scores, level: float = LEVEL) -> tuple[np.ndarray, np.ndarray]:
    """For each score, the quantile of the others (:func:`conformal_quantile` without it) and whether the score is
    within it: the band built without a point, and whether that point lies inside it."""
    s = np.asarray(scores, dtype=float)
    n = len(s)
    k = math.ceil(n * level - 1e-9)          # (n - 1 + 1) x level among the n - 1 others
    if n < 2 or k > n - 1:
        return np.full(n, np.nan), np.zeros(n, dtype=bool)
    order = np.argsort(s, kind="stable")
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)
    ranked = s[order]
    q = np.where(rank < k, ranked[k], ranked[k - 1])
    return q, s <= q


def _ends(v, o, w):
    """The band of value(s) v with the other method's o and half-width w in log terms: (low, high)."""
    with np.errstate(invalid="ignore", over="ignore"):
        low = np.fmin(v * np.exp(-w), np.where(np.isfinite(o), o, np.inf))
        high = np.fmax(v * np.exp(w), np.where(np.isfinite(o), o, -np.inf))
    bad = ~np.isfinite(w)
    return np.where(bad, np.nan, low), np.where(bad, np.nan, high)


@dataclass(frozen=True, eq=False)
class Calibration:
    """The band's calibration on the store's frontiers (one per data version): each method's scores and quantile,
    how the methods compare there, and how often the band held when each point was left out (:attr:`table`)."""

    level: float
    frontiers: int                        # series of the store (:data:`CALIBRATION_KEYS`)
    scores: dict[str, pd.DataFrame]       # method -> scores_of, with jackknife ``inside``, ``low`` and ``high``
    quantile: dict[str, float]            # method -> q (NaN: fewer than MIN_SCORES points)
    summary: pd.DataFrame                 # error_summary of both methods over the store
    table: pd.DataFrame                   # CALIBRATION_COLUMNS
    point_ids: tuple[int, ...] = ()       # the store's rows on those frontiers (what a bundle must carry to redo it)

    @property
    def better(self) -> str | None:
        """The method that fits the store's data better by leave-one-out (None: neither, or nothing to test)."""
        return better_method(self.summary)

    @property
    def points(self) -> int:
        return int(self.summary["points"].max()) if not self.summary.empty else 0

    def method_for(self, asked: str) -> str:
        """The method a view asking for ``asked`` uses (:func:`chosen_method`)."""
        if asked != AUTO:
            check_method(asked)
            return asked
        return self.better or FALLBACK_METHOD


def _table_rows(method: str, kind: str, frame: pd.DataFrame) -> list:
    if frame.empty:
        return []
    v = frame["predicted"].to_numpy(dtype=float)
    inside = frame["inside"].to_numpy(dtype=bool)
    low = 1 - frame["low"].to_numpy(dtype=float) / v
    high = frame["high"].to_numpy(dtype=float) / v - 1
    ok = np.isfinite(low) & np.isfinite(high)
    return [(method, kind, len(frame), int(inside.sum()), float(inside.mean()),
             float(np.median(low[ok]) * 100) if ok.any() else math.nan,
             float(np.median(high[ok]) * 100) if ok.any() else math.nan)]


def calibrate(loo_by_method: dict[str, pd.DataFrame], frontiers: int = 0, level: float = LEVEL,
              point_ids: tuple[int, ...] = ()) -> Calibration:
    """The :class:`Calibration` of the leave-one-out of every method over the store's frontiers
    (:func:`model.core.leave_one_out.leave_one_out_methods`). Each score is also tested the way the band is
    claimed: the band built from the other scores, and whether the point lies inside it (``inside``), by method and
    kind (``store`` for every point; ``own`` for points of series with :data:`MIN_OWN` or more)."""
    scores, quantile, rows = {}, {}, []
    for method in METHODS:
        frame = scores_of(loo_by_method, method)
        s = frame["score"].to_numpy(dtype=float)
        q_minus, inside = jackknife(s, level)
        low, high = _ends(frame["predicted"].to_numpy(dtype=float), frame["other"].to_numpy(dtype=float),
                          q_minus * frame["scale"].to_numpy(dtype=float))
        frame = frame.assign(inside=inside, low=low, high=high)
        scores[method], quantile[method] = frame, conformal_quantile(s, level)
        rows += _table_rows(method, "store", frame[np.isfinite(q_minus)])
        counts = frame["series"].map(frame["series"].value_counts())
        own = []
        for _, part in frame[counts >= MIN_OWN + 1].groupby("series", sort=True):
            q_own, ok = jackknife(part["score"].to_numpy(dtype=float), level)
            lo, hi = _ends(part["predicted"].to_numpy(dtype=float), part["other"].to_numpy(dtype=float),
                           q_own * part["scale"].to_numpy(dtype=float))
            own.append(part.assign(inside=ok, low=lo, high=hi))
        if own:
            rows += _table_rows(method, "own", pd.concat(own))
    return Calibration(level, frontiers, scores, quantile, error_summary(loo_by_method),
                       pd.DataFrame(rows, columns=CALIBRATION_COLUMNS), tuple(point_ids))


def store_frontiers(points: pd.DataFrame) -> pd.DataFrame:
    """The frontiers the band is calibrated on: every recipe of every workload in ``points`` (the store's rows,
    :data:`CALIBRATION_KEYS`), on total tokens per GPU (output tokens where a row states no total), whatever a
    view filters or groups by."""
    if points.empty or "interactivity" not in points.columns:
        return points.iloc[0:0].assign(series=pd.Series(dtype=object), tokens_per_second_per_gpu=pd.Series(dtype=float))
    total = points["total_tokens_per_second_per_gpu"] if "total_tokens_per_second_per_gpu" in points.columns else \
        pd.Series(np.nan, index=points.index)
    if "output_tokens_per_second_per_gpu" in points.columns:
        total = total.fillna(points["output_tokens_per_second_per_gpu"])
    keys = tuple(k for k in CALIBRATION_KEYS if k in points.columns)
    kept = [*keys, "interactivity", *(c for c in ("point_id",) if c in points.columns)]
    ready = points[kept].assign(total_tokens_per_second_per_gpu=total.astype(float))
    return fit_frontiers(ready, keys, "total")


def store_calibration(points: pd.DataFrame, level: float = LEVEL) -> Calibration:
    """The :class:`Calibration` of the store whose rows are ``points`` (:func:`store_frontiers`)."""
    frontier = store_frontiers(points)
    loo = leave_one_out_methods(frontier, METHODS, None)
    ids = tuple(int(i) for i in frontier["point_id"]) if "point_id" in frontier.columns else ()
    return calibrate(loo, int(frontier["series"].nunique()) if not frontier.empty else 0, level, ids)


def chosen_method(method: str, calibration: Calibration | None = None, curves: dict[str, CostCurve] | None = None
                  ) -> str:
    """The interpolation method a view uses: ``method`` itself when it names one (:data:`METHODS`); for
    :data:`AUTO` the one that fits the store's data better (``calibration``), or, without one, the one that fits
    ``curves`` better by their own leave-one-out; else :data:`FALLBACK_METHOD`."""
    if method != AUTO:
        check_method(method)
        return method
    if calibration is not None:
        return calibration.method_for(AUTO)
    loo = {m: leave_one_out(curves or {}, m) for m in METHODS}
    return better_method(error_summary(loo)) or FALLBACK_METHOD


@dataclass(frozen=True, eq=False)
class Uncertainty:
    """The band of one view's curves under its method: the store's calibration, each series' own quantile where it
    has :data:`MIN_OWN` interior points, and how each method did on the view's own points (:attr:`by_method`)."""

    method: str
    calibration: Calibration
    own: dict[str, tuple[float, int]] = field(default_factory=dict)   # series -> (own q, its interior points)
    loo: pd.DataFrame | None = None              # the view's leave-one-out under its method, series in view
    by_method: pd.DataFrame | None = None        # error_summary of every method over the series in view
    series: tuple[str, ...] = ()                 # the series in view
    curves: dict | None = None                   # the curves it is the band of

    @cached_property
    def packed(self) -> dict[str, PackedCurves]:
        """:attr:`curves` packed for each method (:class:`model.core.iso.PackedCurves`), once: the iso table's bands
        and those at the interactivity you need read the same packing."""
        return {m: PackedCurves(self.curves or {}, m) for m in METHODS}

    def packing(self, curves: dict[str, CostCurve]) -> dict[str, PackedCurves]:
        """``curves`` packed for each method: :attr:`packed` when they are the curves this is the band of, else
        packed now."""
        return self.packed if curves is self.curves else {m: PackedCurves(curves, m) for m in METHODS}

    def kind(self, series: str) -> str:
        """Where the band of ``series`` comes from: ``own``, ``store`` or ``none``."""
        if series in self.own:
            return "own"
        return "store" if np.isfinite(self.calibration.quantile.get(self.method, math.nan)) else "none"

    def quantile(self, series: str) -> float:
        if series in self.own:
            return self.own[series][0]
        return self.calibration.quantile.get(self.method, math.nan)

    def band(self, curve: CostCurve, x) -> tuple[np.ndarray, np.ndarray]:
        """(low, high) [$/M] of ``curve``'s value at each x (:func:`band_of`)."""
        return band_of(curve, x, self.method, self.quantile(curve.series))


def band_of(curve: CostCurve, x, method: str, q: float) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) [$/M] of ``curve``'s value by ``method`` at each x with quantile ``q`` (module docstring): the
    value itself at a measured point, NaN outside the curve's reach or without a quantile."""
    _, low, high = valued_band(curve, np.atleast_1d(np.asarray(x, dtype=float)), method, q)
    return low, high


def valued_band(curve: CostCurve, x: np.ndarray, method: str, q: float) -> tuple[np.ndarray, ...]:
    """(value, low, high) [$/M] of ``curve`` by ``method`` at each x (:func:`band_of`), the value read once."""
    v = cost_within(curve, x, method)
    if len(curve.x) == 1:
        return v, v.copy(), v.copy()
    o = cost_within(curve, x, other_method(method))
    right = np.searchsorted(curve.x, x, side="right")
    j = np.clip(right - 1, 0, len(curve.x) - 2)
    g = scale(x, curve.x[j], curve.x[j + 1], curve.usd_per_mtok[j], curve.usd_per_mtok[j + 1])
    low, high = _ends(v, o, q * g if np.isfinite(q) else np.full(x.shape, np.nan))
    at_knot = (right > 0) & (curve.x[np.maximum(right - 1, 0)] == x)
    low, high = np.where(at_knot, v, low), np.where(at_knot, v, high)
    return v, np.where(np.isfinite(v), low, np.nan), np.where(np.isfinite(v), high, np.nan)


def uncertainty(curves: dict[str, CostCurve], method: str, calibration: Calibration,
                loo_by_method: dict[str, pd.DataFrame] | None = None) -> Uncertainty:
    """The :class:`Uncertainty` of ``curves`` under ``method`` (resolved, not ``auto``) and the store's
    ``calibration``. ``loo_by_method`` (method -> leave-one-out, e.g. the view's fit's) is computed from ``curves``
    where not given; it may hold other series, which are left out."""
    check_method(method)
    loo_by_method = dict(loo_by_method or {})
    for m in METHODS:
        if m not in loo_by_method:
            loo_by_method[m] = leave_one_out(curves, m)
    names = sorted(curves)
    view = {m: (f[f["series"].isin(names)].reset_index(drop=True) if not f.empty else f)
            for m, f in loo_by_method.items()}
    return Uncertainty(method, calibration, _own_quantiles(scores_of(view, method), calibration.level), view[method],
                       error_summary(view, names), tuple(names), curves)


def _own_quantiles(frame: pd.DataFrame, level: float) -> dict[str, tuple[float, int]]:
    """Each series' own :func:`conformal_quantile` of its scores and its count of points, for the series with at least
    :data:`MIN_OWN` (every series at once: one sort, not a group-by of 900 series)."""
    if frame.empty:
        return {}
    codes, names = pd.factorize(frame["series"], sort=True)
    rows = np.bincount(codes, minlength=len(names))
    score = frame["score"].to_numpy(dtype=float)
    valid = ~np.isnan(score)
    order = np.lexsort((score[valid], codes[valid]))
    ranked = score[valid][order]
    counted = np.bincount(codes[valid], minlength=len(names))
    start = np.cumsum(counted) - counted
    own = {}
    for i in np.flatnonzero(rows >= MIN_OWN):
        k = math.ceil((counted[i] + 1) * level - 1e-9)
        own[str(names[i])] = (float(ranked[start[i] + k - 1]) if 0 < k <= counted[i] else math.nan, int(rows[i]))
    return own


def _packed_bands(packed: dict[str, PackedCurves], errors: Uncertainty, names: list[str], owner: np.ndarray,
                  x: np.ndarray, method: str | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(value, low, high) [$/M] of curve ``owner`` (an index into ``names``, the packed curves' order) at each x
    inside its range, by ``method`` (default ``errors``' own): :func:`valued_band` for many curves at once."""
    method = method or errors.method
    lin = packed["linear"]
    first, last = lin.start[owner], lin.start[owner] + lin.count[owner] - 1
    j = np.clip(lin.row(owner, x), first, np.maximum(last - 1, first))
    nxt = np.minimum(j + 1, last)
    mine, other = packed[method], packed[other_method(method)]
    v = mine.cost(mine.q_at(owner, x))
    o = other.cost(other.q_at(owner, x))
    g = scale(x, lin.x[j], lin.x[nxt], lin.coef[j, 3], lin.coef[nxt, 3])
    q = np.array([errors.quantile(name) for name in names])[owner]
    lo, hi = _ends(v, o, q * g)
    at_knot = (np.abs(lin.x[j] - x) <= 0) | (np.abs(lin.x[nxt] - x) <= 0) | (nxt == j)
    known = np.isfinite(v)
    return v, np.where(known, np.where(at_knot, v, lo), np.nan), np.where(known, np.where(at_knot, v, hi), np.nan)


def iso_with_error(iso: pd.DataFrame, curves: dict[str, CostCurve], errors: Uncertainty) -> pd.DataFrame:
    """``iso`` (:func:`model.core.iso.iso_table` rows, or any frame with ``series``, ``interactivity``,
    ``usd_per_mtok`` and ``status``) with each priced cell's band: ``usd_per_mtok_low`` and ``usd_per_mtok_high``
    [$/M] (the value itself at a measured point; NaN when unreachable, clamped, missing or without a band),
    ``usd_per_mtok_error`` (the larger of the two sides as a fraction of the value) and ``error_from``
    (:data:`KINDS`, or ``""`` where there is no value)."""
    n = len(iso)
    low, high = np.full(n, np.nan), np.full(n, np.nan)
    origin = np.full(n, "", dtype=object)
    if n and curves:
        names = sorted(curves)
        index = {name: i for i, name in enumerate(names)}
        owner_all = iso["series"].map(index).to_numpy(dtype=float)
        priced = iso["status"].isin(PRICED).to_numpy() & np.isfinite(owner_all)
        rows = np.flatnonzero(priced)
        owner = owner_all[rows].astype(np.int64)
        x = iso["interactivity"].to_numpy(dtype=float)[rows]
        # every cell at once, over the packed curves of both methods (as band_of reads one curve at a time)
        packed = errors.packing(curves)
        v, lo, hi = _packed_bands(packed, errors, names, owner, x)
        low[rows], high[rows] = lo, hi
        measured = iso["status"].to_numpy()[rows] == "measured"
        kinds = np.array([errors.kind(name) for name in names], dtype=object)[owner]
        origin[rows] = np.where(measured, "measured", np.where(np.isfinite(lo), kinds, "none"))
    value = iso["usd_per_mtok"].to_numpy(dtype=float) if n else np.empty(0)
    with np.errstate(invalid="ignore", divide="ignore"):
        error = np.fmax(1 - low / value, high / value - 1)
    error = np.where(origin == "measured", 0.0, error)
    return iso.assign(usd_per_mtok_low=low, usd_per_mtok_high=high, usd_per_mtok_error=error,
                      error_from=origin.astype(str))


def relative_bands(cells: pd.DataFrame) -> dict[str, tuple[float, float]]:
    """Each series' band as (down, up) fractions of its $/M, from cells of one interactivity as
    :func:`iso_with_error` gives them (``series``, ``usd_per_mtok`` and its ``_low``/``_high``): (0, 0) at a measured
    point, NaN where none is estimated. What a fleet's capacity and a volume's options are sized within."""
    if cells.empty or "usd_per_mtok_low" not in cells.columns:
        return {}
    v = cells["usd_per_mtok"].to_numpy(dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        down = 1 - cells["usd_per_mtok_low"].to_numpy(dtype=float) / v
        up = cells["usd_per_mtok_high"].to_numpy(dtype=float) / v - 1
    return {str(s): (float(d), float(u)) for s, d, u in zip(cells["series"], down, up)}


def _grids(packed: PackedCurves, owner_a: np.ndarray, owner_b: np.ndarray, low: np.ndarray, high: np.ndarray,
           n: int = 64) -> tuple[np.ndarray, np.ndarray]:
    """The samples of every side ``[low[i], high[i]]`` of the pair ``owner_a[i]``, ``owner_b[i]`` (curves as
    ``packed`` numbers them; each side inside both curves' ranges): ``n`` even points plus both curves' knots inside
    it, each side's once and in order. Returns (side of each sample, x), sides in order."""
    even = np.linspace(low, high, n, axis=1).ravel() if len(low) else np.empty(0)
    side_a, knots_a = packed.within(owner_a, low, high)
    side_b, knots_b = packed.within(owner_b, low, high)
    side = np.r_[np.repeat(np.arange(len(low)), n), side_a, side_b]
    x = np.r_[even, knots_a, knots_b]
    order = np.lexsort((x, side))
    side, x = side[order], x[order]
    new = np.r_[True, (side[1:] != side[:-1]) | (x[1:] != x[:-1])]
    return side[new], x[new]


def _sides_of(count: int, sides: np.ndarray, side: np.ndarray, ok, unknown, within) -> np.ndarray:
    """Whether each of ``count`` sides is unresolved: the bands known and overlapping at every sample of it where both
    curves are priced (and at least one is)."""
    out = np.zeros(count, dtype=bool)
    m = len(sides)
    out[sides] = (np.bincount(side, weights=ok, minlength=m) > 0) \
        & (np.bincount(side, weights=unknown, minlength=m) == 0) \
        & (np.bincount(side, weights=ok & ~within, minlength=m) == 0)
    return out


def _overlap_of(va, la, ha, vb, lb, hb):
    """From two curves' values and bands at the same x: both priced (ok), a band unknown there, the two bands
    overlapping (within), and by how much (``margin`` [$/M]: the smaller of each band's top less the other's bottom;
    below 0 where they part)."""
    ok = np.isfinite(va) & np.isfinite(vb)
    unknown = ok & ~(np.isfinite(la) & np.isfinite(lb))
    tol = 1e-9 * np.fmax(va, vb)
    with np.errstate(invalid="ignore"):
        margin = np.minimum(hb - la, ha - lb)
        within = margin >= -tol
    return ok, unknown, within, margin


def _crossing_intervals(x: np.ndarray, good: np.ndarray, unknown: np.ndarray, at: np.ndarray,
                        margin: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """For each crossing at ``at`` of one pair, the interval of interactivity around it where the two curves' bands
    overlap (where the cheaper of the two may change), read from the samples of its sides (:func:`_grids`: ``x``
    ascending, whether both bands are known and overlap there, whether one is unknown, the overlap's margin); NaN
    where a band is unknown at the crossing. An end between a sample where the bands overlap and one where they part
    is where the margin, linear between the two, is 0 (not the last sample that overlaps: a grid's spacing off)."""
    low, high = np.full(len(at), np.nan), np.full(len(at), np.nan)
    if not len(x):
        return low, high
    starts = np.flatnonzero(good & ~np.r_[False, good[:-1]])      # the runs of samples where the bands overlap
    ends = np.flatnonzero(good & ~np.r_[good[1:], False])
    for k, xi in enumerate(at):
        hits = np.flatnonzero(x == xi)
        i = int(hits[0]) if hits.size else min(int(np.searchsorted(x, xi)), len(x) - 1)
        near = slice(max(i - 1, 0), (int(hits[-1]) if hits.size else i) + 2)
        if unknown[near].any():
            continue
        run = int(np.searchsorted(starts, i, side="right")) - 1
        if good[i] and run >= 0 and ends[run] >= i:
            low[k], high[k] = _edge(x, margin, starts[run], -1), _edge(x, margin, ends[run], 1)
        else:
            low[k] = high[k] = float(xi)
    return low, high


def _edge(x: np.ndarray, margin: np.ndarray | None, i: int, step: int) -> float:
    """The end of a run of overlapping samples at ``x[i]``, moved toward ``x[i + step]`` (where the bands part, both
    known) to the zero of the margin drawn straight between them."""
    j = i + step
    if margin is None or not 0 <= j < len(x) or not (np.isfinite(margin[i]) and np.isfinite(margin[j])) \
            or margin[j] >= 0 or margin[i] < 0:
        return float(x[i])
    return float(x[i] + (x[j] - x[i]) * margin[i] / (margin[i] - margin[j]))


def mark_crossovers(crossovers: pd.DataFrame, curves: dict[str, CostCurve], errors: Uncertainty,
                    method: str = "linear") -> pd.DataFrame:
    """``crossovers`` (:func:`model.core.crossings.crossovers`) with what the bands say of each:

    - ``within_uncertainty``: on one side of the crossing up to the pair's neighbouring crossing (or the end of
      their common range) the two bands overlap everywhere: the data cannot tell which series is cheaper on that
      side, so the crossing may not be there at all (a series without a band never marks);
    - ``uncertain_from``/``uncertain_to``: that side (both when both are unresolved), NaN for a crossing not marked;
    - ``interactivity_low``/``interactivity_high``: the crossing as an interval: around it, where the bands
      overlap, the cheaper of the two may change anywhere [tok/s/user] (NaN where a band is unknown)."""
    extra = {"within_uncertainty": pd.Series(dtype=bool), "uncertain_from": pd.Series(dtype=float),
             "uncertain_to": pd.Series(dtype=float), "interactivity_low": pd.Series(dtype=float),
             "interactivity_high": pd.Series(dtype=float)}
    if crossovers.empty:
        return crossovers.assign(**extra)
    marks = np.zeros(len(crossovers), dtype=bool)
    start, stop = np.full(len(crossovers), np.nan), np.full(len(crossovers), np.nan)
    x_low, x_high = np.full(len(crossovers), np.nan), np.full(len(crossovers), np.nan)
    frame = crossovers.reset_index(drop=True)
    at = frame["interactivity"].to_numpy(dtype=float)
    index = {name: i for i, name in enumerate(sorted(curves))}
    pairs, sides = [], []            # each pair's crossings and sides; every non-empty side: (pair, a, b, from, to)
    for (a, b), idx in frame.groupby(["series_a", "series_b"], sort=False).indices.items():
        if a not in curves or b not in curves:
            continue
        order = np.argsort(at[idx], kind="stable")
        bounds = np.r_[max(curves[a].x_min, curves[b].x_min), at[idx][order], min(curves[a].x_max, curves[b].x_max)]
        kept = np.flatnonzero(bounds[1:] > bounds[:-1])
        sides += [(len(pairs), index[a], index[b], bounds[k], bounds[k + 1]) for k in kept]
        pairs.append((idx, order, bounds, kept))
    if sides:
        # every side of every pair sampled and priced at once, over the curves packed for both methods
        packed = errors.packing(curves)
        pair_of, owner_a, owner_b, low, high = (np.array(c) for c in zip(*sides))
        side, x_all = _grids(packed["linear"], owner_a, owner_b, low, high)
        names = sorted(curves)
        ok, unknown, within, margin = _overlap_of(
            *_packed_bands(packed, errors, names, owner_a[side], x_all, method),
            *_packed_bands(packed, errors, names, owner_b[side], x_all, method))
        first_side = np.searchsorted(pair_of, np.arange(len(pairs)))       # sides are in pair order
        cut = np.searchsorted(side, np.r_[first_side, len(sides)])          # so are the samples
        every = _sides_of(len(sides), np.arange(len(sides)), side, ok, unknown, within)   # every side at once
    for p, (idx, order, bounds, kept) in enumerate(pairs):
        if not kept.size:
            continue
        part = slice(cut[p], cut[p + 1])
        unresolved = np.zeros(len(bounds) - 1, dtype=bool)
        unresolved[kept] = every[first_side[p]:first_side[p] + len(kept)]
        marks[idx[order]] = unresolved[:-1] | unresolved[1:]
        start[idx[order]] = np.where(unresolved[:-1], bounds[:-2], np.where(unresolved[1:], bounds[1:-1], np.nan))
        stop[idx[order]] = np.where(unresolved[1:], bounds[2:], np.where(unresolved[:-1], bounds[1:-1], np.nan))
        x_low[idx], x_high[idx] = _crossing_intervals(x_all[part], ok[part] & within[part], unknown[part], at[idx],
                                                      margin[part])
    return crossovers.assign(within_uncertainty=marks, uncertain_from=start, uncertain_to=stop,
                             interactivity_low=x_low, interactivity_high=x_high)


def no_calibration() -> Calibration:
    """The calibration of a store with no frontier point to test (every band ``none``)."""
    return calibrate({m: leave_one_out({}, m) for m in METHODS})


def calibration_of_curves(curves: dict[str, CostCurve]) -> Calibration:
    """A :class:`Calibration` of ``curves`` alone (tests, benchmarks: what :func:`store_calibration` gives a store
    holding just these curves)."""
    return calibrate({m: leave_one_out(curves, m) for m in METHODS}, len(curves))

