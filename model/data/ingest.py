"""Ingest benchmark files into the store: detect, map columns, validate, insert atomically.

The bulk path is columnar: DuckDB reads the file into a temporary table, one SQL
statement maps and converts every column, one aggregate query checks every
constraint (the constraints are read from :class:`model.core.schema.BenchmarkPoint`,
so the pydantic model stays the single definition), and the rows and their
``sources`` entry go in inside one transaction. A bad file changes nothing.

This module (with :mod:`model.data.bulk`, which stages many small files together and inserts each run
of validated ones in one transaction) is the only code that writes points to the store; every ingest
transaction begins and commits in :func:`ingest_transaction`. It reads files through
:mod:`model.data.importers` (format detection, the tools' importers, the canonical CSV reader),
which never imports it back; errors and results come from :mod:`model.data.importers.base`.
"""

from __future__ import annotations

import codecs
import hashlib
import os
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator, NamedTuple

import duckdb
import pandas as pd
from pydantic import ValidationError

from model.core.columns import normalise_header, resolve_column
from model.core.schema import (
    POINT_FIELDS,
)
from model.data import actuals, api_prices, importers
from model.data.database import disk_full, no_space, registered
from model.data.field_sql import (
    ADAPTERS,
    CANONICALISERS,
    check_constraints_scalar,
    hardware_refusal,
    unusable_hardware,
)
from model.data.importers._common import DERIVED_KEY, read_head
from model.data.importers.base import IngestError, IngestResult, duck_msg
from model.data.importers.canonical_csv import (
    csv_kind,
    quick_records,
    scan_csv,
    stage_csv,
)
from model.data.importers.per_request import REQUESTS_KEY
from model.data.importers.perf_aggregate import INTERVALS_KEY
from model.data.interrupts import pressed
from model.data.intervals import store_intervals
from model.data.pipeline import run_pipeline
from model.data.requests import store_samples
from model.data.tables_csv import ingest_evals_csv, ingest_published_csv, ingest_rates_csv
from model.data.uploads import (  # the size and column limits, line ends, non-UTF-8 names
    check_size,
    check_upload_shape,
    plain_line_ends,
    utf8_name,
    utf8_path,
)
from model.data.versions import stamp

__all__ = ["IngestError", "IngestResult", "ingest_file", "ingest_frame", "parse_set_fields", "sha256_of",
           "FileFacts", "file_facts", "ingest_transaction", "clear_errors", "unchanged_since", "ingest_actuals_file"]


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


class FileFacts(NamedTuple):
    """What one read of a file tells the ingest (:func:`file_facts`)."""

    #: hex SHA-256 of the bytes, as :func:`sha256_of`
    sha256: str
    #: ``"lf"``, ``"crlf"``, ``"none"`` or ``"mixed"``, as :func:`model.data.uploads.line_ends`
    line_ends: str
    #: data records counted by lines where that count is exact, else None, as
    #: :func:`model.data.importers.canonical_csv.quick_records`
    records: int | None


#: block size of :func:`file_facts` [bytes]; a file of more than one block is hashed in a thread
_FACTS_BLOCK = 1 << 23


def file_facts(path: Path, block: int = _FACTS_BLOCK) -> FileFacts:
    """The hash, line ends and record count of ``path`` from one read (the three used to read it thrice).

    Each block is hashed in a worker thread (hashlib releases the interpreter lock) while this one
    counts its line ends; the results equal :func:`sha256_of`, :func:`~model.data.uploads.line_ends`
    and :func:`~model.data.importers.canonical_csv.quick_records` of the same file
    (``tests/test_ingest_one_read.py`` checks them against each other).
    """
    digest = hashlib.sha256()
    decoder = codecs.getincrementaldecoder("utf-8")()
    utf8 = True
    quote = blank = mixed = pending_cr = False
    newlines = crlf = lone_lf = 0
    tail = last = b""
    with open(path, "rb") as handle, ThreadPoolExecutor(1) as hasher:
        while chunk := handle.read(block):
            hashed = hasher.submit(digest.update, chunk) if len(chunk) >= block else digest.update(chunk)
            count = chunk.count(b"\n")
            newlines += count
            paired = 0
            if pending_cr:                      # a CR that ended the previous block
                paired = chunk[:1] == b"\n"
                mixed = mixed or not paired
            if b"\r" in chunk:
                pairs = chunk.count(b"\r\n")
                pending_cr = chunk.endswith(b"\r")
                mixed = mixed or chunk.count(b"\r") - pairs - pending_cr > 0
                crlf += pairs + paired
                lone_lf += count - pairs - paired
            else:
                pending_cr = False
                crlf += paired
                lone_lf += count - paired
            # what makes a count by lines inexact: a quote (multi-line values), a blank line, not UTF-8
            quote = quote or b'"' in chunk
            edge = tail + chunk[:2]
            blank = blank or b"\n\n" in edge or b"\n\r\n" in edge or b"\n\n" in chunk \
                or (b"\n\r\n" in chunk if b"\r" in chunk else False)
            if utf8 and not (chunk.isascii() and not decoder.getstate()[0]):
                try:
                    decoder.decode(chunk)
                except UnicodeDecodeError:
                    utf8 = False
            tail, last = (tail + chunk[-2:])[-2:], chunk[-1:]
            if hashed is not None:
                hashed.result()
    if utf8:
        try:
            decoder.decode(b"", final=True)
        except UnicodeDecodeError:
            utf8 = False
    mixed = mixed or pending_cr or bool(crlf and lone_lf)   # a lone CR at the end; CRLF and LF in one file
    ends = "mixed" if mixed else "crlf" if crlf else "lf" if lone_lf else "none"
    exact = utf8 and not quote and not blank
    records = max(newlines + (0 if last == b"\n" else 1) - 1, 0) if exact else None
    return FileFacts(digest.hexdigest(), ends, records)


# --------------------------------------------------------------------------- --set values


def parse_set_fields(pairs: list[str] | dict[str, Any] | None, file: str = "--set") -> dict[str, Any]:
    """``["hardware=h200", "gpus=4"]`` -> ``{"hardware": "H200", "gpus": 4}``, typed by the schema."""
    items = pairs.items() if isinstance(pairs, dict) else [p.split("=", 1) if "=" in p else (p, None) for p in pairs or []]
    out: dict[str, Any] = {}
    for key, value in items:
        if value is None:
            raise IngestError(file, f"expected key=value, got {key!r}")
        resolved = resolve_column(key)
        if not isinstance(resolved, tuple):
            raise IngestError(file, f"unknown field {key!r}; known fields: {', '.join(POINT_FIELDS)}", field=key)
        name, scale = resolved
        if name in ("source_line", "extra"):
            raise IngestError(file, f"{name} is set by the importer", field=key)
        try:
            typed = ADAPTERS[name].validate_strings(str(value)) if not isinstance(value, (int, float, bool)) \
                else ADAPTERS[name].validate_python(value)
        except ValidationError as exc:
            raise IngestError(file, f"invalid value {value!r}: {exc.errors()[0]['msg']}", field=name) from None
        if isinstance(typed, float) and scale != 1:
            typed *= scale
        if name in CANONICALISERS and typed is not None:
            canonical = CANONICALISERS[name](typed)
            if name == "hardware" and unusable_hardware(canonical):
                raise IngestError(file, hardware_refusal(typed), field=name)
            typed = canonical
        check_constraints_scalar(file, name, typed)
        out[name] = typed
    return out


# --------------------------------------------------------------------------- the columnar pipeline


def _ingest_points_csv(con, raw_table: str, name: str, sha: str, headers: list[str],
                       set_fields: dict[str, Any]) -> IngestResult:
    raw_ids = [f"c{i}" for i in range(len(headers))]
    # line = rowid - first + 2 (rowids need not start at 0)
    first = int(con.execute(f"SELECT min(rowid) FROM {raw_table}").fetchone()[0])
    return run_pipeline(con, name, "csv", sha, raw_table, dict(zip(raw_ids, headers)), set_fields,
                        f"(r.rowid - {first} + 2)")


# --------------------------------------------------------------------------- entry points

@contextmanager
def _clear_errors(name: str) -> Iterator[None]:
    """Turn anything unexpected inside an ingest into an :class:`IngestError` naming the file.

    The transaction has been rolled back by then, so the message can promise that nothing
    was stored. ``KeyboardInterrupt`` and ``SystemExit`` pass through untouched, and so does Ctrl-C
    inside a query (DuckDB raises ``InterruptException`` or ``RuntimeError("Query interrupted")`` for
    it): it becomes ``KeyboardInterrupt`` again, never a "please report this file".
    """
    try:
        yield
    except IngestError:
        raise
    except Exception as exc:
        if was_ctrl_c(exc):
            raise KeyboardInterrupt from None
        raise _file_error(name, exc) from exc


def was_ctrl_c(exc: BaseException | None) -> bool:
    """Whether ``exc`` is Ctrl-C: pressed during this command (:mod:`model.data.interrupts`), or, in whatever
    runs without the CLI's handler, Ctrl-C inside a query in one of the shapes DuckDB gives it
    (``InterruptException``, ``RuntimeError("Query interrupted")``, a ``KeyboardInterrupt`` it wrapped while
    reading a registered table), or an error raised while handling one (cleaning up after an interrupted query
    fails with "transaction is aborted"), which must not hide the press and make a bad file of a good one."""
    if pressed():
        return True
    seen = 0
    while exc is not None and seen < 20:
        if isinstance(exc, (KeyboardInterrupt, duckdb.InterruptException)) \
                or (isinstance(exc, RuntimeError) and str(exc) == "Query interrupted") \
                or (isinstance(exc, duckdb.Error) and "failed: KeyboardInterrupt" in str(exc)):
            return True
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return False


@contextmanager
def ctrl_c_kept() -> Iterator[None]:
    """Ctrl-C inside a query comes out as ``KeyboardInterrupt`` (:func:`was_ctrl_c`); other errors untouched."""
    try:
        yield
    except Exception as exc:
        if was_ctrl_c(exc):
            raise KeyboardInterrupt from None
        raise


def _file_error(name: str, exc: Exception) -> Exception:
    """What :func:`_clear_errors` says of an unexpected error while ingesting the file ``name``: an
    :class:`IngestError` naming it, or the full-disk error that stops the whole write (every file after it
    would fail the same way)."""
    if isinstance(exc, RecursionError):
        return IngestError(name, "nested too deeply to read; nothing was stored")
    if isinstance(exc, MemoryError):
        return IngestError(name, "too large to read into memory; split it into smaller files; nothing was stored")
    if isinstance(exc, (duckdb.Error, OSError)) and disk_full(exc):
        return no_space(name)
    if isinstance(exc, duckdb.Error):
        return IngestError(name, f"the database could not store it ({duck_msg(exc)}); nothing was stored")
    if isinstance(exc, OSError):
        return IngestError(name, f"cannot read the file ({exc.strerror or exc}); nothing was stored")
    return _unexpected(name, exc)


def _unexpected(name: str, exc: BaseException) -> IngestError:
    return IngestError(name, f"unexpected problem ({type(exc).__name__}: {str(exc)[:200]}); nothing was "
                       "stored; please report this file")


def _rollback(con: duckdb.DuckDBPyConnection) -> None:
    try:
        con.execute("ROLLBACK")
    except duckdb.Error:
        pass  # no transaction left to undo (the failure ended it)


@contextmanager
def ingest_transaction(con: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """The commit point of every ingest: one file (:func:`ingest_file`, :func:`ingest_frame`) or one run of
    validated files of the bulk path (:func:`model.data.bulk.ingest_many`). BEGIN; the block; COMMIT, or
    ROLLBACK when it raised (anything, Ctrl-C too), so a file is stored whole or not at all. The transaction is
    one data version (:func:`model.data.versions.stamp`: it numbers every source the block added)."""
    con.execute("BEGIN")
    try:
        yield
        stamp(con)
        con.execute("COMMIT")
    except BaseException:
        _rollback(con)
        raise


#: :func:`_clear_errors` for the bulk path (:mod:`model.data.bulk`)
clear_errors = _clear_errors


def ingest_frame(con: duckdb.DuckDBPyConnection, frame: pd.DataFrame, name: str, fmt: str, sha: str,
                 set_fields: dict[str, Any] | None = None, notes: str | None = None) -> IngestResult:
    """Ingest rows an importer already parsed (columns named by field or alias; ``source_line`` optional).

    Same validation and atomicity as CSV files. Used by the JSON importers and the UI.
    """
    with _clear_errors(name):
        return _ingest_frame(con, frame, name, fmt, sha, set_fields, notes)


def _ingest_frame(con: duckdb.DuckDBPyConnection, frame: pd.DataFrame, name: str, fmt: str, sha: str,
                  set_fields: dict[str, Any] | None = None, notes: str | None = None) -> IngestResult:
    set_fields = dict(set_fields or {})
    existing = con.execute("SELECT source_id FROM sources WHERE sha256 = ?", [sha]).fetchone()
    if existing:
        return IngestResult(name, fmt, "points", 0, int(existing[0]))
    if frame.empty:
        raise IngestError(name, "no benchmark rows found")
    samples = frame.attrs.get(REQUESTS_KEY)   # per-request data of some rows (model.data.requests)
    intervals = frame.attrs.get(INTERVALS_KEY)   # run-to-run intervals of some rows (model.data.intervals)
    derived = tuple(frame.attrs.get(DERIVED_KEY, ()))   # fields the importer derived: --set replaces them
    frame = frame.reset_index(drop=True)
    lines = frame.pop("source_line") if "source_line" in frame.columns else pd.Series(range(1, len(frame) + 1))
    raw_ids = [f"c{i}" for i in range(len(frame.columns))]
    headers = dict(zip(raw_ids, [str(c) for c in frame.columns]))
    staged_input = frame.copy()
    staged_input.columns = raw_ids
    staged_input["line_no"] = lines.astype("int64").to_numpy()
    view = f"frame_{abs(hash(sha)) % 10**9}"
    raw_table = view + "_t"
    with registered(con, view, staged_input), ingest_transaction(con):
        con.execute(f"CREATE TEMP TABLE {raw_table} AS SELECT * FROM {view}")
        result = run_pipeline(con, name, fmt, sha, raw_table, headers, set_fields, "r.line_no", notes,
                              derived=derived)
        if samples:
            store_samples(con, result.source_id, samples)
        if intervals:
            store_intervals(con, result.source_id, intervals)
        con.execute(f"DROP TABLE IF EXISTS {raw_table}")
    return result


def ingest_file(con: duckdb.DuckDBPyConnection, path: str | Path, set_fields: dict[str, Any] | list[str] | None = None,
                display_name: str | None = None, fmt: str | None = None) -> IngestResult:
    """Ingest one file in one transaction: all of it or none of it.

    Re-ingesting content that is already stored adds nothing and says so
    (``IngestResult.duplicate_of``). Raises :class:`IngestError` naming the
    file, line and field of the first problems; the store is then unchanged.
    Every failure is an :class:`IngestError` (never another exception), and a
    file over :func:`model.data.uploads.max_file_mb` is refused before it is read.
    """

    path = Path(path)
    name = display_name or utf8_name(path)
    with _clear_errors(name), utf8_path(path) as path:
        return _ingest_file(con, path, name, set_fields, fmt)


def _ingest_file(con: duckdb.DuckDBPyConnection, path: Path, name: str,
                 set_fields: dict[str, Any] | list[str] | None, fmt: str | None) -> IngestResult:
    if not path.is_file():
        raise IngestError(name, "no such file")
    read_from = os.stat(path)       # the version of the file this ingest reads (unchanged_since checks it)
    check_size(read_from.st_size, name)
    set_fields = parse_set_fields(set_fields, name) if not isinstance(set_fields, dict) else dict(set_fields)
    facts = file_facts(path)  # one read: the hash, the line ends and the record count
    existing = con.execute("SELECT source_id FROM sources WHERE sha256 = ?", [facts.sha256]).fetchone()
    if existing:
        return IngestResult(name, fmt or "?", "?", 0, int(existing[0]))
    # CRLF, LF, CR-only and mixed line ends read alike
    with plain_line_ends(path, facts.line_ends) as readable:
        records = facts.records if readable == path else quick_records(readable)  # a copy: count its lines
        try:
            return _ingest_content(con, readable, name, facts.sha256, set_fields, fmt, records,
                                   lambda: unchanged_since(path, read_from, name))
        except IngestError:     # refused: because it changed meanwhile (said as that), or for what it holds
            unchanged_since(path, read_from, name)
            raise


def unchanged_since(path: Path, before: os.stat_result, name: str) -> None:
    """Raise :class:`IngestError` when ``path`` is not the file it was when ``before`` was taken (its size,
    modification time, inode or device differ, or it is gone): a file still being written, or replaced, while it
    was read. Called last inside the ingest's transaction, so a refusal stores nothing of it."""
    try:
        after = os.stat(path)
    except OSError:
        raise IngestError(name, "changed while it was read (it is gone now); nothing stored") from None
    if (after.st_size, after.st_mtime_ns, after.st_ino, after.st_dev) != \
            (before.st_size, before.st_mtime_ns, before.st_ino, before.st_dev):
        grew = f" (from {before.st_size:,} to {after.st_size:,} bytes)" if after.st_size != before.st_size else ""
        raise IngestError(name, f"changed while it was read{grew}; nothing stored. A file still being written "
                          "is read as it is at one moment or not at all: ingest it again once it is complete")


def _ingest_actuals(con: duckdb.DuckDBPyConnection, path: Path, name: str, sha: str, set_fields: dict[str, Any],
                    fmt: str) -> IngestResult:
    """An actuals file (:mod:`model.data.actuals`), in one transaction of its own."""
    if set_fields:
        raise IngestError(name, "--set fills benchmark rows; this file holds actuals (cost and tokens served), "
                          "which take no --set")
    with ingest_transaction(con):
        return actuals.ingest_actuals(con, path, name, sha, fmt)


def _ingest_content(con: duckdb.DuckDBPyConnection, path: Path, name: str, sha: str,
                    set_fields: dict[str, Any], fmt: str | None, records: int | None,
                    unchanged: Callable[[], None]) -> IngestResult:
    if fmt:
        detected, header = fmt, None
    elif (kind := actuals.actuals_format(path)) in ("opencost", "opencost-saturation"):   # actuals, not benchmark rows
        return _ingest_actuals(con, path, name, sha, set_fields, kind)
    else:
        detected, header = importers.detect_with_header(path, name)
    if detected != "csv":
        frame, real_fmt, notes = importers.parse(path, name, detected)
        unchanged()     # what was parsed is one version of the file (the frame is read whole by now)
        return _ingest_frame(con, frame, name, real_fmt, sha, set_fields, notes)

    check_upload_shape(path, name)
    headers, delim = header or importers.canonical_csv.read_header(path, name)
    keys = {normalise_header(h) for h in headers}
    if len(headers) < 2:
        raise IngestError(name, f"only one column found ({headers[0][:40]!r}); expected a comma-, semicolon- or "
                          "tab-separated header such as hardware,tp,conc,tput_per_gpu,tok_s_user", line=1)
    if records is None:
        records = scan_csv(path, name, delim)
    kind = csv_kind(keys)
    if kind == "actuals":
        return _ingest_actuals(con, path, name, sha, set_fields, "bill-csv")
    raw_table = stage_csv(con, path, name, sha, headers, delim, records) if kind == "points" else None
    try:
        with ingest_transaction(con):
            if kind == "tco_rates":
                result = ingest_rates_csv(con, path, name, sha, delim)
            elif kind == "evals":
                result = ingest_evals_csv(con, path, name, sha, delim)
            elif kind == "published_iso":
                result = ingest_published_csv(con, path, name, sha, delim)
            elif kind == "api_prices":
                result = api_prices.ingest_csv(con, path, name, sha, delim)
            else:
                result = _ingest_points_csv(con, raw_table, name, sha, headers, set_fields)
            unchanged()     # last, inside the transaction: a file that changed while it was read stores nothing
    finally:
        if raw_table:
            con.execute(f"DROP TABLE IF EXISTS {raw_table}")
    return result


def ingest_actuals_file(con: duckdb.DuckDBPyConnection, path: str | Path, display_name: str | None = None,
                        plan_models: tuple[str, ...] | None = None,
                        aliases: dict[str, str] | None = None) -> IngestResult:
    """Ingest one actuals file in one transaction (one data version): all of it or none of it. A file already
    stored adds nothing and says so; a file that holds no actuals is refused saying what it is not. With
    ``plan_models``, a row of a model the plan does not hold (by whole name or ``aliases``) is refused."""
    path = Path(path)
    name = display_name or utf8_name(path)
    with _clear_errors(name):
        if not path.is_file():
            raise IngestError(name, "no such file")
        check_size(path.stat().st_size, name)
        fmt = actuals.actuals_format(path)
        if fmt is None and read_head(path, 4096).lstrip(" \t\r\n")[:1] in ("{", "["):
            fmt = "opencost"      # asked for actuals: the OpenCost reader says what this JSON is not
        if fmt is None:
            raise IngestError(name, "not actuals: expected an OpenCost /inferenceCost/total or /timeseries response "
                              "(JSON) or a bill (CSV with date or period, model, usd, input_tokens, output_tokens); "
                              "benchmark files go in with costfrontier ingest")
        sha = sha256_of(path)
        existing = con.execute("SELECT source_id FROM sources WHERE sha256 = ?", [sha]).fetchone()
        if existing:
            return IngestResult(name, fmt, actuals.KIND, 0, int(existing[0]))
        with ingest_transaction(con):
            return actuals.ingest_actuals(con, path, name, sha, fmt, plan_models, aliases)
