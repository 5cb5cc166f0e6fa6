"""Cells of the series a view cannot price, and the rate at which each would match the ones it can.

The iso table (:func:`model.core.iso.iso_table`) holds the series that have a cost curve. A series in view without
one (:func:`model.core.status.series_without_curve`: no $/GPU-hour, no usable row, zero throughput) still gets a row
at every target, status ``missing`` or ``zero throughput`` and no $/M, so no table leaves it out in silence.

A series without a rate still has its measured throughput: at one interactivity its $/M is proportional to the rate
it would pay, so it is priced once at $1/GPU-hour (:func:`curves_at_one`), and the $/GPU-hour at which it would cost
what a priced series does is the ratio of the two $/M (:func:`model.core.status.break_even_rates`): the ratio of the
two throughputs times the priced one's rate. That rate is the answer for it, never a ranking that leaves it out.

Pure functions over pandas frames.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from model.core.iso import CostCurve, cost_curves, iso_table
from model.core.status import PRICED, break_even_rates, priced_mask, rank_key

__all__ = ["curves_at_one", "with_unpriced", "break_even_column", "unpriced_at", "UNPRICED_COLUMNS",
           "sort_cells"]

#: the columns of :func:`unpriced_at`
UNPRICED_COLUMNS = ["series", "hardware", "reaches", "tokens_per_second_per_gpu", "against", "against_usd_per_mtok",
                    "against_usd_per_gpu_hour", "break_even_usd_per_gpu_hour"]


def curves_at_one(frontier: pd.DataFrame, without: pd.DataFrame) -> dict[str, CostCurve]:
    """The cost curves at $1/GPU-hour of the series ``without`` names as missing a rate (each of one hardware; a
    series mixing hardware is fitted on tokens per dollar and has no frontier without rates) [$/M at $1/GPU-hour]."""
    names = without.loc[(without["status"] == "missing") & (without["hardware"] != "mixed"), "series"] \
        if not without.empty else []
    if frontier.empty or not len(names):
        return {}
    mine = frontier[frontier["series"].isin(set(names))]
    return cost_curves(mine, {h: 1.0 for h in mine["hardware"].dropna().unique()})


def _throughput_at(at_one: dict[str, CostCurve], series: np.ndarray, x: np.ndarray, method: str) -> np.ndarray:
    """tok/s/GPU of each (series, x) read from its $1/GPU-hour curve where measured or interpolated; NaN else."""
    out = np.full(len(series), np.nan)
    if not at_one or not len(series):
        return out
    table = iso_table(at_one, np.unique(x), method)
    ok = table[priced_mask(table)]
    lookup = {(s, float(v)): float(t) for s, v, t in
              ok[["series", "interactivity", "tokens_per_second_per_gpu"]].itertuples(index=False)}
    return np.array([lookup.get((s, float(v)), np.nan) for s, v in zip(series, x)], dtype=float)


def with_unpriced(iso: pd.DataFrame, without: pd.DataFrame, at_one: dict[str, CostCurve], targets,
                  method: str) -> pd.DataFrame:
    """``iso`` with a row per target for each series ``without`` a curve: no $/M, its status and, for a series
    without a rate that reaches the target, its measured or interpolated tok/s/GPU there."""
    if without.empty:
        return iso.assign(reason=pd.Series("", index=iso.index, dtype=object))
    targets = np.atleast_1d(np.asarray(targets, dtype=float))
    k = len(targets)
    series = np.repeat(without["series"].to_numpy(dtype=object), k)
    x = np.tile(targets, len(without))
    extra = pd.DataFrame({
        "series": series, "interactivity": x, "usd_per_mtok": np.nan, "clamped": False,
        "status": np.repeat(without["status"].to_numpy(dtype=object), k), "side": "",
        "hardware": np.repeat(without["hardware"].to_numpy(dtype=object), k), "usd_per_gpu_hour": np.nan,
        "tokens_per_second_per_gpu": _throughput_at(at_one, series, x, method), "ratio_to_baseline": np.nan,
    }, columns=iso.columns if len(iso.columns) else None)
    extra["reason"] = np.repeat(without["reason"].to_numpy(dtype=object), k)
    iso = iso.assign(reason=pd.Series("", index=iso.index, dtype=object))
    if extra.empty:
        return iso
    return pd.concat([iso, extra], ignore_index=True) if len(iso) else extra


def break_even_column(iso: pd.DataFrame) -> pd.DataFrame:
    """``iso`` with ``break_even_usd_per_gpu_hour``: the $/GPU-hour at which the row's series would cost what the
    cheapest priced series does at the same interactivity, ``cheapest $/M × 0.0036 × its tok/s/GPU`` (a priced row:
    its rate × cheapest ÷ its own $/M; a row without a rate: from its throughput). NaN where the row's value is
    clamped, unreachable or missing without a throughput, or nothing is priced there."""
    if iso.empty:
        return iso.assign(break_even_usd_per_gpu_hour=pd.Series(dtype=float))
    priced = priced_mask(iso)
    cheapest = iso["usd_per_mtok"].where(priced).groupby(iso["interactivity"]).transform("min").to_numpy(dtype=float)
    tps = iso["tokens_per_second_per_gpu"].to_numpy(dtype=float)
    own = np.where(priced, 1e6 / (3600 * tps), np.nan)
    no_rate = (iso["status"] == "missing").to_numpy() & np.isfinite(tps)
    own[no_rate] = 1e6 / (3600 * tps[no_rate])
    return iso.assign(break_even_usd_per_gpu_hour=break_even_rates(own, cheapest))


def sort_cells(iso: pd.DataFrame) -> pd.DataFrame:
    """``iso`` by interactivity, then priced cells cheapest first, then the rest by status and name."""
    if iso.empty:
        return iso
    key = iso.assign(_rank=rank_key(iso["status"]))
    return key.sort_values(["interactivity", "_rank", "usd_per_mtok", "series"], na_position="last",
                           kind="stable").drop(columns="_rank")


def unpriced_at(at_x: pd.DataFrame) -> pd.DataFrame:
    """Each series without a rate at one interactivity (``at_x``: the rows there, :func:`with_unpriced`) against each
    priced series: whether its frontier reaches there (measured or interpolated), its tok/s/GPU there, the other's
    $/M and $/GPU-hour, and the $/GPU-hour at which it would cost the same (:data:`UNPRICED_COLUMNS`; one row with
    ``against`` empty when it does not reach there or nothing is priced there)."""
    missing = at_x["status"].to_numpy(dtype=object) == "missing" if not at_x.empty else np.zeros(0, dtype=bool)
    if not missing.any() or "reason" not in at_x.columns:
        return pd.DataFrame(columns=UNPRICED_COLUMNS)
    mine = at_x[missing & (at_x["reason"].to_numpy(dtype=object) == "no rate")]
    priced = at_x[at_x["status"].isin(PRICED)].sort_values("usd_per_mtok", kind="stable")
    rows = []
    for r in mine.to_dict("records"):
        tps = float(r["tokens_per_second_per_gpu"])
        base = {"series": r["series"], "hardware": r["hardware"], "reaches": bool(np.isfinite(tps)),
                "tokens_per_second_per_gpu": tps}
        if not np.isfinite(tps) or priced.empty:
            rows.append({**base, "against": "", "against_usd_per_mtok": np.nan, "against_usd_per_gpu_hour": np.nan,
                         "break_even_usd_per_gpu_hour": np.nan})
            continue
        for p in priced.to_dict("records"):
            rate = float(break_even_rates(1e6 / (3600 * tps), p["usd_per_mtok"]))
            rows.append({**base, "against": p["series"], "against_usd_per_mtok": float(p["usd_per_mtok"]),
                         "against_usd_per_gpu_hour": float(p["usd_per_gpu_hour"]), "break_even_usd_per_gpu_hour": rate})
    return pd.DataFrame(rows, columns=UNPRICED_COLUMNS)
