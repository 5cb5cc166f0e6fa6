"""Bounded resources under writes: a reader keeps only the current snapshot and the ones still held
(issue #22, item 3), and an over-limit JSON result is refused before it is read (item 6)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from model.data.snapshot import LiveConnection, open_reader, write
from tests.conftest import ROOT
from tests.replica import deleted_open


def _deleted_open(directory: Path) -> int:
    """This process's open files in ``directory`` that have been replaced (unlinked)."""
    return deleted_open(os.getpid(), directory)


def _publish(db: Path, i: int) -> None:
    write(db, lambda con: con.execute(f"CREATE OR REPLACE TABLE scratch AS SELECT {int(i)} AS i"))


pytestmark = pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc")


def test_a_reader_keeps_one_version_whatever_the_write_rate(sample_db):
    reader = open_reader(sample_db)
    try:
        worst_deleted = worst_versions = 0
        for i in range(40):
            _publish(sample_db, i)
            snap = reader.current()
            assert snap.con.cursor().execute("SELECT count(*) FROM points").fetchone()[0] > 0
            worst_deleted = max(worst_deleted, _deleted_open(sample_db.parent))
            worst_versions = max(worst_versions, reader.open_versions())
        assert worst_versions == 1
        assert worst_deleted <= 1
        assert _deleted_open(sample_db.parent) == 0   # the current version is the live file
    finally:
        reader.close()
    assert _deleted_open(sample_db.parent) == 0


def test_a_held_snapshot_stays_open_until_released_then_closes(sample_db):
    reader = open_reader(sample_db)
    try:
        held = reader.acquire()        # a rerun running on it
        n = held.con.cursor().execute("SELECT count(*) FROM points").fetchone()[0]
        worst_deleted = worst_versions = 0
        for i in range(40):
            _publish(sample_db, i)
            reader.current()           # other sessions' reruns follow the new versions
            worst_deleted = max(worst_deleted, _deleted_open(sample_db.parent))
            worst_versions = max(worst_versions, reader.open_versions())
        assert worst_versions <= 2 and worst_deleted <= 2
        assert held.con.cursor().execute("SELECT count(*) FROM points").fetchone()[0] == n   # still readable
        reader.release(held)           # the rerun ends: the superseded version closes at once
        assert reader.open_versions() == 1
        assert _deleted_open(sample_db.parent) == 0
        with pytest.raises(duckdb.Error):
            held.con.cursor()
        with reader.hold() as snap:    # the context-manager form
            assert snap is reader.current()
        reader.release(snap)           # releasing what is not held does nothing
        assert reader.current().con.cursor().execute("SELECT max(i) FROM snap.main.scratch").fetchone()[0] == 39
    finally:
        reader.close()


def test_an_idle_reader_frees_superseded_versions_on_its_next_call(sample_db):
    reader = open_reader(sample_db)
    try:
        reader.current()
        for i in range(5):
            _publish(sample_db, i)     # nobody reads meanwhile
        assert _deleted_open(sample_db.parent) <= 1
        reader.current()
        assert reader.open_versions() == 1
        assert _deleted_open(sample_db.parent) == 0
    finally:
        reader.close()


def test_a_live_connection_holds_only_its_last_snapshot(sample_db):
    live = LiveConnection(open_reader(sample_db))
    try:
        for i in range(10):
            _publish(sample_db, i)
            assert live.execute("SELECT count(*) FROM points").fetchone()[0] > 0
            assert live.reader.open_versions() == 1
            assert _deleted_open(sample_db.parent) == 0
    finally:
        live.close()


# ------------------------------------------------------------------ item 6: a JSON result too large to parse

# the peak of this process's own memory: VmHWM, not getrusage's ru_maxrss, which Linux keeps across execve
# (a child of a large pytest process would report the parent's peak)
RUN = r"""
import json, sys
from model.cli import main
code = main(sys.argv[1:])
hwm = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(json.dumps({"code": code, "maxrss_mb": hwm / 1024}))
"""


def test_an_over_limit_json_is_refused_before_it_is_read(tmp_path):
    """A 160 MB vLLM result (its real head, then a sparse tail) is refused by its size, naming it,
    with the process far below the 2 GB parsing it would take."""
    big = tmp_path / "big.json"
    head = (ROOT / "tests/fixtures/formats/vllm_serve.json").read_bytes()
    with open(big, "wb") as out:
        out.write(head)
        out.truncate(160 * 1024 * 1024)
    db = tmp_path / "db.duckdb"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("COSTFRONTIER_MAX_JSON_MB", None)
    done = subprocess.run([sys.executable, "-c", RUN, "--db", str(db), "ingest", str(big), "--set", "model=GLM-5"],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["code"] != 0
    assert "big.json: the file is 160 MB, more than the 64 MB a JSON result may be" in done.stderr
    assert "split it or convert it to CSV" in done.stderr
    assert result["maxrss_mb"] < 300, result


def test_the_json_limit_is_a_setting(tmp_path, monkeypatch):
    from model.data.importers import parse
    from model.data.importers.base import IngestError

    records = json.loads((ROOT / "tests/fixtures/formats/vllm_serve.json").read_text())
    path = tmp_path / "run.json"
    path.write_text(json.dumps(records) + " " * (2 * 1024 * 1024))   # 2 MB, valid
    monkeypatch.setenv("COSTFRONTIER_MAX_JSON_MB", "1")
    with pytest.raises(IngestError, match=r"run.json: the file is 2 MB, more than the 1 MB a JSON result may be "
                                          r"\(COSTFRONTIER_MAX_JSON_MB\)"):
        parse(path, "run.json", "vllm")
    monkeypatch.setenv("COSTFRONTIER_MAX_JSON_MB", "3")
    frame, fmt, _ = parse(path, "run.json", "vllm")
    assert fmt == "vllm" and len(frame) > 0
