"""The readers of the store: each attaches the live file read-only and follows the snapshots the writer
(:mod:`model.data.snapshot`) publishes, never locking a write out and never seeing half of one.

Readers (:class:`Reader`, the dashboard; read commands of the CLI) attach the live file
``READ_ONLY`` in a private in-memory DuckDB, so they hold only a shared lock on the inode they
opened: a rename never waits for them and they never see half a write. ``Reader.current()`` stats
the path (a few microseconds) and opens the new file when a new snapshot was published; the
previous one is closed then, unless a rerun or query still holds it (``Reader.acquire`` /
``release`` / ``hold``): then its last holder's release closes it. Superseded versions (and the
deleted files they keep open) are thus bounded by the holders, never by the write rate.

A missing database is served as an empty store (``Snapshot.changed_at is None``); an older schema is
refused with advice (:class:`model.data.database.StoreNeedsMigration`), not migrated. A new snapshot
costs each reader process one re-open (a checksum scan of every table, about 0.05 s per 300,000 points).
"""

from __future__ import annotations

import os
import threading
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterator, NamedTuple

import duckdb

from model.data import database
from model.data.database import (
    DDLS,
    DUCKDB_CONFIG,
    OPTIONAL_TABLES,
    OUR_TABLES,
    StoreBusy,
    StoreError,
    check_file_kind,
    check_or_init,
    default_db_path,
    io_error,
    permission_denied,
)

__all__ = [
    "wal_path",
    "empty_store",
    "open_snapshot",
    "Snapshot",
    "Reader",
    "changed_text",
    "open_reader",
    "LiveConnection",
    "Cursors",
]


def wal_path(path: Path) -> Path:
    """The write-ahead log DuckDB keeps beside the database file ``path``."""
    return path.with_name(path.name + ".wal")


def _token(live: Path) -> tuple:
    """What changes whenever a snapshot is published: the file's identity, mtime and size."""
    try:
        st = os.stat(live)
    except FileNotFoundError:
        return ("missing",)
    except PermissionError as exc:
        raise permission_denied(str(live)) from exc
    wal = wal_path(live)
    wal_st = os.stat(wal) if wal.exists() else None
    return (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_size,
            (wal_st.st_mtime_ns, wal_st.st_size) if wal_st else None)


def empty_store() -> duckdb.DuckDBPyConnection:
    """An in-memory store with every table and no rows: what a missing database is served as."""
    con = duckdb.connect(":memory:", config=dict(DUCKDB_CONFIG))
    for ddl in DDLS:
        con.execute(ddl)
    return con


#: tables our code creates when first needed, not at connect time (names are ours, never from a file)
_OPTIONAL_TABLES = ("cost_profiles", *OPTIONAL_TABLES)   # api_prices: model.data.api_prices


def open_snapshot(path: str | os.PathLike, verified=None) -> duckdb.DuckDBPyConnection:
    """The database at ``path``, read-only, as one connection whose cursors see its tables.

    The file is attached ``READ_ONLY`` to a private in-memory DuckDB (never through DuckDB's
    per-path instance cache, which would hand back an older snapshot at the same path) and each of
    our tables is a view of it. Nothing is written: not the file, not its WAL (a leftover WAL is
    replayed in memory only), not its directory. Raises :class:`StoreError` for a missing,
    foreign, damaged, unreadable or older-schema file. ``verified``: how the read of every block is
    skipped for a file that passed it before (:meth:`model.data.memo.DiskMemo.verified`).
    """
    live = Path(path).absolute()
    if not live.exists():
        raise StoreError(f"{live}: no database there, and a read does not create one (nothing was written); "
                         f"check --db, or ingest something first: costfrontier --db {live} load-samples",
                         public="No data store yet.")
    try:
        check_file_kind(live)
    except PermissionError as exc:
        raise permission_denied(str(live)) from exc
    con = duckdb.connect(":memory:", config=dict(DUCKDB_CONFIG))
    try:
        quoted = str(live).replace("'", "''")  # ATTACH takes no parameters; the path is ours, quoted
        try:
            con.execute(f"ATTACH '{quoted}' AS snap (READ_ONLY)")
        except duckdb.IOException as exc:
            raise io_error(str(live), exc) from exc
        except duckdb.Error as exc:
            raise StoreError(f"{live}: damaged or unreadable, so it was not opened (the file is unchanged): "
                             f"{str(exc).splitlines()[0]}") from exc
        con.execute("USE snap")
        try:
            check_or_init(con, True, str(live), verified)
        except duckdb.Error as exc:
            raise StoreError(f"{live}: damaged or unreadable, so it was not opened (the file is unchanged): "
                             f"{str(exc).splitlines()[0]}") from exc
        con.execute("USE memory")
        present = {r[0] for r in con.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_catalog = 'snap' "
            "AND table_schema = 'main'").fetchall()}
        for table in OUR_TABLES:  # names from our own constant tuple
            if table in present:
                con.execute(f"CREATE VIEW {table} AS SELECT * FROM snap.main.{table}")
            else:
                con.execute(next(d for d in DDLS if f" {table} " in d))
        for table in _OPTIONAL_TABLES:  # created on first use (cost profiles): a view when the file has one
            if table in present:
                con.execute(f"CREATE VIEW {table} AS SELECT * FROM snap.main.{table}")
    except BaseException:
        con.close()
        raise
    return con


class Cursors:
    """A read-only connection that many threads share and none can tie up: each query runs on a cursor of its
    own (DuckDB's ``cursor()``: a connection to the same database, safe to use from another thread while this
    one runs a query), so two sessions' reruns never meet in one call ("connection is busy with another call").

    ``execute``, ``sql`` and the other query methods each take a fresh cursor and return it (``con.execute(q)
    .fetchall()`` reads as before); ``cursor()`` hands one out to keep for several queries. The connection under
    it is only closed (:meth:`close`)."""

    __slots__ = ("_con",)

    def __init__(self, con: duckdb.DuckDBPyConnection):
        self._con = con

    def cursor(self) -> duckdb.DuckDBPyConnection:
        return self._con.cursor()

    def execute(self, *args, **kwargs) -> duckdb.DuckDBPyConnection:
        return self._con.cursor().execute(*args, **kwargs)

    def sql(self, *args, **kwargs):
        return self._con.cursor().sql(*args, **kwargs)

    def close(self) -> None:
        self._con.close()

    def __getattr__(self, name: str):
        # anything else a connection offers (fetch methods included) belongs to one cursor's query: a cursor of
        # its own, never the shared connection
        return getattr(self._con.cursor(), name)


class Snapshot(NamedTuple):
    """One published version of the store, as a reader sees it."""

    #: read-only and shared by every thread: each query on it runs on its own cursor (:class:`Cursors`)
    con: Cursors
    #: hashable; changes whenever a new snapshot is published (key caches with it)
    version: tuple
    #: when the data last changed (the snapshot's mtime, UTC); None when there is no database yet
    changed_at: datetime | None


class Reader:
    """Follows the live database: :meth:`current` re-opens it when a new snapshot was published.

    Thread-safe; holds nothing that blocks a writer. One per process and database path.

    What stays open is bounded by use, not by time or write rate: the current snapshot, plus each
    superseded one that is still *held* (:meth:`acquire` .. :meth:`release`, or :meth:`hold`) by a
    running rerun or query. A superseded snapshot nobody holds is closed when a newer one is opened;
    a held one is closed by its last :meth:`release`. So a process keeps at most ``1 + holders``
    versions (and deleted-but-open files) whatever the write rate, and an idle one keeps one.
    """

    def __init__(self, path: str | os.PathLike | None = None):
        self.path = Path(path or default_db_path()).absolute()
        self._lock = threading.Lock()
        self._snap: Snapshot | None = None
        self._holds: dict[int, int] = {}          # id(snapshot.con) -> how many holders
        self._superseded: dict[int, Snapshot] = {}  # replaced but still held: closed by the last release

    def current(self) -> Snapshot:
        """The newest published snapshot: one ``stat`` when nothing changed, a re-open when it did.

        Not held: a caller that queries it while another thread may open a newer version should
        :meth:`acquire` (or :meth:`hold`) it instead. Raises :class:`StoreError` (``.public`` is safe
        to show viewers) when the file cannot be served; the next call tries again.
        """
        with self._lock:
            return self._current()

    def _current(self) -> Snapshot:
        token = _token(self.path)
        if self._snap is None or self._snap.version != token:
            fresh = self._open(token)
            old, self._snap = self._snap, fresh
            if old is not None:
                if self._holds.get(id(old.con)):
                    self._superseded[id(old.con)] = old
                else:
                    old.con.close()
        return self._snap

    def acquire(self) -> Snapshot:
        """:meth:`current`, held until :meth:`release`: it stays open even when a newer one is published."""
        with self._lock:
            snap = self._current()
            self._holds[id(snap.con)] = self._holds.get(id(snap.con), 0) + 1
            return snap

    def release(self, snap: Snapshot) -> None:
        """Let go of a snapshot from :meth:`acquire`; a superseded one is closed by its last holder.
        Releasing a snapshot this reader does not hold does nothing."""
        with self._lock:
            key = id(snap.con)
            count = self._holds.get(key, 0)
            if count > 1:
                self._holds[key] = count - 1
            elif count == 1:
                del self._holds[key]
                old = self._superseded.pop(key, None)
                if old is not None:
                    old.con.close()

    @contextmanager
    def hold(self) -> Iterator[Snapshot]:
        """``with reader.hold() as snap:`` the newest snapshot, open until the block ends."""
        snap = self.acquire()
        try:
            yield snap
        finally:
            self.release(snap)

    def open_versions(self) -> int:
        """How many snapshots this reader has open (the current one and the superseded ones still held)."""
        with self._lock:
            return (self._snap is not None) + len(self._superseded)

    def _open(self, token: tuple) -> Snapshot:
        for _ in range(5):
            if token == ("missing",):
                return Snapshot(Cursors(empty_store()), token, None)
            con = open_snapshot(self.path)
            again = _token(self.path)
            if again == token:  # no publish between the stat and the attach
                return Snapshot(Cursors(con), token, datetime.fromtimestamp(token[2] / 1e9, tz=timezone.utc))
            con.close()
            token = again
        raise StoreBusy(f"{self.path}: the database changed five times while it was being opened; try again",
                        public="The data is being updated; try again in a moment.")

    def close(self) -> None:
        with self._lock:
            for old in self._superseded.values():
                old.con.close()
            self._superseded.clear()
            self._holds.clear()
            if self._snap is not None:
                self._snap.con.close()
                self._snap = None


def changed_text(changed_at: datetime | None, now: datetime | None = None) -> str:
    """What the page says about the data's age, e.g. ``"Data last changed 2026-05-20 14:03 UTC (3 min ago)"``.

    Parameters
    ----------
    changed_at : datetime or None
        :attr:`Snapshot.changed_at` (UTC); None when there is no database yet.
    now : datetime, optional
        The time to measure from (UTC); default: now.
    """
    if changed_at is None:
        return "No data yet"
    seconds = max(0.0, ((now or datetime.now(timezone.utc)) - changed_at).total_seconds())
    for size, unit in ((86400, "day"), (3600, "h"), (60, "min")):
        if seconds >= size:
            count = int(seconds // size)
            ago = f"{count} {unit}{'s' if unit == 'day' and count > 1 else ''} ago"
            break
    else:
        ago = "just now"
    return f"Data last changed {changed_at:%Y-%m-%d %H:%M} UTC ({ago})"


def open_reader(path: str | os.PathLike | None = None) -> Reader:
    """A :class:`Reader` of ``path`` (default: ``$COSTFRONTIER_DB`` or ``data/costfrontier.duckdb``)."""
    return Reader(path)


class LiveConnection:
    """A read-only stand-in for a connection that follows the live snapshot (``connect`` in read-only mode).

    ``.cursor()`` and ``.execute()`` go to :meth:`Reader.current`, so code written for one long-lived
    connection sees each newly published snapshot on its next query. The snapshot of the last cursor
    handed out is held (cursors still being read keep working) until a cursor of a newer one is.
    """

    def __init__(self, reader: Reader):
        self.reader = reader
        self._held: Snapshot | None = None

    def cursor(self) -> duckdb.DuckDBPyConnection:
        snap = self.reader.acquire()
        old, self._held = self._held, snap
        if old is not None:
            self.reader.release(old)
        return snap.con.cursor()

    def execute(self, *args, **kwargs) -> duckdb.DuckDBPyConnection:
        return self.cursor().execute(*args, **kwargs)

    def close(self) -> None:
        self.reader.close()


def _open_live(target: str) -> "LiveConnection":
    return LiveConnection(open_reader(target))


database.READ_ONLY_OPENER = _open_live   # model.data.database.connect in read-only mode opens through this layer
