"""A request trace file read into what sizing and the request mix read: its load over time
(:class:`model.core.trace.Trace`, :func:`read_trace_file`) and its requests counted by length
(:func:`length_counts`, :func:`trace_and_mix`). The accepted columns are :mod:`model.core.trace`'s.

Reading streams (:func:`read_trace_file`): DuckDB's CSV reader runs over the file twice (three times for dates
and times), converting only the three columns, aggregating as it goes (the token sums, the first and last time;
then the requests per minute), so a trace of millions of requests never sits in memory as rows
(bench/bench_trace.py: peak memory against the file's size). Only a trace with a bad value is read again, in
chunks, to name the first bad row.
"""

from __future__ import annotations

import contextlib
import csv
import os
import shutil
import tempfile
from pathlib import Path
from typing import BinaryIO, Iterator

import duckdb
import numpy as np
import pandas as pd

from model.core.chargeback import TENANT_COLUMNS, tenants_of_counts, tenants_text
from model.core.request_mix import DEFAULT_ISL_EDGES, DEFAULT_OSL_EDGES, RequestMix, edges_of, mix_of_counts
from model.core.trace import BIN_S, COLUMNS, MAX_BINS, MAX_TOKENS_PER_REQUEST, Trace, TraceError, is_reference
from model.core.view_checks import check_tenants

__all__ = ["read_trace", "read_trace_file", "length_counts", "trace_and_mix", "mix_of_trace", "read_trace_option",
           "read_shape_option", "read_tenants_option", "tokens_by", "private_copy"]

#: rows of one chunk when a bad trace is read again to name its first bad row (every column is read then)
_CHUNK_ROWS = 100_000


def _where(name: str, line: int, field: str) -> str:
    return f"{name}, row {line}, field {field}"


def read_trace(data: bytes | str, name: str) -> Trace:
    """The :class:`Trace` of a CSV file's bytes or text (``name``: the file's name, for messages): written to a
    private temporary file and read by :func:`read_trace_file`. Raises :class:`TraceError` naming file, row and
    field."""
    with tempfile.TemporaryDirectory(prefix="costfrontier-trace-") as folder:
        path = Path(folder) / "trace.csv"
        path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
        return read_trace_file(path, name)


def _header(path: Path, label: str) -> list[str]:
    with open(path, encoding="utf-8-sig", errors="replace", newline="") as handle:
        try:
            return next(csv.reader(handle))
        except StopIteration:
            raise TraceError(f"{label}: not a CSV file (it is empty)") from None
        except csv.Error as exc:
            raise TraceError(f"{label}: not a CSV file ({str(exc)[:120]})") from None


#: the values of one row, as both readers compute them (``{t}``, ``{i}``, ``{o}``: the three columns). DuckDB's casts
#: allow spaces around a value; ``nullif`` keeps the optimizer from turning a TRY_CAST of a column into the CSV
#: reader's own (strict) conversion, which DuckDB 2.0 did for a bare column
_SECONDS, _NS = "TRY_CAST(nullif({t}, '') AS DOUBLE) AS sec", "epoch_ns(TRY_CAST(nullif({t}, '') AS TIMESTAMPTZ)) AS ns"
_TOKENS = "TRY_CAST(nullif({i}, '') AS DOUBLE) AS i, TRY_CAST(nullif({o}, '') AS DOUBLE) AS o"
_VALUES = f"{_SECONDS}, {_NS}, {_TOKENS}"
#: a row with none of the three is a blank line, not a request
_ANY = "({t} IS NOT NULL OR {i} IS NOT NULL OR {o} IS NOT NULL)"


def _duck():
    con = duckdb.connect(":memory:", config={"autoinstall_known_extensions": False, "preserve_insertion_order": False})
    con.execute("SET enable_progress_bar = false")   # it would land in the CLI's --json output
    con.execute("SET TimeZone = 'UTC'")        # a time without an offset is UTC; one with an offset is converted
    return con


def _reading(path: Path, name: str) -> tuple[str, list[str], dict[str, int], str]:
    """(the file's label, its header, the index of each of the three columns, ``FROM ... WHERE ...``: the SQL
    reading its rows, the file's path its one parameter) of a trace file."""
    label = name.replace(";", ",")[:120] or "trace"
    header = _header(path, label)
    lower: dict[str, int] = {}
    for k, column in enumerate(header):
        lower.setdefault(column.strip().lower(), k)
    found = {}
    for field, names in COLUMNS.items():
        index = next((lower[n] for n in names if n in lower), None)
        if index is None:
            raise TraceError(f"{label}: no column {field} (accepted: timestamp,input_tokens,output_tokens or the "
                             "Azure trace's TIMESTAMP,ContextTokens,GeneratedTokens)")
        found[field] = index
    t, i, o = (f"c{found[k]}" for k in ("timestamp", "input_tokens", "output_tokens"))  # by position: nothing of
    # the file goes into SQL; one column more than the header: a row with a field too many fills it, and is refused
    types = ", ".join(f"'c{k}': 'VARCHAR'" for k in range(len(header) + 1))
    source = ("read_csv(?, auto_detect = false, strict_mode = false, header = false, skip = 1, delim = ',', "
              f"quote = '\"', escape = '\"', null_padding = true, columns = {{{types}}})")
    return label, header, found, f"FROM {source} WHERE {_ANY.format(t=t, i=i, o=o)}"


def length_counts(path: str | os.PathLike, name: str, isl_edges: tuple[int, ...],
                  osl_edges: tuple[int, ...]) -> list[tuple[int, int, int, float, float]]:
    """A trace file's requests counted by input and output length, streamed (one pass of DuckDB's CSV reader over
    the two token columns): per range ``(a, b)`` holding any request, ``(a, b, requests, mean input tokens, mean
    output tokens)``, ``a`` the number of ``isl_edges`` at or below a request's input tokens [tokens] (``b``
    likewise of ``osl_edges``). The file is read as :func:`read_trace_file` has checked it (whose errors name the
    row): call that first."""
    path = Path(path)
    label, _, found, where = _reading(path, name)
    i, o = (f"c{found[k]}" for k in ("input_tokens", "output_tokens"))
    a = " + ".join(["0", *(f"CAST(i >= {int(e)} AS INTEGER)" for e in isl_edges)])
    b = " + ".join(["0", *(f"CAST(o >= {int(e)} AS INTEGER)" for e in osl_edges)])
    con = _duck()
    try:
        rows = con.execute(f"SELECT {a} AS a, {b} AS b, count(*), avg(i), avg(o) FROM (SELECT "
                           f"{_TOKENS.format(i=i, o=o)} {where}) GROUP BY a, b ORDER BY a, b", [str(path)]).fetchall()
    except duckdb.Error:             # never its words: they name the file's path
        raise TraceError(f"{label}: not a CSV file this product can read") from None
    finally:
        con.close()
    return [(int(x), int(y), int(n), float(mi), float(mo)) for x, y, n, mi, mo in rows]


def read_trace_file(path: str | os.PathLike, name: str) -> Trace:
    """The :class:`Trace` of the CSV file at ``path`` (``name``: the file's name, for messages), streamed: two or
    three passes of DuckDB's CSV reader over the three columns, aggregating as they go (the module's docstring). Raises
    :class:`TraceError` naming file, row and field (a third, chunked read finds the first bad row)."""
    path = Path(path)
    label, header, found, where = _reading(path, name)
    t, i, o = (f"c{found[k]}" for k in ("timestamp", "input_tokens", "output_tokens"))
    extra = f"c{len(header)}"
    rows = f"SELECT {_SECONDS.format(t=t)}, {_TOKENS.format(i=i, o=o)}, {extra} IS NOT NULL AS extra {where}"
    con = _duck()
    try:
        try:
            n, numeric, finite, sec_lo, sec_hi, long, bad_in, bad_out, sum_in, sum_out = con.execute(
                "SELECT count(*), count(sec), count(sec) FILTER (WHERE isfinite(sec)), min(sec) FILTER (WHERE "
                "isfinite(sec)), max(sec) FILTER (WHERE isfinite(sec)), count_if(extra), "
                "count(*) FILTER (WHERE NOT coalesce(i BETWEEN 0 AND ?, false)), "
                "count(*) FILTER (WHERE NOT coalesce(o BETWEEN 0 AND ?, false)), sum(i), sum(o) "
                f"FROM ({rows})", [MAX_TOKENS_PER_REQUEST, MAX_TOKENS_PER_REQUEST, str(path)]).fetchone()
            in_seconds = numeric > 0  # a time column of numbers is seconds; of no number at all, dates and times
            dated, ns_lo, ns_hi = (0, None, None) if in_seconds or not n else con.execute(
                f"SELECT count(ns), min(ns), max(ns) FROM (SELECT {_NS.format(t=t)} {where})", [str(path)]).fetchone()
        except duckdb.Error:          # never its words: they name the file's path
            raise _first_problem(con, path, label, header, found, None) from None
        if not n:
            raise TraceError(f"{label}: no requests")
        if long or bad_in or bad_out or (finite if in_seconds else dated) < n:
            raise _first_problem(con, path, label, header, found, in_seconds)
        span = (sec_hi - sec_lo) / BIN_S if in_seconds else (ns_hi - ns_lo) // (BIN_S * 10**9)
        if span >= MAX_BINS:
            raise TraceError(f"{label}: the trace spans more than {MAX_BINS // 1440} days; give a shorter one")
        minute = (f"CAST(floor((sec - {float(sec_lo)!r}) / {BIN_S}) AS BIGINT)" if in_seconds
                  else f"(ns - {int(ns_lo)}) // {BIN_S * 10**9}")
        value = _SECONDS.format(t=t) if in_seconds else _NS.format(t=t)
        per_minute = con.execute(f"SELECT {minute} AS b, count(*) FROM (SELECT {value} {where}) GROUP BY b",
                                 [str(path)]).fetchall()
    finally:
        con.close()
    counts = np.zeros(max(b for b, _ in per_minute) + 1, dtype=np.int64)
    for b, c in per_minute:
        counts[b] = c
    return Trace(label, tuple(int(c) for c in counts), float(sum_in), float(sum_out))


def _first_problem(con, path: Path, label: str, header: list[str], found: dict[str, int],
                   in_seconds: bool | None) -> TraceError:
    """The error naming the first bad row of a trace the streaming pass found bad (or could not read): the file
    read again in chunks of :data:`_CHUNK_ROWS` rows, each checked by the same SQL; a row that is not CSV is named
    by pandas' parser."""
    t, i, o = (f"c{found[field]}" for field in ("timestamp", "input_tokens", "output_tokens"))
    line = 2
    try:      # every column (not usecols): the parser then refuses a row with more fields than the header
        with pd.read_csv(path, dtype=str, chunksize=_CHUNK_ROWS, encoding="utf-8-sig", encoding_errors="replace",
                         keep_default_na=False, na_values=[""]) as chunks:
            for chunk in chunks:
                chunk.columns = [f"c{k}" for k in range(len(chunk.columns))]
                chunk["line"] = np.arange(len(chunk)) + line
                line += len(chunk)
                hit = _first_bad_row(con, chunk, t, i, o, in_seconds)
                if hit is not None:
                    return _problem(label, header, found, hit)
    except pd.errors.ParserError as exc:
        return TraceError(f"{label}: not a CSV file ({str(exc).splitlines()[0][:120]})")
    return TraceError(f"{label}: not a CSV file this product can read (every row needs as many fields as the "
                      "header, in UTF-8 text)")


def _first_bad_row(con, chunk, t: str, i: str, o: str, in_seconds: bool | None) -> tuple | None:
    """(line, what, input, output, time) of the first bad row of ``chunk`` (registered as ``chunk``), by the
    streaming pass's own expressions; ``what``: ``i``/``o`` not a token count, ``I``/``O`` past the bound, ``t``
    not a time."""
    seconds = in_seconds if in_seconds is not None else bool(
        con.execute(f"SELECT count(TRY_CAST(trim({t}) AS DOUBLE)) FROM chunk").fetchone()[0])
    time_bad = "NOT coalesce(isfinite(sec), false)" if seconds else "ns IS NULL"
    return con.execute(
        f"SELECT line, CASE WHEN NOT coalesce(isfinite(i) AND i >= 0, false) THEN 'i' WHEN i > ? THEN 'I' "
        "WHEN NOT coalesce(isfinite(o) AND o >= 0, false) THEN 'o' WHEN o > ? THEN 'O' ELSE 't' END, "
        f"{i}, {o}, {t} FROM (SELECT line, {t}, {i}, {o}, {_VALUES.format(t=t, i=i, o=o)} FROM chunk "
        f"WHERE {_ANY.format(t=t, i=i, o=o)}) "
        f"WHERE NOT coalesce(i BETWEEN 0 AND ?, false) OR NOT coalesce(o BETWEEN 0 AND ?, false) OR {time_bad} "
        "ORDER BY line LIMIT 1", [MAX_TOKENS_PER_REQUEST] * 4).fetchone()


def _problem(label: str, header: list[str], found: dict[str, int], hit: tuple) -> TraceError:
    line, what, raw_in, raw_out, raw_time = hit
    field, raw = {"i": ("input_tokens", raw_in), "I": ("input_tokens", raw_in), "o": ("output_tokens", raw_out),
                  "O": ("output_tokens", raw_out), "t": ("timestamp", raw_time)}[what]
    where = _where(label, int(line), header[found[field]].strip())
    shown = repr(str(raw)[:40]) if raw is not None else "an empty value"
    if what in "IO":
        return TraceError(f"{where}: {shown} tokens is more than a request holds (at most "
                          f"{MAX_TOKENS_PER_REQUEST:,} tokens a request, input or output)")
    if what in "io":
        return TraceError(f"{where}: {shown} is not a token count (a number of 0 or more)")
    return TraceError(f"{where}: {shown} is not a time (seconds, or a date and time such as 2023-11-16 18:15:46.68)")


def trace_and_mix(path, name: str, isl_edges=DEFAULT_ISL_EDGES,
                  osl_edges=DEFAULT_OSL_EDGES) -> tuple[Trace, RequestMix]:
    """A trace file's load over time (:func:`read_trace_file`, which checks every row) and its
    request mix bucketed as :func:`model.core.request_mix.mix_of_requests` buckets (:func:`length_counts`), both streamed:
    a trace of millions of requests never sits in memory as rows. Raises
    :class:`model.core.trace.TraceError` naming the file, row and field, :class:`MixError` for bad edges."""
    isl_edges, osl_edges = edges_of(isl_edges, "ISL"), edges_of(osl_edges, "OSL")
    trace = read_trace_file(path, name)
    return trace, mix_of_counts(length_counts(path, name, isl_edges, osl_edges), trace.name, isl_edges, osl_edges)


def mix_of_trace(data: bytes | str, name: str, isl_edges=DEFAULT_ISL_EDGES, osl_edges=DEFAULT_OSL_EDGES) -> RequestMix:
    """The request mix of a trace file's bytes or text (the formats :func:`read_trace` reads),
    through a private temporary file (:func:`trace_and_mix`); raises :class:`model.core.trace.TraceError` naming the
    file, row and field."""
    with tempfile.TemporaryDirectory(prefix="costfrontier-trace-") as folder:
        path = Path(folder) / "trace.csv"
        path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
        return trace_and_mix(path, name, isl_edges, osl_edges)[1]


def read_trace_option(value: str) -> str:
    """``--trace FILE``: the file read into the view's compact trace (a ValueError names file, row and field)."""
    try:
        path = Path(value)
        is_file = path.is_file()
    except (OSError, ValueError):     # an inline trace is far longer than a file name may be
        is_file = False
    if (value.startswith("t1;") or is_reference(value)) and not is_file:     # a trace as a link writes it
        return value
    if not is_file:
        raise ValueError(f"no trace file {value[:80]!r}")
    return read_trace_file(path, path.name).to_text()


def read_shape_option(value: str) -> str:
    """``--shape``: a preset or weights as typed, or a file of 24 weights (one a line, or comma-separated)."""
    if value.strip() in ("flat", "business-hours", "diurnal") or not Path(value).is_file():
        return value
    text = Path(value).read_text(encoding="utf-8", errors="replace")
    return ",".join(p for p in text.replace("\n", ",").replace(";", ",").split(",") if p.strip())


def tokens_by(path: str | os.PathLike, name: str, column: str | None = None) -> tuple[str, list[tuple[str, float,
                                                                                                         float]]]:
    """A trace file's input and output tokens summed per value of a column naming who sent each request (issue 52:
    the bill by tenant), streamed: ``(the column, [(value, input tokens, output tokens), ...])``. ``column`` None:
    the first of ``tenant``, ``user``, ``workload``, ``namespace`` the header holds (matched without regard to
    case). The file is checked as :func:`read_trace_file` checks it first (its errors name the row); a request
    with no value in the column counts as ``(none)``. Raises :class:`TraceError`."""
    path = Path(path)
    read_trace_file(path, name)
    label, header, found, where = _reading(path, name)
    lower = [h.strip().lower() for h in header]
    wanted = (column.strip().lower(),) if column else TENANT_COLUMNS
    index = next((lower.index(w) for w in wanted if w in lower), None)
    if index is None:
        raise TraceError(f"{label}: no column {' or '.join(wanted)} to split the cost by (the header has "
                         f"{', '.join(h.strip() for h in header)[:200]})")
    i, o = (f"c{found[k]}" for k in ("input_tokens", "output_tokens"))
    con = _duck()
    try:
        rows = con.execute(f"SELECT coalesce(nullif(trim(c{index}), ''), '(none)') AS who, sum(i), sum(o) FROM "
                           f"(SELECT c{index}, {_TOKENS.format(i=i, o=o)} {where}) GROUP BY who ORDER BY who",
                           [str(path)]).fetchall()
    except duckdb.Error:             # never its words: they name the file's path
        raise TraceError(f"{label}: not a CSV file this product can read") from None
    finally:
        con.close()
    return header[index].strip(), [(str(w), float(a), float(b)) for w, a, b in rows]


def read_tenants_option(value: str) -> str:
    """``--tenants``: a typed table, or a trace FILE (``FILE@COLUMN``: that column) summed per tenant
    (:func:`tokens_by`) into one; a ValueError names file, row and field."""
    path, _, column = value.rpartition("@") if "@" in value else (value, "", "")
    try:
        is_file = Path(path).is_file()
    except (OSError, ValueError):
        is_file = False
    if not is_file:
        return check_tenants(value)
    _, counts = tokens_by(Path(path), Path(path).name, column or None)
    return tenants_text(tenants_of_counts(counts))


@contextlib.contextmanager
def private_copy(upload: BinaryIO) -> Iterator[Path]:
    """A private temporary copy of an uploaded file (copied a block at a time, from its start), removed on leaving:
    a trace upload is read streaming from it (:func:`read_trace_file`, :func:`trace_and_mix`)."""
    with tempfile.TemporaryDirectory(prefix="costfrontier-trace-") as folder:
        copy = Path(folder) / "trace.csv"
        upload.seek(0)
        with open(copy, "wb") as out:
            shutil.copyfileobj(upload, out, 1 << 20)
        yield copy
