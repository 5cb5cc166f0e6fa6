"""NVIDIA AIPerf and GenAI-Perf profile exports (``profile_export_aiperf.json``/``.csv``,
``profile_export_genai_perf.json``/``.csv``).

Both write one load point per file: a statistics record per metric
(``{unit, avg, p1..p99, min, max, std}``) and, in the JSON, the run's
``input_config``. Time metrics are in the record's unit (``ms``; AIPerf's
``benchmark_duration`` in ``sec``); GenAI-Perf labels every non-time metric
``requests/sec`` (a bug), so units of non-time metrics are never trusted and the
metric name decides. The CSVs have two sections (statistics, then
``Metric,Value``); GenAI-Perf writes ``"4,433.93"`` with thousands separators and
``N/A`` for missing values. AIPerf CSV rows are ``Time to First Token (ms)``,
GenAI-Perf rows ``Time To First Token (ms)``.

TPOT is the median ``inter_token_latency`` ((latency - TTFT) / (OSL - 1), the
vLLM TPOT definition). Input tok/s, when the file has no total, is
total ISL / duration (AIPerf) or mean ISL x request throughput (GenAI-Perf): the
same tokens over the same wall time the tools use for output tok/s.

*Rate.* ``request_throughput`` is completions over the benchmark duration (the drain after the last send
included), no achieved send rate: the configured ``request_rate`` stays the point's rate, as for vLLM
(:mod:`.vllm`), and the throughput is kept in extra (``request_throughput_rps``).
"""

from __future__ import annotations

import csv
import re
from pathlib import Path
from typing import Any

from model.data.importers._common import Rows, add_note, first, integer, iso_date, num, objects, seconds
from model.data.importers.base import Format, IngestError

__all__ = ["FORMATS", "matches_aiperf", "matches_genai_perf", "parse_aiperf", "parse_genai_perf", "parse_aiperf_csv",
           "parse_genai_perf_csv", "csv_flavour", "point", "finish"]

_METRIC_MARKERS = {"time_to_first_token", "request_latency", "inter_token_latency", "output_token_throughput"}
_OLD_TAGS = {"ttft": "time_to_first_token", "ttst": "time_to_second_token", "itl": "inter_token_latency"}


def matches_aiperf(keys: set[str]) -> bool:
    """AIPerf: per-metric records with an AIPerf marker, or the early ``records{tag, header}`` layout."""
    records = bool(_METRIC_MARKERS & keys) and {"unit", "avg"} <= keys
    marker = bool({"aiperf_version", "benchmark_id", "loadgen", "schema_version"} & keys)
    # an export whose every request failed has no metric record left, only AIPerf's envelope
    envelope = "aiperf_version" in keys or {"benchmark_id", "was_cancelled", "error_summary"} <= keys
    return (records and marker) or envelope or {"records", "tag", "header", "avg"} <= keys


def matches_genai_perf(keys: set[str]) -> bool:
    """GenAI-Perf: per-metric records without AIPerf's markers."""
    return bool(_METRIC_MARKERS & keys) and {"unit", "avg"} <= keys and not matches_aiperf(keys)


def csv_flavour(header: list[str], text: str) -> str | None:
    """``"aiperf_csv"``/``"genai_perf_csv"`` for a profile-export CSV's first row, else ``None``.

    GenAI-Perf lists percentiles high to low (``p99,p95,...``), AIPerf low to high.
    A file that starts with the ``Metric,Value`` section is told apart by its unit strings.
    """
    cells = [h.strip().lower() for h in header]
    if len(cells) < 2 or cells[0] != "metric":
        return None
    if cells[1] == "avg":
        pcts = [int(c[1:]) for c in cells if re.fullmatch(r"p\d+", c)]
        return "genai_perf_csv" if len(pcts) > 1 and pcts[0] > pcts[-1] else "aiperf_csv"
    if cells[1] == "value" and len(cells) == 2:
        return "genai_perf_csv" if "(count)" in text or "(per sec)" in text or "Time To " in text else "aiperf_csv"
    return None


# --------------------------------------------------------------------------- one point from metric records

def _stat(metrics: dict, metric: str, stat: str) -> float | None:
    record = metrics.get(metric)
    return num(record.get(stat)) if isinstance(record, dict) else None


def _time(metrics: dict, metric: str, stat: str, to: str = "s") -> float | None:
    record = metrics.get(metric)
    if not isinstance(record, dict):
        return None
    value = seconds(record.get(stat), record.get("unit") or "ms")
    return None if value is None else (value * 1000.0 if to == "ms" else value)


def point(metrics: dict, notes: set[str]) -> dict[str, Any]:
    """Canonical fields from ``{metric: {unit, avg, p50, ...}}`` (either tool, JSON or CSV)."""
    output = _stat(metrics, "output_token_throughput", "avg")
    total = _stat(metrics, "total_token_throughput", "avg")
    inp = _stat(metrics, "input_token_throughput", "avg")  # AIPerf states it (total ISL / duration)
    if inp is None:
        total_isl, duration = _stat(metrics, "total_isl", "avg"), _stat(metrics, "benchmark_duration", "avg")
        mean_isl, req_rate = _stat(metrics, "input_sequence_length", "avg"), _stat(metrics, "request_throughput", "avg")
        if total_isl is not None and duration:
            inp = total_isl / duration
            notes.add("input tok/s = total ISL / benchmark duration (not stated)")
        elif mean_isl is not None and req_rate is not None:
            inp = mean_isl * req_rate
            notes.add("input tok/s = mean ISL x request throughput (not stated)")
    if total is None and inp is not None and output is not None:
        total = inp + output
        notes.add("total tok/s = input + output (not stated)")
    hit_rate = _prefix_cache_hit_rate(metrics, notes)
    completed = integer(_stat(metrics, "request_count", "avg"))
    failed = integer(_stat(metrics, "error_request_count", "avg"))
    return {
        "total_tokens_per_second": total,
        "output_tokens_per_second": output,
        "input_tokens_per_second": inp,
        "prefix_cache_hit_rate": hit_rate,
        "ttft_p50_s": _time(metrics, "time_to_first_token", "p50"),
        "ttft_p90_s": _time(metrics, "time_to_first_token", "p90"),
        "ttft_p95_s": _time(metrics, "time_to_first_token", "p95"),
        "ttft_p99_s": _time(metrics, "time_to_first_token", "p99"),
        "tpot_median_ms": _time(metrics, "inter_token_latency", "p50", to="ms"),
        "e2e_latency_median_s": _time(metrics, "request_latency", "p50"),
        "requests_completed": completed,
        "requests_failed": failed,
        "ttft_mean_ms": _time(metrics, "time_to_first_token", "avg", to="ms"),
        "itl_p99_ms": _time(metrics, "inter_token_latency", "p99", to="ms"),
        "per_user_tok_s_p50": first(_stat(metrics, "output_token_throughput_per_user", "p50"),
                                    _stat(metrics, "output_token_throughput_per_request", "p50")),
        "request_throughput_rps": _stat(metrics, "request_throughput", "avg"),
        "mean_input_tokens": _stat(metrics, "input_sequence_length", "avg"),
        "mean_output_tokens": _stat(metrics, "output_sequence_length", "avg"),
        "benchmark_duration_s": _stat(metrics, "benchmark_duration", "avg"),
    }


def _prefix_cache_hit_rate(metrics: dict, notes: set[str]) -> float | None:
    """The prefix-cache hit rate [fraction] a run states: a measured ``*prefix_cache_hit*`` metric,
    else AIPerf's ``theoretical_prefix_cache_hit`` (the trace's hit rate with an unbounded cache).

    AIPerf writes both in percent (unit ``%``); a record whose unit says ``ratio``/``fraction`` is read as is.
    """
    tags = sorted(t for t in metrics if "prefix_cache_hit" in t)
    measured = [t for t in tags if not t.startswith("theoretical")]
    for tag in (*measured, *(t for t in tags if t.startswith("theoretical"))):
        value = _stat(metrics, tag, "avg")
        if value is None:
            continue
        unit = str(metrics[tag].get("unit") or "%").strip().lower()
        fraction = value if unit in ("ratio", "fraction") else value / 100.0
        if tag.startswith("theoretical"):
            notes.add("prefix-cache hit rate = AIPerf theoretical_prefix_cache_hit (the trace's reuse with an "
                      "unbounded cache), % / 100")
        else:
            notes.add(f"prefix-cache hit rate = {tag} as stated")
        return fraction
    return None


def finish(row: dict[str, Any]) -> dict[str, Any]:
    """ISL/OSL from the measured means when the config did not say; success rate."""
    means = []
    if row.get("isl") is None and row.get("mean_input_tokens") is not None:
        row["isl"] = round(row["mean_input_tokens"])
        means.append("ISL")
    if row.get("osl") is None and row.get("mean_output_tokens") is not None:
        row["osl"] = round(row["mean_output_tokens"])
        means.append("OSL")
    if means:
        words = {"ISL": "input", "OSL": "output"}
        add_note(row, f"{'/'.join(means)} = measured mean {'/'.join(words[m] for m in means)} tokens, rounded "
                 "(no configured length stated)")
    done, failed = row.get("requests_completed"), row.get("requests_failed")
    if done is not None and failed is not None and done + failed > 0:
        row["success_rate"] = done / (done + failed)
    return row


def _row_notes(rows: Rows) -> set[str]:
    return {n for row in rows for n in (row.get("notes") or "").split("; ") if n}


def _metric_records(obj: dict) -> dict[str, dict]:
    """``{tag: record}`` from the flat layout or the early ``records`` layout (``ttft`` -> ``time_to_first_token``)."""
    source = obj["records"] if isinstance(obj.get("records"), dict) else obj
    return {_OLD_TAGS.get(k, k): v for k, v in source.items() if isinstance(v, dict) and "avg" in v}


# --------------------------------------------------------------------------- JSON

def _aiperf_row(line: int, obj: dict, notes: set[str]) -> dict[str, Any]:
    cfg = obj.get("input_config") if isinstance(obj.get("input_config"), dict) else {}
    endpoint = cfg.get("endpoint") if isinstance(cfg.get("endpoint"), dict) else {}
    loadgen = cfg.get("loadgen") if isinstance(cfg.get("loadgen"), dict) else {}
    prompt = (cfg.get("input") or {}).get("prompt") if isinstance(cfg.get("input"), dict) else None
    prompt = prompt if isinstance(prompt, dict) else {}
    names = endpoint.get("model_names") or []
    row: dict[str, Any] = {
        "source_line": line,
        "model": names[0] if isinstance(names, list) and names else None,
        "isl": integer((prompt.get("input_tokens") or {}).get("mean")),
        "osl": integer((prompt.get("output_tokens") or {}).get("mean")),
        "concurrency": num(loadgen.get("concurrency")),
        "request_rate_rps": num(loadgen.get("request_rate")),
        "run_date": iso_date(obj.get("start_time")),
        **point(_metric_records(obj), notes),
        "endpoint_type": endpoint.get("type"),
        "streaming": endpoint.get("streaming"),
        "aiperf_version": obj.get("aiperf_version"),
    }
    if row["requests_failed"] is None and isinstance(obj.get("error_summary"), list):
        row["requests_failed"] = sum(integer(e.get("count")) or 0 for e in obj["error_summary"] if isinstance(e, dict))
    return finish(row)


def _genai_row(line: int, obj: dict, notes: set[str]) -> dict[str, Any]:
    cfg = obj.get("input_config") if isinstance(obj.get("input_config"), dict) else {}
    models = cfg.get("model")
    model = models[0] if isinstance(models, list) and models else (models if isinstance(models, str) else None)
    framework = None
    if cfg.get("service_kind") == "triton":  # otherwise 'backend' is only the argparse default
        framework = {"tensorrtllm": "trt", "vllm": "vllm"}.get(str(cfg.get("backend")))
    row: dict[str, Any] = {
        "source_line": line,
        "model": model,
        "framework": framework,
        "isl": integer(cfg.get("synthetic_input_tokens_mean")),
        "osl": integer(cfg.get("output_tokens_mean")),
        "concurrency": num(cfg.get("concurrency")),
        "request_rate_rps": num(cfg.get("request_rate")),
        **point(_metric_records(obj), notes),
        "endpoint_type": cfg.get("endpoint_type"),
        "service_kind": cfg.get("service_kind"),
        "streaming": cfg.get("streaming"),
    }
    return finish(row)


def _check(obj: dict, line: int, name: str, tool: str) -> None:
    if not _metric_records(obj):
        raise IngestError(name, f"not a {tool} profile export: no metric records", line=line)


def _check_succeeded(obj: dict, line: int, name: str) -> None:
    """Refuse an export without one successful request (e.g. a cancelled run), saying so."""
    metrics = _metric_records(obj)
    completed = _stat(metrics, "request_count", "avg")
    if completed or (completed is None and _METRIC_MARKERS & set(metrics)):
        return
    errors = _stat(metrics, "error_request_count", "avg")
    summary = obj.get("error_summary") if isinstance(obj.get("error_summary"), list) else []
    kinds = "; ".join(str((e.get("error_details") or {}).get("message") or e.get("error_details") or e)[:80]
                      for e in summary[:2] if isinstance(e, dict))
    raise IngestError(name, "an AIPerf export with no successful request"
                      + (" (the run was cancelled)" if obj.get("was_cancelled") is True else "")
                      + (f": {errors:g} failed" if errors else "") + (f" ({kinds})" if kinds else "")
                      + "; nothing to measure", line=line, field="request_count")


def parse_aiperf(records: list[tuple[int, Any]], name: str) -> tuple[Rows, list[str]]:
    """One row per AIPerf ``profile_export_aiperf.json`` object (current or early ``records`` layout).

    Returns
    -------
    rows : list of dict
        throughputs [tok/s, whole system], TTFT/E2E [s], TPOT [ms]; load and
        ISL/OSL from ``input_config``.
    notes : list of str
    """
    notes: set[str] = set()
    rows = []
    for line, obj in objects(records, name, "AIPerf"):
        _check_succeeded(obj, line, name)
        _check(obj, line, name, "AIPerf")
        rows.append(_aiperf_row(line, obj, notes))
    return rows, sorted(notes | _row_notes(rows))


def parse_genai_perf(records: list[tuple[int, Any]], name: str) -> tuple[Rows, list[str]]:
    """One row per GenAI-Perf ``profile_export_genai_perf.json`` object (units as :func:`parse_aiperf`)."""
    notes: set[str] = {"unit strings of non-time metrics ignored (GenAI-Perf labels them requests/sec)"}
    rows = []
    for line, obj in objects(records, name, "GenAI-Perf"):
        _check(obj, line, name, "GenAI-Perf")
        rows.append(_genai_row(line, obj, notes))
    return rows, sorted(notes | _row_notes(rows))


# --------------------------------------------------------------------------- CSV

_NAME_RE = re.compile(r"^(?P<name>.*?)\s*(?:\((?P<unit>[^()]*)\))?\s*$")
_CSV_NAMES = {"output_token_throughput_per_request": "output_token_throughput_per_request",
              "total_input_sequence_length": "total_isl", "total_output_sequence_length": "total_osl"}


def _read_csv_metrics(path: Path, name: str) -> dict[str, dict]:
    """``{tag: {unit, stat: value}}`` from both sections of a profile-export CSV (telemetry ignored)."""
    try:
        with open(path, newline="", encoding="utf-8-sig") as handle:
            rows = list(csv.reader(handle))
    except (UnicodeDecodeError, csv.Error) as exc:
        raise IngestError(name, f"not a readable CSV: {exc}") from None
    metrics: dict[str, dict] = {}
    header: list[str] | None = None
    for row in rows:
        if not any(cell.strip() for cell in row):
            header = None
            continue
        if header is None:
            header = [c.strip().lower() for c in row]
            if header[0] != "metric":  # GPU telemetry or another trailing section
                break
            continue
        match = _NAME_RE.match(row[0].strip())
        tag = re.sub(r"\W+", "_", match["name"].strip().lower()).strip("_")
        tag = _CSV_NAMES.get(tag, tag)
        record: dict[str, Any] = {"unit": (match["unit"] or "").strip() or None}
        for key, cell in zip(header[1:], row[1:]):
            record["avg" if key == "value" else key] = num(cell)
        metrics[tag] = record
    if not metrics:
        raise IngestError(name, "no metric rows found under a 'Metric,...' header", line=1)
    return metrics


def _csv_point(path: Path, name: str, tool: str) -> tuple[Rows, list[str]]:
    notes: set[str] = set()
    metrics = _read_csv_metrics(path, name)
    if "time_to_first_token" not in metrics and "output_token_throughput" not in metrics \
            and "request_latency" not in metrics:
        raise IngestError(name, f"not a {tool} CSV: no latency or throughput rows", line=1)
    row = finish({"source_line": 1, **point(metrics, notes)})
    notes.add("the CSV states no model, load or config: use --set (e.g. concurrency=N) to record them")
    return [row], sorted(notes | _row_notes([row]))


def parse_aiperf_csv(path: Path, name: str) -> tuple[Rows, list[str]]:
    """One row from ``profile_export_aiperf.csv`` (units as :func:`parse_aiperf`)."""
    return _csv_point(path, name, "AIPerf")


def parse_genai_perf_csv(path: Path, name: str) -> tuple[Rows, list[str]]:
    """One row from ``profile_export_genai_perf.csv``; ``"1,234.56"`` and ``N/A`` are read as numbers / empty."""
    return _csv_point(path, name, "GenAI-Perf")


FORMATS = (
    Format("aiperf", "json", lambda keys, head: matches_aiperf(keys), parse_aiperf),
    Format("genai_perf", "json", lambda keys, head: matches_genai_perf(keys), parse_genai_perf),
    Format("aiperf_csv", "csv", lambda header, head: csv_flavour(header, head) == "aiperf_csv", parse_aiperf_csv),
    Format("genai_perf_csv", "csv", lambda header, head: csv_flavour(header, head) == "genai_perf_csv",
           parse_genai_perf_csv),
)
