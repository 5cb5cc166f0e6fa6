"""Run-to-run: how far a measured point's throughput moved between repeated runs, and the band it gives a $/M and a
fleet. Pure functions (numpy, pandas, scipy); no I/O.

**An interval, checked.** AIPerf's ``--num-profile-runs N`` states per metric the mean over the runs, ``std``
(``ddof=1``), ``se``, ``ci_low``, ``ci_high`` and ``t_critical`` at a confidence level
(:mod:`model.data.importers.perf_aggregate`). :func:`check` recomputes ``se = std ÷ √n``, ``t = t.ppf((1 +
level) ÷ 2, n − 1)`` and ``mean ± t × se``, and compares each with what the file states *beyond rounding*: a value
printed with ``d`` decimals may be off by half a unit of its last digit, and the allowance carries those halves
through the arithmetic (``|ci_low − (mean − t·se)| ≤ ½u(ci_low) + ½u(mean) + t·½u(se) + se·½u(t)``). An interval
that disagrees is **flagged and not used** (AIPerf's own tutorial prints intervals that imply t ≈ 2.22 beside a
stated 2.776); a file of one run (``single_run``, or one successful run) has **no interval** ("one run, no
interval"), never a zero-width one.

**A point's band.** The throughput on a token basis comes from one metric (:data:`METRIC_OF_BASIS`:
``output_token_throughput_avg`` for output tokens, and so on); its checked interval gives the point's relative
band ``[ci_low ÷ mean, ci_high ÷ mean]`` (:func:`point_bands`). At a frontier point it is that point's; between
two frontier points (an interpolated $/M) the wider of the two ends on each side (:func:`band_at`: conservative,
the run-to-run noise of neither end is averaged away); a point without a usable interval gives the whole stretch
none, saying why.

**$/M and fleets.** $/M is rate ÷ throughput, so a throughput band ``[lo, hi]`` (relative) is the $/M band
``[usd ÷ hi, usd ÷ lo]`` (:func:`usd_band`); a fleet sized on a capacity ``c`` is sized again on ``c × lo`` and
``c × hi`` (more nodes when the runs were slower). These are named ``run_to_run`` wherever they are shown, beside
the interpolation band (:mod:`model.core.uncertainty`), never folded into it here: :func:`combine` is the rule for
one ± of both (the two errors are independent: their relative half-widths add in quadrature, each side apart).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = ["STATUSES", "METRIC_OF_BASIS", "RULE", "DEFAULT_CONFIDENCE", "half_unit", "check", "point_bands", "bands_by_series",
           "band_at", "usd_band", "combine", "frontier_bands", "Interval"]

#: what an interval's check says: used, flagged (not used), or there is none
STATUSES = ("agrees", "differs", "one run, no interval", "not checked")
#: the metric whose interval is a token basis' throughput's
METRIC_OF_BASIS = {"output": "output_token_throughput_avg", "total": "total_token_throughput_avg",
                   "input": "input_token_throughput_avg", "blended": "output_token_throughput_avg"}
#: AIPerf's default confidence level, used (and said) when a file states none
DEFAULT_CONFIDENCE = 0.95
RULE = ("run-to-run: the point's throughput interval over repeated runs (AIPerf --num-profile-runs: mean ± t·se, "
        "checked against std ÷ √n and t(n − 1) within the file's rounding), relative to its mean; between frontier "
        "points the wider end on each side; $/M = rate ÷ throughput, so [usd ÷ high, usd ÷ low]")


def half_unit(value: float, text: str | None = None) -> float:
    """Half a unit of the last printed digit of ``value`` (``text``: as printed; else its shortest repr, which is
    how a JSON number round-trips), plus a floor of 1e-9 of the value for full-precision floats."""
    shown = text if text is not None else repr(float(value))
    shown = shown.strip().lower()
    mantissa, _, exponent = shown.partition("e")
    decimals = len(mantissa.split(".", 1)[1]) if "." in mantissa else 0
    scale = 10.0 ** (-decimals + (int(exponent) if exponent.lstrip("+-").isdigit() else 0))
    return 0.5 * scale + 1e-9 * abs(value) + 1e-12


@dataclass(frozen=True)
class Interval:
    """One metric's interval as a file states it, and what :func:`check` made of it."""

    metric: str
    mean: float
    ci_low: float | None
    ci_high: float | None
    runs: int | None
    confidence: float | None
    status: str
    detail: str
    se_recomputed: float | None = None
    t_expected: float | None = None
    ci_low_recomputed: float | None = None
    ci_high_recomputed: float | None = None
    t_implied: float | None = None


def _finite(value) -> bool:
    return value is not None and isinstance(value, (int, float)) and math.isfinite(value)


def check(metric: str, stats: dict, runs: int | None, confidence: float | None, single_run: bool = False,
          printed: dict | None = None) -> Interval:
    """The interval of one metric (``stats``: mean, std, se, ci_low, ci_high, t_critical as the file states them;
    ``printed``: their text where the file is text, for the rounding allowance), checked (see the module)."""
    from scipy import stats as sps  # deferred: start-up: SciPy loads in 0.3 s, only stated intervals need it

    printed = printed or {}
    mean, std, se = stats.get("mean"), stats.get("std"), stats.get("se")
    low, high, t = stats.get("ci_low"), stats.get("ci_high"), stats.get("t_critical")
    base = dict(metric=metric, mean=float(mean) if _finite(mean) else math.nan, runs=runs, confidence=confidence)
    if single_run or runs == 1:
        return Interval(**base, ci_low=None, ci_high=None, status=STATUSES[2],
                        detail="one run, no interval (the file states one successful run)")
    if not all(_finite(v) for v in (mean, std, se, low, high, t)) or not runs or runs < 2:
        missing = [k for k, v in (("mean", mean), ("std", std), ("se", se), ("ci_low", low), ("ci_high", high),
                                  ("t_critical", t)) if not _finite(v)]
        why = f"{', '.join(missing)} not stated" if missing else "the number of runs is not stated"
        return Interval(**base, ci_low=None, ci_high=None, status=STATUSES[3], detail=f"not checked: {why}")
    level = confidence if _finite(confidence) and 0 < confidence < 1 else DEFAULT_CONFIDENCE
    h = {k: half_unit(v, printed.get(k)) for k, v in (("mean", mean), ("std", std), ("se", se), ("ci_low", low),
                                                       ("ci_high", high), ("t_critical", t))}
    se_again = std / math.sqrt(runs)
    t_again = float(sps.t.ppf((1 + level) / 2, runs - 1))
    problems = []
    if abs(se - se_again) > h["se"] + h["std"] / math.sqrt(runs):
        problems.append(f"se {se:g} is not std ÷ √n = {std:g} ÷ √{runs} = {se_again:.4g}")
    if abs(t - t_again) > h["t_critical"] + 1e-6:
        problems.append(f"t_critical {t:g} is not t({level:g}, {runs - 1} df) = {t_again:.4g}")
    allowance = h["mean"] + t * h["se"] + se * h["t_critical"]
    for name, stated, again in (("ci_low", low, mean - t * se), ("ci_high", high, mean + t * se)):
        if abs(stated - again) > allowance + h[name]:
            problems.append(f"{name} {stated:g} is not mean ∓ t·se = {mean:g} ∓ {t:g} × {se:g} = {again:.6g}")
    implied = (high - low) / (2 * se) if se > 0 else None
    out = dict(base, ci_low=float(low), ci_high=float(high), se_recomputed=se_again, t_expected=t_again,
               ci_low_recomputed=mean - t_again * se_again, ci_high_recomputed=mean + t_again * se_again,
               t_implied=implied)
    if problems:
        return Interval(**out, status=STATUSES[1], detail="flagged, not used: " + "; ".join(problems)
                        + (f" (the stated interval implies t ≈ {implied:.3g})" if implied else ""))
    said = "" if _finite(confidence) else f" (confidence level not stated: AIPerf's default {DEFAULT_CONFIDENCE:g})"
    return Interval(**out, status=STATUSES[0],
                    detail=f"{runs} runs, {level:.0%} interval [{low:g}, {high:g}] agrees with mean ± t·se{said}")


def point_bands(intervals: pd.DataFrame, basis: str) -> pd.DataFrame:
    """Per point (``point_id``): the relative run-to-run band of its throughput on ``basis`` (``low``, ``high``:
    ci ÷ mean; NaN when not usable), ``runs``, ``confidence``, ``status`` and ``source`` (what it was read from, or
    why there is none). ``intervals``: rows of the ``point_intervals`` table."""
    columns = ["point_id", "low", "high", "runs", "confidence", "status", "source"]
    metric = METRIC_OF_BASIS.get(basis)
    if intervals is None or intervals.empty or metric is None:
        return pd.DataFrame(columns=columns)
    mine = intervals[intervals["metric"] == metric]
    if mine.empty:
        return pd.DataFrame(columns=columns)
    mean = pd.to_numeric(mine["mean"], errors="coerce").to_numpy(dtype=float)
    usable = (mine["status"] == STATUSES[0]).to_numpy() & np.isfinite(mean) & (mean > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        low = np.where(usable, pd.to_numeric(mine["ci_low"], errors="coerce").to_numpy(dtype=float) / mean, np.nan)
        high = np.where(usable, pd.to_numeric(mine["ci_high"], errors="coerce").to_numpy(dtype=float) / mean, np.nan)
    source = [f"{metric} over {r:g} runs, {c:.0%} interval" if ok else f"{metric}: {d}"
              for ok, r, c, d in zip(usable, pd.to_numeric(mine["runs"], errors="coerce").fillna(0),
                                     pd.to_numeric(mine["confidence"], errors="coerce").fillna(DEFAULT_CONFIDENCE),
                                     mine["detail"])]
    return pd.DataFrame({"point_id": mine["point_id"].to_numpy(), "low": low, "high": high,
                         "runs": mine["runs"].to_numpy(), "confidence": mine["confidence"].to_numpy(),
                         "status": mine["status"].to_numpy(), "source": source})


def frontier_bands(frontier: pd.DataFrame, bands: pd.DataFrame) -> pd.DataFrame:
    """``frontier`` (frontier points, with ``point_id``) with ``run_to_run_low`` and ``run_to_run_high`` (relative to
    its throughput; NaN: none) and ``run_to_run_from`` (its source, or why there is none: "no interval stated" for a
    point not from repeated runs)."""
    by_id = bands.set_index("point_id") if not bands.empty else None
    low, high, said = [], [], []
    for pid in frontier.get("point_id", pd.Series(index=frontier.index, dtype=float)):
        if by_id is None or pid not in by_id.index:
            low.append(math.nan), high.append(math.nan), said.append("no interval stated (one run)")
            continue
        row = by_id.loc[pid]
        row = row.iloc[0] if isinstance(row, pd.DataFrame) else row
        low.append(float(row["low"])), high.append(float(row["high"])), said.append(str(row["source"]))
    return frontier.assign(run_to_run_low=low, run_to_run_high=high, run_to_run_from=said)


def band_at(frontier: pd.DataFrame, series: str, x: float) -> tuple[float, float, str]:
    """The relative run-to-run band of ``series``' throughput at interactivity ``x`` (``frontier``: with the columns
    of :func:`frontier_bands`): a frontier point's own at its x, else the wider end of the two bracketing points on
    each side; (NaN, NaN, why) when a bracketing point has none or ``x`` is off the frontier."""
    return bands_by_series(frontier).get(series, _NO_POINT)(x)


def _NO_POINT(x: float) -> tuple[float, float, str]:
    return math.nan, math.nan, "no frontier point"


def bands_by_series(frontier: pd.DataFrame) -> dict:
    """Each series' :func:`band_at` as a function of x, its points sorted once (an iso table reads it per cell)."""
    out = {}
    for series, part in frontier.groupby("series", sort=False) if not frontier.empty else ():
        part = part.sort_values("interactivity")
        out[series] = _reader(part["interactivity"].to_numpy(dtype=float),
                              part["run_to_run_low"].to_numpy(dtype=float),
                              part["run_to_run_high"].to_numpy(dtype=float),
                              [str(s) for s in part["run_to_run_from"]])
    return out


def _reader(xs: np.ndarray, lows: np.ndarray, highs: np.ndarray, froms: list[str]):
    def at(x: float) -> tuple[float, float, str]:
        if not _finite(x):
            return math.nan, math.nan, "no frontier point"
        hit = np.flatnonzero(np.isclose(xs, x, rtol=1e-9, atol=0.0))
        if hit.size:
            ends = [int(hit[0])]
        else:
            right = int(np.searchsorted(xs, x))
            if right == 0 or right == len(xs):
                return math.nan, math.nan, "beyond the frontier's measured points"
            ends = [right - 1, right]
        lo, hi = lows[ends], highs[ends]
        if not (np.isfinite(lo).all() and np.isfinite(hi).all()):
            why = [froms[i] for i, v in zip(ends, lo) if not np.isfinite(v)]
            return math.nan, math.nan, "none: " + "; ".join(dict.fromkeys(why))
        said = "; ".join(dict.fromkeys(froms[i] for i in ends))
        if len(ends) == 2:
            said = f"the wider of the two bracketing points ({said})"
        return float(lo.min()), float(hi.max()), said

    return at


def usd_band(usd: float, low: float, high: float) -> tuple[float, float]:
    """The $/M band of a throughput band ``[low, high]`` (relative): $/M = rate ÷ throughput."""
    if not (_finite(usd) and _finite(low) and _finite(high) and low > 0 and high > 0):
        return math.nan, math.nan
    return usd / high, usd / low


def combine(usd: float, interpolation_low: float, interpolation_high: float, run_low: float,
            run_high: float) -> tuple[float, float]:
    """One $/M band of both, for whoever merges them: ``interpolation_low``/``_high`` the interpolation's range at
    this value (the iso cell's ``usd_per_mtok_low``/``_high``: :mod:`model.core.uncertainty`, equal to ``usd`` at a
    measured point), ``run_low``/``run_high`` the run-to-run $/M band (:func:`usd_band`). The two errors are
    independent and both multiplicative, so their log half-widths add in quadrature, each side apart:
    ``low = usd × e^(−√(ln(usd ÷ interpolation_low)² + ln(usd ÷ run_low)²))``,
    ``high = usd × e^(√(ln(interpolation_high ÷ usd)² + ln(run_high ÷ usd)²))``. A part that is missing (NaN or
    None: no calibrated range, one run, a flagged interval) leaves no combined band: (NaN, NaN)."""
    parts = (usd, interpolation_low, interpolation_high, run_low, run_high)
    if not all(_finite(v) and v > 0 for v in parts):
        return math.nan, math.nan
    down = math.hypot(max(0.0, math.log(usd / interpolation_low)), max(0.0, math.log(usd / run_low)))
    up = math.hypot(max(0.0, math.log(interpolation_high / usd)), max(0.0, math.log(run_high / usd)))
    return usd * math.exp(-down), usd * math.exp(up)
