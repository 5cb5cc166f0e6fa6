"""One run's results a directory ingest holds twice, stored once: an AIPerf/GenAI-Perf CSV export whose JSON
export of the same run is ingested too (:func:`same_run_exports`: the CSV carries no run identity, so the pair is
told by its directory and name and checked by its values), and the runs of an AIPerf multi-run folder whose
aggregate is ingested (:func:`runs_of_aggregates`).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from model.data import importers
from model.data.importers.base import IngestError

__all__ = ["same_run_exports", "runs_of_aggregates"]

_PAIRS = {"aiperf_csv": "aiperf", "genai_perf_csv": "genai_perf", "aiperf_aggregate_csv": "aiperf_aggregate"}
#: what AIPerf's --num-profile-runs writes: each run's exports, and the aggregate over them
_RUN_EXPORTS = ("profile_export_aiperf.json", "profile_export_aiperf.csv")
_AGGREGATES = ("profile_export_aiperf_aggregate.json", "profile_export_aiperf_aggregate.csv")


def same_run_exports(files: list[Path], names: dict[Path, str] | None = None) -> dict[Path, str]:
    """``{csv: line}`` for each AIPerf/GenAI-Perf CSV export in ``files`` whose JSON export (same directory,
    same stem) is in ``files`` too and states the same request count and output tok/s (the CSV rounds to
    2 decimals): one run, stored once from the JSON (it names the model, load and date)."""
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
