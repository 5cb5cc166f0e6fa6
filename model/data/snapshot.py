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

Readers (:mod:`model.data.readers`, re-exported here) attach the live file read-only and follow each
published snapshot; a rename never waits for them and they never see half a write.

Read-only mode (``COSTFRONTIER_READ_ONLY=1``) writes nothing, ever: no file, lock, directory or
WAL checkpoint. A missing database is served as an empty store (``Snapshot.changed_at is None``);
an older schema is refused with advice (:class:`model.data.database.StoreNeedsMigration`), not migrated.
What each costs: a read is a plain DuckDB query; a write copies the whole file once (about
0.2 s per 100 MB on local disk, fsync included) plus the ingest itself.
"""

from __future__ import annotations

import errno
import fcntl
import os
import secrets
import shutil
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator, TypeVar

import duckdb

from model.data.database import (
    StoreBusy,
    StoreError,
    StoreNeedsMigration,
    cannot_write,
    check_file_kind,
    connect,
    default_db_path,
    disk_full,
    no_space,
    permission_denied,
    read_only_mode,
)
from model.data.memo import disk_memo
from model.data.readers import (  # the readers' side, re-exported: callers import both from here
    LiveConnection,
    Reader,
    Snapshot,
    changed_text,
    empty_store,
    open_reader,
    open_snapshot,
    wal_path,
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
    "empty_store",
]

READ_ONLY_ENV = "COSTFRONTIER_READ_ONLY"
#: how long a write waits for another write to finish before giving up [s]
DEFAULT_WAIT_S = float(os.environ.get("COSTFRONTIER_WRITE_WAIT_S", "30"))
_WRITING = ".writing-"

T = TypeVar("T")


def write_memory() -> str:
    """DuckDB's memory cap for one write: ``$COSTFRONTIER_WRITE_MEMORY`` (e.g. ``2GB``), else 1GB."""
    return os.environ.get("COSTFRONTIER_WRITE_MEMORY", "").strip() or "1GB"


def _lock_path(live: Path) -> Path:
    return live.with_name(live.name + ".lock")


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
    except OSError as exc:   # a read-only file system, a folder gone: in words, no path
        raise cannot_write(exc) from None
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
    return (st.st_mtime_ns, st.st_size) == before and not wal_path(path).exists()


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
    except OSError as exc:
        raise cannot_write(exc) from None
    if live.exists():
        try:
            check_file_kind(live)
        except PermissionError as exc:
            raise permission_denied(str(live)) from exc
        if not live.stat().st_mode & 0o222:
            raise permission_denied(str(live))
    with _writer_lock(live, timeout_s):
        for stale in live.parent.glob(f".{live.name}{_WRITING}*"):  # copies (and spill folders) of killed writers
            shutil.rmtree(stale, ignore_errors=True) if stale.is_dir() else stale.unlink(missing_ok=True)
        _wait_for_direct_writers(live, timeout_s)
        if wal_path(live).exists():
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
        except (OSError, duckdb.Error) as exc:   # the copy, or its spill, WAL or checkpoint, did not fit
            if disk_full(exc):
                raise _no_space(live, need) from None
            if isinstance(exc, OSError) and exc.errno in (errno.EROFS, errno.ENOENT):
                raise cannot_write(exc) from None
            raise
        finally:
            for leftover in (copy, wal_path(copy)):
                leftover.unlink(missing_ok=True)
            shutil.rmtree(copy.with_name(copy.name + ".tmp"), ignore_errors=True)


#: room a write needs beyond its copy of the store (the new rows, the WAL, the checkpoint) [bytes]
_WRITE_MARGIN = 32 << 20


def _space_needed(live: Path) -> int:
    """Free space a write of ``live`` needs: its private copy plus a margin (32 MB, or 10 % of the file) [bytes]."""
    size = live.stat().st_size if live.exists() else 0
    return size + max(_WRITE_MARGIN, size // 10)


def _free_space(directory: Path) -> int:
    return shutil.disk_usage(directory).free


def _no_space(live: Path, need: int, free: int | None = None) -> StoreError:
    """:func:`model.data.database.no_space` of this write, with the space it needs and the space free."""
    if free is None:
        try:
            free = _free_space(live.parent)
        except OSError:
            free = 0
    return no_space("this write", f"it needs about {_mb(need)} MB ({_mb(free)} MB free)")


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
    memo = disk_memo(path)
    try:
        con = open_snapshot(path, memo.verified if memo is not None else None)
    except StoreNeedsMigration:
        if read_only_mode():
            raise
        write(path, lambda con: None)  # the copy is migrated when it is opened
        con = open_snapshot(path)
    try:
        return fn(con)
    finally:
        con.close()
