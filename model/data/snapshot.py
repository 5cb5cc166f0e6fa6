"""One store, many readers, one writer at a time: publish a new snapshot, never lock readers out.

The live database file is never written in place. A write (:func:`writing` / :func:`write`):

1. takes the writer lock, ``<db>.lock`` beside the database (``flock``; other writers wait for it
   a bounded time, then get :class:`StoreBusy`);
2. copies the live file to ``.<db>.writing-<random>`` in the same directory, and runs the caller's
   transactions on that copy (``ingest_file``, ``remove_source``, ``load_samples`` take the
   connection it yields, unchanged);
3. if anything was committed: checkpoints, fsyncs, and renames the copy over the live path
   (``os.replace``: atomic), then fsyncs the directory. If nothing was committed, or the caller
   raised, or the process was killed, the copy is dropped and the live file is untouched.

Readers (:class:`Reader`, the dashboard; read commands of the CLI) attach the live file
``READ_ONLY`` in a private in-memory DuckDB, so they hold only a shared lock on the inode they
opened: a rename never waits for them and they never see half a write. ``Reader.current()`` stats
the path (a few microseconds) and opens the new file when a new snapshot was published; the
previous one is closed then, unless a rerun or query still holds it (``Reader.acquire`` /
``release`` / ``hold``): then its last holder's release closes it. Superseded versions (and the
deleted files they keep open) are thus bounded by the holders, never by the write rate.

Read-only mode (``COSTFRONTIER_READ_ONLY=1``) writes nothing, ever: no file, lock, directory or
WAL checkpoint. A missing database is served as an empty store (``Snapshot.changed_at is None``);
an older schema is refused with advice (:class:`model.data.store.StoreNeedsMigration`), not migrated.
What each costs: a read is a plain DuckDB query; a write copies the whole file once (about
0.2 s per 100 MB on local disk, fsync included) plus the ingest itself; a new snapshot costs each reader process
one re-open (a checksum scan of every table, about 0.05 s per 300,000 points).
"""

from __future__ import annotations

import errno
import fcntl
import os
import secrets
import shutil
import threading
import time
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Iterator, NamedTuple, TypeVar

import duckdb

from model.data import store
from model.data.store import (
    _CONFIG,
    _DDLS,
    OPTIONAL_TABLES,
    OUR_TABLES,
    StoreError,
    StoreNeedsMigration,
    _check_file_kind,
    _check_or_init,
    connect,
    default_db_path,
    io_error,
    permission_denied,
)

__all__ = [
    "refuse_read_only",
    "READ_ONLY_ENV",
    "DEFAULT_WAIT_S",
    "StoreBusy",
    "write_memory",
    "Snapshot",
    "Reader",
    "LiveConnection",
    "read_only_mode",
    "open_reader",
    "open_snapshot",
    "writing",
    "write",
    "run_command",
    "changed_text",
]

READ_ONLY_ENV = "COSTFRONTIER_READ_ONLY"
#: how long a write waits for another write to finish before giving up [s]
DEFAULT_WAIT_S = float(os.environ.get("COSTFRONTIER_WRITE_WAIT_S", "30"))
_WRITING = ".writing-"

T = TypeVar("T")


def write_memory() -> str:
    """DuckDB's memory cap for one write: ``$COSTFRONTIER_WRITE_MEMORY`` (e.g. ``2GB``), else 1GB."""
    return os.environ.get("COSTFRONTIER_WRITE_MEMORY", "").strip() or "1GB"


class StoreBusy(StoreError):
    """Another write held the writer lock for longer than the caller would wait."""


def read_only_mode() -> bool:
    """True when ``COSTFRONTIER_READ_ONLY`` is 1, true or yes: nothing may be written."""
    return store.read_only_mode()


def _lock_path(live: Path) -> Path:
    return live.with_name(live.name + ".lock")


def _wal(path: Path) -> Path:
    return path.with_name(path.name + ".wal")


def _token(live: Path) -> tuple:
    """What changes whenever a snapshot is published: the file's identity, mtime and size."""
    try:
        st = os.stat(live)
    except FileNotFoundError:
        return ("missing",)
    except PermissionError as exc:
        raise permission_denied(str(live)) from exc
    wal = _wal(live)
    wal_st = os.stat(wal) if wal.exists() else None
    return (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_size,
            (wal_st.st_mtime_ns, wal_st.st_size) if wal_st else None)


# ---------------------------------------------------------------------------------------------- readers

def empty_store() -> duckdb.DuckDBPyConnection:
    """An in-memory store with every table and no rows: what a missing database is served as."""
    con = duckdb.connect(":memory:", config=dict(_CONFIG))
    for ddl in _DDLS:
        con.execute(ddl)
    return con


#: tables our code creates when first needed, not at connect time (names are ours, never from a file)
_OPTIONAL_TABLES = ("cost_profiles", *OPTIONAL_TABLES)   # api_prices: model.data.api_prices


def open_snapshot(path: str | os.PathLike) -> duckdb.DuckDBPyConnection:
    """The database at ``path``, read-only, as one connection whose cursors see its tables.

    The file is attached ``READ_ONLY`` to a private in-memory DuckDB (never through DuckDB's
    per-path instance cache, which would hand back an older snapshot at the same path) and each of
    our tables is a view of it. Nothing is written: not the file, not its WAL (a leftover WAL is
    replayed in memory only), not its directory. Raises :class:`StoreError` for a missing,
    foreign, damaged, unreadable or older-schema file.
    """
    live = Path(path).absolute()
    if not live.exists():
        raise StoreError(f"{live}: no database there, and a read does not create one (nothing was written); "
                         f"check --db, or ingest something first: costfrontier --db {live} load-samples",
                         public="No data store yet.")
    try:
        _check_file_kind(live)
    except PermissionError as exc:
        raise permission_denied(str(live)) from exc
    con = duckdb.connect(":memory:", config=dict(_CONFIG))
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
            _check_or_init(con, True, str(live))
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
                con.execute(next(d for d in _DDLS if f" {table} " in d))
        for table in _OPTIONAL_TABLES:  # created on first use (cost profiles): a view when the file has one
            if table in present:
                con.execute(f"CREATE VIEW {table} AS SELECT * FROM snap.main.{table}")
    except BaseException:
        con.close()
        raise
    return con


class Snapshot(NamedTuple):
    """One published version of the store, as a reader sees it."""

    #: read-only connection; take ``.cursor()`` per query (thread-safe that way)
    con: duckdb.DuckDBPyConnection
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
                return Snapshot(empty_store(), token, None)
            con = open_snapshot(self.path)
            again = _token(self.path)
            if again == token:  # no publish between the stat and the attach
                return Snapshot(con, token, datetime.fromtimestamp(token[2] / 1e9, tz=timezone.utc))
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


# ---------------------------------------------------------------------------------------------- the writer

def refuse_read_only(what: str = "this write") -> None:
    if read_only_mode():
        raise StoreError(f"{READ_ONLY_ENV} is set, so {what} was refused and nothing was changed; run it where "
                         "the variable is unset (the deployment's one writer)",
                         public="This is a read-only deployment: nothing can be changed here.")


@contextmanager
def _writer_lock(live: Path, timeout_s: float) -> Iterator[None]:
    lock = _lock_path(live)
    try:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o664)
    except PermissionError as exc:
        raise permission_denied(str(live.parent)) from exc
    try:
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise StoreBusy(
                        f"another write to this database did not finish within {timeout_s:g} s, so this one was "
                        "not started and nothing was changed; try again in a moment",
                        public=f"Another update of the data is still running (waited {timeout_s:g} s); nothing "
                               "was changed. Try again in a moment.") from None
                time.sleep(0.05)
        yield
    finally:
        os.close(fd)  # releases the lock; the lock file stays (removing it would race other writers)


def _wait_for_direct_writers(live: Path, timeout_s: float) -> None:
    """Wait while another process has the live file open read-write (DuckDB's exclusive lock: a
    dashboard of an older version, a DuckDB shell). Publishing then would drop what it writes."""
    if not live.exists():
        return
    deadline = time.monotonic() + timeout_s
    while True:
        fd = os.open(live, os.O_RDONLY)
        try:
            fcntl.lockf(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)  # readers' shared locks do not conflict
            return
        except OSError:
            if time.monotonic() >= deadline:
                raise StoreBusy(
                    f"{live}: another program has this database open for writing (an older Cost Frontier "
                    f"dashboard, or a DuckDB shell) and did not close it within {timeout_s:g} s; nothing was "
                    "changed. Close it, or serve it read-only (COSTFRONTIER_READ_ONLY=1), then try again",
                    public="The data store is held by another program; nothing was changed. Try again later.") \
                    from None
        finally:
            os.close(fd)
        time.sleep(0.05)


def _fsync(path: Path, directory: bool = False) -> None:
    fd = os.open(path, os.O_RDONLY | (os.O_DIRECTORY if directory else 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _absorb_leftover_wal(live: Path) -> None:
    """A WAL beside the live file (left by a writer of an older version that was killed): let DuckDB
    replay it into the file, as opening it read-write always has, before the file is copied."""
    con = connect(live)
    try:
        con.execute("CHECKPOINT")
    finally:
        con.close()


def _unchanged(path: Path, before: tuple[int, int]) -> bool:
    st = os.stat(path)
    return (st.st_mtime_ns, st.st_size) == before and not _wal(path).exists()


@contextmanager
def writing(path: str | os.PathLike | None = None,
            timeout_s: float = DEFAULT_WAIT_S) -> Iterator[duckdb.DuckDBPyConnection]:
    """A read-write connection to a private copy of the store, published when the block ends.

    Parameters
    ----------
    path : path-like, optional
        The live database (default: ``$COSTFRONTIER_DB`` or ``data/costfrontier.duckdb``); created
        when missing.
    timeout_s : float
        How long to wait for another write to finish [s]; past it, :class:`StoreBusy`.

    The block may run several transactions (``ingest_file`` commits once per file); readers see
    all of them at once, when the block exits without an exception, or none of them. An older
    schema is migrated in the copy. In read-only mode, or on a file whose mode forbids writing
    (``chmod 444``), nothing is attempted and :class:`StoreError` says why.
    """
    refuse_read_only()
    live = Path(path or default_db_path()).absolute()
    try:
        live.parent.mkdir(parents=True, exist_ok=True)
    except PermissionError as exc:
        raise permission_denied(str(live.parent)) from exc
    if live.exists():
        try:
            _check_file_kind(live)
        except PermissionError as exc:
            raise permission_denied(str(live)) from exc
        if not live.stat().st_mode & 0o222:
            raise permission_denied(str(live))
    with _writer_lock(live, timeout_s):
        for stale in live.parent.glob(f".{live.name}{_WRITING}*"):  # copies (and spill folders) of killed writers
            shutil.rmtree(stale, ignore_errors=True) if stale.is_dir() else stale.unlink(missing_ok=True)
        _wait_for_direct_writers(live, timeout_s)
        if _wal(live).exists():
            _absorb_leftover_wal(live)
        copy = live.with_name(f".{live.name}{_WRITING}{secrets.token_hex(6)}")
        need = _space_needed(live)
        _check_space(live, need)
        try:
            if live.exists():
                shutil.copyfile(live, copy)
                shutil.copymode(live, copy)
                st = os.stat(copy)
                before = (st.st_mtime_ns, st.st_size)
            else:
                before = (-1, -1)
            try:
                con = connect(copy)
            except StoreError as exc:  # name the live file, not the private copy
                raise type(exc)(str(exc).replace(str(copy), str(live)), exc.public) from exc
            try:
                # one checkpoint at the end, not one per 16 MB of WAL: and a WAL left means "changed"
                con.execute("SET checkpoint_threshold = '1TB'")
                con.execute("SET memory_limit = ?", [write_memory()])  # spills to disk past it
                con.execute("SET enable_progress_bar = false")  # it would land in the CLI's --json output
                yield con
                changed = not _unchanged(copy, before)
                if changed:
                    con.execute("CHECKPOINT")
            finally:
                con.close()
            if changed:
                _fsync(copy)
                os.replace(copy, live)
                _fsync(live.parent, directory=True)
        except PermissionError as exc:
            raise permission_denied(str(live)) from exc
        except OSError as exc:
            if exc.errno in _NO_SPACE:
                raise _no_space(live, need) from None
            raise
        except duckdb.Error as exc:   # the copy's spill, WAL or checkpoint did not fit
            if "no space left" in str(exc).lower() or "disk quota" in str(exc).lower():
                raise _no_space(live, need) from None
            raise
        finally:
            for leftover in (copy, _wal(copy)):
                leftover.unlink(missing_ok=True)
            shutil.rmtree(copy.with_name(copy.name + ".tmp"), ignore_errors=True)


#: errnos of a full disk (or a full quota)
_NO_SPACE = (errno.ENOSPC, errno.EDQUOT)
#: room a write needs beyond its copy of the store (the new rows, the WAL, the checkpoint) [bytes]
_WRITE_MARGIN = 32 << 20


def _space_needed(live: Path) -> int:
    """Free space a write of ``live`` needs: its private copy plus a margin (32 MB, or 10 % of the file) [bytes]."""
    size = live.stat().st_size if live.exists() else 0
    return size + max(_WRITE_MARGIN, size // 10)


def _free_space(directory: Path) -> int:
    return shutil.disk_usage(directory).free


def _no_space(live: Path, need: int, free: int | None = None) -> StoreError:
    """The full-disk error: plain words and the sizes (no path), for the CLI and for viewers."""
    if free is None:
        try:
            free = _free_space(live.parent)
        except OSError:
            free = 0
    sizes = f"the write needs about {_mb(need)} MB ({_mb(free)} MB free)"
    return StoreError(f"not enough disk space on the database's disk: {sizes}; free some space or move the "
                      "database (--db); nothing was written and the database is unchanged",
                      f"Not enough disk space on the server: {sizes}. Nothing was written; the data is unchanged.")


def _mb(size: int) -> str:
    return f"{max(size, 0) / (1 << 20):,.0f}"


def _check_space(live: Path, need: int) -> None:
    """Refuse a write before copying the store when the disk cannot hold the copy and its margin."""
    try:
        free = _free_space(live.parent)
    except OSError:
        return   # unknown: the copy itself will say
    if free < need:
        raise _no_space(live, need, free)


def write(path: str | os.PathLike | None, fn: Callable[[duckdb.DuckDBPyConnection], T],
          timeout_s: float = DEFAULT_WAIT_S) -> T:
    """Run ``fn(con)`` inside :func:`writing` and return what it returns.

    E.g. ``write(db, lambda con: ingest_file(con, path, set_fields, display_name=name))``.
    """
    with writing(path, timeout_s) as con:
        return fn(con)


def run_command(path: str | os.PathLike, writes: bool, fn: Callable[[duckdb.DuckDBPyConnection], T]) -> T:
    """What the CLI does with its database: writes through :func:`write`; reads through
    :func:`open_snapshot`, which never creates, migrates or locks the file against a writer.

    A read of an older-schema file migrates it first through the write path, unless read-only mode
    forbids writing (then the read is refused with advice).
    """
    if writes:
        refuse_read_only("this command, which writes,")
        return write(path, fn)
    try:
        con = open_snapshot(path)
    except StoreNeedsMigration:
        if read_only_mode():
            raise
        write(path, lambda con: None)  # the copy is migrated when it is opened
        con = open_snapshot(path)
    try:
        return fn(con)
    finally:
        con.close()


def _open_live(target: str) -> "LiveConnection":
    return LiveConnection(open_reader(target))


store.READ_ONLY_OPENER = _open_live   # model.data.store.connect in read-only mode opens through this layer
