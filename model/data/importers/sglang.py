"""SGLang ``python -m sglang.bench_serving --output-file X.jsonl`` results.

JSON Lines, one run per line (the tool appends). Stats keys end in ``_ms``
(**milliseconds**); ``request_rate`` is written as the bare ``Infinity`` literal
when unbounded. ``concurrency`` is the *achieved* average (sum of E2E latencies /
duration); the configured limit is ``max_concurrency``. Newer lines carry
``server_info`` (the server's ``/get_server_info``): model path, ``tp_size``,
``dp_size``, ``ep_size``, version.

GPU count: **not** taken from ``server_info``. ``tp_size`` describes one server;
a router in front of several (or DP replicas, PD disaggregation) would make
``gpus = tp_size`` wrong by a multiple, so it is kept as ``tp``/``dp``/``ep`` and
the GPU count must be supplied (``--set gpus=N``).

*Rate.* ``request_throughput`` is completions over ``duration`` (the drain after the last send included), no
achieved send rate: ``request_rate`` stays the point's rate, as for vLLM (:mod:`.vllm`).

*Workload.* ISL/OSL are ``random_input_len``/``random_output_len`` for a random dataset of fixed lengths, else
the measured means per completed request, rounded; the lines of one file whose measured means agree within 2 %
share their weighted mean, as for vLLM (:func:`model.data.importers._common.one_workload`).
"""

from __future__ import annotations

from typing import Any

from model.core.interactivity import apart_note
from model.data.importers._common import (
    Rows,
    integer,
    num,
    objects,
    one_workload,
    per_completed,
    scalar_extras,
)
from model.data.importers.base import Format, IngestError
from model.data.importers.per_request import attach

__all__ = ["FORMATS", "matches", "parse"]

_REQUIRED = ("completed", "output_throughput")
_CONSUMED = {
    "tag", "backend", "request_rate", "max_concurrency", "server_info", "completed", "total_input_tokens",
    "total_output_tokens", "input_throughput", "output_throughput", "total_throughput", "concurrency",
    "median_ttft_ms", "p90_ttft_ms", "p95_ttft_ms", "p99_ttft_ms", "median_tpot_ms", "median_itl_ms",
    "median_e2e_latency_ms",
    "random_input_len", "random_output_len", "random_range_ratio", "sharegpt_output_len",
}
_QUANT = {"fp8": "fp8", "w8a8_fp8": "fp8", "modelopt": "fp8", "modelopt_fp4": "fp4", "mxfp4": "mxfp4",
          "fp4": "fp4", "w4afp8": "w4afp8", "awq": "awq", "gptq": "gptq", "int8": "int8", "w8a8_int8": "int8"}


def matches(keys: set[str]) -> bool:
    """An SGLang line: ``dataset_name`` with ``e2e_latency_ms`` stats or ``input_throughput`` + ``concurrency``;
    or a 2024 line (no ``dataset_name``): ``total_output_tokens_retokenized`` beside ``median_e2e_latency_ms``."""
    e2e = any(k.endswith("_e2e_latency_ms") for k in keys)
    if {"completed", "total_output_tokens_retokenized", "median_e2e_latency_ms"} <= keys:
        return True
    return "dataset_name" in keys and "completed" in keys and (
        e2e or {"input_throughput", "concurrency"} <= keys)


def _server(info: Any) -> dict[str, Any]:
    """Fields ``server_info`` states for sure (a PD-nested or failed server_info gives nothing)."""
    if not isinstance(info, dict):
        return {}
    quant = info.get("quantization")
    kv = info.get("kv_cache_dtype")
    out: dict[str, Any] = {
        "model": info.get("model_path"),
        "framework": "sglang",
        "framework_version": info.get("version"),
        "tp": integer(info.get("tp_size")),
        "dp": integer(info.get("dp_size")),
        "ep": integer(info.get("ep_size")),
        "pp": integer(info.get("pp_size")),
        "precision": _QUANT.get(str(quant).lower(), str(quant).lower()) if isinstance(quant, str) else None,
        "kv_cache_dtype": kv if isinstance(kv, str) and kv != "auto" else None,
    }
    if "speculative_algorithm" in info:
        out["spec_decoding"] = info["speculative_algorithm"] or "none"
    return out


def _row(line: int, obj: dict, notes: set[str]) -> dict[str, Any]:
    completed = integer(obj.get("completed"))
    inp, out = num(obj.get("input_throughput")), num(obj.get("output_throughput"))
    duration, total_in = num(obj.get("duration")), num(obj.get("total_input_tokens"))
    if inp is None and total_in is not None and duration:
        inp = total_in / duration
        notes.add("input tok/s = total_input_tokens / duration (no input_throughput in these lines)")
    total = num(obj.get("total_throughput"))
    if total is None and inp is not None and out is not None:
        total = inp + out
        notes.add("total tok/s derived: input + output (no total_throughput in these lines)")
    tpot = num(obj.get("median_tpot_ms"))
    if tpot is None and num(obj.get("median_itl_ms")) is not None:
        tpot = num(obj.get("median_itl_ms"))
        notes.add("TPOT = median_itl_ms (these lines have no median_tpot_ms; ITL is the same decode gap "
                  "measured per token rather than per request)")
    rate = obj.get("request_rate")
    if num(rate) is None and rate is not None:
        notes.add(f"request_rate {rate!r} means unbounded (or trace-driven): request_rate_rps left empty")
    random_fixed = _random_fixed(obj)
    total_in, total_out = num(obj.get("total_input_tokens")), num(obj.get("total_output_tokens"))
    backend = str(obj.get("backend") or "")
    row: dict[str, Any] = {
        "source_line": line,
        "framework": "sglang" if backend in ("sglang", "sglang-native") else None,
        "isl": integer(obj.get("random_input_len")) if random_fixed else
        (round(total_in / completed) if total_in is not None and completed else None),
        "osl": integer(obj.get("random_output_len")) if random_fixed else
        (round(total_out / completed) if total_out is not None and completed else None),
        "concurrency": num(obj.get("max_concurrency")),
        "request_rate_rps": num(rate),
        "total_tokens_per_second": total,
        "output_tokens_per_second": out,
        "input_tokens_per_second": inp,
        "ttft_p50_s": _s(obj.get("median_ttft_ms")),
        "ttft_p90_s": _s(obj.get("p90_ttft_ms")),
        "ttft_p95_s": _s(obj.get("p95_ttft_ms")),
        "ttft_p99_s": _s(obj.get("p99_ttft_ms")),
        "tpot_median_ms": tpot,
        "itl_median_ms": num(obj.get("median_itl_ms")),
        "e2e_latency_median_s": _s(obj.get("median_e2e_latency_ms")),
        "requests_completed": completed,
        "tags": obj.get("tag") if isinstance(obj.get("tag"), str) else None,
    }
    apart = apart_note(num(obj.get("mean_tpot_ms")), num(obj.get("mean_itl_ms")), num(obj.get("median_tpot_ms")),
                       row["itl_median_ms"])
    if apart:
        row["notes"] = apart
    row.update({k: v for k, v in _server(obj.get("server_info")).items() if v is not None})
    row["client_backend"] = backend or None
    row["achieved_concurrency"] = num(obj.get("concurrency"))
    row.update(scalar_extras(obj, _CONSUMED | set(row)))
    return row


def _s(ms: Any) -> float | None:
    value = num(ms)
    return None if value is None else value / 1000.0


def parse(records: list[tuple[int, Any]], name: str) -> tuple[Rows, list[str]]:
    """One row per SGLang JSONL line.

    Returns
    -------
    rows : list of dict
        throughputs [tok/s, whole system], TTFT/E2E [s], TPOT [ms]; ``concurrency``
        = ``max_concurrency`` (configured), the achieved mean in ``achieved_concurrency``.
    notes : list of str
    """
    notes: set[str] = {"GPU count not read from server_info (tp_size may describe one of several servers)"}
    rows: Rows = []
    means: list = []
    for line, obj in objects(records, name, "SGLang"):
        missing = [k for k in _REQUIRED if k not in obj]
        if missing:
            raise IngestError(name, f"not an SGLang bench_serving line: no {', '.join(missing)}", line=line,
                              field=missing[0])
        rows.append(attach(_row(line, obj, notes), obj, name, line, notes))
        completed = integer(obj.get("completed"))
        means.append(None if _random_fixed(obj) else (per_completed(obj, "total_input_tokens", completed),
                                                       per_completed(obj, "total_output_tokens", completed), completed))
    one_workload(rows, means, notes)
    return rows, sorted(notes)


def _random_fixed(obj: dict) -> bool:
    """A random dataset of fixed lengths (range ratio 1): ISL/OSL are the configured ones, not measured."""
    return obj.get("dataset_name") == "random" and num(obj.get("random_range_ratio")) == 1.0


FORMATS = (Format("sglang", "json", lambda keys, head: matches(keys), parse),)
