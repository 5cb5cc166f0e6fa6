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

*Workload.* The files state no configured length, only each stage's mean prompt and output length, and a
stage's mean moves with the requests it drew (the real A100 demo: output 229 at stage 0, 181 at stage 1, one
dataset), so rounding each stage's own mean would split one run into several workloads (OSL 62 and 63).
The stages of one run share ISL/OSL = the **run's** mean prompt/output length, rounded: the summary's
(``summary_lifecycle_metrics.json`` beside the stage, every stage's successful requests), else the mean of
the stage files beside it weighted by their successful requests, else (a stage alone) its own. The run, not
a tolerance, decides: one run's stages are one workload however far their means drift, and two runs stay two.
Each stage's own means are kept in extra (``prompt_len_mean``, ``output_len_mean``); its notes say which rule.
The lengths the run asked for (its ``config.yaml``'s data section, which no report file repeats) name the workload
when given (``--set isl=... --set osl=...``, the upload form): they replace these derived lengths in every stage, as
one sweep is one workload named by what it asked for, and the measured means stay in extra.

``inter_token_latency`` pools every token gap of every request (zero gaps inside a streamed chunk), so its
median is not TPOT; ``time_per_output_token`` is. ``normalized_time_per_output_token`` (request latency /
output tokens, prefill included) is kept in extra, not used as TPOT.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from model.data.importers._common import (
    DERIVED_KEY,
    Rows,
    add_note,
    integer,
    load_json,
    num,
    objects,
    rate_as_run,
)
from model.data.importers.base import Format, IngestError, NotResults

__all__ = ["FORMATS", "matches", "parse", "run_lengths", "SUMMARY_FILE"]

#: the file inference-perf writes beside the stages, over all of them
SUMMARY_FILE = "summary_lifecycle_metrics.json"
_STAGE_FILES = "stage_*_lifecycle_metrics.json"


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
    prompt, output = _means(ok)
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
        "prompt_len_mean": prompt,
        "output_len_mean": output,
    }


def _means(successes: dict) -> tuple[float | None, float | None]:
    """The mean prompt and output length [tokens] of a report's successful requests."""
    return (num(_dict(successes.get("prompt_len", successes.get("prompt_tokens"))).get("mean")),
            num(_dict(successes.get("output_len")).get("mean")))


def _report(path: Path) -> dict | None:
    """The one lifecycle report ``path`` holds, or None when it cannot be read as one."""
    try:
        records = load_json(path, path.name)
    except (IngestError, OSError):
        return None
    if len(records) != 1 or not isinstance(records[0][1], dict) or not matches(set(records[0][1])):
        return None
    return records[0][1]


def run_lengths(path: Path, requests: int) -> tuple[float, float, str] | None:
    """The run's mean prompt and output length [tokens] from the folder of the stage ``path``, and whence.

    The summary beside it (over every stage; only when it counts at least the stage's ``requests``), else
    the stage files beside it (``path`` among them), their means weighted by their successful requests when
    there are two or more. None when the stage is alone.
    """
    folder = Path(path).resolve().parent
    summary = _report(folder / SUMMARY_FILE)
    if summary is not None and not {"requested_rate", "concurrency"} & set(_dict(summary.get("load_summary"))):
        ok = _dict(summary.get("successes"))
        prompt, output = _means(ok)
        if prompt is not None and output is not None and (integer(ok.get("count")) or 0) >= requests:
            return prompt, output, (f"the run's mean prompt/output length ({SUMMARY_FILE} beside it: every stage's "
                                    "successful requests)")
    found = []
    for stage in sorted({*folder.glob(_STAGE_FILES), Path(path).resolve()}):
        report = _report(stage)
        ok = _dict(report.get("successes")) if report is not None else {}
        count, (prompt, output) = integer(ok.get("count")), _means(ok)
        if report is not None and count and prompt is not None and output is not None:
            found.append((count, prompt, output))
    if len(found) < 2:
        return None
    total = sum(c for c, _, _ in found)
    return (sum(c * p for c, p, _ in found) / total, sum(c * o for c, _, o in found) / total,
            f"the run's mean prompt/output length over the {len(found)} stage files beside it (weighted by their "
            "successful requests)")


def _share_run(rows: Rows, path: Path, name: str, notes: list[str]) -> None:
    """ISL/OSL of every stage row = the run's mean lengths, rounded (:func:`run_lengths`; the module docstring)."""
    for row in rows:
        if row["prompt_len_mean"] is None and row["output_len_mean"] is None:
            continue
        row[DERIVED_KEY] = ("isl", "osl")     # measured, not what the run asked for: ISL/OSL given replace them
        run = run_lengths(path, row["requests_completed"] or 0)
        if run is None:
            text = ("ISL/OSL = mean prompt/output length of the stage's successful requests, rounded (no summary or "
                    "other stage beside it: ingest the run's folder so its stages share one workload, or give the "
                    "ISL and OSL the run asked for)")
        else:
            row["isl"], row["osl"] = round(run[0]), round(run[1])
            text = (f"ISL/OSL = {run[2]}, rounded, so every stage of the run is one workload; the stage's own means "
                    "kept in extra (prompt_len_mean, output_len_mean)")
        add_note(row, text)
        if text not in notes:
            notes.append(text)


def parse(records: list[tuple[int, Any]], name: str) -> tuple[Rows, list[str]]:
    """One row per stage file (a file holds one stage); the summary file is refused as :class:`NotResults`.

    Returns
    -------
    rows : list of dict
        throughputs [tok/s, whole system] as stated, TPOT [ms] = median ``time_per_output_token`` x 1000,
        TTFT/E2E [s], ``request_rate_rps`` = ``achieved_rate`` (the requested rate in extra), ISL/OSL = the
        stage's mean lengths, rounded, until :func:`_share_run` makes them the run's (``Format.beside``).
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


FORMATS = (Format("inference_perf", "json", lambda keys, head: matches(keys), parse, _share_run),)
