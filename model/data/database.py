"""Opening the DuckDB file: its tables, its schema version and migrations, and the errors a store gives.

Schema versions (``costfrontier_meta.schema_version``): **0** is a database written
before the marker existed (our tables, no ``costfrontier_meta``) or with no version
row; **1** the first marked layout; **2** disaggregated rows' per-role rates in their own columns; **3** the
one before data versions (the date each TCO rate was read, ``tco_rates.read_on``); **4** numbered data versions
(:mod:`model.data.versions`; what an older store held becomes version 1); **5** the current one
(:data:`model.core.schema.SCHEMA_VERSION`: a point's median ITL beside its median TPOT, ``points.itl_median_ms``). Opening an older file migrates it
in place in one transaction: missing tables are created, columns added since are appended,
empty, and the data steps of :data:`model.core.schema.MIGRATIONS` run. A layout that does not match, a newer
version, a damaged file and a file that is not ours are refused and left unchanged.
"""

from __future__ import annotations

import errno
import os
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator

import duckdb

from model.core.schema import (
    COST_PROFILES_DDL,
    MIGRATIONS,
    PINS_DDL,
    POINTS_DDL,
    PROFILE_VERSIONS_DDL,
    SCHEMA_VERSION,
    SOURCES_DDL,
    VERSIONS_DDL,
)

__all__ = [
    "cannot_write",
    "registered",
    "StoreError",
    "StoreNeedsMigration",
    "StoreBusy",
    "DEFAULT_DB",
    "RATES_DDL",
    "EVALS_DDL",
    "PUBLISHED_DDL",
    "API_PRICES_DDL",
    "REQUESTS_DDL",
    "TRACES_DDL",
    "ACTUALS_DDL",
    "SATURATION_DDL",
    "INTERVALS_DDL",
    "META_DDL",
    "DDLS",
    "OUR_TABLES",
    "OPTIONAL_TABLES",
    "DUCKDB_CONFIG",
    "read_only_mode",
    "default_db_path",
    "connect",
    "permission_denied",
    "io_error",
    "disk_full",
    "no_space",
    "check_file_kind",
    "check_or_init",
]

DEFAULT_DB = Path(__file__).resolve().parents[2] / "data" / "costfrontier.duckdb"

RATES_DDL = """
CREATE TABLE IF NOT EXISTS tco_rates (
    source_id BIGINT NOT NULL, source_line BIGINT, price_set VARCHAR NOT NULL, tier VARCHAR NOT NULL,
    hardware VARCHAR NOT NULL, usd_per_gpu_hour DOUBLE NOT NULL, all_in_kw_per_gpu DOUBLE, source VARCHAR,
    read_on DATE                 -- the date the rate was read (schema 3); NULL: not dated
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
#: per-request data of load points (model.data.requests): each completed request's TTFT [s] and TPOT [ms]
REQUESTS_DDL = """
CREATE TABLE IF NOT EXISTS point_requests (
    source_id BIGINT NOT NULL, point_id BIGINT NOT NULL, requests BIGINT NOT NULL, ttft_s DOUBLE[] NOT NULL,
    tpot_ms DOUBLE[] NOT NULL
)"""
#: request traces a view names by reference (model.data.traces): each one's compact text (model.core.trace), stored
#: once (by its reference, a digest of that text) in the data version that added it
TRACES_DDL = """
CREATE TABLE IF NOT EXISTS traces (
    reference VARCHAR PRIMARY KEY, name VARCHAR NOT NULL, requests BIGINT NOT NULL, trace VARCHAR NOT NULL,
    added_in BIGINT NOT NULL
)"""
#: what a model's serving really cost and served, period by period (model.data.actuals): an OpenCost inference-cost
#: response (cost_basis allocation or usage) or a finance team's bill (cost_basis bill); periods are UTC, the end
#: excluded; a value the file does not state is NULL, a derived one is said in ``notes``
ACTUALS_DDL = """
CREATE TABLE IF NOT EXISTS actuals (
    source_id BIGINT NOT NULL, source_line BIGINT, model VARCHAR NOT NULL, model_version VARCHAR, namespace VARCHAR,
    cluster VARCHAR, period_start TIMESTAMP NOT NULL, period_end TIMESTAMP NOT NULL, cost_basis VARCHAR NOT NULL,
    usd DOUBLE NOT NULL, input_tokens DOUBLE, cached_input_tokens DOUBLE, output_tokens DOUBLE, total_tokens DOUBLE,
    usd_per_mtok DOUBLE, input_usd DOUBLE, output_usd DOUBLE, usd_per_m_input DOUBLE, usd_per_m_output DOUBLE,
    allocation_method VARCHAR, cache_savings_fraction DOUBLE, gpu_hours DOUBLE, hardware VARCHAR, notes VARCHAR,
    extra VARCHAR
)"""
#: how close the serving engines ran to their limits (model.data.importers.opencost_saturation): per engine (pod) and
#: window, KV-cache use [fraction of blocks], queue depth and running requests [requests] as avg, p95 and max, and
#: preemptions [count in the window], as OpenCost states them
SATURATION_DDL = """
CREATE TABLE IF NOT EXISTS actuals_saturation (
    source_id BIGINT NOT NULL, source_line BIGINT, model VARCHAR NOT NULL, namespace VARCHAR, pod VARCHAR,
    engine VARCHAR, period_start TIMESTAMP NOT NULL, period_end TIMESTAMP NOT NULL, kv_cache_usage_avg DOUBLE,
    kv_cache_usage_p95 DOUBLE, kv_cache_usage_max DOUBLE, queue_depth_avg DOUBLE, queue_depth_p95 DOUBLE,
    queue_depth_max DOUBLE, running_requests_avg DOUBLE, running_requests_p95 DOUBLE, running_requests_max DOUBLE,
    preemptions DOUBLE, notes VARCHAR, extra VARCHAR
)"""
#: each metric's run-to-run interval of a load point measured over repeated runs (model.data.intervals): as the
#: file states it (mean, std, min, max, cv, se, ci_low, ci_high, t_critical over ``runs`` runs at ``confidence``),
#: what model.core.run_to_run.check recomputed, and its status (agrees | differs | one run, no interval | not checked)
INTERVALS_DDL = """
CREATE TABLE IF NOT EXISTS point_intervals (
    source_id BIGINT NOT NULL, point_id BIGINT NOT NULL, metric VARCHAR NOT NULL, unit VARCHAR, runs BIGINT,
    confidence DOUBLE, mean DOUBLE, std DOUBLE, min DOUBLE, max DOUBLE, cv DOUBLE, se DOUBLE, ci_low DOUBLE,
    ci_high DOUBLE, t_critical DOUBLE, se_recomputed DOUBLE, t_expected DOUBLE, ci_low_recomputed DOUBLE,
    ci_high_recomputed DOUBLE, t_implied DOUBLE, status VARCHAR NOT NULL, detail VARCHAR
)"""
META_DDL = "CREATE TABLE IF NOT EXISTS costfrontier_meta (key VARCHAR PRIMARY KEY, value VARCHAR)"
OUR_TABLES = ("costfrontier_meta", "sources", "points", "tco_rates", "evals", "published_iso", "store_versions",
              "cost_profile_versions", "pins")
#: tables added within a schema version: created by a new database and by the first write that needs them
#: (model.data.api_prices, model.data.actuals, model.data.traces), so a database of this version may lack them; read
#: as empty when absent
OPTIONAL_TABLES = ("api_prices", "point_requests", "traces", "actuals", "actuals_saturation", "point_intervals")
DDLS = (META_DDL, SOURCES_DDL, POINTS_DDL, RATES_DDL, EVALS_DDL, PUBLISHED_DDL, API_PRICES_DDL, REQUESTS_DDL, TRACES_DDL,
        ACTUALS_DDL, SATURATION_DDL, INTERVALS_DDL, VERSIONS_DDL, PROFILE_VERSIONS_DDL, PINS_DDL, COST_PROFILES_DDL)
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


class StoreBusy(StoreError):
    """Another write held the writer lock for longer than the caller would wait, or the store kept changing
    while a reader opened it."""


class StoreNeedsMigration(StoreError):
    """An older-schema database opened read-only: it would have to be migrated (written) first."""


#: opens the live database read-only, following new snapshots, for COSTFRONTIER_READ_ONLY=1
#: (``model.data.snapshot`` registers it when imported: this layer never imports the snapshot layer above it)
READ_ONLY_OPENER = None


def read_only_mode() -> bool:
    """True when ``COSTFRONTIER_READ_ONLY`` is 1, true or yes: nothing may be written."""
    return os.environ.get("COSTFRONTIER_READ_ONLY", "").strip().lower() in ("1", "true", "yes")


def default_db_path() -> Path:
    """``$COSTFRONTIER_DB`` if set, else ``data/costfrontier.duckdb`` in the repo."""
    return Path(os.environ.get("COSTFRONTIER_DB") or DEFAULT_DB)


#: DuckDB settings for every connection: never download an extension (a SQLite or other foreign
#: file would otherwise make DuckDB fetch a scanner from the network)
DUCKDB_CONFIG = {"autoinstall_known_extensions": False}


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
            check_file_kind(Path(target))
        except PermissionError as exc:
            raise permission_denied(target) from exc
    try:
        con = duckdb.connect(target, read_only=read_only, config=dict(DUCKDB_CONFIG))
    except duckdb.IOException as exc:
        raise io_error(target, exc) from exc
    except duckdb.Error as exc:
        raise StoreError(f"{target}: damaged or unreadable, so it was not opened (the file is unchanged): "
                         f"{str(exc).splitlines()[0]}") from exc
    try:
        check_or_init(con, read_only, target)
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


def cannot_write(exc: OSError, what: str = "this write") -> StoreError:
    """An operating-system refusal to write beside the database, in words naming no path (for the CLI and
    viewers): a read-only file system, a missing folder, or another reason by its plain name."""
    code = getattr(exc, "errno", None)
    if code == errno.EROFS:
        why, hint = ("the file system holding the database is read-only",
                     "mount it writable, or serve the data read-only (COSTFRONTIER_READ_ONLY=1)")
    elif code == errno.ENOENT:
        why, hint = "the folder holding the database is gone", "create it, or choose another database (--db)"
    else:
        name = os.strerror(code).lower() if isinstance(code, int) else "an operating-system error"
        why, hint = f"the server could not write beside the database ({name})", "check the folder it is in"
    return StoreError(f"{why}, so {what} was refused and nothing was changed; {hint}",
                      public=f"{why[:1].upper() + why[1:]} on the server, so nothing can be changed here; the data "
                             "is unchanged.")


def disk_full(exc: BaseException) -> bool:
    """Whether ``exc`` (an ``OSError`` or a DuckDB error) says the disk or the quota is full."""
    text = str(exc).lower()
    return getattr(exc, "errno", None) in (errno.ENOSPC, errno.EDQUOT) or "no space left" in text \
        or "disk quota" in text


def no_space(what: str, sizes: str = "") -> StoreError:
    """The full-disk error, in plain words naming no path (for the CLI and for viewers): nothing of ``what``
    was written, with the space it needs and has (``sizes``) when known."""
    detail = f": {sizes}" if sizes else ""
    return StoreError(f"not enough disk space to store {what}{detail}; nothing was written and the database is "
                      "unchanged; free some space or move the database (--db)",
                      f"Not enough disk space on the server to store {what}{detail}. Nothing was written; "
                      "the data is unchanged.")


@contextmanager
def registered(con: duckdb.DuckDBPyConnection, name: str, table: Any) -> Iterator[None]:
    """``with registered(con, name, table):`` a DataFrame or Arrow table visible to SQL as ``name`` for the block.

    Leaving on an error that aborted the transaction (Ctrl-C inside a query, a full disk), unregistering fails
    too ("transaction is aborted"); that second error is dropped so the first, the one to say, goes on."""
    con.execute("SELECT 1").fetchall()   # registering refuses while a result of the connection is unfinished
    con.register(name, table)
    try:
        yield
    except BaseException:
        try:
            con.unregister(name)
        except duckdb.Error:
            pass
        raise
    con.unregister(name)


def check_file_kind(path: Path) -> None:
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
        for ddl in DDLS:
            scratch.execute(ddl)
        return {table: _columns(scratch, table) for table in OUR_TABLES}
    finally:
        scratch.close()


def check_or_init(con: duckdb.DuckDBPyConnection, read_only: bool, target: str = "",
                  verified: Callable[[Callable[[], None]], None] | None = None) -> None:
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
    elif tables <= set(OUR_TABLES + OPTIONAL_TABLES + ("cost_profiles",)) and {"sources", "points"} <= tables:
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
        # ``verified(check)`` runs the check unless this very file passed it before (model.data.memo)
        (verified or (lambda check: check()))(lambda: _verify_readable(con, where))
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
        for ddl in DDLS:
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
