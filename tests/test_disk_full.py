"""A full disk during a write: one plain message, exit code 2, no traceback, the live database unchanged.

Simulated (the copy or the checkpoint raising ENOSPC) everywhere; on a real, small tmpfs when this
machine lets the tests mount one (as root), else that test is skipped.
"""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

import model.data.snapshot as snapshot
from model.data.snapshot import write
from model.data.store import StoreError
from tests.kit import cli, cli_process
from tests.test_bad_inputs import _checksums

ROOT = Path(__file__).resolve().parent.parent
ROWS = "hardware,gpus,tput_per_gpu,tok_s_user\n" + "".join(f"B200,8,{1000 + i},{50 + i % 9}\n" for i in range(200))


def _one_error_line(err: str) -> str:
    assert "Traceback" not in err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1, err
    return lines[0]


def test_a_copy_that_does_not_fit_is_one_plain_error(sample_db, tmp_path, monkeypatch):
    before, raw = _checksums(sample_db), sample_db.read_bytes()
    csv = tmp_path / "run.csv"
    csv.write_text(ROWS)

    def full(src, dst, *args, **kwargs):
        Path(dst).write_bytes(b"x" * 1000)   # a partial copy, then the disk is full
        raise OSError(errno.ENOSPC, "No space left on device", str(dst))

    monkeypatch.setattr(snapshot.shutil, "copyfile", full)
    code, _, err = cli(sample_db, "ingest", csv)
    assert code == 2
    line = _one_error_line(err)
    size_mb = f"{(sample_db.stat().st_size + (32 << 20)) / (1 << 20):,.0f}"
    assert line.startswith(f"error: not enough disk space to store this write: it needs about {size_mb} MB ("), line
    assert "MB free)" in line and str(tmp_path) not in line and "Errno" not in line
    assert sample_db.read_bytes() == raw and _checksums(sample_db) == before
    assert not list(sample_db.parent.glob(".samples.duckdb.*"))   # the partial copy is gone


def test_too_little_free_space_is_refused_before_copying(sample_db, tmp_path, monkeypatch):
    monkeypatch.setattr(snapshot, "_free_space", lambda directory: 5 << 20)
    copies = []
    monkeypatch.setattr(snapshot.shutil, "copyfile", lambda *a, **k: copies.append(a))
    with pytest.raises(StoreError) as err:
        write(sample_db, lambda con: None)
    assert copies == []
    assert "(5 MB free)" in str(err.value) and "Not enough disk space on the server" in err.value.public
    assert "/" not in err.value.public


def test_a_checkpoint_that_does_not_fit_is_one_plain_error(sample_db, tmp_path, monkeypatch):
    before = _checksums(sample_db)
    csv = tmp_path / "run.csv"
    csv.write_text(ROWS)

    def fatal(path, before):
        raise duckdb.FatalException("FATAL Error: Failed to create checkpoint because of error: Could not write "
                                    f"file \"{path}\": No space left on device")

    monkeypatch.setattr(snapshot, "_unchanged", fatal)
    code, out, err = cli(sample_db, "ingest", csv)
    assert code == 2
    line = _one_error_line(err)
    assert line.startswith("error: not enough disk space") and str(tmp_path) not in line and "FATAL" not in line
    assert _checksums(sample_db) == before


@pytest.fixture
def small_disk(tmp_path):
    mount = tmp_path / "small"
    mount.mkdir()
    if shutil.which("mount") is None or subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", str(mount)],
                                                     capture_output=True).returncode != 0:
        pytest.skip("cannot mount a tmpfs here (needs root)")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True)


def test_a_real_full_disk_through_the_cli(small_disk, tmp_path, monkeypatch):
    """A real 64 MB tmpfs: a 200,000-row ingest into a database there runs out of room (its copy, WAL or
    checkpoint) once the check before the copy has passed (the margin is made 0): one line, exit 2, the live database still holds what it held."""
    db = small_disk / "cf.duckdb"
    loaded = cli_process(db, "load-samples")
    assert loaded.returncode == 0, loaded.stderr
    before = _checksums(db)
    big = tmp_path / "big.csv"
    with open(big, "w") as handle:
        handle.write("hardware,gpus,concurrency,tput_per_gpu,tok_s_user,notes\n")
        for i in range(400_000):
            handle.write(f"B200,8,{i + 1},{1000 + i % 977},{50 + i % 13},run {i:09d} {'x' * 20}\n")
    filler = small_disk / "filler"   # leaves room for the copy and 1 MB more: the check passes, the ingest cannot
    free = shutil.disk_usage(small_disk).free
    filler.write_bytes(b"\0" * (free - snapshot._space_needed(db) + snapshot._WRITE_MARGIN - (1 << 20)))
    proc = subprocess.run([sys.executable, "-c", "import sys, model.data.snapshot as s; s._WRITE_MARGIN = 0; "
                           "from model.cli import main; sys.exit(main())", "--db", str(db), "ingest", str(big)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr, free)
    line = _one_error_line(proc.stderr)
    assert line.startswith("error: not enough disk space") and str(small_disk) not in line
    assert "/" not in line and "Errno" not in line
    assert _checksums(db) == before
    assert not [p for p in small_disk.iterdir() if p.name.startswith(".cf.duckdb.")]   # no copy left behind


@pytest.fixture
def full_folder(tmp_path, monkeypatch):
    """A folder with almost no room: a real 64 KB tmpfs, filled but for 8 KB, where this machine lets the tests mount
    one (as root, as CI runs); else a folder where every write of a report's file fails for lack of space (an
    injected ENOSPC after part of it was written)."""
    mount = tmp_path / "tiny"
    mount.mkdir()
    if shutil.which("mount") and subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)],
                                                capture_output=True).returncode == 0:
        try:
            (mount / "filler").write_bytes(b"\0" * (shutil.disk_usage(mount).free - (8 << 10)))
            yield mount
        finally:
            subprocess.run(["umount", "-l", str(mount)], capture_output=True)
        return
    import model.data.export as export

    real = export.os.fsync

    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(export.os, "fsync", full)
    yield mount
    monkeypatch.setattr(export.os, "fsync", real)


@pytest.mark.parametrize("option, name", [("--out", "proposal.html"), ("--out", "tables.xlsx"),
                                          ("--bundle", "proposal.zip")])
def test_a_report_that_does_not_fit_leaves_no_partial_file(sample_db, full_folder, monkeypatch, option, name):
    """``report --out``/``--bundle X.zip`` onto a full disk: exit 2, one line saying so, and nothing left beside it
    (``.NAME.partial`` stayed before). The bundle's files are made small stand-ins here (no PDF printed): what is
    tested is the write."""
    import model.present.bundle as bundle

    monkeypatch.setattr(bundle, "bundle_files", lambda *a, **k: {"report.html": os.urandom(256 << 10)})
    before = sorted(p.name for p in full_folder.iterdir())
    code, out, err = cli(sample_db, "report", "--where", "model=GLM-5", option, str(full_folder / name))
    assert code == 2, (out, err)
    assert _one_error_line(err) == f"error: could not write {name}: No space left on device", err
    assert sorted(p.name for p in full_folder.iterdir()) == before      # no .NAME.partial, no NAME
