"""GuideLLM (vllm-project/guidellm) ``benchmarks.json``.

``{"benchmarks": [...]}``, one generative benchmark per load point (a sweep gives
several). Each metric is a status distribution ``{successful, incomplete,
errored, total}`` of ``{mean, median, std_dev, percentiles{p001..p999}, ...}``.
``request_latency`` is in **seconds**, ``*_ms`` metrics in **ms**,
``tokens_per_second`` is prompt + output [tok/s], ``output_tokens_per_second``
output only. The *successful* distribution is read. v0.4+ keeps the strategy in
``config.strategy`` and the totals in ``metrics.request_totals``; v0.2/0.3 in
``args.strategy`` and a top-level ``request_totals``, with no ``p50`` percentile
(``median`` is used for both).

Throughput: total and output tok/s are the rates the file states, the means of the
successful ``tokens_per_second`` and ``output_tokens_per_second`` distributions
(GuideLLM's rate distributions weight each rate by its interval, so the mean is the
tokens over the time they were produced). Input tok/s is not stated as a system rate
(``prompt_tokens_per_second`` is a rate over each request's prefill instant, a spike),
so it is derived where the file has the successful ``prompt_token_count`` total (v0.4+):
that total over the time requests ran, the measurement window clipped to the first
request's start and the last request's end (``scheduler_metrics``), else ``duration``.
A missing total or output rate is derived the same way from the token totals; without
totals (v0.2/0.3) input stays empty.

TPOT is the median ``inter_token_latency_ms`` (decode gaps, first token
excluded: the vLLM TPOT definition); ``time_per_output_token_ms`` is the fallback.

*Rate.* A ``constant``/``poisson`` benchmark's ``rate`` is what it sent at; ``requests_per_second`` is completions
over the time from the first request to the last answer (25 requests at 0.04 req/s: 25 / 620.48 s = 0.0403), no
achieved send rate, so the strategy's rate stays the point's rate and the measured one is kept in extra
(``requests_per_second_mean``), as for vLLM (:mod:`.vllm`).
"""

from __future__ import annotations

import re
from typing import Any

from model.data.importers._common import Rows, first, integer, iso_date, num
from model.data.importers.base import Format, IngestError
from model.data.importers.per_request import attach_guidellm

__all__ = ["FORMATS", "matches", "parse"]

_TYPE_RE = re.compile(r'"type_"\s*:\s*"generative_benchmark"')


def matches(keys: set[str], head: str = "") -> bool:
    """``benchmarks`` whose items have ``type_ == "generative_benchmark"``."""
    return "benchmarks" in keys and "type_" in keys and bool(_TYPE_RE.search(head))


def _d(obj: Any, key: str) -> dict:
    value = obj.get(key) if isinstance(obj, dict) else None
    return value if isinstance(value, dict) else {}


def _dist(metrics: dict, metric: str, stat: str) -> float | None:
    """``metrics[metric].successful[stat]`` (``stat`` ``median``/``mean``/``p90``...)."""
    dist = _d(_d(metrics, metric), "successful")
    if stat in ("median", "mean"):
        return num(dist.get(stat))
    return num(_d(dist, "percentiles").get(stat))


def _lengths(text: Any) -> tuple[int | None, int | None]:
    """ISL/OSL from a synthetic data spec such as ``"prompt_tokens=512,output_tokens=256"``."""
    spec = " ".join(text) if isinstance(text, list) else str(text or "")
    isl = re.search(r"prompt_tokens\s*[=:]\s*(\d+)", spec)
    osl = re.search(r"output_tokens\s*[=:]\s*(\d+)", spec)
    return (int(isl[1]) if isl else None), (int(osl[1]) if osl else None)


def _load(strategy: dict) -> dict[str, Any]:
    """Configured load: streams (concurrent), max_concurrency (throughput), 1 (synchronous), rate (constant/poisson)."""
    kind = strategy.get("type_")
    out: dict[str, Any] = {"strategy": kind}
    if kind == "synchronous":
        out["concurrency"] = 1.0
    elif kind == "concurrent":
        out["concurrency"] = num(strategy.get("streams"))
    elif kind == "throughput":
        out["concurrency"] = num(strategy.get("max_concurrency"))
    elif kind in ("constant", "poisson", "async"):
        out["request_rate_rps"] = num(strategy.get("rate"))
    return out


def _active_window(bench: dict) -> float | None:
    """The time requests actually ran [s]: the measurement window clipped to the first request's
    start and the last request's end (``scheduler_metrics``); else ``duration``.

    A run that stops early (``max_requests`` reached before ``max_seconds``) has a measurement
    window with no request in flight at its end: dividing by the whole window dilutes every rate.
    """
    sched = _d(bench, "scheduler_metrics")
    start, end = num(sched.get("measure_start_time")), num(sched.get("measure_end_time"))
    first, last = num(sched.get("request_start_time")), num(sched.get("request_end_time"))
    if start is not None and end is not None:
        start = max(start, first) if first is not None else start
        end = min(end, last) if last is not None else end
        if end > start:
            return end - start
    duration = num(bench.get("duration"))
    return duration if duration and duration > 0 else None


def _rates(metrics: dict, bench: dict, notes: set[str]) -> dict[str, float | None]:
    """System tok/s: the stated rates (means of the successful ``tokens_per_second`` and
    ``output_tokens_per_second``); only what is missing from token totals over the time requests ran."""
    total = _dist(metrics, "tokens_per_second", "mean")
    output = _dist(metrics, "output_tokens_per_second", "mean")
    prompt_sum = num(_d(_d(metrics, "prompt_token_count"), "successful").get("total_sum"))
    output_sum = num(_d(_d(metrics, "output_token_count"), "successful").get("total_sum"))
    window = _active_window(bench)
    over = "/ the time requests ran (measurement window clipped to the first request's start and the last one's end)"
    if total is not None or output is not None:
        notes.add("output and total tok/s as stated (means of the successful output_tokens_per_second and "
                  "tokens_per_second)")
    inp = None
    if prompt_sum is not None and window:
        inp = prompt_sum / window
        notes.add(f"input tok/s derived: successful prompt_token_count total {over}")
    else:
        notes.add("input tok/s left empty: no prompt token total (prompt_tokens_per_second is per request)")
    if output is None and output_sum is not None and window:
        output = output_sum / window
        notes.add(f"output tok/s derived: successful output_token_count total {over}")
    if total is None and prompt_sum is not None and output_sum is not None and window:
        total = (prompt_sum + output_sum) / window
        notes.add(f"total tok/s derived: successful prompt + output token totals {over}")
    return {"input_tokens_per_second": inp, "output_tokens_per_second": output, "total_tokens_per_second": total}


def _row(index: int, bench: dict, report: dict, notes: set[str]) -> dict[str, Any]:
    metrics = _d(bench, "metrics")
    config, args = _d(bench, "config"), _d(bench, "args")
    strategy = first(_d(config, "strategy") or None, _d(args, "strategy") or None) or {}
    totals = first(_d(metrics, "request_totals") or None, _d(bench, "request_totals") or None) or {}
    report_args = _d(report, "args")
    isl, osl = _lengths(first(report_args.get("data"), _d(bench, "request_loader").get("data")))
    tpot = first(_dist(metrics, "inter_token_latency_ms", "median"),
                 _dist(metrics, "time_per_output_token_ms", "median"))
    ok, errored = integer(totals.get("successful")), integer(totals.get("errored"))

    def ttft(stat: str) -> float | None:
        value = _dist(metrics, "time_to_first_token_ms", stat)
        return None if value is None else value / 1000.0

    row: dict[str, Any] = {
        "source_line": index,
        "model": first(report_args.get("model"), _d(bench, "worker").get("backend_model")),
        "isl": isl,
        "osl": osl,
        **_load(strategy),
        **_rates(metrics, bench, notes),
        "ttft_p50_s": first(ttft("p50"), ttft("median")),
        "ttft_p90_s": ttft("p90"),
        "ttft_p95_s": ttft("p95"),
        "ttft_p99_s": ttft("p99"),
        "tpot_median_ms": tpot,
        "e2e_latency_median_s": _dist(metrics, "request_latency", "median"),
        "requests_completed": ok,
        "requests_failed": errored,
        "success_rate": ok / (ok + errored) if ok is not None and errored is not None and ok + errored else None,
        "run_date": iso_date(first(bench.get("start_time"), _d(bench, "run_stats").get("start_time"))),
        "requests_per_second_mean": _dist(metrics, "requests_per_second", "mean"),
        "prompt_tokens_per_second_mean": _dist(metrics, "prompt_tokens_per_second", "mean"),
        "requests_incomplete": integer(totals.get("incomplete")),
        "duration_s": num(bench.get("duration")),
        "benchmark_id": bench.get("id_"),
    }
    if tpot is not None and _dist(metrics, "inter_token_latency_ms", "median") is None:
        row["tpot_source"] = "time_per_output_token_ms"
    return row


def parse(records: list[tuple[int, Any]], name: str) -> tuple[Rows, list[str]]:
    """One row per generative benchmark; ``source_line`` = its number in ``benchmarks`` (from 1).

    Returns
    -------
    rows : list of dict
        throughputs [tok/s, whole system, mean of the successful distribution],
        TTFT/E2E [s], TPOT [ms].
    notes : list of str
    """
    rows: Rows = []
    notes: set[str] = set()
    for line, report in records:
        benches = report.get("benchmarks") if isinstance(report, dict) else None
        if not isinstance(benches, list):
            raise IngestError(name, "not a GuideLLM report: no 'benchmarks' list", line=line, field="benchmarks")
        for i, bench in enumerate(benches, start=1):
            if not isinstance(bench, dict) or bench.get("type_") != "generative_benchmark":
                raise IngestError(name, f"benchmarks[{i - 1}] is not a generative benchmark", line=line)
            row = _row(len(rows) + 1, bench, report, notes)
            if row["total_tokens_per_second"] is None and row["output_tokens_per_second"] is not None:
                notes.add("no tokens_per_second (total) in this version: only output tok/s")
            rows.append(attach_guidellm(row, bench, notes))
    return rows, sorted(notes)


FORMATS = (Format("guidellm", "json", matches, parse),)
