"""The DuckDB store: schema, versioning, and the read queries the CLI and UI share.

One connection per process; callers take a ``.cursor()`` per query when they
share it across threads. Every value in SQL is a ``?`` parameter; the only
identifiers interpolated are field names checked against :data:`POINT_FIELDS`.

Schema versions (``costfrontier_meta.schema_version``): **0** is a database written
before the marker existed (our tables, no ``costfrontier_meta``) or with no version
row; **1** the first marked layout; **2** the current one (:data:`model.core.schema.SCHEMA_VERSION`:
disaggregated rows' per-role rates in their own columns). Opening an older file migrates it
in place in one transaction: missing tables are created, columns added since are appended,
empty, and the data steps of :data:`model.core.schema.MIGRATIONS` run. A layout that does not match, a newer
version, a damaged file and a file that is not ours are refused and left unchanged.
"""

from __future__ import annotations

import os
from pathlib import Path

import duckdb
import pandas as pd
import pyarrow as pa

from model.core.schema import MIGRATIONS, POINT_FIELDS, POINTS_DDL, SCHEMA_VERSION, SOURCES_DDL

__all__ = [
    "StoreError",
    "StoreNeedsMigration",
    "DEFAULT_DB",
    "default_db_path",
    "connect",
    "load_points",
    "points_by_id",
    "list_sources",
    "distinct_values",
    "table_checksums",
    "point_count",
    "remove_source",
    "data_version",
    "workloads",
    "stored_rates",
]

DEFAULT_DB = Path(__file__).resolve().parents[2] / "data" / "costfrontier.duckdb"

RATES_DDL = """
CREATE TABLE IF NOT EXISTS tco_rates (
    source_id BIGINT NOT NULL, source_line BIGINT, price_set VARCHAR NOT NULL, tier VARCHAR NOT NULL,
    hardware VARCHAR NOT NULL, usd_per_gpu_hour DOUBLE NOT NULL, all_in_kw_per_gpu DOUBLE, source VARCHAR
)"""
EVALS_DDL = """
CREATE TABLE IF NOT EXISTS evals (
    source_id BIGINT NOT NULL, source_line BIGINT, model VARCHAR, eval VARCHAR NOT NULL, setting VARCHAR,
    precision VARCHAR NOT NULL, score DOUBLE NOT NULL, stderr DOUBLE
)"""
PUBLISHED_DDL = """
CREATE TABLE IF NOT EXISTS published_iso (
    source_id BIGINT NOT NULL, source_line BIGINT, spec_decoding VARCHAR, interactivity DOUBLE NOT NULL,
    metric VARCHAR NOT NULL, hardware VARCHAR NOT NULL, hardware_b VARCHAR, value DOUBLE NOT NULL
)"""
API_PRICES_DDL = """
CREATE TABLE IF NOT EXISTS api_prices (
    source_id BIGINT NOT NULL, source_line BIGINT, model VARCHAR NOT NULL, provider VARCHAR,
    usd_per_m_input DOUBLE NOT NULL, usd_per_m_cached_input DOUBLE, usd_per_m_output DOUBLE NOT NULL,
    batch_discount_pct DOUBLE, read_on DATE NOT NULL, source VARCHAR NOT NULL
)"""
META_DDL = "CREATE TABLE IF NOT EXISTS costfrontier_meta (key VARCHAR PRIMARY KEY, value VARCHAR)"
OUR_TABLES = ("costfrontier_meta", "sources", "points", "tco_rates", "evals", "published_iso")
#: tables added within a schema version: created by a new database and by the first write that needs them
#: (model.data.api_prices), so a database of this version may lack them; read as empty when absent
OPTIONAL_TABLES = ("api_prices",)
_DDLS = (META_DDL, SOURCES_DDL, POINTS_DDL, RATES_DDL, EVALS_DDL, PUBLISHED_DDL, API_PRICES_DDL)
#: columns a table cannot be migrated without (they identify rows)
_REQUIRED_COLUMNS = ("source_id", "point_id", "file_name", "sha256")


class StoreError(Exception):
    """The database file cannot be used (not ours, damaged, locked, or too new).

    ``str(exc)`` is for the operator (it may name the file); ``exc.public`` is the same news for
    dashboard viewers, naming no server path, interpreter or process id.
    """

    def __init__(self, message: str, public: str | None = None):
        super().__init__(message)
        self.public = public or "The data store cannot be opened right now; the administrator has the details."


class StoreNeedsMigration(StoreError):
    """An older-schema database opened read-only: it would have to be migrated (written) first."""


#: opens the live database read-only, following new snapshots, for COSTFRONTIER_READ_ONLY=1
#: (``model.data.snapshot`` registers it when imported: the store never imports the snapshot layer above it)
READ_ONLY_OPENER = None


def read_only_mode() -> bool:
    """True when ``COSTFRONTIER_READ_ONLY`` is 1, true or yes: nothing may be written."""
    return os.environ.get("COSTFRONTIER_READ_ONLY", "").strip().lower() in ("1", "true", "yes")


def default_db_path() -> Path:
    """``$COSTFRONTIER_DB`` if set, else ``data/costfrontier.duckdb`` in the repo."""
    return Path(os.environ.get("COSTFRONTIER_DB") or DEFAULT_DB)


#: DuckDB settings for every connection: never download an extension (a SQLite or other foreign
#: file would otherwise make DuckDB fetch a scanner from the network)
_CONFIG = {"autoinstall_known_extensions": False}


def connect(path: str | os.PathLike | None = None, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """Open (creating if needed) a Cost Frontier database and check its schema version.

    A file that is not a DuckDB database, a DuckDB database holding other tables
    and no Cost Frontier marker, a database written by a newer schema version, and a
    damaged database (a table that cannot be read back) are refused with
    :class:`StoreError` and left byte-identical. A database from an older schema
    version is migrated in place (see :func:`_migrate`), in one transaction.

    With ``COSTFRONTIER_READ_ONLY=1`` a file path (not ``:memory:``) opened without ``read_only``
    gives a :class:`model.data.snapshot.LiveConnection` instead: read-only, following each newly
    published snapshot, creating and writing nothing (see :mod:`model.data.snapshot`).
    """
    target = str(path) if path is not None else str(default_db_path())
    if target != ":memory:" and not read_only:
        if read_only_mode():
            if READ_ONLY_OPENER is None:
                raise StoreError("read-only mode: open the store through model.data.snapshot (it follows new snapshots)")
            return READ_ONLY_OPENER(target)
    if target != ":memory:":
        try:
            if not read_only:
                Path(target).parent.mkdir(parents=True, exist_ok=True)
            _check_file_kind(Path(target))
        except PermissionError as exc:
            raise permission_denied(target) from exc
    try:
        con = duckdb.connect(target, read_only=read_only, config=dict(_CONFIG))
    except duckdb.IOException as exc:
        raise io_error(target, exc) from exc
    except duckdb.Error as exc:
        raise StoreError(f"{target}: damaged or unreadable, so it was not opened (the file is unchanged): "
                         f"{str(exc).splitlines()[0]}") from exc
    try:
        _check_or_init(con, read_only, target)
    except StoreError:
        con.close()
        raise
    except duckdb.Error as exc:
        con.close()
        raise StoreError(f"{target}: damaged or unreadable, so it was not opened (the file is unchanged): "
                         f"{str(exc).splitlines()[0]}") from exc
    except Exception:
        con.close()
        raise
    return con


def permission_denied(target: str) -> StoreError:
    """The error for a file or directory this process may not read or write."""
    return StoreError(f"{target}: permission denied (the file or its directory is not writable, or not readable, "
                      "by this user); nothing was changed. Serve it read-only (COSTFRONTIER_READ_ONLY=1), or fix "
                      "its owner or mode", public="The data store cannot be opened: permission denied.")


def io_error(target: str, exc: Exception) -> StoreError:
    """A DuckDB I/O error opening ``target``, named for what it is."""
    msg = str(exc)
    first = msg.splitlines()[0] if msg else type(exc).__name__
    if "permission denied" in msg.lower():
        return permission_denied(target)
    if "lock" in msg.lower():
        return StoreError(f"{target}: the database is in use by another process ({first})",
                          public="The data store is busy with another program; try again in a moment.")
    return StoreError(f"{target}: not a Cost Frontier database, or damaged: {first}")


def _check_file_kind(path: Path) -> None:
    """Refuse an existing file that is not a DuckDB database before DuckDB touches it."""
    if not path.exists():
        return
    if not path.is_file():
        raise StoreError(f"{path}: not a file")
    with open(path, "rb") as handle:
        head = handle.read(16)
    if len(head) < 12 or head[8:12] != b"DUCK":
        what = "an empty file" if not head else (
            "a SQLite database" if head.startswith(b"SQLite format 3") else "not a DuckDB database")
        raise StoreError(f"{path}: {what}, not a Cost Frontier database; refusing to open or overwrite it "
                         "(choose another --db path, or move the file away)")


def _columns(con: duckdb.DuckDBPyConnection, table: str) -> list[tuple[str, str]]:
    return [(r[0], str(r[1]).upper()) for r in con.execute(
        "SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = 'main' "
        "AND table_name = ? ORDER BY ordinal_position", [table]).fetchall()]


def _expected_columns() -> dict[str, list[tuple[str, str]]]:
    """Every table's columns as this version creates them (from the DDL, in a scratch database)."""
    scratch = duckdb.connect(":memory:")
    try:
        for ddl in _DDLS:
            scratch.execute(ddl)
        return {table: _columns(scratch, table) for table in OUR_TABLES}
    finally:
        scratch.close()


def _check_or_init(con: duckdb.DuckDBPyConnection, read_only: bool, target: str = "") -> None:
    tables = {r[0] for r in con.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'").fetchall()}
    where = target or con.execute("PRAGMA database_list").fetchall()[0][2] or ":memory:"
    if not tables:
        version = None  # a new database
    elif "costfrontier_meta" in tables:
        row = con.execute("SELECT value FROM costfrontier_meta WHERE key = 'schema_version'").fetchone()
        try:
            version = int(row[0]) if row else 0
        except (TypeError, ValueError):
            raise StoreError(f"{where}: damaged: its schema version is {row[0]!r}, not a number; the file was "
                             "not changed") from None
    elif tables <= set(OUR_TABLES + OPTIONAL_TABLES) and {"sources", "points"} <= tables:
        version = 0  # written before the version marker existed
    else:
        raise StoreError(
            f"{where}: this DuckDB file holds other tables "
            f"({', '.join(sorted(tables)[:5])}) and is not a Cost Frontier database; refusing to write to it"
        )
    if version is not None and version > SCHEMA_VERSION:
        raise StoreError(
            f"{where}: database schema version {version} is newer than this Cost Frontier ({SCHEMA_VERSION}); "
            "upgrade the app (pip install -U costfrontier, or git pull and make), or open a copy made by this version"
        )
    if version == SCHEMA_VERSION:
        _verify_readable(con, where)
        return
    plan = _migration_plan(con, tables, where) if version is not None else None
    if read_only:
        if version is None:
            raise StoreError(f"{where}: the database is empty and was opened read-only; ingest something first "
                             "(costfrontier load-samples)")
        raise StoreNeedsMigration(
            f"{where}: written by schema version {version} and needs a migration to {SCHEMA_VERSION}, but it was "
            f"opened read-only, and read-only access never changes a file; migrate it once from the writer, "
            f"without COSTFRONTIER_READ_ONLY (costfrontier --db {where} sources)",
            public=f"The data store was written by an older version (schema {version}) and needs a one-time "
                   "upgrade by its administrator before this read-only dashboard can show it.")
    if version is not None:
        _verify_readable(con, where)
    con.execute("BEGIN")
    try:
        for ddl in _DDLS:
            con.execute(ddl)
        for table, column, sql_type in plan or []:
            # identifiers from our own DDL (checked in _migration_plan), never from the file
            con.execute(f'ALTER TABLE {table} ADD COLUMN "{column}" {sql_type}')
        for step in sorted(v for v in MIGRATIONS if version is not None and v > version):
            for statement in MIGRATIONS[step]:  # our own constant SQL (model.core.schema.MIGRATIONS)
                con.execute(statement)
        con.execute(
            "INSERT OR REPLACE INTO costfrontier_meta VALUES ('schema_version', ?)", [str(SCHEMA_VERSION)]
        )
        con.execute("COMMIT")
    except Exception:
        con.execute("ROLLBACK")
        raise


def _migration_plan(con: duckdb.DuckDBPyConnection, tables: set[str], where: str) -> list[tuple[str, str, str]]:
    """The columns to append to bring an older database to :data:`SCHEMA_VERSION`.

    The one migration there is (version 0 -> 1): a database written before the
    ``costfrontier_meta`` marker, or with an older version number, may lack tables
    (created empty) or trailing columns added since (appended, empty). Its
    existing columns must be the leading columns of today's tables, same names
    and types, in order; anything else cannot be migrated safely and is refused
    before any change, naming what to do.
    """
    expected = _expected_columns()
    plan = []
    for table in OUR_TABLES:
        if table not in tables:
            continue
        have, want = _columns(con, table), expected[table]
        if have != want[:len(have)]:
            diff = next(((h, w) for h, w in zip(have, want) if h != w), None)
            detail = (f"column {diff[0][0]} {diff[0][1]} where {diff[1][0]} {diff[1][1]} was expected" if diff
                      else f"{len(have) - len(want)} more columns than expected")
            raise StoreError(
                f"{where}: table {table} has a layout this version cannot migrate ({detail}); the file was not "
                "changed. Export its points with the Cost Frontier version that wrote it (costfrontier export "
                "points.csv) and ingest that CSV into a new database")
        for column, sql_type in want[len(have):]:
            if table in ("sources", "points") and column in _REQUIRED_COLUMNS:
                raise StoreError(f"{where}: table {table} lacks its {column} column and cannot be migrated; "
                                 "the file was not changed")
            plan.append((table, column, sql_type))
    return plan


def _verify_readable(con: duckdb.DuckDBPyConnection, where: str) -> None:
    """Read every row of every table once (DuckDB checks each block's checksum on read): a damaged
    file is refused when it is opened, not halfway through a query. About 0.05 s per 300,000 points."""
    present = {r[0] for r in con.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'").fetchall()}
    try:
        for table in OUR_TABLES + OPTIONAL_TABLES:
            if table in present:  # names from our own constant tuple
                con.execute(f"SELECT count(*), sum(hash(t)) FROM {table} t").fetchone()
    except duckdb.Error as exc:
        raise StoreError(f"{where}: damaged: {str(exc).splitlines()[0]}; the file was not changed. Restore it "
                         "from a copy, or move it away and ingest the files again") from exc


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


def point_count(con: duckdb.DuckDBPyConnection) -> int:
    return int(con.execute("SELECT count(*) FROM points").fetchone()[0])


def _present(con) -> set[str]:
    return {r[0] for r in con.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'").fetchall()}


def table_checksums(con: duckdb.DuckDBPyConnection) -> dict[str, tuple[int, int]]:
    """(row count, order-independent hash of every row) for each of our tables."""
    out = {}
    present = _present(con)
    for table in OUR_TABLES + tuple(t for t in OPTIONAL_TABLES if t in present):
        # table names come from our own constant tuple, not from input
        row = con.execute(f"SELECT count(*), coalesce(sum(hash(t)), 0) FROM {table} t").fetchone()
        out[table] = (int(row[0]), int(row[1]))
    return out


def remove_source(con: duckdb.DuckDBPyConnection, source_id: int) -> int:
    """Delete one ingested file and everything it added, atomically. Returns rows removed."""
    con.execute("BEGIN")
    try:
        removed = 0
        present = _present(con)
        for table in ("points", "tco_rates", "evals", "published_iso", *(t for t in OPTIONAL_TABLES if t in present)):
            removed += con.execute(f"DELETE FROM {table} WHERE source_id = ?", [source_id]).fetchone()[0]
        gone = con.execute("DELETE FROM sources WHERE source_id = ?", [source_id]).fetchone()[0]
        if not gone:
            raise StoreError(f"no source with id {source_id}")
        con.execute("COMMIT")
    except Exception:
        con.execute("ROLLBACK")
        raise
    return removed


def data_version(con: duckdb.DuckDBPyConnection) -> tuple[int, int]:
    """(number of sources, highest source id): changes whenever a file is added or removed."""
    return tuple(con.execute("SELECT count(*), coalesce(max(source_id), 0) FROM sources").fetchone())


def workloads(con: duckdb.DuckDBPyConnection) -> list[tuple[str, str, str, int, int]]:
    """(model, isl, osl, points with interactivity, points) per workload, most frontier points first."""
    return con.execute(
        "SELECT coalesce(model, ''), coalesce(CAST(isl AS VARCHAR), ''), coalesce(CAST(osl AS VARCHAR), ''),"
        " count(*) FILTER (WHERE interactivity IS NOT NULL) AS n, count(*) FROM points"
        " GROUP BY ALL ORDER BY n DESC, 5 DESC").fetchall()


def stored_rates(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """TCO price sets ingested from files, in the shape of :func:`model.core.cost.load_presets`."""
    return con.execute(
        "SELECT price_set, tier, hardware, usd_per_gpu_hour, all_in_kw_per_gpu, source FROM tco_rates").df()
