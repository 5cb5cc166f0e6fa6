"""What a command keeps of a data version between runs: a view's frontier fit, the store's calibration and that its
file was read whole without a fault, on disk.

A rate does not change physics: the fit (the frontier and its leave-one-out, :mod:`model.present.answer_steps`) and
the band's calibration (:mod:`model.core.uncertainty`) are the same at any price, so a second ``costfrontier iso`` on
the same store fits nothing again. Each is kept as one file in the cache folder (``$COSTFRONTIER_CACHE_DIR``, else
``$XDG_CACHE_HOME/costfrontier``, else ``~/.cache/costfrontier``; ``off`` keeps nothing), named by the SHA-256 of
what it depends on:

- the store as it is now: its path, device, inode, size and modification time, and its write-ahead log's, so a store
  written since is never answered from an old fit (a write changes one of them);
- this code: the modification time and size of every module of ``model/``, so an upgrade refits;
- the step's key within the view's reading (:func:`model.present.view_answer.step_key`).

A fit is kept without the rows it was fitted on (those are read again; the pricing prepares them). The folder is
private (mode 0700, refused when another user owns it or others may write it), holds at most :data:`MAX_FILES`
files (the oldest go), and every file is written whole (a temporary name, then a rename). Anything unreadable is
made again; nothing here ever fails a command.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable

__all__ = ["CACHE_ENV", "MAX_FILES", "KEPT_STEPS", "cache_dir", "DiskMemo", "disk_memo"]

CACHE_ENV = "COSTFRONTIER_CACHE_DIR"
#: at most this many files are kept (the least recently written go first)
MAX_FILES = 256
#: the steps worth keeping: the expensive ones no rate changes
KEPT_STEPS = ("fit",)
_CODE = Path(__file__).resolve().parent.parent       # model/


def cache_dir() -> Path | None:
    """The cache folder (module docstring), or None when ``$COSTFRONTIER_CACHE_DIR`` is ``off``."""
    said = os.environ.get(CACHE_ENV, "").strip()
    if said.lower() == "off":
        return None
    if said:
        return Path(said)
    base = os.environ.get("XDG_CACHE_HOME", "").strip()
    return (Path(base) if base else Path.home() / ".cache") / "costfrontier"


def _stat(path: Path) -> tuple:
    try:
        st = path.stat()
    except OSError:
        return ()
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def _code() -> tuple:
    return tuple((str(p.relative_to(_CODE)), *_stat(p)[2:]) for p in sorted(_CODE.rglob("*.py")))


def _private(folder: Path) -> bool:
    """Make ``folder`` (mode 0700) and say whether it is ours alone to read and write."""
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = folder.stat()
    except OSError:
        return False
    return st.st_uid == os.getuid() and not st.st_mode & 0o022


class DiskMemo:
    """The memo :func:`model.present.view_answer.build_answer` takes (its ``memo``), kept on disk for the steps in
    :data:`KEPT_STEPS`; every other step is made each time. ``scope``: what the keys are within (the view's
    reading)."""

    def __init__(self, folder: Path, store: Path, scope: object = ()):
        self.folder = folder
        store = store.absolute()
        self._store = (str(store), _stat(store), _stat(Path(f"{store}.wal")), _code())
        self._scope = scope

    def within(self, scope: object) -> "DiskMemo":
        """The same memo for the keys of another reading."""
        out = DiskMemo.__new__(DiskMemo)
        out.folder, out._store, out._scope = self.folder, self._store, scope
        return out

    def _path(self, key: tuple) -> Path:
        return self.folder / (hashlib.sha256(repr((self._store, self._scope, key)).encode()).hexdigest()[:40]
                              + ".pickle")

    def kept(self, key: tuple, make: Callable[[], Any], strip: Callable[[Any], Any] = lambda v: v) -> Any:
        """The value kept under ``key``, else ``make()`` (kept as ``strip`` leaves it)."""
        path = self._path(key)
        try:
            with path.open("rb") as f:
                return pickle.load(f)
        except Exception:           # missing, half-written by a killed run, from an older Python: made again
            pass
        value = make()
        try:
            fd, tmp = tempfile.mkstemp(dir=self.folder, prefix=".", suffix=".tmp")
            with os.fdopen(fd, "wb") as f:
                pickle.dump(strip(value), f, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, path)
            self._prune()
        except Exception:           # a full disk, a read-only home: the command goes on without it
            try:
                os.unlink(tmp)
            except Exception:
                pass
        return value

    def verified(self, check: Callable[[], None]) -> None:
        """Run ``check`` (the read of every block of the store, :func:`model.data.database.check_or_init`) unless
        this very file passed it before; remember that it did."""
        self.kept(("verified",), lambda: check() or True)

    def get_or_make(self, key: tuple, make: Callable[[], Any], needs: tuple = ()) -> Any:
        if key[0] not in KEPT_STEPS:
            return make()
        return self.kept(key, make, _without_rows)

    def _prune(self) -> None:
        files = sorted(self.folder.glob("*.pickle"), key=lambda p: _stat(p)[3:] or (0,))
        for old in files[:max(0, len(files) - MAX_FILES)]:
            try:
                old.unlink()
            except OSError:
                pass


def _without_rows(fit):
    """A fit as kept: its frontier and leave-one-out, not the rows it was fitted on (read again when used)."""
    return replace(fit, prepared=None) if getattr(fit, "prepared", None) is not None else fit


def disk_memo(store: str | os.PathLike) -> DiskMemo | None:
    """The disk memo of the store at ``store`` (None when caching is off or the folder is not private)."""
    folder = cache_dir()
    if folder is None or not _private(folder):
        return None
    return DiskMemo(folder, Path(store))
