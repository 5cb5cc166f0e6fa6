"""AIPerf's multi-run aggregate (``aiperf profile --num-profile-runs N``): ``profile_export_aiperf_aggregate.json``
and ``.csv`` in the run's ``aggregate/`` folder.

The shape (AIPerf's ``docs/tutorials/multi-run-confidence.md`` and its ``AggregateConfidenceJsonExporter`` /
``...CsvExporter``):

- JSON: ``schema_version``, ``aiperf_version``, ``metadata`` (``aggregation_type`` ``confidence``,
  ``num_profile_runs``, ``num_successful_runs``, ``failed_runs``, ``confidence_level``, ``run_labels``, and
  ``single_run: true`` when one run succeeded) and ``metrics``: ``{METRIC_STAT: {mean, std, min, max, cv, se, ci_low,
  ci_high, t_critical, unit}}``, one entry per metric and statistic of the runs' summaries
  (``output_token_throughput_avg``, ``time_to_first_token_p99``, ...);
- CSV: a table ``metric,mean,std,min,max,cv,se,ci_low,ci_high,t_critical,unit`` (means, ci to 2 decimals, cv, se
  and t to 4), a blank line, then ``Aggregation Type``, ``Total Runs``, ``Successful Runs`` and the metadata.

One load point per file: its values are the **means over the runs** of the run-level statistics, read as
:mod:`.perf` reads one run (TTFT percentiles, TPOT = the median ``inter_token_latency``, output and total tok/s),
and each metric's interval is kept with the point (table ``point_intervals``), checked by
:func:`model.core.run_to_run.check`: ``se = std ÷ √n`` and ``mean ± t·se`` recomputed and compared within the
file's rounding; an interval that disagrees is flagged in the point's notes and not used; one successful run
(``single_run``) is "one run, no interval". The aggregate states no model, load or configured lengths: they are
read from the first run's export the aggregate names (``../profile_runs/<label>/profile_export_aiperf.json``)
when it is there (said), else left for ``--set``. AIPerf's other aggregates (``detailed``, sweeps) are refused
naming the file to ingest instead.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

from model.core.run_to_run import DEFAULT_CONFIDENCE, check
from model.data.importers._common import Rows, add_note, integer, iso_date, load_json, num
from model.data.importers.base import Format, IngestError
from model.data.importers.perf import finish, point

__all__ = ["FORMATS", "INTERVALS_KEY", "matches", "matches_csv", "parse", "parse_csv"]

#: the key a row's intervals travel under until the ingest stores them (model.data.intervals)
INTERVALS_KEY = "_intervals"
#: the statistics a run's summary states per metric (AIPerf's STAT_KEYS), the suffix of an aggregate's key
_STATS = ("avg", "min", "max", "std", "p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "count", "sum")
_FIELDS = ("mean", "std", "min", "max", "cv", "se", "ci_low", "ci_high", "t_critical")
_UNITS = ("_ms", "_sec", "_s", "_ns")
_SHORT = {"ttft": "time_to_first_token", "ttst": "time_to_second_token", "itl": "inter_token_latency",
          "tpot": "inter_token_latency"}


def matches(keys: set[str], head: str = "") -> bool:
    """An AIPerf aggregate: per-metric confidence statistics, or its metadata."""
    return {"ci_low", "ci_high", "t_critical"} <= keys or ("aggregation_type" in keys and "num_profile_runs" in keys)


def matches_csv(header: list[str], head: str = "") -> bool:
    """The aggregate CSV's first row: ``metric`` then the confidence statistics."""
    cells = [c.strip().lower() for c in header]
    return bool(cells) and cells[0] == "metric" and {"mean", "ci_low", "ci_high", "t_critical"} <= set(cells)


def _split(key: str) -> tuple[str, str]:
    """(metric, statistic) of an aggregate key: ``time_to_first_token_p99`` -> (time_to_first_token, p99); a unit
    suffix (``ttft_p99_ms``, as AIPerf's tutorial prints it) and the tutorial's short names are read too."""
    text = key.strip().lower()
    for unit in _UNITS:
        if text.endswith(unit) and text[: -len(unit)].rsplit("_", 1)[-1] in _STATS:
            text = text[: -len(unit)]
            break
    metric, _, stat = text.rpartition("_")
    if stat not in _STATS or not metric:
        return text, "avg"
    return _SHORT.get(metric, metric), stat


def _meta(meta: dict, name: str) -> tuple[int | None, float | None, bool, list[str]]:
    kind = meta.get("aggregation_type")
    if kind not in (None, "confidence"):
        raise IngestError(name, f"an AIPerf {kind!r} aggregate, not the confidence aggregate: ingest "
                          "profile_export_aiperf_aggregate.json (the runs' confidence statistics) instead",
                          field="aggregation_type")
    runs = integer(meta.get("num_successful_runs"))
    labels_given = meta.get("run_labels")
    if runs is None and isinstance(labels_given, list) and labels_given:
        runs = len(labels_given)          # AIPerf lists the successful runs' labels: as many runs as labels
    level = num(meta.get("confidence_level"))
    single = meta.get("single_run") in (True, "true", "True", 1) or runs == 1
    labels = meta.get("run_labels")
    if isinstance(labels, str):
        labels = [x.strip(" '\"") for x in labels.strip("[]").split(",") if x.strip(" '\"")]
    return runs, level, single, [str(x) for x in labels] if isinstance(labels, list) else []


def _row(line: int, metrics: dict[str, dict], runs: int | None, level: float | None, single: bool,
         labels: list[str], printed: dict[str, dict] | None, name: str) -> dict[str, Any]:
    """One point: the means read as one run's summary, and every metric's interval checked."""
    by_metric: dict[str, dict] = {}
    intervals = []
    for key, stats in metrics.items():
        if not isinstance(stats, dict):
            continue
        mean = num(stats.get("mean"))
        if mean is None:
            continue
        metric, stat = _split(key)
        record = by_metric.setdefault(metric, {"unit": stats.get("unit")})
        record[stat] = mean
        flat = f"{metric}_{stat}"
        found = check(flat, {f: num(stats.get(f)) for f in _FIELDS}, runs, level, single,
                      (printed or {}).get(key))
        intervals.append({"metric": flat, "unit": stats.get("unit"), **{f: num(stats.get(f)) for f in _FIELDS},
                          "runs": runs, "confidence": level, "status": found.status, "detail": found.detail,
                          "se_recomputed": found.se_recomputed, "t_expected": found.t_expected,
                          "ci_low_recomputed": found.ci_low_recomputed, "ci_high_recomputed": found.ci_high_recomputed,
                          "t_implied": found.t_implied})
    if not by_metric:
        raise IngestError(name, "an AIPerf aggregate with no metric's mean", line=line, field="metrics")
    notes: set[str] = set()
    row = {"source_line": line, **point(by_metric, notes)}
    if row.get("output_tokens_per_second") is None and row.get("total_tokens_per_second") is None \
            and row.get("ttft_p50_s") is None:
        raise IngestError(name, "an AIPerf aggregate with neither throughput nor latency means", line=line,
                          field="metrics")
    for note in sorted(notes):
        add_note(row, note)
    add_note(row, "one run, no interval (AIPerf aggregate of a single successful run)" if single else
             f"values are the means over {runs if runs else 'the'} runs of AIPerf --num-profile-runs; each metric's "
             "run-to-run interval is kept with the point")
    flagged = [i for i in intervals if i["status"] == "differs"]
    for i in flagged[:3]:
        add_note(row, f"interval of {i['metric']} {i['detail']}")
    if len(flagged) > 3:
        add_note(row, f"{len(flagged) - 3} more intervals flagged, not used (see the stored intervals)")
    if level is None and runs and runs > 1:
        add_note(row, f"confidence level not stated: AIPerf's default {DEFAULT_CONFIDENCE:g} assumed to check the "
                 "intervals")
    row["successful_runs"] = runs
    row["_run_labels"] = labels
    row[INTERVALS_KEY] = intervals
    return row


def parse(records: list[tuple[int, Any]], name: str) -> tuple[Rows, list[str]]:
    """One row per aggregate object (see the module)."""
    rows = []
    for line, obj in records:
        if not isinstance(obj, dict):
            raise IngestError(name, f"expected an AIPerf aggregate object, found a JSON {type(obj).__name__}",
                              line=line)
        meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
        metrics = obj.get("metrics")
        if not isinstance(metrics, dict):
            raise IngestError(name, "an AIPerf aggregate needs its metrics object", line=line, field="metrics")
        runs, level, single, labels = _meta(meta, name)
        row = _row(line, metrics, runs, level, single, labels, None, name)
        row["aiperf_version"] = obj.get("aiperf_version")
        rows.append(row)
    return rows, _notes(rows)


def _notes(rows: Rows) -> list[str]:
    out = ["AIPerf multi-run aggregate: a point's values are the runs' means, each metric's interval stored with it"]
    if any("one run, no interval" in (r.get("notes") or "") for r in rows):
        out.append("one run, no interval")
    if any("flagged, not used" in (r.get("notes") or "") for r in rows):
        out.append("some stated intervals disagree with mean ± t·se beyond rounding: flagged, not used")
    return out


def parse_csv(path: Path, name: str) -> tuple[Rows, list[str]]:
    """The one row of ``profile_export_aiperf_aggregate.csv`` (numbers as printed, for the rounding allowance)."""
    try:
        with open(path, newline="", encoding="utf-8-sig") as handle:
            lines = list(csv.reader(handle))
    except (UnicodeDecodeError, csv.Error) as exc:
        raise IngestError(name, f"not a readable CSV: {exc}") from None
    header = [c.strip().lower() for c in lines[0]]
    metrics: dict[str, dict] = {}
    printed: dict[str, dict] = {}
    meta: dict[str, Any] = {}
    section = "metrics"
    for number, cells in enumerate(lines[1:], start=2):
        if not any(c.strip() for c in cells):
            section = "metadata"
            continue
        if section == "metrics":
            record = dict(zip(header, (c.strip() for c in cells)))
            key = record.get("metric")
            if not key:
                continue
            for field in _FIELDS:
                text = record.get(field, "")
                if text and num(text) is None and text.lower() not in ("nan", "inf", "-inf"):
                    raise IngestError(name, f"not a number ({text[:40]!r})", line=number, field=field)
            metrics[key] = {f: num(record.get(f)) for f in _FIELDS} | {"unit": record.get("unit") or None}
            printed[key] = {f: record.get(f) for f in _FIELDS}
        elif len(cells) >= 2:
            meta[cells[0].strip().lower().replace(" ", "_")] = cells[1].strip()
    translated = {"aggregation_type": meta.get("aggregation_type"), "num_profile_runs": meta.get("total_runs"),
                  "num_successful_runs": meta.get("successful_runs"), "confidence_level": meta.get("confidence_level"),
                  "single_run": str(meta.get("single_run", "")).lower() == "true", "run_labels": meta.get("run_labels")}
    runs, level, single, labels = _meta(translated, name)
    if not metrics:
        raise IngestError(name, "no metric rows under the metric,mean,... header", line=1)
    row = _row(1, metrics, runs, level, single, labels, printed, name)
    notes = _notes([row])
    notes.append("the CSV states no model or load: read from the first run's export beside it, else use --set")
    return [row], notes


def config_beside(rows: Rows, path: Path, name: str, notes: list[str]) -> None:
    """Fill each row's model, load, configured lengths and run date from the first run's export the aggregate names
    (``../profile_runs/<label>/profile_export_aiperf.json``), where the row states none (said in its notes); then
    ISL/OSL from the measured means where still unknown, and the success rate (:func:`.perf.finish`)."""
    for row in rows:
        _fill_from_run(row, path, notes)
        finish(row)


def _fill_from_run(row: dict, path: Path, notes: list[str]) -> None:
    """Model, load, configured lengths and run date from the first run's export beside the aggregate, where the row
    states none."""
    labels = row.pop("_run_labels", []) or []
    folder = Path(path).resolve().parent.parent / "profile_runs"
    runs = [folder / label / "profile_export_aiperf.json" for label in labels]
    if not runs and folder.is_dir():
        runs = sorted(folder.glob("*/profile_export_aiperf.json"))
    first = next((p for p in runs if p.is_file()), None)
    if first is None:
        return
    try:
        (_, obj), = load_json(first, first.name)
    except (IngestError, ValueError):
        return
    cfg = obj.get("input_config") if isinstance(obj, dict) and isinstance(obj.get("input_config"), dict) else {}
    endpoint = cfg.get("endpoint") if isinstance(cfg.get("endpoint"), dict) else {}
    loadgen = cfg.get("loadgen") if isinstance(cfg.get("loadgen"), dict) else {}
    prompt = (cfg.get("input") or {}).get("prompt") if isinstance(cfg.get("input"), dict) else None
    prompt = prompt if isinstance(prompt, dict) else {}
    models = endpoint.get("model_names") or []
    filled = {"model": models[0] if isinstance(models, list) and models else None,
              "concurrency": num(loadgen.get("concurrency")), "request_rate_rps": num(loadgen.get("request_rate")),
              "isl": integer((prompt.get("input_tokens") or {}).get("mean")),
              "osl": integer((prompt.get("output_tokens") or {}).get("mean")),
              "run_date": iso_date(obj.get("start_time"))}
    said = [k for k, v in filled.items() if v is not None and row.get(k) is None]
    for key in said:
        row[key] = filled[key]
    if said:
        where = f"{first.parent.parent.name}/{first.parent.name}/{first.name}"
        add_note(row, f"{', '.join(said)} read from the first run's export beside the aggregate ({where})")
        line = "model and load read from the first run's export beside the aggregate"
        if line not in notes:
            notes.append(line)


FORMATS = (
    Format("aiperf_aggregate", "json", lambda keys, head: matches(keys), parse, config_beside),
    Format("aiperf_aggregate_csv", "csv", matches_csv, parse_csv, config_beside),
)
