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


def read(path: Path, name: str) -> tuple[list[dict], list[str], list[str]]:
    """The rows of a bill, notes for its source and warnings. Raises :class:`IngestError` (file, line, field)."""
    headers, delim = read_header(path, name)
    frame = read_small_csv(path, name, delim)
    by_key: dict[str, str] = {}
    for header in frame.columns:
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
    spare = [h for h in frame.columns if h not in used]
    rows, warnings = [], []
    if spare:
        warnings.append(f"columns kept in extra: {', '.join(map(str, spare))}")
    for i, record in enumerate(frame.to_dict("records")):
        line = i + 2
        rec = {c: record.get(h) for c, h in found.items() if h}
        try:
            start, end = parse_period(rec.get("period") or "")
        except ValueError as exc:
            raise IngestError(name, str(exc), line=line, field=found["period"]) from None
        model = " ".join(str(rec.get("model") or "").split())
        if not model:
            raise IngestError(name, "missing value", line=line, field=found["model"])
        if not model.isprintable() or len(model) > 300:
            raise IngestError(name, "must be printable text of at most 300 characters", line=line,
                              field=found["model"])
        values = {c: _value(rec, c, name, line, c in _REQUIRED, c.endswith("tokens"))
                  for c in ("usd", "input_tokens", "cached_input_tokens", "output_tokens", "gpu_hours")}
        if values["gpu_hours"] == 0:
            raise IngestError(name, "GPU-hours of a period that cost money cannot be 0; leave it empty if not "
                              "known", line=line, field=found["gpu_hours"])
        cached = values["cached_input_tokens"]
        if cached is not None and cached > values["input_tokens"]:
            raise IngestError(name, f"cached input ({cached:,.0f}) exceeds input ({values['input_tokens']:,.0f}): "
                              "input_tokens counts every input token, cached ones included",
                              line=line, field=found["cached_input_tokens"])
        total = values["input_tokens"] + values["output_tokens"]
        notes = ["total_tokens derived: input_tokens + output_tokens"]
        per_m = None
        if total > 0:
            per_m = values["usd"] / total * 1e6
            notes.append("usd_per_mtok derived: usd ÷ total_tokens × 1e6")
        hardware = str(rec.get("hardware") or "").strip() or None
        extra = {str(h): record[h] for h in spare if str(record.get(h) or "").strip()}
        rows.append({"source_line": line, "model": model, "model_version": None, "namespace": None, "cluster": None,
                     "period_start": start, "period_end": end, "cost_basis": "bill", **values,
                     "total_tokens": total, "usd_per_mtok": per_m, "input_usd": None, "output_usd": None,
                     "usd_per_m_input": None, "usd_per_m_output": None, "allocation_method": None,
                     "cache_savings_fraction": None,
                     "hardware": canonical_hardware(hardware) if hardware else None,
                     "notes": "; ".join(notes), "extra": json.dumps(extra, sort_keys=True) if extra else None})
    if not rows:
        raise IngestError(name, "the file has a header but no data rows", line=2)
    return rows, ["a bill: cost_basis bill; total_tokens and usd_per_mtok derived (see each row's notes)"], warnings
