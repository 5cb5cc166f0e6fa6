"""A request trace: when each request arrived and its input and output tokens, read into the load of each
window (λ(t) [req/s]) and the requests' mean ISL and OSL.

Accepted columns (a header row, names matched without regard to case):

- ``timestamp,input_tokens,output_tokens``: the time of each request in seconds (any origin) or as a date and
  time (``2024-05-10 00:00:01.5``);
- the Azure LLM inference trace (Azure/AzurePublicDataset): ``TIMESTAMP,ContextTokens,GeneratedTokens``, the
  timestamp a date and time with up to 7 decimals of a second (``2023-11-16 18:15:46.6805900``).

A value that cannot be read is refused with the file, row (the line in the file) and field, and so is a token
count past :data:`MAX_TOKENS_PER_REQUEST`. The trace is kept compact: requests per minute from the first
request's time (:attr:`Trace.counts`), and the token totals; a window of whole minutes (default 5) groups them:
``λ(window) = requests in it / window seconds``, the trace spanning ``windows × window`` seconds from its first
request.

Reading streams (:func:`read_trace_file`): DuckDB's CSV reader runs over the file twice (three times for dates
and times), converting only the three columns, aggregating as it goes (the token sums, the first and last time;
then the requests per minute), so a trace of millions of requests never sits in memory as rows
(bench/bench_trace.py: peak memory against the file's size). Only a trace with a bad value is read again, in
chunks, to name the first bad row.

A view carries a trace one of two ways (the view field ``trace``): inline, as :meth:`Trace.to_text` writes it
(``t1;...``, up to about 130,000 characters for 31 days), or as a reference to a trace stored in the store
(:attr:`Trace.reference`, ``s1;`` and 16 hex characters; :mod:`model.data.traces`).
"""

from __future__ import annotations

import csv
import hashlib
import math
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from model.core.shape import Curve

__all__ = ["Trace", "TraceError", "Requests", "read_trace", "read_trace_file", "length_counts", "tokens_by",
           "is_reference", "BIN_S",
           "MAX_BINS", "MAX_TOKENS_PER_REQUEST", "REFERENCE_PREFIX"]

#: seconds of one stored bin: windows are whole multiples of it
BIN_S = 60
#: the longest trace read [bins of a minute]: 31 days
MAX_BINS = 31 * 24 * 60
#: the most tokens one request may state, input or output [tokens]: ten times the longest context a model is
#: served with today (about 1 M); past it a value is a unit or column slip (1e308 overflowed the sums)
MAX_TOKENS_PER_REQUEST = 10_000_000
#: how a view names a stored trace: this prefix and :data:`_REFERENCE_CHARS` hex characters of its digest
REFERENCE_PREFIX = "s1;"
_REFERENCE_CHARS = 16
#: rows of one chunk when a bad trace is read again to name its first bad row (every column is read then)
_CHUNK_ROWS = 100_000
_COLUMNS = {"timestamp": ("timestamp",), "input_tokens": ("input_tokens", "contexttokens"),
            "output_tokens": ("output_tokens", "generatedtokens")}


class TraceError(ValueError):
    """A trace that cannot be read: the message names the file, row and field."""


@dataclass(frozen=True)
class Trace:
    """Requests per minute from the first request, and the trace's token totals."""

    name: str
    counts: tuple[int, ...]
    input_tokens: float
    output_tokens: float

    @property
    def requests(self) -> int:
        return int(sum(self.counts))

    @property
    def mean_isl(self) -> float:
        return self.input_tokens / self.requests if self.requests else math.nan

    @property
    def mean_osl(self) -> float:
        return self.output_tokens / self.requests if self.requests else math.nan

    def windows(self, minutes: int) -> np.ndarray:
        """Requests in each window of ``minutes`` (the last one may hold fewer minutes of the trace)."""
        counts = np.asarray(self.counts, dtype=float)
        n = -(-len(counts) // minutes)
        padded = np.zeros(n * minutes)
        padded[:len(counts)] = counts
        return padded.reshape(n, minutes).sum(axis=1)

    def rates(self, minutes: int) -> np.ndarray:
        """λ of each window [req/s]."""
        return self.windows(minutes) / (minutes * BIN_S)

    def mean_rps(self, minutes: int) -> float:
        return float(self.rates(minutes).mean())

    def curve(self, minutes: int) -> Curve:
        rates = self.rates(minutes)
        mean = rates.mean()
        return Curve(tuple(float(r / mean) for r in rates), float(minutes * BIN_S), f"trace {self.name}")

    def words(self) -> str:
        hours = len(self.counts) * BIN_S / 3600
        return (f"trace {self.name}: {self.requests:,} requests over {hours:.3g} hours, mean ISL {self.mean_isl:,.0f} / "
                f"OSL {self.mean_osl:,.0f}")

    @property
    def reference(self) -> str:
        """How a view names this trace once it is stored (:mod:`model.data.traces`): ``s1;`` and 16 hex
        characters of the SHA-256 of :meth:`to_text` (its name, token totals and requests per minute)."""
        return REFERENCE_PREFIX + hashlib.sha256(self.to_text().encode()).hexdigest()[:_REFERENCE_CHARS]

    # ------------------------------------------------------------------ compact text (the view holds it)
    def to_text(self) -> str:
        return "t1;" + ";".join([self.name, f"{self.input_tokens:.0f}", f"{self.output_tokens:.0f}",
                                 ",".join(str(c) if c else "" for c in self.counts)])

    @classmethod
    def from_text(cls, text: str) -> "Trace":
        parts = text.split(";")
        if len(parts) != 5 or parts[0] != "t1":
            raise ValueError("not a request trace this product wrote")
        try:
            counts = tuple(int(c) if c else 0 for c in parts[4].split(","))
            tokens = float(parts[2]), float(parts[3])
        except ValueError:
            raise ValueError("not a request trace this product wrote") from None
        if not counts or len(counts) > MAX_BINS or min(counts) < 0 or not sum(counts) or \
                not all(math.isfinite(t) and t >= 0 for t in tokens):
            raise ValueError("not a request trace this product wrote")
        return cls(parts[1], counts, *tokens)


def is_reference(text: str | None) -> bool:
    """Whether a view's ``trace`` value names a stored trace (``s1;`` and 16 hex characters) rather than holding it."""
    body = (text or "")[len(REFERENCE_PREFIX):]
    return bool(text) and text.startswith(REFERENCE_PREFIX) and len(body) == _REFERENCE_CHARS and \
        all(ch in "0123456789abcdef" for ch in body)


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
    import duckdb

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
    for field, names in _COLUMNS.items():
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
    import duckdb

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
    import duckdb

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
    import pandas as pd

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


@dataclass(frozen=True)
class Requests:
    """Every request of a trace file: its time from the first request [s], and its input and output tokens."""

    name: str                   # the file's name as messages say it
    seconds: np.ndarray         # [s] from the first request
    input_tokens: np.ndarray    # [tokens]
    output_tokens: np.ndarray   # [tokens]


def tokens_by(path: str | os.PathLike, name: str, column: str | None = None) -> tuple[str, list[tuple[str, float,
                                                                                                         float]]]:
    """A trace file's input and output tokens summed per value of a column naming who sent each request (issue 52:
    the bill by tenant), streamed: ``(the column, [(value, input tokens, output tokens), ...])``. ``column`` None:
    the first of ``tenant``, ``user``, ``workload``, ``namespace`` the header holds (matched without regard to
    case). The file is checked as :func:`read_trace_file` checks it first (its errors name the row); a request
    with no value in the column counts as ``(none)``. Raises :class:`TraceError`."""
    import duckdb

    from model.core.chargeback import TENANT_COLUMNS

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
