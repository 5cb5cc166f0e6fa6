"""Actuals in the store: what serving a model really cost and served, from OpenCost or a bill (the ``actuals`` table).

Two kinds of file go in (each its own source, so ``remove`` hides it from a new data version on and ``purge``
deletes its rows, as for benchmark rows):

- an OpenCost inference-cost response, ``/inferenceCost/total`` or ``/inferenceCost/timeseries``
  (:mod:`model.data.importers.opencost`): cost basis ``allocation`` or ``usage`` as OpenCost states it;
- a finance team's bill, a CSV (:mod:`model.data.importers.bill_csv`): cost basis ``bill``.

A file goes in whole or not at all, in one transaction that is one data version. Refused, naming the file, line
and field, with nothing stored: a bad value (negative, not a number, a window that ends before it starts), and a
period that overlaps another of the same model, namespace and cost basis, in the file or already stored (remove
the stored one first: a corrected bill replaces, never adds to, the first). Given the models of a plan
(``plan_models``), a row of any other model is refused too. ``costfrontier ingest`` recognises these files;
``costfrontier actual`` ingests them by name.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import pandas as pd

from model.core.actuals import model_key
from model.core.columns import normalise_header
from model.data.database import ACTUALS_DDL
from model.data.importers import bill_csv, opencost
from model.data.importers._common import head_keys, load_json, read_head
from model.data.importers.base import IngestError, IngestResult
from model.data.store import add_source
from model.data.versions import visible_sql

__all__ = ["COLUMNS", "KIND", "actuals_format", "ingest_actuals", "ingest_actuals_file", "actuals_frame"]

KIND = "actuals"
#: the table's columns after source_id, in order
COLUMNS = ("source_line", "model", "model_version", "namespace", "cluster", "period_start", "period_end",
           "cost_basis", "usd", "input_tokens", "cached_input_tokens", "output_tokens", "total_tokens",
           "usd_per_mtok", "input_usd", "output_usd", "usd_per_m_input", "usd_per_m_output", "allocation_method",
           "cache_savings_fraction", "gpu_hours", "hardware", "notes", "extra")


_TEXT = ("model", "model_version", "namespace", "cluster", "cost_basis", "allocation_method", "hardware", "notes",
         "extra")


def actuals_format(path: Path) -> str | None:
    """``"opencost"`` or ``"bill-csv"`` when ``path`` holds actuals (from its first MiB), else None."""
    head = read_head(Path(path))
    start = head.lstrip(" \t\r\n")[:1]
    if start in ("{", "["):
        return "opencost" if opencost.matches(head_keys(head)) else None
    first = head.splitlines()[0] if head else ""
    for delim in (",", ";", "\t"):
        cells = {normalise_header(c) for c in first.split(delim)}
        if len(cells) > 2 and bill_csv.matches(cells):
            return bill_csv.FORMAT
    return None


def _rows(path: Path, name: str, fmt: str) -> tuple[list[dict], str, list[str], list[str]]:
    if fmt == "opencost":
        records = load_json(path, name)    # refuses a file over the JSON size limit before reading it
        return opencost.read(records, name, path.read_text(encoding="utf-8-sig"))
    rows, notes, warnings = bill_csv.read(path, name)
    return rows, bill_csv.FORMAT, notes, warnings


def _where(row: dict) -> str:
    return f"{row['period_start']:%Y-%m-%d %H:%M}–{row['period_end']:%Y-%m-%d %H:%M}"


def _key(row: dict) -> tuple:
    return model_key(row["model"]), row.get("namespace") or "", row["cost_basis"]


def _check_overlaps(con, rows: list[dict], name: str) -> None:
    """Refuse a period overlapping another of one model, namespace and basis: in the file, then in the store."""
    seen: dict[tuple, list[dict]] = {}
    for row in sorted(rows, key=lambda r: (r["period_start"], r["source_line"])):
        for other in seen.get(_key(row), []):
            if row["period_start"] < other["period_end"] and other["period_start"] < row["period_end"]:
                raise IngestError(name, f"the period {_where(row)} of {row['model']}"
                                  + (f" in {row['namespace']}" if row.get("namespace") else "")
                                  + f" ({row['cost_basis']}) overlaps line {other['source_line']}'s {_where(other)}: "
                                  "each period of a model is counted once", line=row["source_line"], field="period")
        seen.setdefault(_key(row), []).append(row)
    stored = actuals_frame(con)
    if stored.empty:
        return
    stored = stored.assign(_model=stored["model"].map(model_key), _ns=stored["namespace"].fillna(""))
    for row in rows:
        model, namespace, basis = _key(row)
        hits = stored[(stored["_model"] == model) & (stored["_ns"] == namespace) & (stored["cost_basis"] == basis)
                      & (stored["period_start"] < row["period_end"]) & (stored["period_end"] > row["period_start"])]
        if not hits.empty:
            hit = hits.iloc[0]
            stored_period = _where({"period_start": hit["period_start"], "period_end": hit["period_end"]})
            raise IngestError(name, f"the period {_where(row)} of {row['model']} ({basis}) overlaps one already "
                              f"stored: source #{hit['source_id']} {hit['file_name']}, {stored_period}; remove that "
                              "source first if this file replaces it", line=row["source_line"], field="period")


def ingest_actuals(con: duckdb.DuckDBPyConnection, path: Path, name: str, sha: str, fmt: str,
                   plan_models: tuple[str, ...] | None = None, aliases: dict[str, str] | None = None) -> IngestResult:
    """Insert one actuals file (inside the caller's transaction). ``fmt``: :func:`actuals_format`'s answer."""
    rows, real_fmt, notes, warnings = _rows(Path(path), name, fmt)
    if plan_models is not None:
        keys = {model_key(m, aliases) for m in plan_models}
        for row in rows:
            if model_key(row["model"], aliases) not in keys:
                raise IngestError(name, f"model {row['model']!r} is not one the plan holds (its rows are of "
                                  f"{', '.join(plan_models) or 'no model'}); nothing was stored",
                                  line=row["source_line"], field="model")
    con.execute(ACTUALS_DDL)
    _check_overlaps(con, rows, name)
    source_id = add_source(con, name, real_fmt, KIND, sha, len(rows), "; ".join(notes) or None)
    con.executemany(f"INSERT INTO actuals VALUES ({', '.join('?' * (len(COLUMNS) + 1))})",
                    [[source_id, *(row.get(c) for c in COLUMNS)] for row in rows])
    return IngestResult(name, real_fmt, KIND, len(rows), None, source_id, warnings=warnings)


def ingest_actuals_file(con: duckdb.DuckDBPyConnection, path: str | Path, display_name: str | None = None,
                        plan_models: tuple[str, ...] | None = None,
                        aliases: dict[str, str] | None = None) -> IngestResult:
    """Ingest one actuals file in one transaction (one data version): all of it or none of it. A file already
    stored adds nothing and says so; a file that holds no actuals is refused saying what it is not. With
    ``plan_models``, a row of a model the plan does not hold (by whole name or ``aliases``) is refused."""
    from model.data.ingest import clear_errors, file_facts, ingest_transaction
    from model.data.uploads import check_size, utf8_name

    path = Path(path)
    name = display_name or utf8_name(path)
    with clear_errors(name):
        if not path.is_file():
            raise IngestError(name, "no such file")
        check_size(path.stat().st_size, name)
        fmt = actuals_format(path)
        if fmt is None and read_head(path, 4096).lstrip(" \t\r\n")[:1] in ("{", "["):
            fmt = "opencost"      # asked for actuals: the OpenCost reader says what this JSON is not
        if fmt is None:
            raise IngestError(name, "not actuals: expected an OpenCost /inferenceCost/total or /timeseries response "
                              "(JSON) or a bill (CSV with date or period, model, usd, input_tokens, output_tokens); "
                              "benchmark files go in with costfrontier ingest")
        sha = file_facts(path).sha256
        existing = con.execute("SELECT source_id FROM sources WHERE sha256 = ?", [sha]).fetchone()
        if existing:
            return IngestResult(name, fmt, KIND, 0, int(existing[0]))
        with ingest_transaction(con):
            return ingest_actuals(con, path, name, sha, fmt, plan_models, aliases)


def actuals_frame(con, version: int | None = None) -> pd.DataFrame:
    """Every stored actual of data version ``version`` (None: the latest), with its source's file name and id,
    ordered by model, period and basis; periods as naive UTC timestamps. Empty (with the columns) in a store
    written before the table existed."""
    columns = ["source_id", "file_name", *COLUMNS]
    try:
        shown, params = visible_sql(con, version, "a.source_id")
        frame = con.execute(
            f"SELECT a.source_id, s.file_name, {', '.join('a.' + c for c in COLUMNS)} FROM actuals a "
            f"JOIN sources s USING (source_id){' WHERE ' + shown if shown else ''} "
            "ORDER BY a.model, a.period_start, a.cost_basis, a.source_id, a.source_line", params).df()
    except duckdb.CatalogException:     # a store written before the table existed: no actuals yet
        return pd.DataFrame(columns=columns)
    for column in ("period_start", "period_end"):
        frame[column] = pd.to_datetime(frame[column])
    for column in _TEXT:      # an empty text is None, as stored (never NaN)
        frame[column] = frame[column].astype(object).where(frame[column].notna(), None)
    return frame[columns]
