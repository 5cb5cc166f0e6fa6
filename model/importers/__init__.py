"""Format detection and the importers for files that benchmark tools write.

``detect`` names a file's format from its content (never its name); ``parse``
turns a non-CSV file into a frame of canonical fields (one row per load point,
values already in the field's unit, ``source_line`` locating it) that
:func:`model.ingest.ingest_frame` validates and stores like any CSV.

One module per tool family: :mod:`.vllm`, :mod:`.sglang`, :mod:`.inferencex`,
:mod:`.perf` (AIPerf and GenAI-Perf), :mod:`.trtllm`, :mod:`.llmperf`,
:mod:`.guidellm`; shared helpers in :mod:`._common`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

import pandas as pd

from model.importers import guidellm, inferencex, llmperf, perf, sglang, trtllm, vllm
from model.importers._common import HEAD_BYTES, head_keys, load_json, read_head, to_frame
from model.ingest import IngestError

__all__ = ["detect", "parse", "FORMATS", "JSON_FORMATS", "CSV_FORMATS"]

#: JSON formats, in the order detection tries them (most specific first)
JSON_FORMATS = ("trtllm_bench", "guidellm", "llmperf", "inferencex_api", "inferencex_agg", "aiperf",
                "genai_perf", "vllm", "sglang")
#: tool CSVs told apart from canonical CSVs by their first row
CSV_FORMATS = ("aiperf_csv", "genai_perf_csv")
#: formats ``--format`` accepts
FORMATS = ("csv", *JSON_FORMATS, *CSV_FORMATS)

_JSON_MATCH: dict[str, Callable[[set[str], str], bool]] = {
    "trtllm_bench": lambda k, h: trtllm.matches(k),
    "guidellm": guidellm.matches,
    "llmperf": lambda k, h: llmperf.matches(k),
    "inferencex_api": lambda k, h: inferencex.matches_api(k),
    "inferencex_agg": lambda k, h: inferencex.matches_agg(k),
    "aiperf": lambda k, h: perf.matches_aiperf(k),
    "genai_perf": lambda k, h: perf.matches_genai_perf(k),
    "vllm": lambda k, h: vllm.matches(k),
    "sglang": lambda k, h: sglang.matches(k),
}
_JSON_PARSE = {
    "trtllm_bench": trtllm.parse, "guidellm": guidellm.parse, "llmperf": llmperf.parse,
    "inferencex_api": inferencex.parse_api, "inferencex_agg": inferencex.parse_agg, "aiperf": perf.parse_aiperf,
    "genai_perf": perf.parse_genai_perf, "vllm": vllm.parse, "sglang": sglang.parse,
}
_CSV_PARSE = {"aiperf_csv": perf.parse_aiperf_csv, "genai_perf_csv": perf.parse_genai_perf_csv}


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
        :data:`JSON_FORMATS` or :data:`CSV_FORMATS`. Empty, binary and UTF-16
        files are ``"csv"`` too: the CSV reader refuses them with its own message.

    Raises
    ------
    IngestError
        for JSON no importer recognises and for delimited text whose header
        names no known column; the message lists the formats tried.
    """
    head = read_head(Path(path))
    start = head.lstrip(" \t\r\n")[:1]
    if start in ("{", "["):
        keys = head_keys(head)
        for fmt in JSON_FORMATS:
            if _JSON_MATCH[fmt](keys, head):
                return fmt
        if Path(path).stat().st_size <= HEAD_BYTES:
            load_json(Path(path), name)  # invalid JSON: say so, naming the line, before "unknown format"
        seen = ", ".join(sorted(keys)[:12]) or "none"
        raise IngestError(name, f"unrecognised JSON: tried formats {', '.join(JSON_FORMATS)}; "
                          f"none matched (keys seen: {seen})")
    _refuse_json_scalar(Path(path), name, head)
    return _detect_delimited(Path(path), name, head)


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


def _detect_delimited(path: Path, name: str, head: str) -> str:
    from model.columns import normalise_header, resolve_column
    from model.ingest import _csv_kind, _read_header

    try:
        headers, _ = _read_header(path, name)
    except IngestError:
        return "csv"  # empty / binary / UTF-16: the CSV reader says what is wrong
    flavour = perf.csv_flavour(headers, head)
    if flavour:
        return flavour
    if len(headers) < 2:
        return "csv"  # the CSV reader explains the one-column case
    keys = {normalise_header(h) for h in headers}
    if any(resolve_column(h) is not None for h in headers) or _csv_kind(keys) != "points":
        return "csv"
    shown = ", ".join(h[:30] for h in headers[:8])
    raise IngestError(name, f"unrecognised CSV: tried formats csv (no column is a known field; see "
                      f"model/columns.py), {', '.join(CSV_FORMATS)}; header: {shown}", line=1)


def parse(path: Path, name: str, fmt: str) -> tuple[pd.DataFrame, str, str | None]:
    """Read a tool's file into canonical rows.

    Parameters
    ----------
    path : Path
        the file.
    name : str
        the name to use in messages.
    fmt : str
        a format from :data:`FORMATS` other than ``"csv"`` (as :func:`detect` returned).

    Returns
    -------
    frame : pandas.DataFrame
        one row per load point; columns are field names of
        :data:`model.schema.POINT_FIELDS` with values in the field's unit
        (TTFT/E2E [s], TPOT [ms], throughput [tok/s] or [tok/s/GPU],
        interactivity [tok/s/user], success rate [fraction]), ``source_line``,
        and extra columns the pipeline keeps in ``extra``.
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
    if fmt in _JSON_PARSE:
        rows, notes = _JSON_PARSE[fmt](load_json(path, name), name)
    elif fmt in _CSV_PARSE:
        rows, notes = _CSV_PARSE[fmt](path, name)
    else:
        raise IngestError(name, f"unknown format {fmt!r}; known: {', '.join(FORMATS)}")
    if not rows:
        raise IngestError(name, f"no benchmark rows found in this {fmt} file")
    return to_frame(rows), fmt, "; ".join(notes) or None
