"""How close a fleet ran to its limits, against the utilisation its plan sized it for.

Pure arithmetic over rows of the ``actuals_saturation`` table (OpenCost's per-engine figures,
:mod:`model.data.importers.opencost_saturation`); no I/O. Over a period ``[start, end)`` the engines' windows that
fall in it (a window counts for the hours it shares with the period) give:

- **KV-cache use** [fraction of the engines' KV-cache blocks]: the hour-weighted mean of the windows' averages, the
  highest window p95 and the highest maximum;
- **queue depth** [requests waiting]: the hour-weighted mean, the highest p95 and maximum, and the engine-hours of
  windows in which requests waited (maximum above 0): the engine was at or past saturation then;
- **running requests** [requests in the batch]: the hour-weighted mean and the highest maximum, and the
  **ceiling seen**: the highest maximum of a window in which requests waited (while requests wait the engine admits
  every sequence it can, so its batch is at its concurrent-sequence limit: OpenCost's own reading);
- **preemptions** [requests evicted and recomputed]: their sum.

A figure no window states is None. The plan's own utilisation (its volume ÷ what the planned fleet carries) is
shown beside them: a plan that sized for 50 % and a fleet whose KV cache ran at 95 % with requests waiting did not
run as planned. :data:`AT_LIMIT_KV` is the KV-cache share at which an engine counts as full.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

__all__ = ["AT_LIMIT_KV", "summary", "sentence"]

#: a KV-cache share this high (p95 of a window) counts as full
AT_LIMIT_KV = 0.95


def _weighted(values: np.ndarray, hours: np.ndarray) -> float | None:
    ok = np.isfinite(values) & (hours > 0)
    return float(np.sum(values[ok] * hours[ok]) / np.sum(hours[ok])) if ok.any() else None


def _highest(values: np.ndarray) -> float | None:
    ok = np.isfinite(values)
    return float(values[ok].max()) if ok.any() else None


def _column(rows: pd.DataFrame, column: str) -> np.ndarray:
    return pd.to_numeric(rows[column], errors="coerce").to_numpy(dtype=float, na_value=np.nan)


def summary(rows: pd.DataFrame, start, end, plan_utilisation: float | None = None) -> dict | None:
    """The saturation figures of ``rows`` (the plan's models' rows of ``actuals_saturation``) over ``[start, end)``
    (timestamps), beside ``plan_utilisation`` [fraction]; None when no window falls in the period."""
    if rows is None or rows.empty:
        return None
    start, end = pd.Timestamp(start), pd.Timestamp(end)
    lo = np.maximum(rows["period_start"].to_numpy(dtype="datetime64[ns]"), start.to_datetime64())
    hi = np.minimum(rows["period_end"].to_numpy(dtype="datetime64[ns]"), end.to_datetime64())
    hours = (hi - lo).astype("timedelta64[s]").astype(float) / 3600.0
    inside = hours > 0
    if not inside.any():
        return None
    part, hours = rows[inside], hours[inside]
    kv = {s: _column(part, f"kv_cache_usage_{s}") for s in ("avg", "p95", "max")}
    queue = {s: _column(part, f"queue_depth_{s}") for s in ("avg", "p95", "max")}
    running = {s: _column(part, f"running_requests_{s}") for s in ("avg", "p95", "max")}
    preempted = _column(part, "preemptions")
    waited = np.isfinite(queue["max"]) & (queue["max"] > 0)
    out = {
        "period_start": start.isoformat(), "period_end": end.isoformat(),
        "engines": int(part["pod"].fillna(part["model"]).nunique()), "windows": int(len(part)),
        "engine_hours": float(hours.sum()),
        "kv_cache_usage_mean": _weighted(kv["avg"], hours), "kv_cache_usage_p95": _highest(kv["p95"]),
        "kv_cache_usage_max": _highest(kv["max"]),
        "queue_depth_mean": _weighted(queue["avg"], hours), "queue_depth_p95": _highest(queue["p95"]),
        "queue_depth_max": _highest(queue["max"]),
        "hours_with_queue": float(hours[waited].sum()) if np.isfinite(queue["max"]).any() else None,
        "running_requests_mean": _weighted(running["avg"], hours), "running_requests_max": _highest(running["max"]),
        "running_ceiling_seen": _highest(running["max"][waited]) if waited.any() else None,
        "preemptions": float(np.nansum(preempted)) if np.isfinite(preempted).any() else None,
        "plan_utilization": plan_utilisation if plan_utilisation is not None and math.isfinite(plan_utilisation)
        else None,
    }
    out["at_limit"] = bool((out["hours_with_queue"] or 0) > 0 or (out["preemptions"] or 0) > 0
                           or (out["kv_cache_usage_p95"] or 0) >= AT_LIMIT_KV)
    out["text"] = sentence(out)
    return out


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{value:.0%}"


def sentence(s: dict) -> str:
    """The saturation summary in one sentence, against the plan's utilisation."""
    parts = []
    if s["kv_cache_usage_mean"] is not None or s["kv_cache_usage_max"] is not None:
        parts.append(f"KV-cache use {_pct(s['kv_cache_usage_mean'])} on average (highest window p95 "
                     f"{_pct(s['kv_cache_usage_p95'])}, maximum {_pct(s['kv_cache_usage_max'])})")
    if s["hours_with_queue"] is not None:
        parts.append(f"requests waited in {s['hours_with_queue']:,.0f} of {s['engine_hours']:,.0f} engine-hours"
                     + (f" (queue depth up to {s['queue_depth_max']:,.0f})" if s["queue_depth_max"] else ""))
    if s["running_requests_mean"] is not None:
        ceiling = s["running_ceiling_seen"]
        parts.append(f"running batches averaged {s['running_requests_mean']:,.1f} requests"
                     + (f" (ceiling {ceiling:,.0f} seen while requests waited)" if ceiling is not None else ""))
    if s["preemptions"] is not None:
        parts.append(f"{s['preemptions']:,.0f} preemptions")
    engines = f"{s['engines']} engine{'s' if s['engines'] != 1 else ''}"
    text = f"The {engines} ran at " + "; ".join(parts) + "." if parts else \
        f"The {engines} state no saturation figure."
    if s["plan_utilization"] is not None:
        text += f" The plan sized the fleet to run at {s['plan_utilization']:.1%} of its capacity"
    else:
        text += " The plan states no utilisation"
    if s["at_limit"]:
        return text + "; the engines reached their limits (requests waited, preemptions, or a KV-cache p95 of 95 % " \
                      "or more)."
    return text + "; the engines stayed below their limits."
