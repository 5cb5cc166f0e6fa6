"""The status of every priced cell: one vocabulary, declared once, that every surface reads.

A priced cell is a $/M the product shows for one series at one interactivity (the iso table, the series at the
interactivity you need, the history) or a figure priced from one (a fleet's capacity, an owned option at a
volume). Its status says how far the number can be trusted (:data:`STATUSES`):

``measured``
    the interactivity is a frontier point's: the $/M is that point's, exact.
``interpolated``
    between two frontier points, by the view's method; it carries a ± (:mod:`model.core.uncertainty`).
``clamped``
    outside the series' measured range, within :data:`model.core.iso.CLAMP_TOLERANCE` of its end: the value held at
    the end is shown, never priced as if measured (never ranked, never named a winner).
``unreachable``
    no frontier point reaches that interactivity (above the fastest point), or the series' slowest point is far
    faster than asked (below its range, :attr:`side` ``below``): no value.
``zero throughput``
    the series' rows reach the interactivity but state zero tokens per second on the view's basis: no value.
``missing``
    no row of the series in view (none meets the SLA, or none states interactivity and throughput), or no
    $/GPU-hour (no preset, none typed, no cost profile): no value. A series without a rate still has its measured
    throughput: the answer gives the $/GPU-hour at which it would match each priced series (:func:`break_even_rates`).

Only :data:`PRICED` cells are priced and ranked (:func:`priced_mask`). Pure functions over pandas frames.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["STATUSES", "PRICED", "SIDES", "STATUS_WORDS", "check_status", "priced_mask", "status_words",
           "rank_key", "series_without_curve", "break_even_rates", "capacity_status", "option_status"]

#: every status a priced cell can have, from the most to the least trustworthy
STATUSES = ("measured", "interpolated", "clamped", "unreachable", "zero throughput", "missing")
#: the statuses that price a cell: only these are ranked, compared or named a winner
PRICED = ("measured", "interpolated")
#: which side of a series' measured range a clamped or unreachable target lies on ("" for the others)
SIDES = ("below", "above")
#: each status in words, as a table cell or a sentence says it
STATUS_WORDS = {
    "measured": "measured (a frontier point)",
    "interpolated": "interpolated between two frontier points",
    "clamped": "clamped: held at the frontier's end, not priced",
    "unreachable": "out of reach",
    "zero throughput": "zero throughput",
    "missing": "missing: no row or no rate",
}
_SIDE_WORDS = {("unreachable", "above"): "out of reach (too fast)", ("unreachable", "below"): "out of reach (too slow)",
               ("clamped", "above"): "clamped at the fastest point, not priced",
               ("clamped", "below"): "clamped at the slowest point, not priced"}


def check_status(status: str) -> str:
    """``status`` if it is one of :data:`STATUSES`; raises ValueError naming the choices otherwise."""
    if status not in STATUSES:
        raise ValueError(f"unknown cell status {status!r}; choose from {', '.join(STATUSES)}")
    return status


def priced_mask(frame: pd.DataFrame) -> np.ndarray:
    """True for the rows of ``frame`` (a ``status`` column) whose cell is priced (:data:`PRICED`)."""
    if frame.empty or "status" not in frame.columns:
        return np.zeros(len(frame), dtype=bool)
    return frame["status"].isin(PRICED).to_numpy()


def status_words(status: str, side: str = "", reason: str = "") -> str:
    """A cell's status in words: ``out of reach (too fast)``, ``missing: no rate``, ``interpolated ...``. Raises
    ValueError for a status not in :data:`STATUSES`."""
    check_status(status)
    if status == "missing" and reason:
        return f"missing: {reason}"
    return _SIDE_WORDS.get((status, side), STATUS_WORDS.get(status, status))


def rank_key(status: pd.Series) -> np.ndarray:
    """A sort key putting priced cells first, then the others in the order of :data:`STATUSES` (measured and
    interpolated rank together: they are sorted by their $/M)."""
    order = {s: max(i - 1, 0) for i, s in enumerate(STATUSES)}
    return status.map(order).fillna(len(STATUSES)).to_numpy(dtype=int)


def series_without_curve(rows: pd.DataFrame, usable: pd.DataFrame, frontier: pd.DataFrame, curves, by,
                         throughput: str, rates: dict[str, float], labels) -> pd.DataFrame:
    """Every series in view that has no cost curve, with why: ``missing`` (no rate, or no usable row) or
    ``zero throughput``.

    Parameters
    ----------
    rows : DataFrame  the rows the view prices, before its SLA (the series keys, ``hardware``, ``interactivity``)
    usable : DataFrame  those the frontier was fitted on: after the SLA, with interactivity and ``throughput`` (the
        same index; :attr:`model.core.analysis.Analysis.points`)
    frontier : DataFrame  their frontier (``series``, ``hardware``)
    curves : mapping  series -> cost curve (:func:`model.core.iso.cost_curves`)
    by : sequence of str  the series keys
    throughput : str  the column of tok/s/GPU on the view's basis
    rates : {hardware: $/GPU-hour}
    labels : callable  ``labels(frame, by)`` -> a series label per row (:func:`model.core.frontier.series_labels`)

    Returns
    -------
    DataFrame: ``series``, ``hardware`` (one name, or ``mixed``), ``status``, ``reason`` (for ``missing``: ``no
    rate``, or ``no row meets the SLA with interactivity and throughput``), one row per series, by name.

    Only the rows that could not be on a frontier are labelled (left out by the SLA or for want of interactivity or
    throughput, or not positive): none while every row is usable, whatever the rows in view (``bench/bench_core.py``).
    """
    columns = ["series", "hardware", "status", "reason"]
    out: dict[str, dict] = {}
    on_frontier = set(map(str, frontier["series"].unique())) if not frontier.empty else set()
    unpriced = on_frontier - set(curves)
    if unpriced:
        mine = frontier[frontier["series"].astype(str).isin(unpriced)]
        for series, part in mine.groupby("series", sort=True):
            hardware = sorted(map(str, part["hardware"].dropna().unique()))
            out[str(series)] = {"series": str(series), "hardware": hardware[0] if len(hardware) == 1 else "mixed",
                                "status": "missing", "reason": "no rate"}
    keys = [k for k in by if k in rows.columns]
    if rows.empty or len(keys) < len(by):
        return pd.DataFrame([out[k] for k in sorted(out)], columns=columns)
    x = _numbers(usable, "interactivity")
    y = _numbers(usable, throughput)
    bad = usable[~(np.isfinite(x) & np.isfinite(y) & (x > 0) & (y > 0))]
    dropped = rows[~rows.index.isin(usable.index)] if len(usable) < len(rows) else rows.iloc[0:0]
    candidates = pd.concat([bad, dropped]) if len(dropped) else bad
    if candidates.empty:
        return pd.DataFrame([out[k] for k in sorted(out)], columns=columns)
    extra = [c for c in ("disaggregated",) if c in candidates.columns and c not in keys]
    distinct = candidates[keys + extra].drop_duplicates()
    names = labels(distinct, by)
    gone = sorted(set(map(str, names.dropna().unique())) - on_frontier - set(out))
    if not gone:
        return pd.DataFrame([out[k] for k in sorted(out)], columns=columns)
    chosen = distinct[names.isin(gone).to_numpy()].assign(_series=names[names.isin(gone)].to_numpy())
    mine = candidates.merge(chosen, on=keys + extra, how="inner")
    x, y = _numbers(mine, "interactivity"), _numbers(mine, throughput)
    zero = np.isfinite(x) & (x > 0) & (y == 0)
    for series in gone:
        here = (mine["_series"] == series).to_numpy()
        hardware = sorted(map(str, mine.loc[here, "hardware"].dropna().unique()))
        if zero[here].any():
            status, reason = "zero throughput", ""
        elif not any(h in rates for h in hardware):
            status, reason = "missing", "no rate"
        else:
            status, reason = "missing", "no row meets the SLA with interactivity and throughput"
        out[series] = {"series": series, "hardware": hardware[0] if len(hardware) == 1 else "mixed",
                       "status": status, "reason": reason}
    return pd.DataFrame([out[k] for k in sorted(out)], columns=columns)


def _numbers(frame: pd.DataFrame, column: str) -> np.ndarray:
    if column not in frame.columns:
        return np.full(len(frame), np.nan)
    return pd.to_numeric(frame[column], errors="coerce").to_numpy(dtype=float, na_value=np.nan)


def break_even_rates(usd_per_mtok_at_one: np.ndarray, usd_per_mtok_against: np.ndarray) -> np.ndarray:
    """The $/GPU-hour at which a series without a rate would cost what another does per million tokens.

    At one interactivity a series' $/M is proportional to its $/GPU-hour (:func:`model.core.cost.usd_per_mtok`):
    ``$/M = rate / (0.0036 × tok/s/GPU)``, so with ``usd_per_mtok_at_one`` its $/M at $1/GPU-hour, the rate that
    matches ``usd_per_mtok_against`` is their ratio, the ratio of the two throughputs times the other's rate:
    ``rate_b × tok/s/GPU_a / tok/s/GPU_b`` [$/GPU-hour]. NaN where either is not a number.
    """
    a = np.asarray(usd_per_mtok_at_one, dtype=float)
    b = np.asarray(usd_per_mtok_against, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where((a > 0) & np.isfinite(a) & np.isfinite(b), b / a, np.nan)


def capacity_status(sized: pd.DataFrame, capacity: pd.DataFrame) -> list[str]:
    """The status of each row of a sized fleet (:func:`model.core.fleet.size_fleet`, for a demand or a budget):
    ``measured`` where one node's capacity (``capacity``: :func:`model.core.node_capacity.node_capacity`, by series)
    was read at a measured point (a ramp's knee, a frontier point meeting the SLA and the interactivity) and a rate
    prices it; ``missing`` (no rate) where the capacity is measured but no $/GPU-hour prices it; ``unreachable``
    where no measured point meets the SLA and the interactivity you need."""
    if sized.empty:
        return []
    # one capacity per series and method (a ramp's knee, a frontier point), in the order size_fleet reads them
    per_node = {} if capacity.empty else dict(zip(zip(capacity["series"].astype(str), capacity["method"].astype(str)),
                                                  pd.to_numeric(capacity["per_node_rps"], errors="coerce")))
    methods = sized["method"] if "method" in sized.columns else pd.Series("", index=sized.index)
    rps = np.array([per_node.get((str(s), str(m)), np.nan) for s, m in zip(sized["series"], methods)], dtype=float)
    rate = pd.to_numeric(sized["usd_per_gpu_hour"], errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    measured = np.isfinite(rps) & (rps > 0)
    return np.where(measured & np.isfinite(rate), "measured", np.where(measured, "missing", "unreachable")).tolist()


def option_status(kind: str) -> str:
    """The status of an option at a monthly volume: owned and rented capacity is read at a measured point
    (``measured``); an API's price is stated, not a priced cell (``""``)."""
    return "" if kind == "api" else "measured"
