"""Files benchmark tools write beside their results, told by content: recognised and not stored.

:func:`refuse_companion` raises :class:`~model.data.importers.base.NotResults` for AIPerf's per-request
``profile_export.jsonl``, its time-slice export and its console text (a directory ingest prints one line for
each and goes on; a file ingested alone is refused naming the tool). The per-request records are read with
the run's summary instead (:mod:`.aiperf_records`): a directory ingest says so of a records file whose summary
is beside it. :mod:`.same_run` finds the exports of
one run a directory ingest holds twice.
"""

from __future__ import annotations

import re
from pathlib import Path

from model.data.importers import aiperf_records
from model.data.importers.base import NotResults

__all__ = ["refuse_companion"]

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
