"""Leave-one-out on the frontier's own points: how far each interpolation method is off where a point was measured.

Every *interior* point of a cost curve (one with a measured neighbour on each side) is predicted from the curve's
other points with each interpolation method (:data:`model.core.iso.METHODS`) and compared with what was measured:

- ``usd_error`` = predicted $/M ÷ measured $/M − 1 (signed),
- ``tps_error`` = predicted tok/s/GPU ÷ measured tok/s/GPU − 1. At the point's own $/GPU-hour,
  $/M = rate ÷ (0.0036 × tok/s/GPU), so ``1 + tps_error = 1 / (1 + usd_error)`` exactly: one number,
  two forms. For a series of one hardware both methods are invariant to scaling the curve by a
  constant rate, so the errors do not depend on rates at all (:func:`leave_one_out_methods` prices
  such series at $1/GPU-hour); only series that mix hardware, whose frontier is fitted on tokens per dollar,
  depend on rates.

All interior points of all curves are predicted at once: ``linear`` is a chord between the two
neighbours; ``monotone`` rebuilds the PCHIP's Hermite cubic over the neighbours, with the derivatives
the reduced point set gives them (SciPy's formulas, interior and end, vectorised; the tests compare
with refitting SciPy's ``PchipInterpolator`` once per point left out). Pure functions; no I/O.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from model.core.iso import METHODS, CostCurve, check_method, cost_curves
from model.core.pchip import edge_slope, interior_slope

__all__ = ["LOO_COLUMNS", "SUMMARY_COLUMNS", "leave_one_out", "leave_one_out_methods", "error_summary",
           "better_method"]

LOO_COLUMNS = ["series", "interactivity", "left", "right", "gap", "left_usd_per_mtok", "right_usd_per_mtok",
               "usd_per_mtok", "predicted_usd_per_mtok", "usd_error", "tps_error"]
SUMMARY_COLUMNS = ["method", "points", "usd_median", "usd_p90", "tps_median", "tps_p90"]


def _packed(curves: dict[str, CostCurve]) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    names = sorted(curves)
    if not names:
        return names, np.empty(0), np.empty(0), np.empty(0, dtype=np.int64)
    x = np.concatenate([curves[n].x for n in names])
    cost = np.concatenate([curves[n].usd_per_mtok for n in names])
    owner = np.repeat(np.arange(len(names)), [len(curves[n].x) for n in names])
    return names, x, cost, owner


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
    d_left = np.where(has_ll, interior_slope(h_l, m_l, H, m),
                      np.where(has_rr, edge_slope(H, h_r, m, m_r), m))
    d_right = np.where(has_rr, interior_slope(H, m, h_r, m_r),
                       np.where(has_ll, edge_slope(H, h_l, m, m_l), m))
    t = (x[i] - x[L]) / H
    t2, t3 = t * t, t * t * t
    return ((2 * t3 - 3 * t2 + 1) * y[L] + (t3 - 2 * t2 + t) * H * d_left
            + (-2 * t3 + 3 * t2) * y[R] + (t3 - t2) * H * d_right)


def leave_one_out(curves: dict[str, CostCurve], method: str = "linear") -> pd.DataFrame:
    """Every interior point of every curve predicted from the curve's other points (:data:`LOO_COLUMNS`), series
    by name, then interactivity (so the frames of two methods over the same curves are row for row).

    ``left``/``right``: the neighbours it was predicted between [tok/s/user], ``left_usd_per_mtok``/
    ``right_usd_per_mtok`` their $/M; ``gap`` = right − left; ``usd_error``/``tps_error``: signed relative errors
    (module docstring).
    """
    check_method(method)
    names, x, cost, owner = _packed(curves)
    n = len(x)
    i = np.arange(1, n - 1) if n >= 3 else np.empty(0, dtype=np.int64)
    i = i[(owner[i - 1] == owner[i]) & (owner[i + 1] == owner[i])] if len(i) else i
    if len(i) == 0:
        return pd.DataFrame({c: pd.Series(dtype=object if c == "series" else float) for c in LOO_COLUMNS})
    left, right = x[i - 1], x[i + 1]
    if method == "linear":
        t = (x[i] - left) / (right - left)
        predicted = cost[i - 1] + t * (cost[i + 1] - cost[i - 1])
    else:
        tokens = 1e6 / cost          # the monotone method interpolates tokens per dollar
        with np.errstate(divide="ignore", invalid="ignore"):
            predicted = 1e6 / _pchip_without(x, tokens, owner, i)
    usd_error = predicted / cost[i] - 1
    return pd.DataFrame({
        "series": np.asarray(names, dtype=object)[owner[i]], "interactivity": x[i], "left": left, "right": right,
        "gap": right - left, "left_usd_per_mtok": cost[i - 1], "right_usd_per_mtok": cost[i + 1],
        "usd_per_mtok": cost[i], "predicted_usd_per_mtok": predicted, "usd_error": usd_error,
        "tps_error": 1 / (1 + usd_error) - 1,
    }, columns=LOO_COLUMNS)


def leave_one_out_methods(frontier: pd.DataFrame, methods=METHODS,
                          usd_per_gpu_hour: dict[str, float] | None = None) -> dict[str, pd.DataFrame]:
    """:func:`leave_one_out` of a fitted frontier (:func:`model.core.frontier.fit_frontiers`) for each of
    ``methods`` (method -> its leave-one-out), the frontier priced into cost curves once for all of them.

    ``usd_per_gpu_hour`` None prices every hardware at $1/GPU-hour: right for series of one hardware (relative
    errors do not depend on a constant rate), so the result can be kept with the frontier. Pass the rates when
    series mix hardware."""
    if frontier.empty:
        return {m: leave_one_out({}, m) for m in methods}
    rates = usd_per_gpu_hour if usd_per_gpu_hour is not None else \
        {h: 1.0 for h in frontier["hardware"].dropna().unique()}
    curves = cost_curves(frontier, rates)
    return {m: leave_one_out(curves, m) for m in methods}


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
