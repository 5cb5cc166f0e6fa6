"""TensorRT-LLM ``trtllm-bench throughput ... --report_json FILE`` reports.

Nested object: ``engine``, ``machine``, ``world_info``, ``request_info``,
``performance``, ``streaming_metrics`` (with ``--streaming``), ``dataset``.
Units are in the key names (``_ms``, ``_tok_s``, ``_req_s``); the
``*_percentiles`` blocks in ``streaming_metrics`` are ms. The benchmark runs the
model in process on ``world_info.world_size`` GPUs, so that is the GPU count
(``output_throughput_per_gpu_tok_s`` divides by it too). The report has no
configured concurrency limit; the achieved average is kept as
``achieved_concurrency``.
"""

from __future__ import annotations

from typing import Any

from model.data.importers._common import Rows, first, integer, num, objects, seconds
from model.data.importers.base import Format, IngestError

__all__ = ["FORMATS", "matches", "parse"]

_QUANT = {"fp8": "fp8", "fp8_block_scales": "fp8", "nvfp4": "fp4", "fp4": "fp4", "w4a8_mxfp4_fp8": "mxfp4"}


def matches(keys: set[str]) -> bool:
    """A report: ``engine`` + ``world_info`` + ``request_throughput_req_s``."""
    return {"engine", "world_info"} <= keys and bool({"request_throughput_req_s", "performance"} & keys)


def _d(obj: dict, key: str) -> dict:
    value = obj.get(key)
    return value if isinstance(value, dict) else {}


def _row(line: int, obj: dict) -> dict[str, Any]:
    engine, world, req = _d(obj, "engine"), _d(obj, "world_info"), _d(obj, "request_info")
    perf, stream, data = _d(obj, "performance"), _d(obj, "streaming_metrics"), _d(obj, "dataset")
    ttft, tpot, lat = _d(stream, "ttft_percentiles"), _d(stream, "tpot_percentiles"), \
        _d(perf, "request_latency_percentiles_ms")
    quant = engine.get("quantization")
    precision = _QUANT.get(str(quant).lower(), str(quant).lower()) if isinstance(quant, str) else engine.get("dtype")
    decoding = _d(obj, "decoding_stats")
    total, output = num(perf.get("system_total_throughput_tok_s")), num(perf.get("system_output_throughput_tok_s"))
    return {
        "source_line": line,
        "hardware": _d(obj, "machine").get("name"),
        "gpus": integer(world.get("world_size")),
        "model": engine.get("model"),
        "isl": first(integer(data.get("avg_isl")), integer(req.get("avg_input_length"))),
        "osl": first(integer(data.get("avg_osl")), integer(req.get("avg_output_length"))),
        "framework": "trt",
        "framework_version": engine.get("version"),
        "precision": precision,
        "kv_cache_dtype": engine.get("kv_cache_dtype"),
        "spec_decoding": decoding.get("mode") if isinstance(decoding.get("mode"), str) else None,
        "tp": integer(world.get("tp_size")),
        "pp": integer(world.get("pp_size")),
        "ep": integer(world.get("ep_size")),
        "total_tokens_per_second": total,
        "output_tokens_per_second": output,
        "input_tokens_per_second": total - output if total is not None and output is not None else None,
        "ttft_p50_s": seconds(ttft.get("p50"), "ms"),
        "ttft_p90_s": seconds(ttft.get("p90"), "ms"),
        "ttft_p95_s": seconds(ttft.get("p95"), "ms"),
        "ttft_p99_s": seconds(ttft.get("p99"), "ms"),
        "tpot_median_ms": num(tpot.get("p50")),
        "e2e_latency_median_s": seconds(lat.get("p50"), "ms"),
        "requests_completed": integer(req.get("num_requests")),
        "achieved_concurrency": num(req.get("avg_num_concurrent_requests")),
        "trt_backend": engine.get("backend"),
        "issue_rate_rps": num(world.get("issue_rate")),
        "max_batch_size": integer(world.get("max_batch_size")),
        "max_num_tokens": integer(world.get("max_num_tokens")),
        "per_user_tok_s": num(perf.get("output_throughput_per_user_tok_s")),
        "request_throughput_rps": num(perf.get("request_throughput_req_s")),
        "dataset_path": data.get("dataset_path"),
    }


def parse(records: list[tuple[int, Any]], name: str) -> tuple[Rows, list[str]]:
    """One row per report.

    Returns
    -------
    rows : list of dict
        throughputs [tok/s, whole system] with ``gpus`` = ``world_size``; TTFT/E2E
        [s] and TPOT [ms] from the percentile blocks; hardware from ``machine.name``.
    notes : list of str
    """
    rows, notes = [], set()
    for line, obj in objects(records, name, "trtllm-bench"):
        perf = _d(obj, "performance")
        if "system_output_throughput_tok_s" not in perf:
            raise IngestError(name, "not a trtllm-bench report: no performance.system_output_throughput_tok_s",
                              line=line, field="performance")
        if not _d(obj, "streaming_metrics"):
            notes.add("no streaming_metrics (run without --streaming): no TTFT/TPOT")
        rows.append(_row(line, obj))
    notes.add("gpus = world_info.world_size")
    if any(row["input_tokens_per_second"] is not None for row in rows):
        notes.add("input tok/s derived: system total - system output tok/s (not stated)")
    return rows, sorted(notes)


FORMATS = (Format("trtllm_bench", "json", lambda keys, head: matches(keys), parse),)
