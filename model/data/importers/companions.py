"""Files benchmark tools write beside their results, told by content: recognised and not stored.

:func:`refuse_companion` raises :class:`~model.data.importers.base.NotResults` for AIPerf's per-request
``profile_export.jsonl``, its time-slice export and its console text (a directory ingest prints one line for
each and goes on; a file ingested alone is refused naming the tool). The per-request records are read with
the run's summary instead (:mod:`.aiperf_records`): a directory ingest says so of a records file whose summary
is beside it. :func:`same_run_exports` finds, in a
directory ingest, an AIPerf/GenAI-Perf CSV export whose JSON export of the same run is ingested too: the
CSV carries no run identity, so the pair is told by its directory and name and checked by its values.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from model.data.importers import aiperf_records
from model.data.importers.base import IngestError, NotResults

__all__ = ["refuse_companion", "same_run_exports", "runs_of_aggregates"]

_AIPERF_JSON = "ingest profile_export_aiperf.json (the run's aggregate) instead"
_RECORDS = (f"{_AIPERF_JSON}: with this file beside it, its completed requests' TTFT and TPOT are kept for goodput "
            "(the records state no model or configured load, and their run's point is the summary's)")


def refuse_companion(name: str, head: str, keys: set[str] | None, path: Path | None = None) -> None:
    """Raise :class:`NotResults` when ``head`` (the first MiB; ``keys`` its JSON keys, ``None`` for text)
    is a per-request, time-slice or console file of a tool this product reads (``path``: the file, to name the
    summary that reads per-request records beside it)."""
    if keys is not None:
        if "timeslices" in keys and ("timeslice_index" in keys or "input_config" in keys or "start_ns" in keys):
            raise NotResults(name, "time slices", "AIPerf", _AIPERF_JSON)
        if {"metadata", "metrics", "benchmark_phase"} <= keys or {"x_request_id", "request_start_ns"} <= keys:
            summary = aiperf_records.summary_beside(path) if path is not None else None
            raise NotResults(name, "per-request records", "AIPerf", _RECORDS,
                             f"read with {summary.name} beside it (for goodput), not stored on its own"
                             if summary is not None else "skipped")
        return
    lines = [ln.strip() for ln in head.splitlines()[:12] if ln.strip()]
    if lines and re.search(r"\bAIPerf\b", lines[0]) and any(ch in head[:4000] for ch in "┏┃│"):
        raise NotResults(name, "console text", "AIPerf", "the table of profile_export_aiperf.json; ingest that "
                         "file instead")
    if lines and re.search(r"\bGenAI-Perf\b", lines[0]) and any(ch in head[:4000] for ch in "┏┃│"):
        raise NotResults(name, "console text", "GenAI-Perf", "ingest profile_export_genai_perf.json instead")


_PAIRS = {"aiperf_csv": "aiperf", "genai_perf_csv": "genai_perf", "aiperf_aggregate_csv": "aiperf_aggregate"}
#: what AIPerf's --num-profile-runs writes: each run's exports, and the aggregate over them
_RUN_EXPORTS = ("profile_export_aiperf.json", "profile_export_aiperf.csv")
_AGGREGATES = ("profile_export_aiperf_aggregate.json", "profile_export_aiperf_aggregate.csv")


def same_run_exports(files: list[Path], names: dict[Path, str] | None = None) -> dict[Path, str]:
    """``{csv: line}`` for each AIPerf/GenAI-Perf CSV export in ``files`` whose JSON export (same directory,
    same stem) is in ``files`` too and states the same request count and output tok/s (the CSV rounds to
    2 decimals): one run, stored once from the JSON (it names the model, load and date)."""
    from model.data import importers  # the registry imports this module

    names = names or {}
    by_path = set(files)
    out: dict[Path, str] = {}
    for path in files:
        partner = path.with_suffix(".json")
        if path.suffix.lower() != ".csv" or partner not in by_path:
            continue
        try:
            fmt = importers.detect(path, path.name)
            if fmt not in _PAIRS or importers.detect(partner, partner.name) != _PAIRS[fmt]:
                continue
            csv_row = importers.parse(path, path.name, fmt, requests=False)[0].iloc[0]
            json_rows = importers.parse(partner, partner.name, _PAIRS[fmt], requests=False)[0]
        except (IngestError, OSError, ValueError):
            continue  # each file then goes its own way, and says what is wrong with it
        if len(json_rows) != 1 or not _agree(csv_row, json_rows.iloc[0]):
            continue
        out[path] = (f"{names.get(path, path.name)}: the same run as {names.get(partner, partner.name)} "
                     f"({'GenAI-Perf' if fmt == 'genai_perf_csv' else 'AIPerf'} writes both; the CSV has no run id), "
                     "not stored again")
    out.update(runs_of_aggregates(files, names))
    return out


def runs_of_aggregates(files: list[Path], names: dict[Path, str] | None = None) -> dict[Path, str]:
    """``{run export: line}`` for each run of an AIPerf multi-run folder (``profile_runs/<label>/``) whose aggregate
    (``../../aggregate/profile_export_aiperf_aggregate.*``) is in ``files`` too: the configuration is one point,
    stored from the aggregate (the runs' means, each metric's interval with it), not once per run."""
    names = names or {}
    by_path = set(files)
    out: dict[Path, str] = {}
    for path in files:
        if path.name not in _RUN_EXPORTS or path.parent.parent.name != "profile_runs":
            continue
        aggregate = next((path.parent.parent.parent / "aggregate" / a for a in _AGGREGATES
                          if path.parent.parent.parent / "aggregate" / a in by_path), None)
        if aggregate is not None:
            out[path] = (f"{names.get(path, path.name)}: run {path.parent.name} of the multi-run aggregate "
                         f"{names.get(aggregate, aggregate.name)} (AIPerf --num-profile-runs), stored as that "
                         "aggregate's point, not on its own")
    return out


def _agree(csv_row, json_row) -> bool:
    """The CSV's values equal the JSON's rounded to 2 decimals (request count, output tok/s)."""
    for field in ("requests_completed", "output_tokens_per_second"):
        a, b = csv_row.get(field), json_row.get(field)
        if pd.isna(a) or pd.isna(b):   # missing: cannot tell
            return False
        if abs(float(a) - round(float(b), 2)) > 0.0051:
            return False
    return True
