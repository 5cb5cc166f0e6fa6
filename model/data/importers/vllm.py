"""vLLM serving benchmark results (``vllm bench serve --save-result``, ``benchmark_serving.py``).

One JSON object per run; ``--append-result`` writes several, one per line. Stats
keys are ``{mean,median,std,p<P>}_{ttft,tpot,itl,e2el}_ms`` in **milliseconds**.
A reduced variant (the InferenceX conversion) drops ``_ms`` and holds **seconds**;
the unit is read from the key name. ``request_rate`` is the string ``"inf"`` for
an unbounded rate. The file names neither the GPU nor the GPU count, and
``backend`` is the client API (``openai``, ``vllm``), not the serving framework.

*Rate.* ``request_throughput`` (completed / ``duration``) counts from the first request sent to the last
answer, so a short run's drain after its last send weighs in it (8 requests sent at 2 req/s over 3.5 s that take
5 s each complete at 8 / 8.5 s = 0.94 req/s): it is no achieved send rate. It stays in extra
(``request_throughput_rps``) and ``request_rate``, the rate the client sent at, stays the point's rate
(:func:`model.data.importers._common.rate_as_run` needs an achieved send rate, which only inference-perf states).

*Workload.* ISL/OSL are the measured means per completed request (the file states no configured length that
every dataset has), rounded; the runs of one file (``--append-result``) whose means agree within 2 % share
their weighted mean, so a ramp appended to one file is one workload
(:func:`model.data.importers._common.one_workload`).
"""

from __future__ import annotations

import json
import re
from typing import Any

from model.core.columns import resolve_column
from model.core.interactivity import apart_note
from model.data.importers._common import (
    Rows,
    first,
    integer,
    iso_date,
    num,
    objects,
    one_workload,
    per_completed,
)
from model.data.importers.base import Format, IngestError
from model.data.importers.per_request import attach

__all__ = ["FORMATS", "matches", "parse"]

_STAT_RE = re.compile(r"^(mean|median|std|p[\d.]+)_(ttft|tpot|itl|e2el)(_ms)?$")
_REQUIRED = ("duration", "completed", "request_throughput")

#: keys read here or not worth keeping (per-request arrays are lists: model.data.importers.per_request reads them)
_CONSUMED = {
    "date", "backend", "endpoint_type", "label", "model_id", "tokenizer_id", "num_prompts", "request_rate",
    "max_concurrency", "duration", "completed", "failed", "total_input_tokens", "total_output_tokens",
    "request_throughput", "output_throughput", "total_token_throughput", "input_throughput", "best_of",
    "use_beam_search", "burstiness", "ramp_up_strategy", "mode", "multi_turn_concurrency",
}


def matches(keys: set[str]) -> bool:
    """A vLLM result: ``model_id`` beside the run totals (read from the file's head)."""
    return {"model_id", "duration", "completed", "request_throughput"} <= keys and \
        ("total_input_tokens" in keys or "total_token_throughput" in keys)


def _read_into_field(key: str) -> bool:
    """Whether a stats key is one :func:`_row` already read (medians, TTFT percentiles)."""
    match = _STAT_RE.match(key)
    if not match:
        return False
    stat, metric = match[1], match[2]
    return (stat in ("median", "p50") and metric in ("ttft", "tpot", "e2el", "itl")) or \
        (metric == "ttft" and stat in ("p90", "p95", "p99"))


def _ms(obj: dict, stat: str, metric: str) -> float | None:
    """A latency statistic in milliseconds, from ``<stat>_<metric>_ms`` [ms] or ``<stat>_<metric>`` [s]."""
    value = num(obj.get(f"{stat}_{metric}_ms"))
    if value is not None:
        return value
    value = num(obj.get(f"{stat}_{metric}"))
    return None if value is None else value * 1000.0


def _row(line: int, obj: dict, notes: set[str]) -> dict[str, Any]:
    multi_turn = obj.get("mode") == "multi_turn"
    duration = num(obj.get("duration"))
    completed = integer(obj.get("completed"))
    total = num(obj.get("total_token_throughput"))
    output = num(obj.get("output_throughput"))
    total_in = num(obj.get("total_input_tokens"))
    total_out = num(obj.get("total_output_tokens"))
    # input tok/s = input tokens / wall time, the same basis vLLM uses for the other two
    inp = num(obj.get("input_throughput"))
    if inp is None and total_in is not None and duration:
        inp = total_in / duration
        notes.add("input tok/s derived: total_input_tokens / duration (not stated)")
    if total is None and inp is not None and output is not None:
        total = inp + output
        notes.add("total tok/s derived: input + output (not stated)")
    failed = integer(obj.get("failed"))
    prompts = integer(obj.get("num_prompts"))
    said: list[str] = []
    if failed is None and prompts is not None and completed is not None and prompts >= completed:
        failed = prompts - completed  # every prompt is sent once; the rest failed
        said.append(f"requests failed derived: num_prompts - completed = {prompts} - {completed} "
                    "(the file states no 'failed'); success rate from it")
        notes.add("requests failed derived: num_prompts - completed (the file states no 'failed'); success rate "
                  "from it")
    rate = obj.get("request_rate")
    rate_rps = num(rate)
    if rate_rps is None and rate is not None:
        notes.add("request_rate 'inf' means unbounded: request_rate_rps left empty")
    if any(_STAT_RE.match(k) and not k.endswith("_ms") for k in obj):
        notes.add("latency keys without '_ms' were read as seconds")

    def p(stat: str, metric: str) -> float | None:
        value = _ms(obj, stat, metric)
        return None if value is None else value / 1000.0

    row: dict[str, Any] = {
        "source_line": line,
        "model": obj.get("model_id"),
        "isl": round(total_in / completed) if total_in is not None and completed else None,
        "osl": round(total_out / completed) if total_out is not None and completed else None,
        "concurrency": num(obj.get("max_concurrency")) if not multi_turn else num(obj.get("multi_turn_concurrency")),
        "request_rate_rps": rate_rps,
        "total_tokens_per_second": total,
        "output_tokens_per_second": output,
        "input_tokens_per_second": inp,
        "ttft_p50_s": first(p("median", "ttft"), p("p50", "ttft")),
        "ttft_p90_s": p("p90", "ttft"),
        "ttft_p95_s": p("p95", "ttft"),
        "ttft_p99_s": p("p99", "ttft"),
        "tpot_median_ms": first(_ms(obj, "median", "tpot"), _ms(obj, "p50", "tpot")),
        "itl_median_ms": first(_ms(obj, "median", "itl"), _ms(obj, "p50", "itl")),
        "e2e_latency_median_s": first(p("median", "e2el"), p("p50", "e2el")),
        "requests_completed": completed,
        "requests_failed": failed,
        "success_rate": completed / (completed + failed) if completed is not None and failed is not None
        and completed + failed > 0 else None,
        "run_date": iso_date(obj.get("date")),
        "tags": obj.get("label") if isinstance(obj.get("label"), str) else None,
        "client_backend": obj.get("backend"),
        "num_prompts": prompts,
        "duration_s": duration,
        "request_throughput_rps": num(obj.get("request_throughput")),
        "burstiness": num(obj.get("burstiness")),
        "notes": "; ".join(said) or None,
    }
    apart = apart_note(_ms(obj, "mean", "tpot"), _ms(obj, "mean", "itl"), row["tpot_median_ms"], row["itl_median_ms"])
    if apart:
        said.append(apart)
        row["notes"] = "; ".join(said)
    if multi_turn:
        _multi_turn(row, obj, said, notes)
    elif obj.get("spec_decode_acceptance_rate") is not None or obj.get("spec_decode_acceptance_length") is not None:
        rate, length = num(obj.get("spec_decode_acceptance_rate")), num(obj.get("spec_decode_acceptance_length"))
        said.append("speculative decoding on" + (f": acceptance rate {rate:g} %" if rate is not None else "")
                    + (f", acceptance length {length:g} tokens per step" if length is not None else "")
                    + " (the method is not in the file: --set spec_decoding=...)")
        row["notes"] = "; ".join(said)
    for key, value in obj.items():
        if key in _CONSUMED or key in row or isinstance(value, (list, dict)) or value is None:
            continue
        if _STAT_RE.match(key) or key.startswith(("spec_decode_", "request_goodput", "max_")):
            if num(value) is not None and not _read_into_field(key):
                row[key] = value
        elif isinstance(value, str):
            # --metadata KEY=VALUE pairs: a key naming a field (hardware=H200, tp=8) fills it
            resolved = resolve_column(key)
            if isinstance(resolved, tuple) and row.get(resolved[0]) is None and resolved[1] == 1:
                row[resolved[0]] = value
            else:
                row[key] = value
    return row


def _multi_turn(row: dict, obj: dict, said: list[str], notes: set[str]) -> None:
    """A multi-turn run (``"mode": "multi_turn"``): its concurrency is the conversations in flight; its lengths are
    per turn, the conversation's history included in each turn's prompt; the turns' own medians go in extra
    (``per_turn``), and the acceptance of speculative decoding where the file states it."""
    turns, done = integer(obj.get("turns_per_conversation")), integer(obj.get("conversations_completed"))
    text = (f"multi-turn run: {integer(obj.get('num_conversations')) or '?'} conversations of {turns or '?'} turns, "
            f"{done if done is not None else '?'} completed; concurrency = multi_turn_concurrency (conversations in "
            "flight); ISL/OSL = mean tokens per turn, each turn's prompt holding its conversation's history")
    rate, length = num(obj.get("spec_decode_acceptance_rate")), num(obj.get("spec_decode_acceptance_length"))
    if rate is not None or length is not None:
        text += (f"; speculative decoding: acceptance rate {rate:g} %" if rate is not None else "; speculative decoding:") \
            + (f", acceptance length {length:g} tokens per step" if length is not None else "")
    said.append(text)
    row["notes"] = "; ".join(said)
    notes.add("multi-turn runs: concurrency = conversations in flight; lengths per turn, history included")
    per_turn = obj.get("per_turn_metrics")
    if isinstance(per_turn, list) and per_turn:
        compact = [{k: t.get(k) for k in ("turn_index", "completed", "median_ttft_ms", "median_tpot_ms",
                                          "median_itl_ms", "total_input_tokens") if k in t}
                   for t in per_turn if isinstance(t, dict)]
        row["per_turn"] = json.dumps(compact, separators=(",", ":"))
    positions = obj.get("spec_decode_per_position_acceptance_rates")
    if isinstance(positions, list) and positions:
        row["spec_decode_per_position_acceptance_rates"] = json.dumps(positions)


def _refuse_all_failed(obj: dict, line: int, name: str) -> None:
    """A run with no completed request measured nothing: say so, not "total tok/s must be > 0"."""
    completed, failed = integer(obj.get("completed")), integer(obj.get("failed"))
    prompts = integer(obj.get("num_prompts"))
    if completed != 0:
        return
    count = first(failed, prompts)
    took = num(obj.get("duration"))
    what = f"all {count} requests failed" if count else "no request completed"
    raise IngestError(name, f"{what} (0 completed" + (f" in {took:g} s" if took is not None else "")
                      + "): nothing was measured", line=line, field="completed")


def parse(records: list[tuple[int, Any]], name: str) -> tuple[Rows, list[str]]:
    """One row per vLLM result object.

    Parameters
    ----------
    records : list of (int, object)
        the file's JSON values and the lines they start on.
    name : str
        the file name, for error messages.

    Returns
    -------
    rows : list of dict
        canonical fields: throughputs [tok/s, whole system], TTFT/E2E [s], TPOT [ms],
        ``isl``/``osl`` = mean tokens per completed request, rounded; runs of one file whose means agree
        within 2 % share their weighted mean (:func:`model.data.importers._common.one_workload`).
    notes : list of str
    """
    notes: set[str] = set()
    rows: Rows = []
    means: list = []
    for line, obj in objects(records, name, "vLLM"):
        missing = [k for k in _REQUIRED if k not in obj]
        if missing:
            raise IngestError(name, f"not a vLLM result: no {', '.join(missing)}", line=line, field=missing[0])
        _refuse_all_failed(obj, line, name)
        rows.append(attach(_row(line, obj, notes), obj, name, line, notes))
        completed = integer(obj.get("completed"))
        means.append((per_completed(obj, "total_input_tokens", completed),
                      per_completed(obj, "total_output_tokens", completed), completed))
    one_workload(rows, means, notes)
    return rows, sorted(notes)


FORMATS = (Format("vllm", "json", lambda keys, head: matches(keys), parse),)
