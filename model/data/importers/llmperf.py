"""LLMPerf (ray-project/llmperf) ``*_summary.json``.

A flat dict (``results_<metric>_quantiles_p50``, ``results_<metric>_mean``...).
Every latency is in **seconds** (``_s`` in the name). ``inter_token_latency_s``
is per request (sum of token gaps, TTFT included) / output tokens. Token min/max
may be strings (numpy ints through ``json.dump(default=str)``). Only the
configured concurrency (``num_concurrent_requests``) is written. Output tok/s is
``results_mean_output_throughput_token_per_s`` (all output tokens / wall time);
input tok/s = mean input tokens x completed requests per second, the same wall
time.
"""

from __future__ import annotations

from typing import Any

from model.data.importers._common import Rows, integer, iso_date, num, objects
from model.data.importers.base import Format, IngestError

__all__ = ["FORMATS", "matches", "parse"]


def matches(keys: set[str]) -> bool:
    """A summary: ``results_ttft_s_*`` (or any ``results_*_quantiles_p50``) and ``num_concurrent_requests``."""
    results = "results_ttft_s_mean" in keys or any(k.startswith("results_") and k.endswith("_quantiles_p50")
                                                   for k in keys)
    return results and "num_concurrent_requests" in keys


def _row(line: int, obj: dict) -> dict[str, Any]:
    def r(metric: str, stat: str) -> float | None:
        return num(obj.get(f"results_{metric}_{stat}"))

    output = num(obj.get("results_mean_output_throughput_token_per_s"))
    per_min = num(obj.get("results_num_completed_requests_per_min"))
    mean_in = r("number_input_tokens", "mean")
    inp = mean_in * per_min / 60.0 if mean_in is not None and per_min is not None else None
    itl = r("inter_token_latency_s", "quantiles_p50")
    error_rate = num(obj.get("results_error_rate"))
    completed, errors = integer(obj.get("results_num_completed_requests")), integer(obj.get("results_number_errors"))
    if error_rate is None and completed is not None and errors is not None and completed + errors > 0:
        error_rate = errors / (completed + errors)  # the same ratio LLMPerf writes as results_error_rate
    return {
        "source_line": line,
        "model": obj.get("model"),
        "isl": integer(obj.get("mean_input_tokens")),
        "osl": integer(obj.get("mean_output_tokens")),
        "concurrency": num(obj.get("num_concurrent_requests")),
        "total_tokens_per_second": inp + output if inp is not None and output is not None else None,
        "output_tokens_per_second": output,
        "input_tokens_per_second": inp,
        "ttft_p50_s": r("ttft_s", "quantiles_p50"),
        "ttft_p90_s": r("ttft_s", "quantiles_p90"),
        "ttft_p95_s": r("ttft_s", "quantiles_p95"),
        "ttft_p99_s": r("ttft_s", "quantiles_p99"),
        "tpot_median_ms": None if itl is None else itl * 1000.0,
        "e2e_latency_median_s": r("end_to_end_latency_s", "quantiles_p50"),
        "requests_completed": completed,
        "requests_failed": errors,
        "success_rate": None if error_rate is None else 1.0 - error_rate,
        "run_date": iso_date(obj.get("timestamp")),
        "ttft_mean_s": r("ttft_s", "mean"),
        "per_request_output_tok_s_p50": r("request_output_throughput_token_per_s", "quantiles_p50"),
        "mean_input_tokens_measured": mean_in,
        "mean_output_tokens_measured": r("number_output_tokens", "mean"),
        "completed_per_min": per_min,
        "run_name": obj.get("name"),
    }


def parse(records: list[tuple[int, Any]], name: str) -> tuple[Rows, list[str]]:
    """One row per summary.

    Returns
    -------
    rows : list of dict
        throughputs [tok/s, whole system], TTFT/E2E [s], TPOT [ms] = median
        inter-token latency x 1000, ``isl``/``osl`` = the configured means.
    notes : list of str
    """
    rows = []
    for line, obj in objects(records, name, "LLMPerf"):
        if "results_mean_output_throughput_token_per_s" not in obj and "results_ttft_s_mean" not in obj:
            raise IngestError(name, "not an LLMPerf summary: no results_* keys", line=line)
        rows.append(_row(line, obj))
    return rows, ["LLMPerf inter-token latency includes TTFT spread over the output tokens",
                  "input tok/s derived: mean input tokens x completed requests/s (not stated)",
                  "total tok/s derived: input + output (not stated)"]


FORMATS = (Format("llmperf", "json", lambda keys, head: matches(keys), parse),)
