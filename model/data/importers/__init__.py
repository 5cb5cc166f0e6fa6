"""Format detection and the importers for files that benchmark tools write.

``detect`` names a file's format from its content (never its name); ``parse``
turns a tool's file into a frame of canonical fields (one row per load point,
values already in the field's unit, ``source_line`` locating it) that
:func:`model.data.ingest.ingest_frame` validates and stores like any CSV.

Every format is one :class:`~model.data.importers.base.Format` in :data:`REGISTRY`, the only
list detection reads: a new format is a new module with a ``FORMATS`` tuple and one line
here. One module per tool family: :mod:`.vllm`, :mod:`.sglang`, :mod:`.inferencex` (and
:mod:`.inferencex_agentic`), :mod:`.inference_perf`, :mod:`.perf` (AIPerf and GenAI-Perf) and :mod:`.perf_aggregate` (AIPerf's multi-run
aggregate), :mod:`.trtllm`,
:mod:`.llmperf`, :mod:`.guidellm`,
and :mod:`.canonical_csv` (our own CSV, read by the pipeline in DuckDB); shared helpers in
:mod:`._common`, errors and results in :mod:`.base`; files tools write beside their results (per-request
records, time slices, console text) are told apart in :mod:`.companions` and never stored on their own
(AIPerf's per-request records are read with the run's summary beside them: :mod:`.aiperf_records`).
Nothing here imports :mod:`model.data.ingest`.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from model.data.importers import (
    aiperf_records,
    canonical_csv,
    guidellm,
    inference_perf,
    inferencex,
    llmperf,
    perf,
    perf_aggregate,
    sglang,
    trtllm,
    vllm,
    vllm_console,
)
from model.data.importers._common import (
    DERIVED_KEY,
    HEAD_BYTES,
    MODEL_PATH_NOTE,
    add_note,
    head_keys,
    load_json,
    model_named,
    read_head,
    to_frame,
)
from model.data.importers.base import Format, IngestError
from model.data.importers.companions import refuse_companion
from model.data.importers.per_request import REQUESTS_KEY
from model.data.importers.perf_aggregate import INTERVALS_KEY

__all__ = ["REGISTRY", "detect", "detect_with_header", "parse", "FORMATS", "JSON_FORMATS", "CSV_FORMATS",
           "TEXT_FORMATS"]

#: every format, in the order detection tries them (most specific first; the canonical CSV last)
REGISTRY: tuple[Format, ...] = (
    *trtllm.FORMATS,
    *guidellm.FORMATS,
    *llmperf.FORMATS,
    *inferencex.FORMATS,
    *inference_perf.FORMATS,
    *perf_aggregate.FORMATS,
    *perf.FORMATS,
    *vllm.FORMATS,
    *vllm_console.FORMATS,
    *sglang.FORMATS,
    *canonical_csv.FORMATS,
)
_BY_NAME = {f.name: f for f in REGISTRY}
assert len(_BY_NAME) == len(REGISTRY), "two formats share a name"

#: JSON formats, in the order detection tries them
JSON_FORMATS = tuple(f.name for f in REGISTRY if f.container == "json")
#: tool CSVs told apart from canonical CSVs by their first row
CSV_FORMATS = tuple(f.name for f in REGISTRY if f.container == "csv" and f.name != "csv")
#: console logs told by their content (vLLM's result block)
TEXT_FORMATS = tuple(f.name for f in REGISTRY if f.container == "text")
#: formats ``--format`` accepts
FORMATS = ("csv", *JSON_FORMATS, *CSV_FORMATS, *TEXT_FORMATS)


def detect(path: Path, name: str) -> str:
    """The format of ``path``, from the first MiB of its content.

    Parameters
    ----------
    path : Path
        the file.
    name : str
        the name to use in messages.

    Returns
    -------
    str
        ``"csv"`` for delimited text the CSV pipeline reads (canonical or
        aliased columns; rates, evals and published tables), otherwise one of
        :data:`JSON_FORMATS`, :data:`CSV_FORMATS` or :data:`TEXT_FORMATS`. Empty, binary and UTF-16
        files are ``"csv"`` too: the CSV reader refuses them with its own message.

    Raises
    ------
    IngestError
        for JSON no importer recognises and for delimited text whose header
        names no known column; the message lists the formats tried.
    """
    return detect_with_header(path, name)[0]


def detect_with_header(path: Path, name: str) -> tuple[str, tuple[list[str], str] | None]:
    """:func:`detect`, plus the CSV header and delimiter it read (``None`` for JSON or an unreadable
    header), so the canonical CSV reader need not read them again."""
    path = Path(path)
    head = read_head(path)
    start = head.lstrip(" \t\r\n")[:1]
    if start in ("{", "["):
        keys = head_keys(head)
        refuse_companion(name, head, keys, path)
        for fmt in REGISTRY:
            if fmt.container == "json" and fmt.matches(keys, head):
                return fmt.name, None
        if path.stat().st_size <= HEAD_BYTES:
            load_json(path, name)  # invalid JSON: say so, naming the line, before "unknown format"
        seen = ", ".join(sorted(keys)[:12]) or "none"
        raise IngestError(name, f"unrecognised JSON: tried formats {', '.join(JSON_FORMATS)}; "
                          f"none matched (keys seen: {seen})")
    _refuse_json_scalar(path, name, head)
    refuse_companion(name, head, None)
    for fmt in REGISTRY:       # a console log: told by its content before any CSV reading
        if fmt.container == "text" and fmt.matches(None, head):
            return fmt.name, None
    return _detect_delimited(path, name, head)


def _refuse_json_scalar(path: Path, name: str, head: str) -> None:
    """A file that is one bare JSON number, string, boolean or null is refused as such
    (rather than read as a one-column CSV)."""
    text = head.strip()
    if not text or len(text) > 10_000 or path.stat().st_size > HEAD_BYTES:
        return
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return
    kind = {bool: "boolean", int: "number", float: "number", str: "string", type(None): "null"}.get(type(value))
    if kind:
        raise IngestError(name, f"the file is a bare JSON {kind} ({text[:40]}), not a benchmark result: expected "
                          "a JSON object or array of results, or a CSV with a header row", line=1)


def _detect_delimited(path: Path, name: str, head: str) -> tuple[str, tuple[list[str], str] | None]:
    try:
        header = canonical_csv.read_header(path, name)
    except IngestError:
        return "csv", None  # empty / binary / UTF-16: the CSV reader says what is wrong
    cells = header[0]
    for fmt in REGISTRY:
        if fmt.container == "csv" and fmt.name != "csv" and fmt.matches(cells, head):
            return fmt.name, header
    if len(cells) < 2 or canonical_csv.matches(cells, head):
        return "csv", header  # the CSV reader explains the one-column case
    shown = ", ".join(h[:30] for h in cells[:8])
    raise IngestError(name, f"unrecognised CSV: tried formats csv (no column is a known field; the manual's \"Data formats\" "
                      f"page lists them), {', '.join(CSV_FORMATS)}; header: {shown}", line=1)


def parse(path: Path, name: str, fmt: str, requests: bool = True) -> tuple[pd.DataFrame, str, str | None]:
    """Read a tool's file into canonical rows.

    Parameters
    ----------
    path : Path
        the file.
    name : str
        the name to use in messages.
    fmt : str
        a format from :data:`FORMATS` other than ``"csv"`` (as :func:`detect` returned).
    requests : bool
        read per-request data a summary's folder holds (AIPerf's ``profile_export.jsonl``,
        :mod:`.aiperf_records`); False when only the summary's values are wanted.

    Returns
    -------
    frame : pandas.DataFrame
        one row per load point; columns are field names of
        :data:`model.core.schema.POINT_FIELDS` with values in the field's unit
        (TTFT/E2E [s], TPOT [ms], throughput [tok/s] or [tok/s/GPU],
        interactivity [tok/s/user], success rate [fraction]), ``source_line``,
        and extra columns the pipeline keeps in ``extra``; per-request data, where the file has them, in
        ``frame.attrs["_requests"]`` (row ordinal -> :class:`model.core.goodput.Sample`).
    fmt : str
        the format recorded for the source.
    notes : str or None
        how the importer read the file (derivations, values left empty).

    Raises
    ------
    IngestError
        unknown format, unreadable JSON (naming the line), or content that is
        not of ``fmt``.
    """
    path = Path(path)
    entry = _BY_NAME.get(fmt)
    if entry is None or entry.read is None:
        raise IngestError(name, f"unknown format {fmt!r}; known: {', '.join(FORMATS)}")
    if entry.container == "json":
        rows, notes = entry.read(load_json(path, name), name)
    else:
        rows, notes = entry.read(path, name)
    if not rows:
        raise IngestError(name, f"no benchmark rows found in this {fmt} file")
    notes = list(notes)
    if entry.beside is not None:   # the rest of the run beside the file (inference-perf's other stages)
        entry.beside(rows, path, name, notes)
    if requests and fmt in aiperf_records.SUMMARY_FORMATS:   # the run's per-request records beside its summary
        aiperf_records.attach_records(rows, path, name, notes)
    for row in rows:   # a model given as a path: its last component (as the pipeline does for --set and CSVs)
        name_, path_, note = model_named(row.get("model"))
        if path_ is not None:
            row["model"], row["model_dir"] = name_, path_
            add_note(row, note)
            if MODEL_PATH_NOTE not in notes:
                notes.append(MODEL_PATH_NOTE)
    samples = {i: row.pop(REQUESTS_KEY) for i, row in enumerate(rows) if REQUESTS_KEY in row}
    intervals = {i: row.pop(INTERVALS_KEY) for i, row in enumerate(rows) if INTERVALS_KEY in row}
    derived = sorted({f for row in rows for f in row.pop(DERIVED_KEY, ())})
    frame = to_frame(rows)
    if derived:   # fields the importer derived, not read as stated: what --set gives replaces them
        frame.attrs[DERIVED_KEY] = tuple(derived)
    if samples:   # per-request data by row ordinal (model.data.importers.per_request), stored with the points
        frame.attrs[REQUESTS_KEY] = samples
    if intervals:   # run-to-run intervals by row ordinal (model.data.intervals), stored with the points
        frame.attrs[INTERVALS_KEY] = intervals
    return frame, fmt, "; ".join(notes) or None
