"""Many small benchmark files at the speed of the store: staged, validated and inserted together.

:func:`ingest_many` ingests a list of files into one write's connection with the same outcome, file by
file, as :func:`model.data.ingest.ingest_file` on each in turn, at a fraction of the cost when the
files are small canonical CSVs (a night's sweep: thousands of files of a header and a few rows):

1. each file is read once in Python (hash, format detection, the column limit, the rows split on the
   delimiter). Only plain files take the bulk path: UTF-8, LF line ends, no quote character, no blank
   line, no byte-order mark, a points header, every row as many cells as the header, at most
   :data:`BULK_MAX_BYTES`, and unchanged while it is read. Any other file, and any file already stored or
   repeated in the list, goes through :func:`~model.data.ingest.ingest_file` alone, in its turn;
2. the bulk files of one header (and delimiter and ``--set``) are staged as text in one table with
   their file number and line, mapped and converted by the one columnar pipeline
   (:class:`model.data.pipeline.Pipeline`), and checked in one query for anything
   :meth:`~model.data.pipeline.Pipeline.validate` would refuse or warn about, per file; a file with
   repeated rows is flagged too. A flagged file goes through ``ingest_file`` alone, which refuses it
   naming its file, line and field, or stores it with its warnings, exactly as it would on its own;
3. the clean files go in in file order: each run of clean files between two files that went alone is
   one transaction (:func:`model.data.ingest.ingest_transaction`) with one ``INSERT`` into ``sources`` and
   one into ``points`` per header. A refused file is thus refused alone; nothing of it is stored.

Values are staged as the file writes them (text); the pipeline converts them as it does a column
DuckDB's reader left as text, so what is stored is what a one-file ingest stores.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from model.core.columns import normalise_header
from model.data import importers
from model.data.database import registered
from model.data.importers.base import IngestError, IngestResult
from model.data.importers.canonical_csv import csv_kind
from model.data.ingest import clear_errors, ctrl_c_kept, ingest_file, ingest_transaction, parse_set_fields
from model.data.pipeline import THROUGHPUT_FIELDS, Pipeline, insert_points
from model.data.uploads import check_upload_shape, utf8_name

__all__ = ["ingest_many", "BULK_MAX_BYTES", "Outcome"]

#: a file larger than this goes through :func:`model.data.ingest.ingest_file` alone [bytes]
BULK_MAX_BYTES = 256 << 10

#: what :func:`ingest_many` gives for each file: what it stored, or why it refused it
Outcome = IngestResult | IngestError


@dataclass
class _Plain:
    """One file read for the bulk path."""

    index: int
    name: str
    sha: str
    headers: list[str]
    delim: str
    rows: list[list[str]]


@dataclass
class _Group:
    """The bulk files of one header: staged, checked, and which of them are clean (file index -> rows)."""

    key: tuple
    files: list[_Plain]
    staged: str = ""
    unknown: list[str] = field(default_factory=list)
    clean: dict[int, int] = field(default_factory=dict)


def ingest_many(con: duckdb.DuckDBPyConnection, paths: list[Path], set_fields: list[str] | dict | None = None,
                fmt: str | None = None) -> list[Outcome]:
    """Ingest ``paths`` into ``con`` in order; one outcome per path, as ``ingest_file`` on each would give.

    Raises only what ``ingest_file`` raises past its :class:`IngestError` (a full disk, Ctrl-C).
    """
    paths = [Path(p) for p in paths]
    try:
        fields = set_fields if isinstance(set_fields, dict) else parse_set_fields(set_fields, "--set")
    except IngestError:
        fields = None   # each file alone is refused, naming it
    plain = [_read_plain(i, p, fmt) for i, p in enumerate(paths)] if fields is not None else [None] * len(paths)
    outcomes: list[Outcome | None] = [None] * len(paths)
    with ctrl_c_kept():
        _known(con, plain, outcomes, fmt)
    groups: dict[tuple, _Group] = {}
    for item in plain:
        if item is not None:
            key = (tuple(item.headers), item.delim)
            groups.setdefault(key, _Group(key, [])).files.append(item)
    clean: dict[int, _Group] = {}
    try:
        for number, group in enumerate(groups.values()):
            _check(con, group, number, fields or {})
            clean.update({i: group for i in group.clean})
        run: list[int] = []
        for i, path in enumerate(paths):
            if outcomes[i] is not None:
                continue
            if i in clean:
                run.append(i)
                continue
            _store_run(con, run, clean, plain, fields or {}, outcomes, paths, set_fields, fmt)
            run = []
            outcomes[i] = _alone(con, path, set_fields, fmt)
        _store_run(con, run, clean, plain, fields or {}, outcomes, paths, set_fields, fmt)
    finally:
        for group in groups.values():
            if group.staged:
                con.execute(f"DROP TABLE IF EXISTS {group.staged}")
                con.execute(f"DROP TABLE IF EXISTS {group.staged}_raw")
    return outcomes


def _read_plain(index: int, path: Path, fmt: str | None) -> _Plain | None:
    """``path`` read for the bulk path, or None when it is not a plain small points CSV (it then goes alone)."""
    if fmt not in (None, "csv"):
        return None
    try:
        str(path).encode("utf-8")
        st = path.stat()
        if not stat.S_ISREG(st.st_mode) or not 0 < st.st_size <= BULK_MAX_BYTES:
            return None
        data = path.read_bytes()
        after = path.stat()
    except (OSError, UnicodeEncodeError):
        return None
    if len(data) != st.st_size or (after.st_size, after.st_mtime_ns) != (st.st_size, st.st_mtime_ns):
        return None     # still being written: it goes alone, where a file changing while it is read is refused
    if b'"' in data or b"\r" in data or b"\x00" in data or b"\n\n" in data or data.startswith(b"\xef\xbb\xbf"):
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    name = utf8_name(path)
    try:
        detected, header = importers.detect_with_header(path, name)
        if detected != "csv" or header is None:
            return None
        headers, delim = header
        if len(headers) < 2 or csv_kind({normalise_header(h) for h in headers}) != "points":
            return None
        check_upload_shape(path, name)
    except (IngestError, OSError):
        return None
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    rows = [line.split(delim) for line in lines[1:]]
    if [h.strip() for h in lines[0].split(delim)] != headers or not rows \
            or any(len(row) != len(headers) for row in rows):
        return None
    return _Plain(index, name, hashlib.sha256(data).hexdigest(), headers, delim, rows)


def _known(con: duckdb.DuckDBPyConnection, plain: list[_Plain | None], outcomes: list, fmt: str | None) -> None:
    """Files already stored get ``ingest_file``'s answer for them; a repeat within the list goes alone
    after its first (which then is stored, so the repeat is told so)."""
    shas = [p.sha for p in plain if p is not None]
    if not shas:
        return
    stored = dict(con.execute("SELECT sha256, source_id FROM sources WHERE list_contains(?, sha256)",
                              [shas]).fetchall())
    seen: set[str] = set()
    for i, item in enumerate(plain):
        if item is None:
            continue
        if item.sha in stored:
            outcomes[i] = IngestResult(item.name, fmt or "?", "?", 0, int(stored[item.sha]))
            plain[i] = None
        elif item.sha in seen:
            plain[i] = None
        else:
            seen.add(item.sha)


def _stage(con: duckdb.DuckDBPyConnection, group: _Group, table: str) -> None:
    """The group's rows as text (an empty cell is NULL, as DuckDB's reader has it), with file, line and ordinal."""
    width = len(group.key[0])
    cells: list[list[str | None]] = [[] for _ in range(width)]
    files, lines, ordinals = [], [], []
    for item in group.files:
        for n, row in enumerate(item.rows):
            for j, value in enumerate(row):
                cells[j].append(value if value != "" else None)
            files.append(item.index)
            lines.append(n + 2)
            ordinals.append(n)
    arrow = pa.table({**{f"c{j}": pa.array(col, pa.string()) for j, col in enumerate(cells)},
                      "_file": pa.array(files, pa.int64()), "_line": pa.array(lines, pa.int64()),
                      "_ord": pa.array(ordinals, pa.int64())})
    with registered(con, f"{table}_arrow", arrow):
        con.execute(f"CREATE TEMP TABLE {table} AS SELECT * FROM {table}_arrow")


def _check(con: duckdb.DuckDBPyConnection, group: _Group, number: int, fields: dict[str, Any]) -> None:
    """Stage, map and check one group; ``group.clean`` lists the files that can go in together.

    Anything the pipeline would say of the header (no throughput, a column mapped twice, no
    interactivity) sends every file of the group alone; so does any error here that is not Ctrl-C
    or a full disk (the files alone then say what it is).
    """
    table = f"bulk_{os.getpid()}_{number}"
    raw = f"{table}_raw"
    headers = {f"c{j}": h for j, h in enumerate(group.key[0])}
    try:
        with clear_errors(group.files[0].name):
            _stage(con, group, raw)
            group.staged = table
            pipe = Pipeline(con, group.files[0].name, raw, headers, fields, "r._line", ordinal_expr="r._ord",
                            carry=("_file",))
            pipe.map_columns()
            wanted = {"interactivity", "tpot_median_ms", "request_rate_rps"}
            if pipe.warnings or not any(f in pipe.columns for f in THROUGHPUT_FIELDS) or not wanted & set(pipe.columns):
                return
            select, params = pipe.select()
            con.execute(f"CREATE TEMP TABLE {table} AS {select}", params)
            flags = pipe.flagged(f"SELECT * FROM {table}", [], "_file")
            cols = ", ".join(headers)
            repeated = {r[0] for r in con.execute(
                f"SELECT DISTINCT _file FROM {raw} GROUP BY _file, {cols} HAVING count(*) > 1").fetchall()}
    except IngestError:
        return
    group.unknown = list(pipe.unknown)
    group.clean = {i: rows for i, (rows, bad) in flags.items() if not bad and i not in repeated}


def _alone(con: duckdb.DuckDBPyConnection, path: Path, set_fields, fmt: str | None) -> Outcome:
    try:
        return ingest_file(con, path, set_fields, fmt=fmt)
    except IngestError as exc:
        return exc


def _store_run(con: duckdb.DuckDBPyConnection, run: list[int], clean: dict[int, _Group], plain: list,
               fields: dict[str, Any], outcomes: list, paths: list[Path], set_fields, fmt: str | None) -> None:
    """:func:`_store` a run of clean files; should that fail (not for a full disk or Ctrl-C: those stop the
    write), nothing of it was stored and each file goes alone, to be told what is wrong with it."""
    if not run:
        return
    try:
        with clear_errors(plain[run[0]].name):
            _store(con, run, clean, plain, fields, outcomes)
    except IngestError:
        for i in run:
            outcomes[i] = _alone(con, paths[i], set_fields, fmt)


def _store(con: duckdb.DuckDBPyConnection, run: list[int], clean: dict[int, _Group], plain: list,
           fields: dict[str, Any], outcomes: list) -> None:
    """Insert a run of clean files in one transaction: their ``sources`` rows, then their points, per header."""
    with ingest_transaction(con):
        first = int(con.execute("SELECT coalesce(max(source_id), 0) + 1 FROM sources").fetchone()[0])
        ids = {i: first + k for k, i in enumerate(run)}
        stamp = datetime.now(timezone.utc).replace(tzinfo=None)
        given = json.dumps(fields, default=str) if fields else None
        sources = pa.table({
            "source_id": pa.array([ids[i] for i in run], pa.int64()),
            "file_name": [plain[i].name for i in run], "format": ["csv"] * len(run), "kind": ["points"] * len(run),
            "sha256": [plain[i].sha for i in run], "rows": pa.array([clean[i].clean[i] for i in run], pa.int64()),
            "ingested_at": pa.array([stamp] * len(run), pa.timestamp("us")),
            "notes": pa.array([None] * len(run), pa.string()), "set_fields": pa.array([given] * len(run), pa.string())})
        with registered(con, "bulk_sources", sources):
            con.execute("INSERT INTO sources (source_id, file_name, format, kind, sha256, rows, ingested_at, notes, "
                        "set_fields) SELECT * FROM bulk_sources")
        for group in {id(clean[i]): clean[i] for i in run}.values():
            mine = [i for i in run if clean[i] is group]
            index = pa.table({"_file": pa.array(mine, pa.int64()), "_sid": pa.array([ids[i] for i in mine], pa.int64())})
            with registered(con, "bulk_ids", index):
                insert_points(con, f"SELECT s.*, m._sid FROM {group.staged} s JOIN bulk_ids m ON s._file = m._file",
                              [], "_sid", [])
    for i in run:
        outcomes[i] = IngestResult(plain[i].name, "csv", "points", clean[i].clean[i], None, ids[i],
                                   list(clean[i].unknown), [])
