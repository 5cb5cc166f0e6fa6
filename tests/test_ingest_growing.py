"""Issue 38: a file is read as one version of itself. A file that grows while ``costfrontier ingest`` reads it was
stored part-read with exit 0 (609,500 rows of a file that had 600,000 at the start), and ingesting the finished
file again stored every row a second time. Now a file whose size or modification time changes during its ingest
is refused, naming it ("changed while it was read; nothing stored"), nothing of it is stored, and the finished
file then ingests once.

Deterministic, not lucky: the real ``costfrontier ingest`` runs in a subprocess on a file big enough to take
seconds; a writer thread starts appending whole lines as soon as that process has the file open (read from
``/proc/PID/fd``) and keeps appending, every few milliseconds, until the process exits. So the file changes
between the ingest's first look at it and its last, whatever the machine's speed."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from model.data.ingest import ingest_file
from model.data.store import connect
from tests.conftest import reading

EXE = str(Path(sys.executable).with_name("costfrontier"))
HEADER = "hardware,model,framework,precision,spec_decode,tp,gpus,isl,osl,concurrency,tput_per_gpu,tok_s_user\n"
ROWS = 600_000

pytestmark = pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="reads /proc/PID/fd (Linux)")


def _row(i: int) -> str:
    return f"B200,GLM-5,sglang,fp8,none,8,8,8192,1024,{i + 1},{100 + i % 5000}.5,{10 + i % 90}.25\n"


def _big_csv(path: Path) -> Path:
    with open(path, "w", encoding="utf-8") as out:
        out.write(HEADER)
        for start in range(0, ROWS, 50_000):
            out.write("".join(_row(i) for i in range(start, min(start + 50_000, ROWS))))
    return path


def _has_open(pid: int, path: Path) -> bool:
    try:
        return any(os.readlink(f"/proc/{pid}/fd/{fd}") == str(path) for fd in os.listdir(f"/proc/{pid}/fd"))
    except OSError:     # the process ended, or a descriptor closed while it was read
        return False


class _Appender(threading.Thread):
    """Appends one whole line at a time to ``path`` from the moment ``proc`` opens it until ``proc`` exits."""

    def __init__(self, proc: subprocess.Popen, path: Path, first: int):
        super().__init__(daemon=True)
        self.proc, self.path, self.next, self.appended, self.opened = proc, path, first, 0, False

    def run(self) -> None:
        while self.proc.poll() is None and not _has_open(self.proc.pid, self.path):
            time.sleep(0.002)
        self.opened = self.proc.poll() is None
        while self.proc.poll() is None:
            with open(self.path, "a", encoding="utf-8") as out:
                out.write(_row(self.next))
            self.next += 1
            self.appended += 1
            time.sleep(0.005)


def _sources(db: Path) -> list[tuple]:
    with reading(db) as con:
        return con.execute("SELECT file_name, rows FROM sources").fetchall()


def test_a_file_growing_while_it_is_ingested_is_refused_and_then_ingested_once(tmp_path):
    csv, db = _big_csv(tmp_path / "growing.csv"), tmp_path / "g.duckdb"
    proc = subprocess.Popen([EXE, "--db", str(db), "ingest", str(csv)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    writer = _Appender(proc, csv.absolute(), ROWS)
    writer.start()
    out, err = proc.communicate(timeout=600)
    writer.join(timeout=10)
    assert writer.opened and writer.appended >= 1, "the writer never saw the ingest open the file"
    assert proc.returncode == 1, (out, err)
    assert "growing.csv: changed while it was read (from " in err and "; nothing stored" in err
    assert _sources(db) == []                                          # nothing of it: no source, no rows
    with reading(db) as con:
        assert con.execute("SELECT count(*) FROM points").fetchone()[0] == 0

    total = ROWS + writer.appended                                      # the finished file
    assert sum(1 for _ in open(csv, encoding="utf-8")) == total + 1
    done = subprocess.run([EXE, "--db", str(db), "ingest", str(csv)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert _sources(db) == [("growing.csv", total)]
    again = subprocess.run([EXE, "--db", str(db), "ingest", str(csv)], capture_output=True, text=True, timeout=600)
    assert again.returncode == 0 and _sources(db) == [("growing.csv", total)]      # once, not twice
    with reading(db) as con:
        assert con.execute("SELECT count(*) FROM points").fetchone()[0] == total


def test_a_small_file_changed_between_its_read_and_its_commit_is_refused(tmp_path, monkeypatch):
    """The bulk path's small files and JSON files are checked too: here the check itself, on a file rewritten (same
    size, new inode) after the ingest looked at it, through the one hook the ingest calls last."""
    import model.data.ingest as ingest

    csv = tmp_path / "small.csv"
    csv.write_text(HEADER + _row(0) + _row(1), encoding="utf-8")
    real = ingest.unchanged_since

    def rewritten_meanwhile(path, before, name):
        replacement = tmp_path / "replacement.csv"
        replacement.write_text(HEADER + _row(2) + _row(3), encoding="utf-8")
        replacement.replace(csv)                                       # a new file under the old name
        real(path, before, name)

    monkeypatch.setattr(ingest, "unchanged_since", rewritten_meanwhile)
    con = connect(tmp_path / "s.duckdb")
    try:
        with pytest.raises(ingest.IngestError, match=r"small.csv: changed while it was read; nothing stored"):
            ingest_file(con, csv)
        assert con.execute("SELECT count(*) FROM sources").fetchone()[0] == 0
        monkeypatch.setattr(ingest, "unchanged_since", real)
        assert ingest_file(con, csv).rows_added == 2
    finally:
        con.close()
