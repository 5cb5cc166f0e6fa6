"""Repeat runs and run dates: which measured rows build a frontier.

Pure functions over pandas frames; no I/O.

**Repeats.** Rows of one series and one *configuration* (:data:`CONFIG_KEYS`: hardware, recipe,
parallelism, load and workload, plus the view's series keys) are repeats of one measurement,
whether they come from several files or several run dates. :func:`choose_repeats` says which of
them build the frontier (:data:`REPEATS`):

- ``pooled`` every row, as measured (the default; a frontier then takes the best of the repeats);
- ``latest`` the rows of the latest run of each configuration: the latest ``run_date``, and among
  rows of one date (or rows that state none) the last ingested file (highest ``source_id``);
- ``median`` one row per configuration whose every measurement (interactivity, throughputs,
  latencies, ...) is the median of its repeats, measure by measure.

:func:`repeat_spread` gives each configuration's spread across its repeats (min and max of
interactivity and of throughput per GPU on a basis).

**Run dates.** :func:`as_of_rows` keeps the rows run on or before a date; a row that states no
run date is left out (and counted), never given one. A run date after tomorrow (:func:`latest_run_date`: ingest
refuses those; a store written before may hold one, a mistyped year) counts as no date: it never wins "latest"
repeats nor extends the history.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone

import numpy as np
import pandas as pd

__all__ = ["REPEATS", "CONFIG_KEYS", "MEASURES", "as_of_rows", "config_keys", "choose_repeats", "repeat_spread",
           "runs_in_view", "RunsInView", "run_dates", "latest_run_date"]

REPEATS = ("pooled", "latest", "median")
#: what identifies a configuration: hardware, recipe, parallelism, load and workload
CONFIG_KEYS = (
    "hardware", "framework", "framework_version", "precision", "spec_decoding", "kv_cache_dtype",
    "tp", "ep", "dp", "pp", "gpus", "gpus_prefill", "gpus_decode", "disaggregated",
    "concurrency", "request_rate_rps",
    "model", "isl", "osl", "scenario", "prefix_cache_hit_rate",
)
#: measured values a median of repeats takes measure by measure
MEASURES = (
    "total_tokens_per_second_per_gpu", "output_tokens_per_second_per_gpu", "input_tokens_per_second_per_gpu",
    "total_tokens_per_second", "output_tokens_per_second", "input_tokens_per_second", "interactivity",
    "ttft_p50_s", "ttft_p90_s", "ttft_p95_s", "ttft_p99_s", "tpot_median_ms", "e2e_latency_median_s",
    "success_rate", "power_per_gpu_w", "input_tokens_per_second_per_prefill_gpu",
    "output_tokens_per_second_per_decode_gpu",
)


def latest_run_date() -> date:
    """The latest run date a point may have: tomorrow (UTC), so a run made today anywhere on Earth is taken, and
    a mistyped year (2062 for 2026) is refused at ingest rather than stored to win "latest" repeats."""
    return datetime.now(timezone.utc).date() + timedelta(days=1)


def run_dates(rows: pd.DataFrame) -> pd.Series:
    """Each row's run date as a ``datetime64`` (NaT where the row states none, or a date after
    :func:`latest_run_date`, which no run can have)."""
    if "run_date" not in rows.columns:
        return pd.Series(pd.NaT, index=rows.index, dtype="datetime64[ns]")
    dates = pd.to_datetime(rows["run_date"], errors="coerce")
    return dates.where(~(dates > pd.Timestamp(latest_run_date())))


def as_of_rows(rows: pd.DataFrame, as_of: date | None) -> tuple[pd.DataFrame, int]:
    """The rows run on or before ``as_of``, and how many rows were left out for stating no run date.

    ``as_of`` None keeps every row (the same frame, no copy) and leaves none out.
    """
    if as_of is None:
        return rows, 0
    dates = run_dates(rows)
    undated = int(dates.isna().sum())
    keep = dates.notna() & (dates <= pd.Timestamp(as_of))
    return rows[keep.to_numpy()], undated


def config_keys(rows: pd.DataFrame, by: tuple[str, ...] = ()) -> list[str]:
    """The configuration keys the rows hold: :data:`CONFIG_KEYS` plus the series keys ``by``."""
    keys = [k for k in dict.fromkeys((*CONFIG_KEYS, *by)) if k in rows.columns]
    return keys


def _codes(rows: pd.DataFrame, keys: list[str]) -> np.ndarray:
    if not keys or rows.empty:
        return np.zeros(len(rows), dtype=np.int64)
    return rows.groupby(keys, dropna=False, sort=False).ngroup().to_numpy()


def choose_repeats(rows: pd.DataFrame, how: str, by: tuple[str, ...] = ()) -> pd.DataFrame:
    """The rows that build the frontier under ``how`` (one of :data:`REPEATS`); see the module text.

    ``pooled`` returns ``rows`` itself. ``median`` rows keep the first repeat's configuration and
    provenance, with ``source_file`` naming how many runs they are the median of, ``run_date``
    the latest of them and ``repeats`` the count.
    """
    if how not in REPEATS:
        raise ValueError(f"unknown repeats choice {how!r}; choose one of {', '.join(REPEATS)}")
    if how == "pooled" or rows.empty:
        return rows
    codes = _codes(rows, config_keys(rows, by))
    dates = run_dates(rows).to_numpy()
    if how == "latest":
        order = pd.DataFrame({"code": codes, "date": dates,
                              "source": rows["source_id"].to_numpy() if "source_id" in rows.columns else 0})
        # NaT sorts first: a dated run is later than an undated one; then the last ingested file
        latest = order.sort_values(["date", "source"], na_position="first").groupby("code").tail(1)
        key = set(zip(latest["code"], latest["date"].astype("int64"), latest["source"]))
        mask = [(c, d, s) in key for c, d, s in zip(order["code"], order["date"].astype("int64"), order["source"])]
        return rows[np.asarray(mask, dtype=bool)]
    # median
    frame = rows.reset_index(drop=True)
    groups = pd.Series(codes)
    counts = groups.value_counts()
    if (counts <= 1).all():
        return rows
    uniq, first_pos = np.unique(codes, return_index=True)
    order = np.argsort(first_pos)                        # configurations in the order the rows first show them
    out = frame.iloc[first_pos[order]].copy()
    out.index = uniq[order]
    measures = [m for m in MEASURES if m in frame.columns]
    medians = frame[measures].apply(pd.to_numeric, errors="coerce").astype(float).groupby(groups, sort=False).median()
    for m in measures:
        values = medians[m].reindex(out.index)
        out[m] = values.astype(out[m].dtype) if str(out[m].dtype) in ("float64", "Float64") else values
    n = counts.reindex(out.index).to_numpy()
    out["repeats"] = n
    latest_dates = pd.Series(dates).groupby(groups, sort=False).max().reindex(out.index)
    if "run_date" in out.columns:
        out["run_date"] = latest_dates.to_numpy().astype("datetime64[ns]") if out["run_date"].dtype.kind == "M" \
            else [d.date() if pd.notna(d) else None for d in latest_dates]
    if "source_file" in out.columns:
        out["source_file"] = [f"median of {k} runs" if k > 1 else f for f, k in zip(out["source_file"], n)]
    if "source_line" in out.columns:
        out.loc[n > 1, "source_line"] = pd.NA
    return out.reset_index(drop=True)


def repeat_spread(rows: pd.DataFrame, column: str, by: tuple[str, ...] = ()) -> pd.DataFrame:
    """Each configuration's spread across its repeats: one row per configuration with its keys,
    ``repeats`` (rows), ``runs`` (distinct run dates and files), ``interactivity_min``/``_max`` [tok/s/user],
    ``throughput_min``/``_max``/``_median`` of ``column`` [tok/s/GPU] and ``spread_pct`` = (max − min) / median × 100.
    Only configurations measured more than once are returned."""
    keys = config_keys(rows, by)
    columns = [*keys, "repeats", "runs", "interactivity_min", "interactivity_max", "throughput_min", "throughput_max",
               "throughput_median", "spread_pct"]
    if rows.empty or column not in rows.columns:
        return pd.DataFrame(columns=columns)
    codes = _codes(rows, keys)
    counts = np.bincount(codes)
    multi = counts[codes] > 1
    if not multi.any():
        return pd.DataFrame(columns=columns)
    sub = rows[multi]
    g = pd.Series(codes[multi], index=sub.index)
    y = pd.to_numeric(sub[column], errors="coerce").astype(float)
    x = pd.to_numeric(sub["interactivity"], errors="coerce").astype(float)
    dates = run_dates(sub).dt.strftime("%Y-%m-%d").fillna("no date")
    files = sub["source_file"].astype(str) if "source_file" in sub.columns else pd.Series("", index=sub.index)
    run = dates + " · " + files
    out = sub[keys].groupby(g, sort=False).head(1).set_index(g[~g.duplicated()].to_numpy())
    out["repeats"] = g.value_counts().reindex(out.index).to_numpy()
    out["runs"] = run.groupby(g, sort=False).nunique().reindex(out.index).to_numpy()
    out["interactivity_min"] = x.groupby(g).min().reindex(out.index).to_numpy()
    out["interactivity_max"] = x.groupby(g).max().reindex(out.index).to_numpy()
    out["throughput_min"] = y.groupby(g).min().reindex(out.index).to_numpy()
    out["throughput_max"] = y.groupby(g).max().reindex(out.index).to_numpy()
    out["throughput_median"] = y.groupby(g).median().reindex(out.index).to_numpy()
    with np.errstate(invalid="ignore", divide="ignore"):
        out["spread_pct"] = (out["throughput_max"] - out["throughput_min"]) / out["throughput_median"] * 100
    return out.reset_index(drop=True)[columns]


def _undated(n: int) -> str:
    return f"{n} row states no run date" if n == 1 else f"{n} rows state no run date"


@dataclass
class RunsInView:
    """The rows a view's run choices leave: ``rows`` (after ``as_of`` and ``repeats``), ``pooled`` (after
    ``as_of`` only: the repeats whose spread is shown) and notes in words."""

    rows: pd.DataFrame
    pooled: pd.DataFrame
    notes: list[str] = field(default_factory=list)


def runs_in_view(rows: pd.DataFrame, as_of: date | None = None, repeats: str = "pooled",
                 by: tuple[str, ...] = ()) -> RunsInView:
    """:func:`as_of_rows` then :func:`choose_repeats`, with notes saying what each left out.

    With neither choice set the rows come back unchanged (the same frame)."""
    notes = []
    pooled, undated = as_of_rows(rows, as_of)
    if as_of is not None:
        later = len(rows) - len(pooled) - undated
        notes.append(f"as of {as_of.isoformat()}: {len(pooled)} of {len(rows)} rows"
                     + (f"; {later} run later left out" if later else "")
                     + (f"; {_undated(undated)} and {'is' if undated == 1 else 'are'} left out (never given one)"
                        if undated else ""))
    chosen = choose_repeats(pooled, repeats, by)
    if repeats != "pooled" and len(chosen) != len(pooled):
        what = "the latest run of each configuration" if repeats == "latest" else \
            "the median of each configuration's repeats"
        notes.append(f"repeats: {what}: {len(chosen)} rows build the frontier from {len(pooled)} measured")
    return RunsInView(chosen, pooled, notes)
