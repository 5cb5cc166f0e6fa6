"""The disk the Data page's upload previews use is bounded (issue 32): each uploaded file is copied once to a
``costfrontier-upload-*`` folder, and the copies go when the session's state goes, past a few files per session,
after an ingest, or when stale (a process killed before it could remove them). Real AppTest sessions of the app."""

from __future__ import annotations

import gc
import os
import tempfile
import time
from pathlib import Path

import pytest

from tests.kit import open_page
from tests.test_app import _db
from ui import uploads

DATA = "views/data.py"
CSV = b"hardware,gpus,tput_per_gpu,tok_s_user\nB200,8,1000,50\nB200,8,900,60\n"


@pytest.fixture(autouse=True)
def private_tmp(tmp_path, monkeypatch):
    """The copies go to this test's own temporary directory: another test process previewing uploads at the same
    time (xdist) makes its own folders in the shared one."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def _spools() -> set[Path]:
    return set(Path(tempfile.gettempdir()).glob(uploads.SPOOL_PREFIX + "*"))


def _upload(at, name: str, content: bytes = CSV):
    at.file_uploader(key="upload_0").upload(name, content)
    at.run()
    assert not at.exception, at.exception
    return at


def test_a_viewer_who_uploads_and_leaves_leaves_no_copy(tmp_path, monkeypatch):
    monkeypatch.setenv("COSTFRONTIER_DB", str(_db(tmp_path, samples=False)))
    before = _spools()
    at = _upload(open_page(DATA), "sweep.csv")
    at.text_input(key="meta_concurrency").input("8")      # new form values: a new preview of the same copy
    at.run()
    made = _spools() - before
    assert len(made) == 1, made                            # one copy per file, not per form values
    (folder,) = made
    assert (folder / "sweep.csv").read_bytes() == CSV
    assert "2 rows of points" in "\n".join(s.value for s in at.success)     # the preview read the copy
    del at                                                 # the session ends: its state goes
    gc.collect()
    assert not folder.exists() and _spools() - before == set()


def test_one_session_keeps_the_copies_of_its_newest_files(tmp_path, monkeypatch):
    monkeypatch.setenv("COSTFRONTIER_DB", str(_db(tmp_path, samples=False)))
    before = _spools()
    at = open_page(DATA)
    for i in range(uploads.FILES_PER_SESSION + 2):
        _upload(at, f"run{i}.csv", CSV.replace(b"1000", str(1000 + i).encode()))
        assert len(_spools() - before) <= uploads.FILES_PER_SESSION
    kept = sorted(p.name for folder in _spools() - before for p in folder.iterdir())
    assert len(kept) == uploads.FILES_PER_SESSION and "run5.csv" in kept and "run0.csv" not in kept, kept
    at.button(key="ingest").click().run()                 # an ingest removes them at once
    assert not at.exception and _spools() - before == set()


def test_stale_copies_are_swept_and_held_or_recent_ones_kept(tmp_path):
    old, recent, other, held = (tmp_path / f"{uploads.SPOOL_PREFIX}{n}" for n in ("old", "recent", "x", "held"))
    for folder in (old, recent, other, held):
        folder.mkdir()
        (folder / "f.csv").write_bytes(CSV)
    unrelated = tmp_path / "not-ours"
    unrelated.mkdir()
    day_ago = time.time() - 24 * 3600
    for folder in (old, other, held, unrelated):
        os.utime(folder, (day_ago, day_ago))
    session = uploads._Spools()                            # a live session of this process holds one of them
    session.folders["file-id"] = held
    assert uploads.sweep(folder=str(tmp_path)) == 2        # old and other: not used for a day, held by no session
    assert not old.exists() and not other.exists() and recent.exists() and unrelated.exists() and held.exists()
    later = time.time() + (uploads.STALE_HOURS + 1) * 3600
    assert uploads.sweep(now=later, folder=str(tmp_path)) == 1 and not recent.exists() and unrelated.exists()
    assert held.exists()
    session.close()                                        # the session goes: its copy with it
    assert not held.exists()
