"""The Data page's upload preview, kept in the session while the user types (ui is the only layer that touches
the session), and the copies of the uploads it checks, bounded on disk.

Each uploaded file is copied once to a folder ``costfrontier-upload-*`` in the temporary directory (without reading
it into memory); its previews (one per form values) read that copy, and the ingest reads it. The copies go:

- after an ingest (:func:`drop_previews`);
- past :data:`FILES_PER_SESSION` uploaded files in one session (the oldest file's copy, with its previews);
- when the session's state goes (the viewer closed the tab and the server dropped the session), or the server
  process exits: they belong to an object in the session's state (``weakref.finalize``);
- when a preview finds a copy that has not been used for :data:`STALE_HOURS` (left by a process that was killed,
  whatever replica made it): swept, at most once a minute.

So the disk the previews use is at most :data:`FILES_PER_SESSION` uploads (each at most the upload limit) per open
session, and nothing once the sessions are gone.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
import time
import weakref
from pathlib import Path

import streamlit as st

from model.data.preview import dry_run

__all__ = ["preview", "drop_previews", "sweep", "SPOOL_PREFIX", "FILES_PER_SESSION", "STALE_HOURS",
           "PREVIEWS_PER_SESSION"]

#: the prefix of every upload copy's folder in the temporary directory
SPOOL_PREFIX = "costfrontier-upload-"
#: the uploaded files whose copies one session keeps (the newest); a preview of an older one copies it again
FILES_PER_SESSION = 4
#: the previews one session keeps (one per file and form values: typing in the form makes new ones)
PREVIEWS_PER_SESSION = 16
#: a copy not used for this long is stale and swept by the next preview of any session [hours]
STALE_HOURS = 6.0
_SWEEP_EVERY_S = 60.0
_KEY = "_upload_spools"
_LIVE: "weakref.WeakSet[_Spools]" = weakref.WeakSet()
_LOCK = threading.Lock()
_last_sweep = [0.0]


def _remove(folders: dict) -> None:
    for folder in list(folders.values()):
        shutil.rmtree(folder, ignore_errors=True)
    folders.clear()


class _Spools:
    """One session's upload copies (file id -> folder, oldest first) and previews ((file id, form values) -> the
    dry run). Its folders are removed when it is collected (its session's state went) or at exit."""

    def __init__(self) -> None:
        self.folders: dict[str, Path] = {}
        self.previews: dict[tuple, dict] = {}
        self._done = weakref.finalize(self, _remove, self.folders)
        _LIVE.add(self)

    def copy_of(self, upload) -> Path:
        """The copy of ``upload`` (made now unless this session has it on disk); marked used."""
        folder = self.folders.get(upload.file_id)
        spool = folder / _name(upload) if folder is not None else None
        if spool is not None and spool.exists():
            os.utime(folder)                     # in use: not stale
            return spool
        self.forget(upload.file_id)
        folder = Path(tempfile.mkdtemp(prefix=SPOOL_PREFIX))
        self.folders[upload.file_id] = folder
        spool = folder / _name(upload)
        upload.seek(0)
        with open(spool, "wb") as out:
            shutil.copyfileobj(upload, out)
        for old in list(self.folders)[:-FILES_PER_SESSION]:   # the oldest files' copies go
            self.forget(old)
        return spool

    def forget(self, file_id: str) -> None:
        """Remove one file's copy and its previews."""
        folder = self.folders.pop(file_id, None)
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
        for key in [k for k in self.previews if k[0] == file_id]:
            del self.previews[key]

    def close(self) -> None:
        self.previews.clear()
        self._done()                            # removes the copies now (and not again)


def _name(upload) -> str:
    return Path(upload.name).name or "upload"


def _holder() -> _Spools:
    found = st.session_state.get(_KEY)
    if not isinstance(found, _Spools):
        found = st.session_state[_KEY] = _Spools()
    return found


def sweep(now: float | None = None, folder: str | None = None) -> int:
    """Remove the upload copies in the temporary directory (``folder``) not used for :data:`STALE_HOURS` and held by
    no session of this process; returns how many went. ``now``: the time to age them to (default: now)."""
    now = time.time() if now is None else now
    held = {str(f) for spools in list(_LIVE) for f in spools.folders.values()}
    gone = 0
    with os.scandir(folder or tempfile.gettempdir()) as entries:
        for entry in entries:
            if not entry.name.startswith(SPOOL_PREFIX) or entry.path in held:
                continue
            try:
                stale = entry.is_dir(follow_symlinks=False) and now - entry.stat(follow_symlinks=False).st_mtime > \
                    STALE_HOURS * 3600
            except OSError:
                continue
            if stale:
                shutil.rmtree(entry.path, ignore_errors=True)
                gone += 1
    return gone


def _sweep_now_and_then() -> None:
    with _LOCK:
        if time.monotonic() - _last_sweep[0] < _SWEEP_EVERY_S and _last_sweep[0]:
            return
        _last_sweep[0] = time.monotonic()
    try:
        sweep()
    except OSError:      # an unreadable temporary directory: the copies are still bounded per session
        pass


def preview(upload, set_fields: tuple[str, ...]) -> tuple[dict, Path]:
    """The upload preview (:func:`model.data.preview.dry_run` on a bounded sample) and the copy it read, kept per
    upload and form values while the user types; the upload is copied once (:class:`_Spools`)."""
    _sweep_now_and_then()
    spools = _holder()
    spool = spools.copy_of(upload)
    key = (upload.file_id, set_fields)
    if key not in spools.previews:
        while len(spools.previews) >= PREVIEWS_PER_SESSION:   # the oldest previews go (their copies stay)
            del spools.previews[next(iter(spools.previews))]
        spools.previews[key] = dry_run(spool, set_fields, display_name=upload.name)
    return spools.previews[key], spool


def drop_previews() -> None:
    """After an ingest: the previews and their temporary copies go."""
    found = st.session_state.pop(_KEY, None)
    if isinstance(found, _Spools):
        found.close()
