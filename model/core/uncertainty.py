"""How good an interpolated $/M is: leave-one-out error on the frontier's own points, and the band it implies.

**Leave-one-out.** Every *interior* point of a cost curve (one with a measured neighbour on each side)
is predicted from the curve's other points with the view's interpolation method
(:data:`model.core.iso.METHODS`), and compared with what was measured:

- ``usd_error`` = predicted $/M ÷ measured $/M − 1 (signed),
- ``tps_error`` = predicted tok/s/GPU ÷ measured tok/s/GPU − 1. At the point's own $/GPU-hour,
  $/M = rate ÷ (0.0036 × tok/s/GPU), so ``1 + tps_error = 1 / (1 + usd_error)`` exactly: one number,
  two forms. For a series of one hardware both methods are invariant to scaling the curve by a
  constant rate, so the errors do not depend on rates at all (:func:`leave_one_out_frontier` prices
  such series at $1/GPU-hour and a cache keyed like the frontier's holds them); only series that mix
  hardware, whose frontier is fitted on tokens per dollar, depend on rates.

All interior points of all curves are predicted at once: ``linear`` is a chord between the two
neighbours; ``monotone`` rebuilds the PCHIP's Hermite cubic over the neighbours, with the derivatives
the reduced point set gives them (SciPy's formulas, interior and end, vectorised; the tests compare
with refitting SciPy's ``PchipInterpolator`` once per point left out).

**The band (the "curvature rule").** Interpolation error between two knots a < b grows as
(x − a)(b − x): zero at measured points, largest mid-way, and four times larger when the spacing
doubles (for ``linear``, exactly ½·f''·(x − a)(b − x)). Each left-out point i, predicted over its
neighbours [a, b], gives a coefficient ``k_i = |usd_error_i| / s_i`` with ``s_i = (x_i − a)(b − x_i) / x_i²``
(relative spacing, so coefficients of frontiers at different interactivity are comparable).
A frontier with at least :data:`MIN_INTERIOR` interior points uses the :data:`QUANTILE` quantile of
its own ``k_i``; one with fewer borrows the quantile of every ``k_i`` of the view (``source`` =
``view``); when the view has fewer than :data:`MIN_INTERIOR` in all, there is no band (``none``).
The relative ± at x between knots x_j < x_{j+1} is ``k · (x − x_j)(x_{j+1} − x) / x²``: 0 at a
measured point, wider where the knots are further apart.

It is not run-to-run noise (a measured point is taken as exact) and says nothing beyond a
frontier's ends.

**The method a view uses.** A view asks for ``linear``, ``monotone`` or :data:`AUTO` (the default): the method
that fits the view's own data better by this leave-one-out (:func:`better_method`: no larger an error at the
median point and at 9 points in 10 over the series in view), ``linear`` when neither is better on both or no
point can be tested (:func:`chosen_method`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from model.core.iso import METHODS, CostCurve, PackedCurves, check_method, cost_curves, cost_within
from model.core.status import PRICED

__all__ = ["MIN_INTERIOR", "QUANTILE", "RULE", "LOO_COLUMNS", "BAND_COLUMNS", "SUMMARY_COLUMNS", "Uncertainty",
           "leave_one_out", "leave_one_out_frontier", "leave_one_out_methods", "band_coefficients", "relative_band", "error_summary",
           "uncertainty", "iso_with_error", "mark_crossovers", "AUTO", "METHOD_CHOICES", "FALLBACK_METHOD",
           "better_method", "chosen_method"]

#: a frontier needs this many interior points for a band of its own
MIN_INTERIOR = 3
#: the quantile of the leave-one-out coefficients the band is drawn at
QUANTILE = 0.9
#: the band's rule, in words
RULE = ("curvature rule: ± = k × (x − left knot)(right knot − x) ÷ x², k the 90th percentile of the frontier's "
        "leave-one-out |error| ÷ its (x − a)(b − x) ÷ x² (frontiers with fewer than 3 interior points borrow the "
        "view's pooled k; none in the view: no band); measured points ± 0")

LOO_COLUMNS = ["series", "interactivity", "left", "right", "gap", "usd_per_mtok", "predicted_usd_per_mtok",
               "usd_error", "tps_error", "scale", "coefficient"]
BAND_COLUMNS = ["series", "interior_points", "coefficient", "source"]
SUMMARY_COLUMNS = ["method", "points", "usd_median", "usd_p90", "tps_median", "tps_p90"]
#: the method a view asks for by default: the one that fits its data better (:func:`chosen_method`)
AUTO = "auto"
#: what a view may ask for
METHOD_CHOICES = (AUTO, *METHODS)
#: the method :data:`AUTO` falls back on when neither fits better (it reproduces InferenceX's published numbers)
FALLBACK_METHOD = "linear"


def _packed(curves: dict[str, CostCurve]) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    names = sorted(curves)
    if not names:
        return names, np.empty(0), np.empty(0), np.empty(0, dtype=np.int64)
    x = np.concatenate([curves[n].x for n in names])
    cost = np.concatenate([curves[n].usd_per_mtok for n in names])
    owner = np.repeat(np.arange(len(names)), [len(curves[n].x) for n in names])
    return names, x, cost, owner


def _interior_derivative(h_left, m_left, h_right, m_right):
    """PCHIP derivative at a knot between secants (SciPy's weighted harmonic mean; 0 at a turn or a flat side)."""
    w1, w2 = 2 * h_right + h_left, h_right + 2 * h_left
    with np.errstate(divide="ignore", invalid="ignore"):
        d = (w1 + w2) / (w1 / m_left + w2 / m_right)
    flat = (np.sign(m_left) != np.sign(m_right)) | (m_left == 0) | (m_right == 0)
    return np.where(flat, 0.0, d)


def _edge_derivative(h0, h1, m0, m1):
    """PCHIP derivative at an end (SciPy's one-sided three-point formula, kept shape-preserving)."""
    d = ((2 * h0 + h1) * m0 - h0 * m1) / (h0 + h1)
    d = np.where(np.sign(d) != np.sign(m0), 0.0, d)
    return np.where((np.sign(m0) != np.sign(m1)) & (np.abs(d) > 3 * np.abs(m0)), 3 * m0, d)


def _pchip_without(x: np.ndarray, y: np.ndarray, owner: np.ndarray, i: np.ndarray) -> np.ndarray:
    """The PCHIP through each curve's points but point i, evaluated at x[i], for every interior i at once."""
    n = len(x)
    L, R = i - 1, i + 1
    has_ll = (i - 2 >= 0) & (owner[np.maximum(i - 2, 0)] == owner[i])
    has_rr = (i + 2 < n) & (owner[np.minimum(i + 2, n - 1)] == owner[i])
    LL, RR = np.maximum(i - 2, 0), np.minimum(i + 2, n - 1)
    H = x[R] - x[L]
    m = (y[R] - y[L]) / H
    with np.errstate(divide="ignore", invalid="ignore"):
        h_l, h_r = x[L] - x[LL], x[RR] - x[R]
        m_l, m_r = (y[L] - y[LL]) / h_l, (y[RR] - y[R]) / h_r
    # derivative at L: interior when it keeps a left neighbour, else the end formula (or the chord for two points)
    d_left = np.where(has_ll, _interior_derivative(h_l, m_l, H, m),
                      np.where(has_rr, _edge_derivative(H, h_r, m, m_r), m))
    d_right = np.where(has_rr, _interior_derivative(H, m, h_r, m_r),
                       np.where(has_ll, _edge_derivative(H, h_l, m, m_l), m))
    t = (x[i] - x[L]) / H
    t2, t3 = t * t, t * t * t
    return ((2 * t3 - 3 * t2 + 1) * y[L] + (t3 - 2 * t2 + t) * H * d_left
            + (-2 * t3 + 3 * t2) * y[R] + (t3 - t2) * H * d_right)


def leave_one_out(curves: dict[str, CostCurve], method: str = "linear") -> pd.DataFrame:
    """Every interior point of every curve predicted from the curve's other points (:data:`LOO_COLUMNS`).

    ``left``/``right``: the neighbours it was predicted between [tok/s/user]; ``gap`` = right − left;
    ``usd_error``/``tps_error``: signed relative errors (module docstring); ``scale`` = (x − left)(right − x) / x²;
    ``coefficient`` = |usd_error| / scale (the curvature rule's k for this point).
    """
    check_method(method)
    names, x, cost, owner = _packed(curves)
    n = len(x)
    if n < 3:
        return pd.DataFrame(columns=LOO_COLUMNS)
    i = np.arange(1, n - 1)
    i = i[(owner[i - 1] == owner[i]) & (owner[i + 1] == owner[i])]
    if len(i) == 0:
        return pd.DataFrame(columns=LOO_COLUMNS)
    left, right = x[i - 1], x[i + 1]
    if method == "linear":
        t = (x[i] - left) / (right - left)
        predicted = cost[i - 1] + t * (cost[i + 1] - cost[i - 1])
    else:
        tokens = 1e6 / cost          # the monotone method interpolates tokens per dollar
        with np.errstate(divide="ignore", invalid="ignore"):
            predicted = 1e6 / _pchip_without(x, tokens, owner, i)
    usd_error = predicted / cost[i] - 1
    scale = (x[i] - left) * (right - x[i]) / x[i] ** 2
    with np.errstate(divide="ignore", invalid="ignore"):
        coefficient = np.where(usd_error == 0, 0.0, np.abs(usd_error) / scale)
    return pd.DataFrame({
        "series": np.asarray(names, dtype=object)[owner[i]], "interactivity": x[i], "left": left, "right": right,
        "gap": right - left, "usd_per_mtok": cost[i], "predicted_usd_per_mtok": predicted, "usd_error": usd_error,
        "tps_error": 1 / (1 + usd_error) - 1, "scale": scale, "coefficient": coefficient,
    }, columns=LOO_COLUMNS)


def leave_one_out_frontier(frontier: pd.DataFrame, method: str = "linear",
                           usd_per_gpu_hour: dict[str, float] | None = None) -> pd.DataFrame:
    """:func:`leave_one_out` of a fitted frontier (:func:`model.core.frontier.fit_frontiers`).

    ``usd_per_gpu_hour`` None prices every hardware at $1/GPU-hour: right for series of one hardware
    (relative errors do not depend on a constant rate), so the result can be cached with the frontier.
    Pass the rates when series mix hardware.
    """
    return leave_one_out_methods(frontier, (method,), usd_per_gpu_hour)[method]


def leave_one_out_methods(frontier: pd.DataFrame, methods=METHODS,
                          usd_per_gpu_hour: dict[str, float] | None = None) -> dict[str, pd.DataFrame]:
    """:func:`leave_one_out` of a fitted frontier for each of ``methods`` (method -> its leave-one-out), the
    frontier priced into cost curves once for all of them (``usd_per_gpu_hour``: as :func:`leave_one_out_frontier`)."""
    if frontier.empty:
        return {m: pd.DataFrame(columns=LOO_COLUMNS) for m in methods}
    rates = usd_per_gpu_hour if usd_per_gpu_hour is not None else \
        {h: 1.0 for h in frontier["hardware"].dropna().unique()}
    curves = cost_curves(frontier, rates)
    return {m: leave_one_out(curves, m) for m in methods}


def band_coefficients(loo: pd.DataFrame, series) -> pd.DataFrame:
    """The curvature rule's k per series (:data:`BAND_COLUMNS`): its own :data:`QUANTILE` quantile with at least
    :data:`MIN_INTERIOR` interior points (``own``), else the view's pooled one (``view``), else NaN (``none``)."""
    series = list(series)
    loo = loo[loo["series"].isin(series) & np.isfinite(loo["coefficient"].to_numpy(dtype=float))] \
        if not loo.empty else loo
    k = loo["coefficient"].to_numpy(dtype=float) if not loo.empty else np.empty(0)
    pooled = float(np.quantile(k, QUANTILE)) if len(k) >= MIN_INTERIOR else np.nan
    if loo.empty:
        count, own = pd.Series(0, index=series), pd.Series(np.nan, index=series)
    else:
        grouped = loo.astype({"coefficient": float}).groupby("series")["coefficient"]
        count = grouped.count().reindex(series, fill_value=0)
        own = grouped.quantile(QUANTILE).reindex(series)      # linear interpolation, as np.quantile
    enough = (count >= MIN_INTERIOR).to_numpy()
    return pd.DataFrame({
        "series": series, "interior_points": count.to_numpy(dtype=int),
        "coefficient": np.where(enough, own.to_numpy(dtype=float), pooled),
        "source": np.where(enough, "own", "view" if pooled == pooled else "none"),
    }, columns=BAND_COLUMNS)


def relative_band(curve: CostCurve, coefficient: float, x) -> np.ndarray:
    """The relative ± of ``curve``'s $/M at each x: k·(x − x_j)(x_{j+1} − x)/x² between knots x_j ≤ x ≤ x_{j+1};
    0 at a measured point; NaN outside the curve's reach or without a coefficient."""
    x = np.atleast_1d(np.asarray(x, dtype=float))
    out = np.full(x.shape, np.nan)
    within = (x >= curve.x_min) & (x <= curve.x_max)
    if not within.any():
        return out
    if not np.isfinite(coefficient):
        out[within & np.isin(x, curve.x)] = 0.0
        return out
    if len(curve.x) == 1:
        out[within] = 0.0
        return out
    xs = x[within]
    j = np.clip(np.searchsorted(curve.x, xs, side="right") - 1, 0, len(curve.x) - 2)
    out[within] = coefficient * np.maximum(xs - curve.x[j], 0) * np.maximum(curve.x[j + 1] - xs, 0) / xs ** 2
    return out


def _abs_stats(values: np.ndarray) -> tuple[float, float]:
    v = np.abs(values[np.isfinite(values)])
    return (float(np.median(v)), float(np.quantile(v, 0.9))) if len(v) else (np.nan, np.nan)


def error_summary(loo_by_method: dict[str, pd.DataFrame], series=None) -> pd.DataFrame:
    """Per method (:data:`SUMMARY_COLUMNS`): interior points predicted, median and 90th percentile of
    |usd_error| and of |tps_error| (fractions), over ``series`` (default all)."""
    rows = []
    for method, loo in loo_by_method.items():
        if series is not None and not loo.empty:
            loo = loo[loo["series"].isin(list(series))]
        usd = loo["usd_error"].to_numpy(dtype=float) if not loo.empty else np.empty(0)
        tps = loo["tps_error"].to_numpy(dtype=float) if not loo.empty else np.empty(0)
        rows.append((method, int(np.isfinite(usd).sum()), *_abs_stats(usd), *_abs_stats(tps)))
    return pd.DataFrame(rows, columns=SUMMARY_COLUMNS)


def better_method(summary: pd.DataFrame) -> str | None:
    """The method that fits better by leave-one-out (``summary``: :func:`error_summary`): the first whose
    median and 90th-percentile |error| are both no larger than every other's; None when none is, or when fewer
    than two methods could be tested (no interior point)."""
    rows = summary[summary["points"] > 0] if not summary.empty else summary
    if len(rows) < 2:
        return None
    median, p90 = rows["usd_median"].to_numpy(dtype=float), rows["usd_p90"].to_numpy(dtype=float)
    for i, method in enumerate(rows["method"]):
        if np.all(median[i] <= median) and np.all(p90[i] <= p90):
            return str(method)
    return None


def chosen_method(method: str, curves: dict[str, CostCurve],
                  loo_by_method: dict[str, pd.DataFrame] | None = None) -> str:
    """The interpolation method a view uses: ``method`` itself when it names one (:data:`METHODS`); for
    :data:`AUTO` the one that fits ``curves`` better (:func:`better_method` over their series, the leave-one-out
    of ``loo_by_method`` where given, e.g. a cached fit's), else :data:`FALLBACK_METHOD`."""
    if method != AUTO:
        check_method(method)
        return method
    loo = dict(loo_by_method or {})
    for m in METHODS:
        if m not in loo:
            loo[m] = leave_one_out(curves, m)
    return better_method(error_summary(loo, sorted(curves))) or FALLBACK_METHOD


@dataclass(frozen=True)
class Uncertainty:
    """The interpolation error of one view: leave-one-out of its method, the bands, and every method's figures."""

    method: str
    loo: pd.DataFrame                    # leave_one_out of the view's method, series in view only
    bands: pd.DataFrame                  # band_coefficients
    by_method: pd.DataFrame              # error_summary of every method

    def __post_init__(self):
        names = self.bands["series"].tolist()
        object.__setattr__(self, "_k", dict(zip(names, self.bands["coefficient"].to_numpy(dtype=float))))
        object.__setattr__(self, "_source", dict(zip(names, self.bands["source"].astype(str))))

    def coefficient(self, series: str) -> float:
        return float(self._k.get(series, np.nan))

    def source(self, series: str) -> str:
        return self._source.get(series, "none")

    def band(self, curve: CostCurve, x) -> np.ndarray:
        return relative_band(curve, self.coefficient(curve.series), x)

    def figures(self, method: str | None = None) -> dict:
        """The pooled figures of one method (default the view's) as plain numbers."""
        row = self.by_method[self.by_method["method"] == (method or self.method)]
        if row.empty:
            return {}
        r = row.iloc[0]
        return {k: (None if isinstance(r[k], float) and r[k] != r[k] else
                    int(r[k]) if k == "points" else float(r[k]) if k != "method" else str(r[k]))
                for k in SUMMARY_COLUMNS}


def uncertainty(curves: dict[str, CostCurve], method: str, loo_by_method: dict[str, pd.DataFrame] | None = None
                ) -> Uncertainty:
    """The :class:`Uncertainty` of ``curves`` under ``method``. ``loo_by_method`` (method -> :func:`leave_one_out`
    or :func:`leave_one_out_frontier`, e.g. from a cache) is computed from ``curves`` where not given; it may
    hold other series, which are left out."""
    check_method(method)
    loo_by_method = dict(loo_by_method or {})
    for m in METHODS:
        if m not in loo_by_method:
            loo_by_method[m] = leave_one_out(curves, m)
    names = sorted(curves)
    own = loo_by_method[method]
    own = own[own["series"].isin(names)].reset_index(drop=True) if not own.empty else own
    return Uncertainty(method, own, band_coefficients(own, names), error_summary(loo_by_method, names))


def iso_with_error(iso: pd.DataFrame, curves: dict[str, CostCurve], errors: Uncertainty) -> pd.DataFrame:
    """``iso`` (:func:`model.core.iso.iso_table`) with ``usd_per_mtok_error`` (the relative ± of its $/M: 0 at a
    measured point, NaN when unreachable, clamped, missing or without a band) and ``error_from`` (``measured``, ``own``,
    ``view``, ``none``, or ``""`` where there is no value)."""
    values = np.full(len(iso), np.nan)
    origin = np.full(len(iso), "", dtype=object)
    if not iso.empty and curves:
        # every (series, target) at once over the packed breakpoints, as iso_table evaluates them
        packed = PackedCurves(curves, "linear")
        index = {name: i for i, name in enumerate(packed.names)}
        owner = iso["series"].map(index).to_numpy(dtype=float)
        have = np.isfinite(owner) & iso["status"].isin(PRICED).to_numpy()
        o = owner[have].astype(np.int64)
        x = iso["interactivity"].to_numpy(dtype=float)[have]
        row = packed.row(o, x)
        nxt = np.minimum(row + 1, packed.start[o] + packed.count[o] - 1)
        k = np.array([errors.coefficient(n) for n in packed.names])[o]
        band = np.where(nxt > row, k * (x - packed.x[row]) * (packed.x[nxt] - x) / x ** 2, 0.0)
        measured = packed.x[row] == x
        values[have] = np.where(measured, 0.0, band)
        origin[have] = np.where(measured, "measured", np.array([errors.source(n) for n in packed.names],
                                                               dtype=object)[o])
    return iso.assign(usd_per_mtok_error=values, error_from=origin.astype(str))


def _sides_unresolved(curves, errors, a, b, bounds: np.ndarray, method, n=64) -> np.ndarray:
    """For every side ``[bounds[i], bounds[i + 1]]`` of the pair a, b: True where the gap between a and b stays
    within the sum of their bands everywhere on it (both bands known there). Each side is sampled at ``n`` even
    points plus both curves' knots inside it; every curve and band is evaluated once for all sides."""
    ca, cb = curves[a], curves[b]
    lo, hi = bounds[:-1], bounds[1:]
    out = np.zeros(len(lo), dtype=bool)
    sides = np.flatnonzero(hi > lo)
    if not sides.size:
        return out
    grids = [np.unique(np.r_[np.linspace(s, e, n), ca.x[(ca.x >= s) & (ca.x <= e)], cb.x[(cb.x >= s) & (cb.x <= e)]])
             for s, e in zip(lo[sides], hi[sides])]
    x = np.concatenate(grids)
    side = np.repeat(np.arange(len(grids)), [len(g) for g in grids])
    va, vb = cost_within(ca, x, method), cost_within(cb, x, method)
    ba, bb = errors.band(ca, x) * va, errors.band(cb, x) * vb
    ok = np.isfinite(va) & np.isfinite(vb)
    unknown = ok & ~(np.isfinite(ba) & np.isfinite(bb))
    with np.errstate(invalid="ignore"):
        within = np.abs(va - vb) <= (ba + bb) * (1 + 1e-9) + 1e-12 * np.maximum(va, vb)
    count = len(grids)
    out[sides] = (np.bincount(side, weights=ok, minlength=count) > 0) \
        & (np.bincount(side, weights=unknown, minlength=count) == 0) \
        & (np.bincount(side, weights=ok & ~within, minlength=count) == 0)
    return out


def mark_crossovers(crossovers: pd.DataFrame, curves: dict[str, CostCurve], errors: Uncertainty,
                    method: str = "linear") -> pd.DataFrame:
    """``crossovers`` (:func:`model.core.crossings.crossovers`) with ``within_uncertainty``: True when, on one side of
    the crossing up to the pair's neighbouring crossing (or the end of their common range), the gap between the two
    curves never leaves their bands (|cost_a − cost_b| ≤ ±_a + ±_b everywhere there): the data cannot tell which
    series is cheaper on that side, so the crossing may not be there at all. A series without a band never marks.
    ``uncertain_from``/``uncertain_to``: the interval [tok/s/user] where the bands do not decide (both sides when
    both are unresolved), NaN for a crossing not marked."""
    if crossovers.empty:
        return crossovers.assign(within_uncertainty=pd.Series(dtype=bool), uncertain_from=pd.Series(dtype=float),
                                 uncertain_to=pd.Series(dtype=float))
    marks = np.zeros(len(crossovers), dtype=bool)
    start, stop = np.full(len(crossovers), np.nan), np.full(len(crossovers), np.nan)
    frame = crossovers.reset_index(drop=True)
    at = frame["interactivity"].to_numpy(dtype=float)
    for (a, b), idx in frame.groupby(["series_a", "series_b"], sort=False).indices.items():
        if a not in curves or b not in curves:
            continue
        lo = max(curves[a].x_min, curves[b].x_min)
        hi = min(curves[a].x_max, curves[b].x_max)
        xs = at[idx]
        order = np.argsort(xs, kind="stable")
        sides = _sides_unresolved(curves, errors, a, b, np.r_[lo, xs[order], hi], method)
        marks[idx[order]] = sides[:-1] | sides[1:]
        bounds = np.r_[lo, xs[order], hi]
        start[idx[order]] = np.where(sides[:-1], bounds[:-2], np.where(sides[1:], bounds[1:-1], np.nan))
        stop[idx[order]] = np.where(sides[1:], bounds[2:], np.where(sides[:-1], bounds[1:-1], np.nan))
    return crossovers.assign(within_uncertainty=marks, uncertain_from=start, uncertain_to=stop)
