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
import numpy as np
import pandas as pd
import pyarrow as pa

from model.core.schema import POINT_FIELDS
from model.data.database import (
    DEFAULT_DB,
    OUR_TABLES,
    StoreError,
    StoreNeedsMigration,
    connect,
    default_db_path,
)
from model.data.versions import hide_source, visible_sql

__all__ = [
    "StoreError",
    "StoreNeedsMigration",
    "DEFAULT_DB",
    "OUR_TABLES",
    "default_db_path",
    "connect",
    "load_points",
    "points_by_id",
    "shared_strings",
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
                full: bool = False, columns=None, version: int | None = None) -> pd.DataFrame:
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
    ``version``: the rows of that data version (:mod:`model.data.versions`); None: the latest.
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
    shown, shown_params = visible_sql(con, version, "p.source_id")
    if shown:
        clauses.append(shown)
        params.extend(shown_params)
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


def shared_strings(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with each text column holding every distinct value once, as one Python string its rows share,
    instead of a copy per row (Arrow's storage): the same kind of dtype (``str`` or ``string``, its missing value),
    values and missing values, in about 8 bytes a row instead of about 35 (at 1M rows of a few hundred distinct
    hardware, model or file names, 300 MB less for the dashboard's rows). Changes ``frame`` in place, returns it.
    For a frame that is kept (the dashboard's cached rows): it costs about 70 ms a column at 1M rows, more than the
    load's own conversion, so a one-shot command does not pay it."""
    for i in np.flatnonzero([isinstance(t, pd.StringDtype) and t.storage != "python" for t in frame.dtypes]):
        na = frame.dtypes.iloc[i].na_value
        codes, uniques = pd.factorize(frame.iloc[:, i], use_na_sentinel=True)
        values = np.append(np.asarray(uniques, dtype=object), na)   # code -1 (missing) takes the last
        frame.isetitem(i, pd.Series(values[codes], index=frame.index, dtype=pd.StringDtype("python", na_value=na),
                                    copy=False))
    return frame


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


def _shown(con, version: int | None, column: str = "source_id", joiner: str = " WHERE ") -> tuple[str, list]:
    cond, params = visible_sql(con, version, column)
    return (joiner + cond if cond else ""), params


def list_sources(con: duckdb.DuckDBPyConnection, version: int | None = None) -> pd.DataFrame:
    """Ingested files with their format, kind, row count, dates and the data version that added each, newest
    first: those data version ``version`` shows (None: the latest)."""
    where, params = _shown(con, version, "s.source_id")
    return con.execute(
        # a removed source's hash has its version appended (so its content may be ingested again): the file's own
        "SELECT s.source_id, s.file_name, s.format, s.kind, s.rows, s.ingested_at, split_part(s.sha256, ':', 1) "
        "AS sha256, s.notes,"
        " (SELECT min(run_date) FROM points p WHERE p.source_id = s.source_id) AS first_run_date,"
        " (SELECT max(run_date) FROM points p WHERE p.source_id = s.source_id) AS last_run_date,"
        " s.added_in AS data_version"
        f" FROM sources s{where} ORDER BY s.source_id DESC", params
    ).df()


def distinct_values(con: duckdb.DuckDBPyConnection, field: str, version: int | None = None) -> list:
    """Sorted distinct non-null values of one points field (of data version ``version``; None: the latest)."""
    _checked_field(field)
    where, params = _shown(con, version, joiner=" AND ")
    return [r[0] for r in con.execute(
        f"SELECT DISTINCT {field} FROM points WHERE {field} IS NOT NULL{where} ORDER BY 1", params).fetchall()]


def add_source(con: duckdb.DuckDBPyConnection, file_name: str, fmt: str, kind: str, sha: str, rows: int,
               notes: str | None = None, set_fields: dict | None = None) -> int:
    """Record one ingested file in ``sources`` under the next free id (one more than the highest) and return
    that id; its rows go in ``kind``'s table with it. ``set_fields``: the fields given at ingest (``--set``)."""
    source_id = int(con.execute("SELECT coalesce(max(source_id), 0) + 1 FROM sources").fetchone()[0])
    # added_in is set by model.data.versions.stamp when the transaction commits its version
    con.execute("INSERT INTO sources (source_id, file_name, format, kind, sha256, rows, ingested_at, notes, "
                "set_fields) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [source_id, file_name, fmt, kind, sha, rows, datetime.now(timezone.utc).replace(tzinfo=None), notes,
                 json.dumps(set_fields, default=str) if set_fields else None])
    return source_id


def remove_source(con: duckdb.DuckDBPyConnection, source_id: int) -> int:
    """Hide one ingested file and everything it added from a new data version on, atomically (its rows stay, so
    earlier versions are rebuilt exactly; ``purge`` deletes them for good). Returns the rows it held."""
    return hide_source(con, source_id)


def workloads(con: duckdb.DuckDBPyConnection, version: int | None = None) -> list[tuple[str, str, str, int, int]]:
    """(model, isl, osl, points with interactivity, points) per workload, most frontier points first."""
    where, params = _shown(con, version)
    return con.execute(
        "SELECT coalesce(model, ''), coalesce(CAST(isl AS VARCHAR), ''), coalesce(CAST(osl AS VARCHAR), ''),"
        f" count(*) FILTER (WHERE interactivity IS NOT NULL) AS n, count(*) FROM points{where}"
        " GROUP BY ALL ORDER BY n DESC, 5 DESC", params).fetchall()


def stored_rates(con: duckdb.DuckDBPyConnection, version: int | None = None) -> pd.DataFrame:
    """TCO price sets ingested from files, in the shape of :func:`model.data.presets.load_presets`."""
    where, params = _shown(con, version)
    return con.execute(
        f"SELECT price_set, tier, hardware, usd_per_gpu_hour, all_in_kw_per_gpu, source, read_on FROM tco_rates{where}",
        params).df()
