"""A finance team's bill as actuals: one row per model and period, from any bill a spreadsheet can export.

Columns (case, spaces and underscores ignored):

- ``date``, ``period`` or ``month``: the period, UTC: ``YYYY-MM`` (a calendar month), ``YYYY-MM-DD`` (a day),
  ``YYYY-Qn`` (a quarter) or ``YYYY-MM-DD..YYYY-MM-DD`` (first and last day, both included);
- ``model``; ``usd`` (or ``cost_usd``): what the period cost [$];
- ``input_tokens`` (or ``input``): every input token, cached ones included; ``cached_input_tokens`` (or
  ``cached_input``, ``cached_tokens``): the part of them served from a prefix cache (empty: not stated);
  ``output_tokens`` (or ``output``);
- optionally ``gpu_hours`` (GPU-hours paid for in the period) and ``hardware``.

Numbers are read as people type them (:func:`model.core.names.number`: ``1,000,000``, ``$1,234.50``); a negative
or ambiguous value, cached input above input, and two rows of one model whose periods overlap are refused naming
the line and field. Derived, and said in each row's notes: ``total_tokens = input + output`` and
``usd_per_mtok = usd ÷ total_tokens × 1e6``. Columns the bill has beyond these are kept in ``extra``.
"""

from __future__ import annotations

import calendar
import json
import math
import re
from datetime import date, datetime, timedelta
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from model.core.columns import normalise_header
from model.core.hardware import canonical_hardware
from model.core.names import number
from model.data.importers.base import IngestError
from model.data.importers.canonical_csv import bill_header, read_header, read_small_csv

__all__ = ["FORMAT", "COLUMNS", "matches", "read", "parse_period"]

FORMAT = "bill-csv"
#: column -> the header names that give it (normalised: lower case, letters and digits only)
COLUMNS = {
    "period": ("date", "period", "month"),
    "model": ("model",),
    "usd": ("usd", "costusd"),
    "input_tokens": ("inputtokens", "input"),
    "cached_input_tokens": ("cachedinputtokens", "cachedinput", "cachedtokens"),
    "output_tokens": ("outputtokens", "output"),
    "gpu_hours": ("gpuhours",),
    "hardware": ("hardware",),
}
_REQUIRED = ("period", "model", "usd", "input_tokens", "output_tokens")
#: a bill's header: a model, a cost in dollars and a period (normalised names)
matches = bill_header


def parse_period(text: str) -> tuple[datetime, datetime]:
    """``[start, end)`` of a period as a bill writes it (see the module docstring); ValueError otherwise."""
    s = str(text).strip()
    if match := re.fullmatch(r"(\d{4})-(\d{2})", s):
        year, month = int(match[1]), int(match[2])
        if not 1 <= month <= 12:
            raise ValueError(f"{s!r}: no month {month}")
        start = date(year, month, 1)
        end = start + timedelta(days=calendar.monthrange(year, month)[1])
    elif match := re.fullmatch(r"(\d{4})-?[Qq]([1-4])", s):
        year, quarter = int(match[1]), int(match[2])
        start = date(year, 3 * quarter - 2, 1)
        end = date(year + (quarter == 4), 1 if quarter == 4 else 3 * quarter + 1, 1)
    elif match := re.fullmatch(r"(\d{4}-\d{2}-\d{2})\s*(?:\.\.|/|–| to )\s*(\d{4}-\d{2}-\d{2})", s):
        start, last = date.fromisoformat(match[1]), date.fromisoformat(match[2])
        if last < start:
            raise ValueError(f"{s!r}: the last day is before the first")
        end = last + timedelta(days=1)
    elif re.fullmatch(r"\d{4}-\d{2}-\d{2}", s):
        start = date.fromisoformat(s)
        end = start + timedelta(days=1)
    else:
        raise ValueError(f"{s[:40]!r} is not a period: YYYY-MM, YYYY-MM-DD, YYYY-Qn or YYYY-MM-DD..YYYY-MM-DD")
    return datetime.combine(start, datetime.min.time()), datetime.combine(end, datetime.min.time())


def _value(record: dict, column: str, name: str, line: int, required: bool, whole_tokens: bool = False
           ) -> float | None:
    text = str(record.get(column) or "").strip()
    if not text:
        if required:
            raise IngestError(name, "missing value", line=line, field=column)
        return None
    try:
        value = number(text, "a number")
    except ValueError as exc:
        raise IngestError(name, str(exc), line=line, field=column) from None
    if not math.isfinite(value) or value < 0:
        raise IngestError(name, f"cannot be negative (got {text[:40]!r})", line=line, field=column)
    if whole_tokens and not float(value).is_integer():
        raise IngestError(name, f"a token count is a whole number (got {text[:40]!r})", line=line, field=column)
    return value


def _columns_of(headers: list[str], name: str) -> tuple[dict[str, str | None], list[str]]:
    """Which header gives each column (None: absent), and the headers kept in extra; refuses a repeated or
    ambiguous column and a missing required one."""
    by_key: dict[str, str] = {}
    for header in headers:
        key = normalise_header(header)
        if key in by_key:
            raise IngestError(name, f"the column {header!r} appears twice", line=1, field=str(header))
        by_key[key] = header
    found: dict[str, str | None] = {}
    for column, names in COLUMNS.items():
        given = [by_key[n] for n in names if n in by_key]
        if len(given) > 1:
            raise IngestError(name, f"{' and '.join(repr(g) for g in given)} both give {column}: keep one", line=1,
                              field=given[1])
        found[column] = given[0] if given else None
    missing = [c for c in _REQUIRED if found[c] is None]
    if missing:
        raise IngestError(name, f"a bill needs the columns date (or period), model, usd, input_tokens, "
                          f"output_tokens; missing {', '.join(missing)}", line=1, field=missing[0])
    used = {h for h in found.values() if h}
    return found, [h for h in headers if h not in used]


_VALUES = ("usd", "input_tokens", "cached_input_tokens", "output_tokens", "gpu_hours")


def _row(record: dict, found: dict, name: str, line: int) -> dict:
    """One row read cell by cell, with every check in the order a reader meets them (the first refusal raises)."""
    rec = {c: record.get(h) for c, h in found.items() if h}
    try:
        start, end = parse_period(rec.get("period") or "")
    except ValueError as exc:
        raise IngestError(name, str(exc), line=line, field=found["period"]) from None
    model = " ".join(str(rec.get("model") or "").split())
    if not model:
        raise IngestError(name, "missing value", line=line, field=found["model"])
    if not model.isprintable() or len(model) > 300:
        raise IngestError(name, "must be printable text of at most 300 characters", line=line, field=found["model"])
    values = {c: _value(rec, c, name, line, c in _REQUIRED, c.endswith("tokens")) for c in _VALUES}
    if values["gpu_hours"] == 0:
        raise IngestError(name, "GPU-hours of a period that cost money cannot be 0; leave it empty if not known",
                          line=line, field=found["gpu_hours"])
    cached = values["cached_input_tokens"]
    if cached is not None and cached > values["input_tokens"]:
        raise IngestError(name, f"cached input ({cached:,.0f}) exceeds input ({values['input_tokens']:,.0f}): "
                          "input_tokens counts every input token, cached ones included",
                          line=line, field=found["cached_input_tokens"])
    hardware = str(rec.get("hardware") or "").strip() or None
    return {"model": model, "period_start": start, "period_end": end, **values,
            "hardware": canonical_hardware(hardware) if hardware else None}


#: a number as finance exports write it that a column read can take, as :func:`model.core.names.number` reads it:
#: plain digits with an optional point and exponent; an optional ``$``, then digits grouped by commas every three
#: with a decimal point or two commas or more (one comma before three digits alone is ambiguous: read cell by
#: cell, and refused there)
_PLAIN = r"^\+?\d+(?:\.\d+)?(?:[eE][+-]?\d{1,4})?$"
_GROUPED = r"^(?:\$?\d{1,3}(?:,\d{3}){2,}(?:\.\d+)?|\$?\d{1,3},\d{3}\.\d+|\$\d+(?:\.\d+)?)$"


def _numbers(cells: pa.ChunkedArray) -> tuple[np.ndarray, np.ndarray]:
    """(values, blank) of a column of cells: the cells :data:`_PLAIN` and :data:`_GROUPED` describe read at once; any
    other cell is NaN and not blank (its row is then read cell by cell)."""
    n = len(cells)
    plain = pc.match_substring_regex(cells, _PLAIN)
    values = pc.cast(pc.if_else(plain, cells, pa.scalar(None, pa.string())), pa.float64())
    values = np.array(values.to_numpy(zero_copy_only=False), dtype=float)
    blank = np.zeros(n, dtype=bool)
    rest = np.flatnonzero(~np.asarray(plain.to_numpy(zero_copy_only=False), dtype=bool))
    if rest.size:                # the other cells: spaces around, blanks, $ and thousands separators
        text = pc.utf8_trim_whitespace(cells.take(pa.array(rest)))
        blank[rest] = np.asarray(pc.equal(text, "").to_numpy(zero_copy_only=False), dtype=bool)
        grouped = pc.match_substring_regex(text, _GROUPED)
        readable = pc.or_(pc.match_substring_regex(text, _PLAIN), grouped)
        cleaned = pc.if_else(grouped, pc.replace_substring(pc.replace_substring(text, "$", ""), ",", ""), text)
        more = pc.cast(pc.if_else(readable, cleaned, pa.scalar(None, pa.string())), pa.float64())
        values[rest] = np.array(more.to_numpy(zero_copy_only=False), dtype=float)
    return values, blank


def _codes(cells: pa.ChunkedArray) -> tuple[np.ndarray, list]:
    """(code per cell, the distinct cells): each distinct text is then read once."""
    distinct = pc.unique(cells)
    return pc.index_in(cells, value_set=distinct).to_numpy(zero_copy_only=False), distinct.to_pylist()


def _fast(table: pa.Table, found: dict) -> tuple[dict, np.ndarray]:
    """Every row's values read column by column, and which rows must be read cell by cell (:func:`_row`) because a
    cell may be refused or needs the slow reading (a decimal comma, spaces between digit groups): a row not marked
    reads exactly as :func:`_row` would read it."""
    n = table.num_rows
    suspect = np.zeros(n, dtype=bool)
    out: dict = {}
    codes, texts = _codes(table[found["period"]])
    parsed = []
    for i, text in enumerate(texts):
        try:
            parsed.append(parse_period(text or ""))
        except ValueError:
            parsed.append((_EPOCH, _EPOCH))
            suspect |= codes == i
    out["period_start"] = np.array([p[0] for p in parsed], dtype="datetime64[us]")[codes]
    out["period_end"] = np.array([p[1] for p in parsed], dtype="datetime64[us]")[codes]
    codes, models = _codes(table[found["model"]])
    names = [" ".join(str(m or "").split()) for m in models]
    for i, named in enumerate(names):
        if not named or not named.isprintable() or len(named) > 300:
            suspect |= codes == i
    out["model"] = np.array(names, dtype=object)[codes].tolist()
    for column in _VALUES:
        header = found[column]
        if header is None:
            out[column] = np.full(n, np.nan)
            continue
        values, blank = _numbers(table[header])
        with np.errstate(invalid="ignore"):
            odd = ~blank & (~np.isfinite(values) | (values < 0))
            if column.endswith("tokens"):
                odd |= ~blank & np.isfinite(values) & (np.mod(values, 1) != 0)
        suspect |= odd | (blank & (column in _REQUIRED))
        out[column] = np.where(blank, np.nan, values)
    with np.errstate(invalid="ignore"):
        suspect |= out["gpu_hours"] == 0
        suspect |= out["cached_input_tokens"] > out["input_tokens"]
    header = found["hardware"]
    if header is None:
        out["hardware"] = [None] * n
    else:
        codes, cells = _codes(table[header])
        named = [canonical_hardware(str(h).strip()) if str(h or "").strip() else None for h in cells]
        out["hardware"] = np.array(named, dtype=object)[codes].tolist()
    return out, suspect


_EPOCH = datetime(1970, 1, 1)
_NOTES = "total_tokens derived: input_tokens + output_tokens"
_PER_M = "usd_per_mtok derived: usd ÷ total_tokens × 1e6"


def _table(path: Path, name: str, headers: list[str], delim: str) -> pa.Table:
    """The bill's cells as text (Arrow's CSV reader: every column a string, empty cells empty); a file it cannot
    read is read by pandas, whose error names what is wrong."""
    try:
        return pacsv.read_csv(path, parse_options=pacsv.ParseOptions(delimiter=delim, newlines_in_values=True),
                              convert_options=pacsv.ConvertOptions(column_types={h: pa.string() for h in headers},
                                                                   strings_can_be_null=False))
    except (pa.ArrowInvalid, pa.ArrowTypeError, UnicodeDecodeError):
        frame = read_small_csv(path, name, delim)
        return pa.Table.from_pandas(frame.astype(object), preserve_index=False)


def read(path: Path, name: str) -> tuple[dict, list[str], list[str]]:
    """The rows of a bill as columns (:data:`model.data.actuals.COLUMNS` → a list or array each), notes for its
    source and warnings. Raises :class:`IngestError` (file, line, field) for the first bad row. Linear in the file:
    the cells are read column by column, and only rows a column read cannot vouch for are read cell by cell."""
    headers, delim = read_header(path, name)
    table = _table(path, name, headers, delim)
    found, spare = _columns_of(table.column_names, name)
    if table.num_rows == 0:
        raise IngestError(name, "the file has a header but no data rows", line=2)
    cols, suspect = _fast(table, found)
    if suspect.any():
        at = np.flatnonzero(suspect)
        for i, record in zip(at, table.take(pa.array(at)).to_pylist()):
            row = _row(record, found, name, int(i) + 2)
            for column, value in row.items():
                if column in ("period_start", "period_end"):
                    cols[column][i] = np.datetime64(value, "us")
                elif isinstance(cols[column], list):
                    cols[column][i] = value
                else:
                    cols[column][i] = np.nan if value is None else value
    n = table.num_rows
    total = cols["input_tokens"] + cols["output_tokens"]
    with np.errstate(divide="ignore", invalid="ignore"):
        per_m = np.where(total > 0, cols["usd"] / total * 1e6, np.nan)
    both, one = f"{_NOTES}; {_PER_M}", _NOTES
    notes = [both] * n if (total > 0).all() else [both if t > 0 else one for t in total]
    none, empty = [None] * n, np.full(n, np.nan)
    cols.update(source_line=np.arange(2, n + 2), model_version=none, namespace=none, cluster=none,
                cost_basis=["bill"] * n, total_tokens=total, usd_per_mtok=per_m, input_usd=empty, output_usd=empty,
                usd_per_m_input=empty, usd_per_m_output=empty, allocation_method=none, cache_savings_fraction=empty,
                notes=notes, extra=_extras(table, spare))
    warnings = [f"columns kept in extra: {', '.join(map(str, spare))}"] if spare else []
    return cols, ["a bill: cost_basis bill; total_tokens and usd_per_mtok derived (see each row's notes)"], warnings


def _extras(table: pa.Table, spare: list) -> list:
    """Each row's non-empty cells of the columns the bill has beyond ours, as JSON (None: none)."""
    if not spare:
        return [None] * table.num_rows
    out = []
    for values in zip(*(table[h].to_pylist() for h in spare)):
        kept = {str(h): v for h, v in zip(spare, values) if str(v or "").strip()}
        out.append(json.dumps(kept, sort_keys=True) if kept else None)
    return out
