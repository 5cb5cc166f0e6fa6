"""The read queries the CLI and UI share, and the bookkeeping of sources, on a store opened by
:mod:`model.data.database` (whose ``connect``, errors and paths this module re-exports).

One connection per process; callers take a ``.cursor()`` per query when they
share it across threads. Every value in SQL is a ``?`` parameter; the only
identifiers interpolated are field names checked against :data:`POINT_FIELDS`.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone

import duckdb
import pandas as pd
import pyarrow as pa

from model.core.schema import POINT_FIELDS
from model.data.database import (
    DEFAULT_DB,
    OPTIONAL_TABLES,
    OUR_TABLES,
    StoreError,
    StoreNeedsMigration,
    connect,
    default_db_path,
)

__all__ = [
    "StoreError",
    "StoreNeedsMigration",
    "DEFAULT_DB",
    "OUR_TABLES",
    "default_db_path",
    "connect",
    "load_points",
    "points_by_id",
    "list_sources",
    "distinct_values",
    "add_source",
    "remove_source",
    "workloads",
    "stored_rates",
]


def _checked_field(name: str) -> str:
    if name not in POINT_FIELDS:
        raise ValueError(f"unknown field {name!r}; known: {', '.join(POINT_FIELDS)}")
    return name


#: free-text columns the analysis never reads; ``load_points(full=True)`` includes them
_TEXT_COLUMNS = ("extra", "notes", "url", "tags")


def load_points(con: duckdb.DuckDBPyConnection, where: dict[str, list] | None = None,
                full: bool = False, columns=None) -> pd.DataFrame:
    """Points matching ``where`` (field -> accepted values), with their source file name.

    Values are compared as text and case-insensitively, so ``--where isl=8192`` and ``isl=[8192]``
    both work, and ``hardware=arcprob60`` finds ``ArcProB60``. An empty value (``None`` or ``""``)
    matches rows that leave the field empty: never a wildcard.
    ``full`` adds the free-text columns (extra, notes, url, tags) and orders by point id,
    for exports; the analysis needs neither.
    ``columns`` (fields of :data:`POINT_FIELDS`, ``source_file``, ``source_format``) loads only those
    besides ``point_id`` and ``source_id``, in :data:`POINT_FIELDS` order, for a caller that reads no
    others (:func:`model.data.inputs.analysis_columns`): at 1M rows each column left out saves
    about 8 MB of Arrow and of pandas. Fetch other columns of chosen rows afterwards with :func:`points_by_id`.
    """
    clauses, params = [], []
    for field, values in (where or {}).items():
        values = [v for v in (values if isinstance(values, (list, tuple, set)) else [values])]
        if not values:
            continue
        _checked_field(field)
        stated = [str(v) for v in values if v is not None and str(v) != ""]
        tests = [f"lower(CAST(p.{field} AS VARCHAR)) IN ({', '.join(['lower(?)'] * len(stated))})"] if stated else []
        if len(stated) < len(values):   # an empty value matches rows that do not state the field
            tests.append(f"p.{field} IS NULL")
        clauses.append("(" + " OR ".join(tests) + ")")
        params.extend(stated)
    wanted = _wanted(columns, full)
    joined = [f"s.{_SOURCE_COLUMNS[c]} AS {c}" for c in _SOURCE_COLUMNS if c in wanted]
    sql = (
        f"SELECT {', '.join(['p.point_id', 'p.source_id', *(f'p.{f}' for f in POINT_FIELDS if f in wanted), *joined])}"
        " FROM points p" + (" JOIN sources s USING (source_id)" if joined else "")
        + (" WHERE " + " AND ".join(clauses) if clauses else "")
        + (" ORDER BY p.point_id" if full else "")
    )
    # Through Arrow: about 7x faster than .df() at 1M rows; nullable ints and booleans stay nullable.
    # A fresh cursor has no pending result, so .sql() can hand Arrow over without an extra copy.
    table = con.cursor().sql(sql, params=params).to_arrow_table()
    # a projection converts in a few hundredths of a second on one thread; handing its columns to the
    # thread pool costs more than that when the cores are busy
    return table.to_pandas(types_mapper=_NULLABLE.get, date_as_object=False, use_threads=columns is None)


#: the columns load_points joins from ``sources`` (name in the frame -> column of ``sources``)
_SOURCE_COLUMNS = {"source_file": "file_name", "source_format": "format"}


def _wanted(columns, full: bool) -> set[str]:
    """The fields and source columns :func:`load_points` reads (``point_id`` and ``source_id`` always)."""
    if columns is None:
        return {f for f in POINT_FIELDS if full or f not in _TEXT_COLUMNS} | set(_SOURCE_COLUMNS)
    wanted = set(columns) - {"point_id", "source_id"}
    for name in wanted - set(_SOURCE_COLUMNS):
        _checked_field(name)
    return wanted


def points_by_id(con: duckdb.DuckDBPyConnection, point_ids, columns=None) -> pd.DataFrame:
    """The points whose ``point_id`` is in ``point_ids``, as :func:`load_points` gives them (the same
    ``columns``, types and source columns), in the order of ``point_ids`` (ids not in the store are skipped).
    For the provenance of a few rows (e.g. frontier points) after a projected load."""
    ids = pd.array(point_ids, dtype="Int64").dropna().to_numpy(dtype="int64")
    wanted = _wanted(columns, False)
    joined = [f"s.{_SOURCE_COLUMNS[c]} AS {c}" for c in _SOURCE_COLUMNS if c in wanted]
    sql = (f"SELECT {', '.join(['p.point_id', 'p.source_id', *(f'p.{f}' for f in POINT_FIELDS if f in wanted), *joined])}"
           " FROM points p" + (" JOIN sources s USING (source_id)" if joined else "")
           + " WHERE p.point_id IN (SELECT unnest(?::BIGINT[]))")
    frame = con.cursor().sql(sql, params=[ids.tolist()]).to_arrow_table().to_pandas(
        types_mapper=_NULLABLE.get, date_as_object=False)
    position = pd.Index(frame["point_id"].to_numpy(dtype="int64")).get_indexer(ids)
    return frame.iloc[position[position >= 0]].reset_index(drop=True)


_NULLABLE = {pa.int64(): pd.Int64Dtype(), pa.int32(): pd.Int64Dtype(), pa.bool_(): pd.BooleanDtype()}


def list_sources(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """Ingested files with their format, kind, row count and dates, newest first."""
    return con.execute(
        "SELECT s.source_id, s.file_name, s.format, s.kind, s.rows, s.ingested_at, s.sha256, s.notes,"
        " (SELECT min(run_date) FROM points p WHERE p.source_id = s.source_id) AS first_run_date,"
        " (SELECT max(run_date) FROM points p WHERE p.source_id = s.source_id) AS last_run_date"
        " FROM sources s ORDER BY s.source_id DESC"
    ).df()


def distinct_values(con: duckdb.DuckDBPyConnection, field: str) -> list:
    """Sorted distinct non-null values of one points field."""
    _checked_field(field)
    return [r[0] for r in con.execute(
        f"SELECT DISTINCT {field} FROM points WHERE {field} IS NOT NULL ORDER BY 1").fetchall()]


def _present(con) -> set[str]:
    return {r[0] for r in con.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'").fetchall()}


def add_source(con: duckdb.DuckDBPyConnection, file_name: str, fmt: str, kind: str, sha: str, rows: int,
               notes: str | None = None, set_fields: dict | None = None) -> int:
    """Record one ingested file in ``sources`` under the next free id (one more than the highest) and return
    that id; its rows go in ``kind``'s table with it. ``set_fields``: the fields given at ingest (``--set``)."""
    source_id = int(con.execute("SELECT coalesce(max(source_id), 0) + 1 FROM sources").fetchone()[0])
    con.execute("INSERT INTO sources VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [source_id, file_name, fmt, kind, sha, rows, datetime.now(timezone.utc).replace(tzinfo=None), notes,
                 json.dumps(set_fields, default=str) if set_fields else None])
    return source_id


def remove_source(con: duckdb.DuckDBPyConnection, source_id: int) -> int:
    """Delete one ingested file and everything it added, atomically. Returns rows removed."""
    con.execute("BEGIN")
    try:
        removed = 0
        present = _present(con)
        for table in ("points", "tco_rates", "evals", "published_iso", *(t for t in OPTIONAL_TABLES if t in present)):
            deleted = con.execute(f"DELETE FROM {table} WHERE source_id = ?", [source_id]).fetchone()[0]
            removed += deleted if table != "point_requests" else 0   # a point's requests go with it, uncounted
        gone = con.execute("DELETE FROM sources WHERE source_id = ?", [source_id]).fetchone()[0]
        if not gone:
            raise StoreError(f"no source with id {source_id}")
        con.execute("COMMIT")
    except Exception:
        con.execute("ROLLBACK")
        raise
    return removed


def workloads(con: duckdb.DuckDBPyConnection) -> list[tuple[str, str, str, int, int]]:
    """(model, isl, osl, points with interactivity, points) per workload, most frontier points first."""
    return con.execute(
        "SELECT coalesce(model, ''), coalesce(CAST(isl AS VARCHAR), ''), coalesce(CAST(osl AS VARCHAR), ''),"
        " count(*) FILTER (WHERE interactivity IS NOT NULL) AS n, count(*) FROM points"
        " GROUP BY ALL ORDER BY n DESC, 5 DESC").fetchall()


def stored_rates(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """TCO price sets ingested from files, in the shape of :func:`model.core.cost.load_presets`."""
    return con.execute(
        "SELECT price_set, tier, hardware, usd_per_gpu_hour, all_in_kw_per_gpu, source, read_on FROM tco_rates").df()
