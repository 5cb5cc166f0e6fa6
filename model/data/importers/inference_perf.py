"""Kubernetes SIG ``inference-perf`` lifecycle reports (``inference_perf/reportgen/base.py``).

A run writes ``stage_N_lifecycle_metrics.json`` per load stage and ``summary_lifecycle_metrics.json`` over all
of them. Each is ``{load_summary, successes{count, latency, throughput, prompt_len, output_len}, failures}``.
Every latency is in **seconds**; statistics are ``mean, min, max, median, p<N>``. A stage's ``load_summary``
states ``requested_rate`` and ``achieved_rate`` [req/s] (and ``concurrency`` for a concurrency stage); the
summary has no rate, and is recognised and not stored (its stages are). The files name no model, GPU or
GPU count (they are in the run's ``config.yaml`` and manifest): give them with ``--set``.

*Rate.* ``achieved_rate`` is the rate the stage sent its requests at (requests / ``send_duration``, the time
from the first send to the last). When the client saturates, it parts from ``requested_rate``: a stage may ask
for three times what it sends. A stage's request rate is therefore the achieved rate, the requested rate kept
in extra (``requested_rate_rps``), and a stage that achieved less than 95 % of its request is noted as
saturated in its row's notes (``saturated`` in extra): the point stands at the rate the server saw, so no knee
is ever read above it (:func:`model.data.importers._common.rate_as_run`).

``inter_token_latency`` pools every token gap of every request (zero gaps inside a streamed chunk), so its
median is not TPOT; ``time_per_output_token`` is. ``normalized_time_per_output_token`` (request latency /
output tokens, prefill included) is kept in extra, not used as TPOT.
"""

from __future__ import annotations

import re
from typing import Any

from model.data.importers._common import Rows, integer, num, objects, rate_as_run
from model.data.importers.base import Format, IngestError, NotResults

__all__ = ["FORMATS", "matches", "parse"]


def matches(keys: set[str]) -> bool:
    """A lifecycle report: ``load_summary`` beside ``successes`` and ``failures``."""
    return {"load_summary", "successes", "failures"} <= keys


def _dict(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def _stage(name: str) -> int | None:
    match = re.search(r"stage_(-?\d+)_lifecycle", name)
    return int(match[1]) if match else None


def _row(line: int, obj: dict, stage: int | None) -> dict[str, Any]:
    load, ok, bad = _dict(obj.get("load_summary")), _dict(obj.get("successes")), _dict(obj.get("failures"))
    latency, throughput = _dict(ok.get("latency")), _dict(ok.get("throughput"))
    said: list[str] = []
    label = f"stage {stage}" if stage is not None else "this stage"
    concurrency = num(load.get("concurrency"))
    rate, rate_extra, rate_said = rate_as_run(num(load.get("requested_rate")), num(load.get("achieved_rate")),
                                              f"inference-perf {label}")
    said.extend(rate_said)
    said.append("concurrency empty (a rate stage)" if concurrency is None
                else "concurrency = load_summary.concurrency (a concurrency stage)")

    def stat(metric: str, key: str) -> float | None:
        return num(_dict(latency.get(metric)).get(key))

    tpot_s = stat("time_per_output_token", "median")
    if tpot_s is None:
        said.append(f"{label} states no TPOT/TTFT (non-token-timed responses): no interactivity; NTPOT (request "
                    "latency / output tokens) kept in extra, not used as TPOT")
    elif _dict(latency.get("inter_token_latency")):
        said.append("median inter_token_latency not used as TPOT: it pools every token gap (zero gaps within "
                    "a chunk)")
    prompt, output = num(_dict(ok.get("prompt_len", ok.get("prompt_tokens"))).get("mean")), \
        num(_dict(ok.get("output_len")).get("mean"))
    if prompt is not None or output is not None:
        said.append("ISL/OSL = mean prompt/output length of the stage's successful requests, rounded")
    done, failed = integer(ok.get("count")), integer(bad.get("count"))
    return {
        "source_line": line,
        "isl": None if prompt is None else round(prompt),
        "osl": None if output is None else round(output),
        "concurrency": concurrency,
        "request_rate_rps": rate,
        "total_tokens_per_second": num(throughput.get("total_tokens_per_sec")),
        "output_tokens_per_second": num(throughput.get("output_tokens_per_sec")),
        "input_tokens_per_second": num(throughput.get("input_tokens_per_sec")),
        "tpot_median_ms": None if tpot_s is None else tpot_s * 1000.0,
        "ttft_p50_s": stat("time_to_first_token", "median"),
        "ttft_p90_s": stat("time_to_first_token", "p90"),
        "ttft_p95_s": stat("time_to_first_token", "p95"),
        "ttft_p99_s": stat("time_to_first_token", "p99"),
        "e2e_latency_median_s": stat("request_latency", "median"),
        "requests_completed": done,
        "requests_failed": failed,
        "success_rate": done / (done + failed) if done is not None and failed is not None and done + failed else None,
        "notes": "; ".join(said),
        **rate_extra,
        "send_duration_s": num(load.get("send_duration")),
        "requests_per_second": num(throughput.get("requests_per_sec")),
        "ntpot_median_s": stat("normalized_time_per_output_token", "median"),
        "stage": stage,
    }


def parse(records: list[tuple[int, Any]], name: str) -> tuple[Rows, list[str]]:
    """One row per stage file (a file holds one stage); the summary file is refused as :class:`NotResults`.

    Returns
    -------
    rows : list of dict
        throughputs [tok/s, whole system] as stated, TPOT [ms] = median ``time_per_output_token`` x 1000,
        TTFT/E2E [s], ``request_rate_rps`` = ``achieved_rate`` (the requested rate in extra), ISL/OSL = mean
        lengths, rounded.
    notes : list of str
    """
    rows, notes = [], []
    for line, obj in objects(records, name, "inference-perf"):
        load = _dict(obj.get("load_summary"))
        if "requested_rate" not in load and "concurrency" not in load:
            raise NotResults(name, "summary of all stages", "inference-perf",
                             "ingest the stage_N_lifecycle_metrics.json files, one point per stage",
                             skip="not stored (the stages are)")
        done = integer(_dict(obj.get("successes")).get("count"))
        if not done:
            failed = integer(_dict(obj.get("failures")).get("count"))
            raise IngestError(name, f"all {failed} requests failed (0 succeeded): nothing was measured"
                              if failed else "no request in this stage: nothing was measured", line=line,
                              field="successes")
        row = _row(line, obj, _stage(name))
        rows.append(row)
        notes.extend(n for n in row["notes"].split("; ") if n not in notes)
    return rows, notes


FORMATS = (Format("inference_perf", "json", lambda keys, head: matches(keys), parse),)
