"""AIPerf's per-request records (``profile_export.jsonl``), read with the run's summary for goodput.

AIPerf (ai-dynamo/aiperf) writes, in one artifact folder, the run's summary (``profile_export_aiperf.json`` and
``.csv``, read by :mod:`.perf`) and one JSON record per request (``profile_export.jsonl``; a custom
``--profile-export-prefix P`` names them ``P.json``/``P.csv`` and ``P.jsonl``). A record is AIPerf's
``MetricRecordInfo``: ``metadata`` (``benchmark_phase``, ``was_cancelled``, timestamps), ``metrics`` (tag ->
``{"value", "unit"}``: ``time_to_first_token`` [ms], ``request_latency`` [ms], ``output_sequence_length``
[tokens], ``inter_token_latency`` [ms], ...) and ``error`` (null for a completed request).

**Pairing.** When a summary is ingested (alone, or in a folder), the records file beside it is read: each
completed request of the profiling phase (``error`` null, not cancelled) gives its TTFT [s] and its TPOT [ms] =
(``request_latency`` - ``time_to_first_token``) / (``output_sequence_length`` - 1), 0 for a one-token output (the
goodput module's TPOT, which is AIPerf's own ``inter_token_latency`` formula); a record stating no latency or
length gives its ``inter_token_latency`` as stated. Failed, cancelled and warm-up records are not read. The records
are kept only when their completed count equals the summary's ``request_count`` (else they are of another run,
and the file's notes say so). A records file alone is not a result: it states no model or configured load, and
its run's point is the summary's, so it is refused naming the summary to ingest instead
(:mod:`.companions`).

A malformed record (not JSON, no ``metrics`` object, a value that is not a number of at least 0, an unknown time
unit, a latency below its TTFT, a completed record without a TTFT in a streaming run) refuses the ingest naming
the records file, its line and the field: nothing of the summary is stored either, so a point never holds half
its requests. A run with no TTFT at all (non-streaming) keeps no per-request data, and says so.
"""

from __future__ import annotations

import json
import math
from array import array
from pathlib import Path
from typing import Any

import numpy as np

from model.core.goodput import compact, request_tpot_ms
from model.data.importers._common import add_note, seconds
from model.data.importers.base import IngestError, Rows
from model.data.importers.per_request import REQUESTS_KEY

__all__ = ["SUMMARY_FORMATS", "TPOT_RULE", "records_beside", "summary_beside", "read_records", "attach_records"]

#: the summary formats whose folder may hold per-request records
SUMMARY_FORMATS = ("aiperf", "aiperf_csv")
TPOT_RULE = ("TPOT = (request_latency - time_to_first_token) / (output_sequence_length - 1), 0 for one token; "
             "a record without them: its inter_token_latency")


def _stems(stem: str) -> list[str]:
    return list(dict.fromkeys((stem.removesuffix("_aiperf"), stem)))


def records_beside(summary: Path) -> Path | None:
    """The records file AIPerf wrote beside the summary ``summary``: ``X.jsonl`` for ``X_aiperf.json``/``.csv``
    (default ``profile_export``), else ``X.jsonl`` for ``X.json``/``.csv`` (a custom prefix); None when absent.
    A symlink (an alias of an oddly named file) is followed to its folder."""
    real = Path(summary).resolve()
    for stem in _stems(real.stem):
        found = real.with_name(stem + ".jsonl")
        if found.is_file():
            return found
    return None


def summary_beside(records: Path) -> Path | None:
    """The summary beside the records file ``records`` (``X_aiperf.json``/``.csv``, else ``X.json``/``.csv``)."""
    real = Path(records).resolve()
    for name in (f"{real.stem}_aiperf.json", f"{real.stem}_aiperf.csv", f"{real.stem}.json", f"{real.stem}.csv"):
        if real.with_name(name).is_file():
            return real.with_name(name)
    return None


def _value(metrics: dict, tag: str, name: str, line: int, time: bool) -> float | None:
    """The metric ``tag`` of one record, in s (``time``) or as a count; None when the record has none."""
    entry = metrics.get(tag)
    if entry is None:
        return None
    field = f"metrics.{tag}"
    if not isinstance(entry, dict) or "value" not in entry:
        raise IngestError(name, f"expected {{\"value\": ..., \"unit\": ...}}, found {str(entry)[:40]!r}", line=line,
                          field=field)
    raw = entry["value"]
    if isinstance(raw, bool) or not isinstance(raw, (int, float)) or not math.isfinite(raw) or raw < 0:
        raise IngestError(name, f"{str(raw)[:20]!r} is not a {'time' if time else 'count'} of at least 0", line=line,
                          field=field)
    if not time:
        return float(raw)
    out = seconds(raw, entry.get("unit"))
    if out is None:
        raise IngestError(name, f"unknown time unit {str(entry.get('unit'))[:20]!r} (ms, s, us or ns)", line=line,
                          field=f"{field}.unit")
    return out


def _completed(record: dict, name: str, line: int) -> bool | None:
    """True for a completed profiling request; False for a failed or cancelled one; None for another phase."""
    meta = record.get("metadata")
    if not isinstance(meta, dict):
        raise IngestError(name, "a record needs a 'metadata' object (AIPerf's MetricRecordInfo)", line=line,
                          field="metadata")
    if meta.get("benchmark_phase", "profiling") != "profiling":
        return None
    return record.get("error") is None and meta.get("was_cancelled") is not True


def read_records(path: Path, name: str) -> tuple[Any, str | None, int]:
    """The completed profiling requests of the records file ``path`` (``name`` in messages) as a compacted
    :class:`~model.core.goodput.Sample` (None when no record states a TTFT), a note (subsampled, or why none was
    kept) and the completed count. Raises :class:`IngestError` for a malformed record."""
    # float64 arrays: 8 bytes a value, so a run of a million requests holds 32 MB while it is read
    ttft, osl, lat, tpot_given = array("d"), array("d"), array("d"), array("d")
    missing = None
    done = streaming = 0
    try:
        with open(path, encoding="utf-8-sig") as handle:
            for line, text in enumerate(handle, 1):
                if not text.strip():
                    continue
                try:
                    record = json.loads(text)
                except ValueError as exc:
                    raise IngestError(name, f"not a JSON record ({getattr(exc, 'msg', exc)})", line=line) from None
                if not isinstance(record, dict):
                    raise IngestError(name, f"expected a JSON object, found a {type(record).__name__}", line=line)
                if not _completed(record, name, line):
                    continue                          # a failed, cancelled or warm-up request is not read
                metrics = record.get("metrics")
                if not isinstance(metrics, dict):
                    raise IngestError(name, "a completed record needs a 'metrics' object", line=line, field="metrics")
                done += 1
                first = _value(metrics, "time_to_first_token", name, line, time=True)
                if first is None:
                    missing = missing or line
                    continue
                streaming += 1
                tokens = _value(metrics, "output_sequence_length", name, line, time=False)
                tokens = tokens if tokens is not None else _value(metrics, "output_token_count", name, line, False)
                total = _value(metrics, "request_latency", name, line, time=True)
                if total is not None and total < first:
                    raise IngestError(name, f"request_latency {total * 1000:g} ms is below its time_to_first_token "
                                      f"{first * 1000:g} ms", line=line, field="metrics.request_latency")
                itl = None
                if total is None or tokens is None:
                    itl = _value(metrics, "inter_token_latency", name, line, time=True)
                    if itl is None and not (tokens is not None and tokens <= 1):
                        raise IngestError(name, "a completed record states neither request_latency and "
                                          "output_sequence_length nor inter_token_latency: its TPOT is unknown",
                                          line=line, field="metrics.request_latency")
                ttft.append(first)
                osl.append(tokens if tokens is not None else 1.0)
                lat.append(total if total is not None else first)
                tpot_given.append(math.nan if itl is None else itl * 1000.0)
    except UnicodeDecodeError as exc:
        raise IngestError(name, f"not UTF-8 text (byte {exc.start}); save the file as UTF-8") from None
    if not streaming:
        return None, (f"{name}: no completed record states time_to_first_token (a non-streaming run), so no "
                      "per-request data were kept; goodput uses the summary values"), done
    if missing:
        raise IngestError(name, "a completed record without time_to_first_token where the others state it",
                          line=missing, field="metrics.time_to_first_token")
    given = np.frombuffer(tpot_given, dtype=np.float64)
    tpot = np.where(np.isnan(given), request_tpot_ms(np.frombuffer(ttft), np.frombuffer(osl), np.frombuffer(lat)),
                    given)
    sample, said = compact(np.frombuffer(ttft).copy(), tpot)
    return sample, said, done


def attach_records(rows: Rows, path: Path, name: str, notes: list[str]) -> None:
    """Put the per-request :class:`~model.core.goodput.Sample` of the records file beside the summary ``path``
    into its one row (when the completed counts agree), saying where it comes from in the row's notes; what was
    not kept, and why, goes to the file's ``notes``."""
    found = records_beside(path)
    if found is None or len(rows) != 1:
        return
    shown = str(Path(name).with_name(found.name))
    sample, said, done = read_records(found, shown)
    if sample is None:
        notes.append(said)
        return
    row = rows[0]
    stated = row.get("requests_completed")
    if stated is not None and done != stated:
        notes.append(f"{shown} beside it holds {done:,} completed requests where the summary counts {int(stated):,}: "
                     "not this run's records, so no per-request data were kept; goodput uses the summary values")
        return
    row[REQUESTS_KEY] = sample
    text = f"per-request TTFT and TPOT of the {done:,} completed requests from {shown} ({TPOT_RULE})"
    add_note(row, text)
    if said:
        add_note(row, said)
    notes.extend(n for n in (text, said) if n and n not in notes)
