"""Column-name aliases: how a CSV header maps onto :class:`model.core.schema.BenchmarkPoint`.

Header names are compared case- and punctuation-insensitively (``tok/s/gpu``,
``Tok_S_GPU`` and ``toks gpu`` are the same key). Each alias names the field it
fills and the factor that converts its unit to the field's unit.
"""

from __future__ import annotations

import re

from model.core.schema import POINT_FIELDS

__all__ = ["normalise_header", "resolve_column", "ALIASES", "SPECIAL_COLUMNS"]


def normalise_header(name: str) -> str:
    """``"Tok/s/GPU "`` -> ``"toksgpu"``: lower-case, alphanumerics only."""
    return re.sub(r"[^a-z0-9]", "", str(name).lower().lstrip("\ufeff"))


_MS = 0.001  # milliseconds -> seconds

# alias -> (field, scale). Every field's own name is an alias of itself (scale 1).
_RAW_ALIASES: dict[str, tuple[str, float]] = {
    # workload
    "model_name": ("model", 1), "model_id": ("model", 1), "modelpath": ("model", 1),
    "input_len": ("isl", 1), "input_length": ("isl", 1),
    "output_len": ("osl", 1), "output_length": ("osl", 1),
    "cache_hit_rate": ("prefix_cache_hit_rate", 1), "prefix_cache_hit": ("prefix_cache_hit_rate", 1),
    "prefix_hit_rate": ("prefix_cache_hit_rate", 1), "scenario_label": ("scenario", 1),
    "workload": ("scenario", 1),
    # system
    "hw": ("hardware", 1), "gpu": ("hardware", 1), "gpu_type": ("hardware", 1), "accelerator": ("hardware", 1),
    "num_gpus": ("gpus", 1), "n_gpus": ("gpus", 1), "gpu_count": ("gpus", 1),
    "world_size": ("gpus", 1), "total_gpus": ("gpus", 1),
    "num_prefill_gpu": ("gpus_prefill", 1), "prefill_gpus": ("gpus_prefill", 1),
    "num_decode_gpu": ("gpus_decode", 1), "decode_gpus": ("gpus_decode", 1),
    # recipe
    "engine": ("framework", 1), "backend": ("framework", 1),
    "version": ("framework_version", 1), "image": ("framework_version", 1), "framework_image": ("framework_version", 1),
    "dtype": ("precision", 1), "quantization": ("precision", 1), "quant": ("precision", 1),
    "spec_decode": ("spec_decoding", 1), "spec_method": ("spec_decoding", 1), "speculative_decoding": ("spec_decoding", 1),
    "spec": ("spec_decoding", 1), "spec_decoding_method": ("spec_decoding", 1),
    "tp_size": ("tp", 1), "tensor_parallel": ("tp", 1), "decode_tp": ("tp", 1),
    "ep_size": ("ep", 1), "expert_parallel": ("ep", 1), "decode_ep": ("ep", 1),
    "dp_size": ("dp", 1), "data_parallel": ("dp", 1),
    "pp_size": ("pp", 1), "pipeline_parallel": ("pp", 1),
    "disagg": ("disaggregated", 1), "is_disaggregated": ("disaggregated", 1),
    "kv_cache_dtype": ("kv_cache_dtype", 1), "kv_dtype": ("kv_cache_dtype", 1), "kv_cache": ("kv_cache_dtype", 1),
    "tag": ("tags", 1), "labels": ("tags", 1),
    # load
    "conc": ("concurrency", 1), "max_concurrency": ("concurrency", 1), "num_concurrent_requests": ("concurrency", 1),
    "users": ("concurrency", 1),
    "request_rate": ("request_rate_rps", 1), "rps": ("request_rate_rps", 1), "sustained_rps": ("request_rate_rps", 1),
    "qps": ("request_rate_rps", 1), "req_s": ("request_rate_rps", 1),
    # throughput per GPU
    "tput_per_gpu": ("total_tokens_per_second_per_gpu", 1), "tok/s/gpu": ("total_tokens_per_second_per_gpu", 1),
    "tokens_per_second_per_gpu": ("total_tokens_per_second_per_gpu", 1),
    "total_tput_per_gpu": ("total_tokens_per_second_per_gpu", 1), "throughput_per_gpu": ("total_tokens_per_second_per_gpu", 1),
    "total_tok_s_gpu": ("total_tokens_per_second_per_gpu", 1),
    "output_tput_per_gpu": ("output_tokens_per_second_per_gpu", 1),
    "output_tok/s/gpu": ("output_tokens_per_second_per_gpu", 1), "output_tok_s_gpu": ("output_tokens_per_second_per_gpu", 1),
    "input_tput_per_gpu": ("input_tokens_per_second_per_gpu", 1),
    "input_tok/s/gpu": ("input_tokens_per_second_per_gpu", 1), "input_tok_s_gpu": ("input_tokens_per_second_per_gpu", 1),
    # throughput per system
    "total_token_throughput": ("total_tokens_per_second", 1), "total_throughput": ("total_tokens_per_second", 1),
    "tok/s": ("total_tokens_per_second", 1), "tokens_per_second": ("total_tokens_per_second", 1),
    "total_tok_s": ("total_tokens_per_second", 1), "throughput": ("total_tokens_per_second", 1),
    "output_throughput": ("output_tokens_per_second", 1), "output_tok/s": ("output_tokens_per_second", 1),
    "output_tok_s": ("output_tokens_per_second", 1),
    # Wafer's GLM-5.2 post counts generated tokens in its aggregate per-node figure
    "aggregate_tok_s_node": ("output_tokens_per_second", 1), "tok_s_node": ("output_tokens_per_second", 1),
    "input_throughput": ("input_tokens_per_second", 1), "input_tok/s": ("input_tokens_per_second", 1),
    # interactivity and latency
    "tok_s_user": ("interactivity", 1), "tok/s/user": ("interactivity", 1), "intvty": ("interactivity", 1),
    "median_intvty": ("interactivity", 1), "tokens_per_second_per_user": ("interactivity", 1),
    "interactivity_tok_s_user": ("interactivity", 1), "output_throughput_per_user": ("interactivity", 1),
    "tpot_ms": ("tpot_median_ms", 1), "median_tpot_ms": ("tpot_median_ms", 1), "tpot": ("tpot_median_ms", 1),
    "tpot_p50_ms": ("tpot_median_ms", 1), "median_tpot_s": ("tpot_median_ms", 1000),
    "ttft_s": ("ttft_p50_s", 1), "median_ttft_s": ("ttft_p50_s", 1), "ttft_p50": ("ttft_p50_s", 1),
    "median_ttft_ms": ("ttft_p50_s", _MS), "ttft_ms": ("ttft_p50_s", _MS), "ttft_p50_ms": ("ttft_p50_s", _MS),
    "p90_ttft_ms": ("ttft_p90_s", _MS), "ttft_p90_ms": ("ttft_p90_s", _MS), "p90_ttft_s": ("ttft_p90_s", 1),
    "p95_ttft_ms": ("ttft_p95_s", _MS), "ttft_p95_ms": ("ttft_p95_s", _MS), "p95_ttft_s": ("ttft_p95_s", 1),
    "p99_ttft_ms": ("ttft_p99_s", _MS), "ttft_p99_ms": ("ttft_p99_s", _MS), "p99_ttft_s": ("ttft_p99_s", 1),
    "e2e_latency_s": ("e2e_latency_median_s", 1), "median_e2el_ms": ("e2e_latency_median_s", _MS),
    "median_e2e_latency_ms": ("e2e_latency_median_s", _MS), "e2el_ms": ("e2e_latency_median_s", _MS),
    "median_e2el_s": ("e2e_latency_median_s", 1), "latency_s": ("e2e_latency_median_s", 1),
    "completed": ("requests_completed", 1), "num_completed": ("requests_completed", 1),
    "failed": ("requests_failed", 1), "errors": ("requests_failed", 1), "num_failed": ("requests_failed", 1),
    "success_pct": ("success_rate", 0.01), "success_rate_pct": ("success_rate", 0.01),
    "power_w": ("power_per_gpu_w", 1), "avg_power_w": ("power_per_gpu_w", 1), "power_per_gpu": ("power_per_gpu_w", 1),
    "gpu_power_w": ("power_per_gpu_w", 1),
    "published_usd_per_m": ("published_usd_per_mtok", 1), "usd_per_m": ("published_usd_per_mtok", 1),
    "usd_per_mtok": ("published_usd_per_mtok", 1), "cost_per_million_tokens": ("published_usd_per_mtok", 1),
    # provenance
    "date": ("run_date", 1), "run_at": ("run_date", 1), "timestamp": ("run_date", 1),
    "run_url": ("url", 1), "link": ("url", 1), "source_url": ("url", 1),
    "note": ("notes", 1), "comment": ("notes", 1),
}

#: Columns that fill several fields and are parsed by the importer itself.
SPECIAL_COLUMNS = {"parallelism": "parallelism", "value": "value", "unit": "unit"}

ALIASES: dict[str, tuple[str, float]] = {normalise_header(f): (f, 1.0) for f in POINT_FIELDS}
ALIASES.update({normalise_header(k): (f, float(s)) for k, (f, s) in _RAW_ALIASES.items()})
for _field, _scale in list(ALIASES.values()):
    assert _field in POINT_FIELDS, _field
# provenance fields are ours, not a file's
for _ours in ("sourceline", "extra"):
    ALIASES.pop(_ours, None)


def resolve_column(header: str) -> tuple[str, float] | str | None:
    """The field (and unit factor) a header fills, a special column name, or ``None``."""
    key = normalise_header(header)
    if key in ALIASES:
        return ALIASES[key]
    return SPECIAL_COLUMNS.get(key)
