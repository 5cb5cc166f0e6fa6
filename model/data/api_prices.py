"""Hosted API prices in the store: the ``api_prices`` table, its CSV kind and the dashboard's form.

A price file has the columns of ``data/samples/api_prices_usd_per_mtok.csv``: ``model, provider,
usd_per_m_input, usd_per_m_cached_input, usd_per_m_output, read_on, source`` and optionally
``batch_discount_pct``. It goes in as every file does: in one transaction, all rows or none, a bad row
refused naming the file, line and field. Every value reaches SQL as a parameter.

The table is created by the first write that needs it, so a database written before it existed (same
schema version) reads as having no prices until one is ingested.
"""

from __future__ import annotations

import hashlib
import math
from datetime import date, datetime, timezone
from pathlib import Path

import duckdb
import pandas as pd

from model.core.columns import normalise_header
from model.core.volume import ApiPrice
from model.data.database import API_PRICES_DDL
from model.data.importers.base import IngestError, IngestResult
from model.data.importers.canonical_csv import read_small_csv
from model.data.store import add_source
from model.data.versions import stamp, visible_sql

__all__ = ["API_PRICES_DDL", "COLUMNS", "ingest_csv", "add_prices", "load_api_prices",
           "prices_frame", "check_row"]


#: the file's columns, in order (batch_discount_pct optional)
COLUMNS = ("model", "provider", "usd_per_m_input", "usd_per_m_cached_input", "usd_per_m_output",
           "batch_discount_pct", "read_on", "source")
_REQUIRED = ("model", "usd_per_m_input", "usd_per_m_output", "read_on", "source")
_PRICES = ("usd_per_m_input", "usd_per_m_cached_input", "usd_per_m_output")


def _text(value, name: str, line: int, field: str, required: bool, limit: int = 300) -> str | None:
    text = " ".join(str(value if value is not None else "").split())
    if not text:
        if required:
            raise IngestError(name, "missing value", line=line, field=field)
        return None
    if not text.isprintable() or len(text) > limit:
        raise IngestError(name, f"must be printable text of at most {limit} characters", line=line, field=field)
    return text


def _price(value, name: str, line: int, field: str, required: bool, top: float = 1000.0) -> float | None:
    text = str(value if value is not None else "").strip()
    if not text:
        if required:
            raise IngestError(name, "missing value", line=line, field=field)
        return None
    try:
        number = float(text)
    except ValueError:
        raise IngestError(name, f"not a number (got {text[:40]!r})", line=line, field=field) from None
    if not (math.isfinite(number) and 0 <= number <= top):
        raise IngestError(name, f"must be between 0 and {top:g} (got {text[:40]!r})", line=line, field=field)
    return number


def check_row(record: dict, name: str, line: int, today: date | None = None) -> list:
    """One price row, checked: the values in :data:`COLUMNS` order. Raises :class:`IngestError`."""
    today = today or date.today()
    model = _text(record.get("model"), name, line, "model", True, 120)
    provider = _text(record.get("provider"), name, line, "provider", False, 120)
    prices = [_price(record.get(f), name, line, f, f != "usd_per_m_cached_input") for f in _PRICES]
    discount = _price(record.get("batch_discount_pct"), name, line, "batch_discount_pct", False, 99.99)
    raw_date = str(record.get("read_on") or "").strip()
    if not raw_date:
        raise IngestError(name, "missing value: the date the price was read (YYYY-MM-DD)", line=line, field="read_on")
    try:
        read_on = date.fromisoformat(raw_date)
    except ValueError:
        raise IngestError(name, f"not a date YYYY-MM-DD (got {raw_date[:40]!r})", line=line, field="read_on") from None
    if read_on > today:
        raise IngestError(name, f"is in the future ({read_on.isoformat()})", line=line, field="read_on")
    source = _text(record.get("source"), name, line, "source", True)
    return [model, provider, *prices, discount, read_on, source]


def _insert(con, name: str, sha: str, rows: list[list], notes: str | None = None) -> IngestResult:
    con.execute(API_PRICES_DDL)
    source_id = add_source(con, name, "csv", "api_prices", sha, len(rows), notes)
    con.executemany("INSERT INTO api_prices VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [[source_id, *row] for row in rows])
    return IngestResult(name, "csv", "api_prices", len(rows), None, source_id)


def _rows(records: list[dict], name: str, first_line: int = 2) -> list[list]:
    rows, seen = [], {}
    for i, record in enumerate(records):
        line = first_line + i
        row = check_row(record, name, line)
        key = row[0].lower()
        if key in seen:
            raise IngestError(name, f"model {row[0]!r} is priced twice in one file (line {seen[key]} too)",
                              line=line, field="model")
        seen[key] = line
        rows.append([line, *row])
    if not rows:
        raise IngestError(name, "the file has a header but no data rows", line=2)
    return rows


def ingest_csv(con: duckdb.DuckDBPyConnection, path: Path, name: str, sha: str, delim: str) -> IngestResult:
    """Insert an API price file (inside the caller's transaction)."""
    frame = read_small_csv(path, name, delim)
    cols = {normalise_header(c): c for c in frame.columns}
    wanted = {c: cols.get(normalise_header(c)) for c in COLUMNS}
    missing = [c for c in _REQUIRED if wanted[c] is None]
    if missing:
        raise IngestError(name, f"an API price file needs the columns {', '.join(_REQUIRED)}; missing "
                          f"{', '.join(missing)}", line=1, field=missing[0])
    records = [{c: (rec.get(col) if col else None) for c, col in wanted.items()} for rec in frame.to_dict("records")]
    return _insert(con, name, sha, _rows(records, name))


def add_prices(con: duckdb.DuckDBPyConnection, records: list[dict], name: str = "entered on the dashboard") -> IngestResult:
    """Store prices typed in a form, as one source of their own, atomically (refused rows change nothing)."""
    rows = _rows(records, name, 1)
    made = datetime.now(timezone.utc).isoformat()
    sha = hashlib.sha256(repr((rows, made)).encode()).hexdigest()
    con.execute("BEGIN")
    try:
        result = _insert(con, name, sha, rows, notes="typed in the Buy, rent or API form")
        stamp(con, "api-price", f"{name}: {', '.join(r[1] for r in rows)}")
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    return result


def prices_frame(con, version: int | None = None) -> pd.DataFrame:
    """Every stored price, newest source first per model (one row per model), with its file name (as data
    version ``version`` held them; None: the latest)."""
    columns = ["model", "provider", *_PRICES, "batch_discount_pct", "read_on", "source", "file_name", "source_id"]
    try:
        shown, params = visible_sql(con, version, "a.source_id")
        frame = con.execute(
            "SELECT a.model, a.provider, a.usd_per_m_input, a.usd_per_m_cached_input, a.usd_per_m_output, "
            "a.batch_discount_pct, a.read_on, a.source, s.file_name, a.source_id FROM api_prices a "
            f"JOIN sources s USING (source_id){' WHERE ' + shown if shown else ''} "
            "ORDER BY a.source_id DESC, a.source_line", params).df()
    except duckdb.Error:   # a store written before the table existed: no prices yet
        return pd.DataFrame(columns=columns)
    if frame.empty:
        return pd.DataFrame(columns=columns)
    frame = frame.assign(_key=frame["model"].str.lower()).drop_duplicates("_key").drop(columns="_key")
    return frame.sort_values("model", key=lambda s: s.str.lower()).reset_index(drop=True)[columns]


def _num(value) -> float | None:
    try:
        out = float(value)
    except (TypeError, ValueError):
        return None
    return out if math.isfinite(out) else None


def load_api_prices(con, version: int | None = None) -> list[ApiPrice]:
    """The stored prices as :class:`model.core.volume.ApiPrice`, one per model (the newest source wins), of data
    version ``version`` (None: the latest)."""
    out = []
    for r in prices_frame(con, version).to_dict("records"):
        read_on = r["read_on"]
        if isinstance(read_on, (pd.Timestamp, datetime)):
            read_on = read_on.date()
        out.append(ApiPrice(str(r["model"]), float(r["usd_per_m_input"]), _num(r["usd_per_m_cached_input"]),
                            float(r["usd_per_m_output"]), str(r["provider"] or ""),
                            read_on if isinstance(read_on, date) else None,
                            f"{r['source']} ({r['file_name']})", _num(r["batch_discount_pct"])))
    return out
