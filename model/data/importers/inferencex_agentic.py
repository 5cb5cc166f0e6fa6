"""InferenceX agentic aggregates (``scenario_type: agentic-coding``), as its agentic aggregation writes them.

Two layouts, both one object per run (or an ``agg_bmk.json`` array of them):

* **nested** (``utils/agentic/aggregation/process_agentic_result.py``, current): ``request_accounting``
  counts every AIPerf record (warm-up included), ``request_metrics`` holds the statistics of the measured
  (``benchmark_phase: profiling``), error-free records: latencies in **seconds**, throughput per system and
  ``per_gpu``, ``intvty.<stat>`` = 1 / ``itl.<stat>`` (so ``intvty.p90`` is the slow tail), ``tpot`` = ``itl``.
  Power (``avg_power_w`` per GPU) is at the top level when ``power_valid`` is 1.
* **flat** (``utils/agentic/process_agentic_result.py``, older): ``mean_/p75_/p90_/p95_/std_`` statistics,
  no median; ``p90_intvty`` is the 90th percentile of per-request interactivity (the fast tail). Read by
  :mod:`.inferencex` like any agg row; :func:`flat_notes` says what it leaves empty.

A run that measured nothing (``num_requests_successful`` 0, no throughput) is left out of an array with a
note (:func:`measured_nothing`); :mod:`.inferencex` refuses a file of nothing else.
"""

from __future__ import annotations

from typing import Any

from model.data.importers._common import first, integer, num, scalar_extras

__all__ = ["is_nested", "is_flat_agentic", "measured_nothing", "nested_row", "flat_notes", "nested_notes", "NESTED_KEYS", "FLAT_ROW_NOTE"]

#: what every flat agentic row's notes say
FLAT_ROW_NOTE = ("ISL/OSL = measured mean input/output tokens, rounded; no median stated: interactivity, TPOT, "
                 "TTFT p50 and E2E empty (mean/p75/p90/p95 interactivity are percentiles of per-request "
                 "interactivity, p90 = the fast tail, kept in extra); requests failed not stated")

#: the keys that tell the nested layout (with ``hw`` and ``conc``)
NESTED_KEYS = {"request_metrics", "num_requests_total"}

_CONSUMED = {
    "hw", "conc", "image", "model", "framework", "precision", "spec_decoding", "disagg", "is_multinode",
    "scenario_type", "tp", "ep", "pp", "pcp_size", "num_gpus", "num_prefill_gpu", "num_decode_gpu", "decode_tp",
    "decode_ep", "num_requests_successful", "request_accounting", "request_metrics", "server_metrics",
    "avg_power_w", "power_valid", "power_metric_schema_version",
}


def is_nested(obj: dict) -> bool:
    return isinstance(obj.get("request_metrics"), dict)


def is_flat_agentic(obj: dict) -> bool:
    return obj.get("scenario_type") == "agentic-coding" and not is_nested(obj)


def _dict(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def measured_nothing(obj: dict) -> str | None:
    """Why an agentic row holds no measurement (``None`` when it has one)."""
    if is_nested(obj):
        throughput = _dict(_dict(obj["request_metrics"]).get("throughput"))
        if integer(obj.get("num_requests_successful")) or _dict(throughput.get("per_gpu")):
            return None
        total = integer(obj.get("num_requests_total"))
        acc = _dict(obj.get("request_accounting"))
        measured = _measured(acc)
        if measured:
            return f"all {measured} measured requests failed (num_requests_successful 0, no throughput)"
        return f"it measured nothing (num_requests_total {total}, num_requests_successful 0, no throughput)"
    if "tput_per_gpu" in obj or "num_requests_total" not in obj:
        return None
    return (f"it measured nothing (num_requests_total {integer(obj.get('num_requests_total'))}: no throughput "
            "or latency, only config and cache fields)")


def _measured(acc: dict) -> int | None:
    """Requests of the measured window: every record less the warm-up ones (errors or not)."""
    total, warmup = integer(acc.get("records_total")), integer(acc.get("records_warmup_dropped"))
    return None if total is None or warmup is None else total - warmup


def _stat(stats: dict, key: str, stat: str) -> float | None:
    return num(_dict(stats.get(key)).get(stat))


def _gpus(obj: dict, disagg: bool, said: list[str]) -> dict[str, Any]:
    """The GPU count the aggregation divides by: ``num_gpus`` when stated, else its own formula."""
    stated = integer(obj.get("num_gpus"))
    prefill, decode = integer(obj.get("num_prefill_gpu")), integer(obj.get("num_decode_gpu"))
    if disagg:
        gpus = first(stated, (prefill or 0) + (decode or 0) or None)
        if stated is None:
            said.append("gpus derived: num_prefill_gpu + num_decode_gpu, the aggregation's per-GPU denominator")
        return {"disaggregated": True, "gpus": gpus, "gpus_prefill": prefill, "gpus_decode": decode,
                "tp": integer(obj.get("decode_tp")), "ep": integer(obj.get("decode_ep"))}
    tp = integer(obj.get("tp"))
    gpus = stated
    if gpus is None and tp:
        gpus = tp * (integer(obj.get("pp")) or 1) * (integer(obj.get("pcp_size")) or 1)
        said.append("gpus derived: tp x pp x pcp_size, the aggregation's per-GPU denominator")
    return {"disaggregated": False, "gpus": gpus, "tp": tp, "ep": integer(obj.get("ep")),
            "pp": integer(obj.get("pp"))}


def _counts(obj: dict, said: list[str]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Completed/failed/success over the measured window only, and what the accounting says of warm-up."""
    acc = _dict(obj.get("request_accounting"))
    done = integer(obj.get("num_requests_successful"))
    measured = _measured(acc)
    warmup = integer(acc.get("records_warmup_dropped"))
    extras: dict[str, Any] = {"num_requests_total": integer(obj.get("num_requests_total")), "warmup_requests": warmup}
    if measured is None or done is None or measured < done:
        said.append("requests failed not stated (no request_accounting): left empty")
        return {"requests_completed": done}, extras
    failed = measured - done
    errors = integer(acc.get("records_error_dropped"))
    if errors is not None:
        extras["warmup_errors"] = max(errors - failed, 0)
    categories = _dict(acc.get("error_categories"))
    if categories:
        extras["error_categories"] = ", ".join(f"{k}: {v}" for k, v in categories.items())
    warm_errors = extras.get("warmup_errors")
    said.append(f"success over the measured (profiling) window only: {done} of {measured} measured requests "
                f"succeeded; {warmup} warm-up records" + (f" ({warm_errors} of them errors)" if warm_errors else "")
                + " are not requests of that window")
    said.append("requests failed derived: records_total - records_warmup_dropped - num_requests_successful "
                f"= {failed} (the file states no failed count); success rate from it")
    return {"requests_completed": done, "requests_failed": failed,
            "success_rate": done / measured if measured else None}, extras


def _power(obj: dict, said: list[str]) -> tuple[float | None, dict[str, Any]]:
    """``avg_power_w`` [W/GPU] when the file marks its power valid; the other power keys for extra."""
    keys = [k for k in obj if k.startswith(("avg_", "total_gpu_energy", "joules_per_", "prefill_avg_power",
                                            "decode_avg_power", "prefill_gpu_energy", "decode_gpu_energy",
                                            "prefill_joules", "decode_joules"))]
    extras = {k: obj[k] for k in keys if k != "avg_power_w" and num(obj[k]) is not None}
    if integer(obj.get("power_valid")) == 1 and integer(obj.get("power_metric_schema_version")) in (2, None):
        return num(obj.get("avg_power_w")), extras
    if "power_valid" in obj:
        said.append("power not stored: the file marks it invalid (power_valid 0)")
    return None, extras


def nested_row(line: int, obj: dict) -> dict[str, Any]:
    """One row from a nested agentic aggregate (units as the module docstring); ``notes`` says what was derived."""
    said: list[str] = []
    metrics = _dict(obj.get("request_metrics"))
    latency, tokens = _dict(metrics.get("latency")), _dict(metrics.get("tokens"))
    throughput = _dict(metrics.get("throughput"))
    per_gpu = _dict(throughput.get("per_gpu"))
    disagg = obj.get("disagg") is True or obj.get("is_multinode") is True or str(obj.get("disagg")).lower() == "true"
    counts, count_extras = _counts(obj, said)
    power, power_extras = _power(obj, said)
    tpot = _stat(latency, "tpot", "p50")
    intvty = _stat(latency, "intvty", "p50")
    isl, osl = _stat(tokens, "input", "mean"), _stat(tokens, "output_actual", "mean")
    if intvty is not None:
        said.append("interactivity = intvty.p50 as stated (1 / p50 ITL); p75/p90/p95 interactivity (1 / the "
                    "matching ITL percentile, the slow tail) kept in extra as intvty_p75/intvty_p90/intvty_p95")
    if tpot is not None:
        said.append("TPOT = ITL (the agentic aggregation writes tpot from the inter-token latencies)")
    if isl is not None or osl is not None:
        said.append("ISL/OSL = measured mean input/output tokens, rounded (the agentic trace has no fixed length)")
    cache = _dict(_dict(obj.get("server_metrics")).get("cache"))

    def rate(kind: str) -> float | None:
        return num(_dict(throughput.get(kind)).get("tokens_per_second"))

    row: dict[str, Any] = {
        "source_line": line,
        "hardware": obj.get("hw"),
        "model": obj.get("model"),
        "isl": None if isl is None else round(isl),
        "osl": None if osl is None else round(osl),
        "scenario": obj.get("scenario_type"),
        "framework": obj.get("framework"),
        "framework_version": str(obj["image"]).replace("#", "/") if obj.get("image") else None,
        "precision": obj.get("precision"),
        "spec_decoding": obj.get("spec_decoding"),
        "concurrency": num(obj.get("conc")),
        **_gpus(obj, disagg, said),
        "total_tokens_per_second_per_gpu": num(per_gpu.get("total_tput_tps")),
        "output_tokens_per_second_per_gpu": None if disagg else num(per_gpu.get("output_tput_tps")),
        "input_tokens_per_second_per_gpu": None if disagg else num(per_gpu.get("input_tput_tps")),
        "total_tokens_per_second": rate("total"),
        "output_tokens_per_second": rate("output"),
        "input_tokens_per_second": rate("input"),
        "interactivity": intvty,
        "tpot_median_ms": None if tpot is None else tpot * 1000.0,
        "ttft_p50_s": _stat(latency, "ttft", "p50"),
        "ttft_p90_s": _stat(latency, "ttft", "p90"),
        "ttft_p95_s": _stat(latency, "ttft", "p95"),
        "e2e_latency_median_s": _stat(latency, "e2el", "p50"),
        "prefix_cache_hit_rate": num(cache.get("gpu_cache_hit_rate")),
        **counts,
        "power_per_gpu_w": power,
        "notes": "; ".join(said) or None,
    }
    for stat in ("mean", "p75", "p90", "p95"):
        row[f"intvty_{stat}"] = _stat(latency, "intvty", stat)
    row.update({k: v for k, v in count_extras.items() if v is not None})
    row.update(power_extras)
    row.update({"duration_s": num(throughput.get("duration_seconds")),
                "theoretical_cache_hit_rate": num(_dict(metrics.get("cache")).get("theoretical_cache_hit_rate")),
                "hw": obj.get("hw")})
    row.update(scalar_extras(obj, _CONSUMED | set(row)))
    return {k: v for k, v in row.items() if v is not None or k in _FIELDS_KEPT}


#: fields every nested row carries even when empty (so the frame has the column)
_FIELDS_KEPT = {"source_line", "hardware", "model", "interactivity", "tpot_median_ms", "requests_failed",
                "success_rate", "power_per_gpu_w", "notes"}


def nested_notes(count: int) -> list[str]:
    """What every nested row's notes say, once per file (each row's notes give its own numbers)."""
    return ["InferenceX agentic aggregate (nested): success is over the measured (profiling) window only; "
            "requests failed derived from request_accounting (records_total - records_warmup_dropped - "
            "num_requests_successful); each row's notes give its counts"] if count else []


def flat_notes(count: int) -> list[str]:
    """What the flat agentic layout leaves empty, said once per file."""
    return ["InferenceX flat agentic rows: no median is stated, so interactivity, TPOT, TTFT p50 and E2E are "
            "left empty; mean/p75/p90/p95 interactivity are statistics of per-request interactivity "
            "(p90 = the fast tail), kept in extra as mean_intvty/p75_intvty/p90_intvty/p95_intvty",
            "ISL/OSL = measured mean input/output tokens, rounded",
            "requests failed not stated (this writer drops errors and warm-up before counting)"] if count else []
