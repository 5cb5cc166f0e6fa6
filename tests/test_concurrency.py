"""Many viewers, one writer. In one process: Streamlit serves each session on its own thread, sharing one
DuckDB connection through ``.cursor()``. Across processes (replicas, the CLI): writers publish a new
snapshot (model.data.snapshot) and readers follow it. Readers must never error and never see part of a file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time

import pytest

from model.core.analysis import analyse
from model.core.view import View
from model.data.ingest import IngestError, ingest_file
from model.data.presets import load_presets
from model.data.snapshot import StoreBusy, write
from model.data.store import connect, load_points, remove_source
from tests import test_deploy
from tests.checksums import table_checksums
from tests.conftest import ROOT
from tests.kit import cli_process
from tests.test_crash_safety import write_big_csv
from tests.test_deploy import NEW_ROWS, SAMPLE_ROWS_IN_VIEW, new_points_csv, rerun_until, rows_in_view

replicas = test_deploy.replicas  # the deployment test's fixture (``browser`` is tests/conftest.py's)

READERS = 8
ROWS = 100_000


@pytest.mark.slow
def test_readers_see_all_or_nothing_while_one_file_goes_in_and_another_is_refused(tmp_path, sample_con):
    con = sample_con
    good, bad = tmp_path / "big.csv", tmp_path / "big_bad.csv"
    write_big_csv(good, ROWS)
    write_big_csv(bad, ROWS)
    with open(bad, "a", encoding="utf-8") as handle:  # refused at validation, after all rows are staged
        handle.write("B200,big,fp8,8,8,1,1024,1024,-5,50,100,20\n")
    samples = len(load_points(con))
    before = table_checksums(con)

    stop = threading.Event()
    writing = threading.Event()
    errors: list[BaseException] = []
    seen: list[tuple[float, str, int]] = []  # (query start, what, rows of the big file seen)
    loops = [0] * READERS
    lock = threading.Lock()

    def reader(i: int) -> None:
        cursor = con.cursor()
        try:
            while not stop.is_set():
                sql_at = time.perf_counter()  # when each query starts: its snapshot is no older
                in_sql = cursor.execute(
                    "SELECT count(*) FROM points p JOIN sources s USING (source_id) WHERE s.file_name = ?",
                    [good.name]).fetchone()[0]
                refused = cursor.execute(
                    "SELECT count(*) FROM sources WHERE file_name = ?", [bad.name]).fetchone()[0]
                load_at = time.perf_counter()
                points = load_points(cursor)
                in_frame = int((points["source_file"] == good.name).sum())
                assert len(points) - in_frame == samples
                assert int((points["source_file"] == bad.name).sum()) == 0 and refused == 0
                if i % 2 == 0:  # half the readers also run the whole analysis, as the dashboard does
                    result = analyse(points, View(), load_presets())
                    assert not result.frontier.empty
                with lock:
                    seen.append((sql_at, "sql", in_sql))
                    seen.append((load_at, "load_points", in_frame))
                    loops[i] += 1
        except BaseException as exc:  # noqa: BLE001 - every failure is the test's business
            errors.append(exc)
        finally:
            cursor.close()

    threads = [threading.Thread(target=reader, args=(i,), daemon=True) for i in range(READERS)]
    for thread in threads:
        thread.start()
    time.sleep(0.3)  # every reader is looping before the write starts
    writer = con.cursor()
    try:
        writing.set()
        start = time.perf_counter()
        result = ingest_file(writer, good)
        committed = time.perf_counter()
        assert result.rows_added == ROWS
        after_good = table_checksums(writer)
        with pytest.raises(IngestError, match="greater than 0"):
            ingest_file(writer, bad)
        refused_at = time.perf_counter()
        assert table_checksums(writer) == after_good
        time.sleep(0.3)
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=60)
        writer.close()

    assert not errors, errors
    assert all(count in (0, ROWS) for _, _, count in seen), sorted({c for _, _, c in seen})
    during = [c for t, _, c in seen if start <= t <= committed]
    assert len(during) >= READERS, "readers must have queried while the file went in"
    assert any(c == 0 for t, _, c in seen if t < committed)
    assert all(c == ROWS for t, _, c in seen if t > committed)  # a query begun after the commit sees it
    assert any(start <= t <= refused_at for t, _, _ in seen)
    assert min(loops) >= 2, loops
    assert table_checksums(con)["points"][0] == before["points"][0] + ROWS
    print(f"\n{READERS} readers, {sum(loops)} read loops in all, around a {committed - start:.2f} s ingest of {ROWS} "
          f"rows and a refused file; counts seen: {sorted({c for _, _, c in seen})}")


def test_connect_twice_in_one_process_shares_the_database(tmp_path):
    """The UI and CLI may both open the default database in one process: no lock error."""
    path = tmp_path / "shared.duckdb"
    first = connect(path)
    second = connect(path)
    first.execute("SELECT count(*) FROM points").fetchone()
    second.execute("SELECT count(*) FROM points").fetchone()
    second.close()
    first.close()


# ------------------------------------------------------------------ real processes: the published-snapshot store

READER = r"""
import json, sys, time
from pathlib import Path
from model.data.snapshot import open_reader
db, stop = sys.argv[1], Path(sys.argv[2])
reader, loops, versions, counts, errors = open_reader(db), 0, set(), set(), []
while not stop.exists() or loops < 3:
    try:
        snap = reader.current()
        cur = snap.con.cursor()
        # what the latest data version shows: a removed source is hidden, its rows kept (model.data.versions)
        stated = cur.execute("SELECT coalesce(sum(rows), 0) FROM sources WHERE kind = 'points' AND removed_in IS NULL"
                             ).fetchone()[0]
        stored = cur.execute("SELECT count(*) FROM points WHERE source_id IN "
                             "(SELECT source_id FROM sources WHERE removed_in IS NULL)").fetchone()[0]
        if stated != stored:  # a snapshot is a whole number of files: never part of one
            errors.append(f"sources say {stated} points, points holds {stored}")
        versions.add(repr(snap.version))
        counts.add(int(stored))
        loops += 1
    except Exception as exc:
        errors.append(repr(exc))
print(json.dumps({"loops": loops, "versions": len(versions), "counts": sorted(counts), "errors": errors[:5]}))
"""

WRITER = r"""
import sys
from model.cli import main
db, files = sys.argv[1], sys.argv[2:]
codes = [main(["--db", db, "ingest", f, "--set", "model=GLM-5"]) for f in files]
codes.append(main(["--db", db, "remove", "1"]))  # a delete goes through the same path
print(" ".join(map(str, codes)))
"""


@pytest.mark.slow
def test_two_read_only_replicas_and_a_writer_run_side_by_side(sample_db, tmp_path):
    """Two reader processes (what each read-only replica does: Reader.current() per rerun, then queries)
    and one writer process (the CLI: 6 ingests and a delete) run together; nobody errs or waits."""
    con = connect(sample_db, read_only=True)
    samples, first = point_count_and_first_source(con)
    con.close()
    files = [str(new_points_csv(tmp_path / f"new{i}.csv", rows=3 + i, tag=f"w{i}")) for i in range(6)]
    stop = tmp_path / "stop"
    env = {**os.environ, "COSTFRONTIER_READ_ONLY": "1"}
    readers = [subprocess.Popen([sys.executable, "-c", READER, str(sample_db), str(stop)], cwd=ROOT, env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    time.sleep(2.0)  # both readers are looping before the writer starts
    writer = subprocess.run([sys.executable, "-c", WRITER, str(sample_db), *files], cwd=ROOT, text=True,
                            capture_output=True, timeout=300)
    stop.touch()
    outs = [json.loads(r.communicate(timeout=120)[0]) for r in readers]
    print(f"\nreaders: {outs}")
    assert writer.returncode == 0 and writer.stdout.splitlines()[-1].split() == ["0"] * 7, writer.stderr
    final = samples + sum(3 + i for i in range(6)) - first
    for out in outs:
        assert out["errors"] == [], out["errors"]
        assert out["loops"] >= 20 and out["versions"] >= 2, out
        assert final in out["counts"] and all(samples - first <= c <= samples + 33 for c in out["counts"]), out
    assert not list(sample_db.parent.glob(".*.writing-*")), "no private copy is left behind"


def point_count_and_first_source(con) -> tuple[int, int]:
    """(points stored, points of source #1)."""
    total = con.execute("SELECT count(*) FROM points").fetchone()[0]
    first = con.execute("SELECT count(*) FROM points WHERE source_id = 1").fetchone()[0]
    return int(total), int(first)


@pytest.mark.e2e
@test_deploy.needs_chromium
def test_cli_ingest_while_two_dashboards_are_open(replicas, browser, tmp_path):
    """Two `streamlit run app.py` processes on the same file, open in Chromium: the CLI reads and
    ingests meanwhile (no "in use by another process"), and both show the new rows on their next rerun."""
    db, ports, procs = replicas
    pages = []
    for port in ports:
        context = browser.new_context()
        page = context.new_page()
        page.goto(f"http://127.0.0.1:{port}/")
        assert rows_in_view(page) == SAMPLE_ROWS_IN_VIEW
        pages.append((context, page))
    try:
        listed = cli_process(db, "sources")
        assert listed.returncode == 0 and "inferencex_glm5_fp8_2026-05-20.csv" in listed.stdout, listed.stderr
        result = cli_process(db, "ingest", str(new_points_csv(tmp_path / "new.csv")), "--set", "model=GLM-5")
        assert result.returncode == 0 and f"{NEW_ROWS} rows added" in result.stdout, result.stderr
        for _, page in pages:
            assert rerun_until(page, SAMPLE_ROWS_IN_VIEW + NEW_ROWS) == SAMPLE_ROWS_IN_VIEW + NEW_ROWS
    finally:
        for context, _ in pages:
            context.close()


def test_writers_take_turns_and_a_busy_lock_is_a_bounded_wait_with_a_clean_message(sample_db):
    """One process holds the writer lock; a write here waits its timeout, then says so without a path or PID."""
    holder = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(sample_db)], cwd=ROOT, stdout=subprocess.PIPE,
                              text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        before = sample_db.read_bytes()
        started = time.perf_counter()
        with pytest.raises(StoreBusy) as err:
            write(sample_db, lambda con: con.execute("DELETE FROM points"), timeout_s=0.5)
        waited = time.perf_counter() - started
        assert 0.5 <= waited < 5, waited
        assert sample_db.read_bytes() == before
        for text in (str(err.value), err.value.public):
            assert "another" in text.lower() and str(sample_db.parent) not in text and str(holder.pid) not in text
            assert sys.executable not in text
    finally:
        holder.stdin = None
        holder.terminate()
        holder.wait(timeout=10)
    # the lock is free again: the next write goes through and is published
    assert write(sample_db, lambda con: remove_source(con, 1), timeout_s=5) > 0


HOLD_LOCK = r"""
import sys, time
from model.data.snapshot import writing
with writing(sys.argv[1], timeout_s=5):
    print("locked", flush=True)
    time.sleep(60)
"""


def test_a_write_waits_for_a_program_holding_the_file_read_write_then_says_so(sample_db):
    """A DuckDB connection in another process (an older dashboard) holds the file read-write: publishing
    over it would drop what it writes, so a write waits its timeout and changes nothing."""
    code = "import duckdb, sys, time; c = duckdb.connect(sys.argv[1]); print('open', flush=True); time.sleep(60)"
    holder = subprocess.Popen([sys.executable, "-c", code, str(sample_db)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "open"
        before = sample_db.read_bytes()
        with pytest.raises(StoreBusy, match="open for writing") as err:
            write(sample_db, lambda con: remove_source(con, 1), timeout_s=0.5)
        assert "held by another program" in err.value.public and str(sample_db) not in err.value.public
        assert sample_db.read_bytes() == before
    finally:
        holder.kill()
        holder.wait(timeout=10)
    assert write(sample_db, lambda con: remove_source(con, 1), timeout_s=5) > 0
