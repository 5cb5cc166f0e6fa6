"""How close the serving engines ran to their limits: OpenCost's per-engine saturation figures, as actuals.

OpenCost collects the model-server scheduler telemetry of the Gateway API Inference Extension's Model Server
Protocol (``docs/inference-cost-tracking.md``, "Saturation Metrics") and keeps it in its KubeModel as one
``InferenceServer`` per engine (``core/pkg/model/kubemodel/inference.go``). Each carries, over the set's window:

- ``kvCacheUsageAvg``, ``kvCacheUsageP95``, ``kvCacheUsageMax``: the share of the engine's KV-cache blocks in use
  (vLLM's ``vllm:kv_cache_usage_perc``, a fraction 0..1);
- ``queueDepthAvg``, ``queueDepthP95``, ``queueDepthMax``: requests waiting (``vllm:num_requests_waiting``);
- ``runningRequestsAvg``, ``runningRequestsP95``, ``runningRequestsMax``: requests in the running batch
  (``vllm:num_requests_running``; the maximum while requests wait is the engine's concurrent-sequence ceiling);
- ``preemptions``: requests evicted from the running batch in the window (``vllm:num_preemptions_total``' delta);
- ``modelName``, ``engine`` (``vllm``) and its identity: ``podUid`` and ``namespaceUid`` (the KubeModel's keys).

Two layouts are read, as OpenCost wrote them across releases: a set's ``inferenceServers`` keyed by pod UID, one
entry per engine with the figures on it (the set's ``window`` is their period); and the earlier one keyed by
``model:namespace``, each entry with its own ``start``, ``end`` and ``namespace`` and the figures per pod under
``replicas``. The set may come in OpenCost's ``{"code", "data"}`` envelope or alone, and a JSON array of sets (a
series of windows) is read set by set. One row per engine and window (table ``actuals_saturation``): every figure
as stated, an absent one left empty. Refused, naming the line and field: a figure that is not a finite number at
least 0, a KV-cache share above 1 (vLLM states a fraction), an average or a p95 above its maximum, a period without
both ends, and (in :mod:`model.data.actuals`) one engine's windows overlapping.
"""

from __future__ import annotations

import json
import math
from typing import Any

from model.data.importers.base import IngestError
from model.data.importers.opencost import Lines, body_of, parse_window

__all__ = ["FORMAT", "COLUMNS", "GAUGES", "matches", "read"]

FORMAT = "opencost-saturation"
#: each gauge's fields, as OpenCost names them, and the table's columns
GAUGES = {"kvCacheUsage": "kv_cache_usage", "queueDepth": "queue_depth", "runningRequests": "running_requests"}
_STATS = {"Avg": "avg", "P95": "p95", "Max": "max"}
_FIELDS = {f"{g}{s}": f"{c}_{t}" for g, c in GAUGES.items() for s, t in _STATS.items()}
_FIELDS["preemptions"] = "preemptions"
#: the table's columns after source_id, in order
COLUMNS = ("source_line", "model", "namespace", "pod", "engine", "period_start", "period_end", *_FIELDS.values(),
           "notes", "extra")
_IDENTITY = {"modelName", "namespace", "engine", "podUid", "start", "end", "replicas"}


def matches(keys: set[str], head: str = "") -> bool:
    """OpenCost's per-engine saturation figures: a set's ``inferenceServers``, or an engine's own fields."""
    return "inferenceServers" in keys or {"kvCacheUsageAvg", "queueDepthAvg"} <= keys


def _number(value: Any, name: str, line: int, field: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise IngestError(name, f"must be a finite JSON number, got {str(value)[:40]!r}", line=line, field=field)
    if value < 0:
        raise IngestError(name, f"cannot be negative (got {value})", line=line, field=field)
    return float(value)


def _figures(entry: dict, name: str, line: int, where: str) -> dict:
    """The saturation figures of one engine (an entry or a replica), checked."""
    out = {column: _number(entry.get(field), name, line, f"{where}{field}") for field, column in _FIELDS.items()}
    for gauge, column in GAUGES.items():
        share = out[f"{column}_max"]
        if gauge == "kvCacheUsage":
            for stat in _STATS.values():
                value = out[f"{column}_{stat}"]
                if value is not None and value > 1 + 1e-9:
                    raise IngestError(name, f"is a fraction of the KV-cache blocks, 0..1 (got {value:g}; vLLM's "
                                      "kv_cache_usage_perc is a fraction)", line=line,
                                      field=f"{where}{gauge}{stat.title() if stat != 'p95' else 'P95'}")
        for stat in ("avg", "p95"):
            value = out[f"{column}_{stat}"]
            if value is not None and share is not None and value > share * (1 + 1e-9) + 1e-12:
                raise IngestError(name, f"{gauge}{'Avg' if stat == 'avg' else 'P95'} {value:g} is above "
                                  f"{gauge}Max {share:g}", line=line,
                                  field=f"{where}{gauge}{'Avg' if stat == 'avg' else 'P95'}")
    if all(v is None for v in out.values()):
        raise IngestError(name, "no saturation figure (kvCacheUsageAvg, queueDepthAvg, runningRequestsAvg, ...)",
                          line=line, field=where.rstrip(".") or None)
    return out


def _text(value: Any, name: str, line: int, field: str) -> str | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if not isinstance(value, str) or len(value) > 300 or not value.strip().isprintable():
        raise IngestError(name, "must be printable text of at most 300 characters", line=line, field=field)
    return value.strip()


def _servers(body: dict, name: str, lines: Lines) -> list[tuple[str, Any]]:
    servers = body.get("inferenceServers")
    if isinstance(servers, dict):
        return list(servers.items())
    if isinstance(servers, list):
        return [(str(i), s) for i, s in enumerate(servers)]
    if servers is None and matches(set(body)):
        return [("", body)]                      # one engine's figures saved alone
    raise IngestError(name, "inferenceServers must be an object keyed by pod UID (or model:namespace)",
                      line=lines.find("inferenceServers")[0], field="inferenceServers")


def _rows_of_set(body: dict, name: str, lines: Lines, warnings: list[str]) -> list[dict]:
    rows = []
    for key, server in _servers(body, name, lines):
        line = lines.find(key)[0] if key and not key.isdigit() else lines.find("modelName")[0]
        if not isinstance(server, dict):
            raise IngestError(name, f"an inference server is a JSON object, found {type(server).__name__}",
                              line=line, field=f"inferenceServers.{key}")
        model = _text(server.get("modelName"), name, line, "modelName")
        if model is None:
            raise IngestError(name, "missing value", line=line, field="modelName")
        if "start" in server or "end" in server:
            start, end = parse_window({"start": server.get("start"), "end": server.get("end")}, name, line, "")
        else:
            window = body.get("window")
            if window is None:
                raise IngestError(name, "the figures state no period: neither the entry (start, end) nor its set "
                                  "(window) has one", line=line, field="window")
            start, end = parse_window(window, name, line, "window")
        base = {"model": model, "namespace": _text(server.get("namespace"), name, line, "namespace"),
                "engine": _text(server.get("engine"), name, line, "engine"), "period_start": start,
                "period_end": end}
        extra = {k: v for k, v in server.items() if k not in _IDENTITY and k not in _FIELDS
                 and (isinstance(v, (str, int, float, bool)) or v is None)}
        replicas = server.get("replicas")
        if isinstance(replicas, dict):           # the earlier layout: one entry per model, its pods under replicas
            for pod, figures in replicas.items():
                at = lines.find(pod)[0]
                if not isinstance(figures, dict):
                    raise IngestError(name, "a replica is a JSON object of figures", line=at,
                                      field=f"replicas.{pod}")
                rows.append({**base, "source_line": at, "pod": _text(pod, name, at, "replicas"),
                             **_figures(figures, name, at, f"replicas.{pod}."),
                             "notes": None, "extra": json.dumps(extra, sort_keys=True) if extra else None})
            continue
        pod = _text(server.get("podUid"), name, line, "podUid") or (key if key and ":" not in key else None)
        rows.append({**base, "source_line": line, "pod": pod, **_figures(server, name, line, ""), "notes": None,
                     "extra": json.dumps(extra, sort_keys=True) if extra else None})
        if pod is None:
            warnings.append(f"line {line}: no podUid: the engine is known by its model and namespace only")
    return rows


def read(records: list[tuple[int, Any]], name: str, text: str) -> tuple[list[dict], str, list[str], list[str]]:
    """The rows of one file (one set, or a JSON array of sets), its format, notes for the source and warnings.
    Raises :class:`IngestError` naming the line and field of the first bad value."""
    lines, rows, warnings = Lines(text), [], []
    for _, value in records:
        body, _ = body_of(value, name, matches, "not OpenCost's saturation figures: expected inferenceServers "
                          "(an engine's kvCacheUsageAvg, queueDepthAvg, runningRequestsAvg, ...)")
        rows.extend(_rows_of_set(body, name, lines, warnings))
    if not rows:
        raise IngestError(name, "the file holds no inference server's figures: nothing to store")
    engines = sorted({r["engine"] for r in rows if r["engine"]})
    notes = [f"OpenCost per-engine saturation figures ({', '.join(engines) or 'engine not stated'}): KV-cache use "
             "(fraction of blocks), queue depth and running requests (avg, p95, max over each window), preemptions "
             "(count in the window)"]
    return rows, FORMAT, notes, warnings
