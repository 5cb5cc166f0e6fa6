"""SIGKILL the ingest of a large file at random moments: the database holds all of it or none of it.

The process killed runs exactly what ``costfrontier --db DB ingest BIG.csv`` runs (``model.cli.main``):
the write path of model.data.snapshot, which ingests into a private copy and renames it over the database.
To keep 20 kills inside ~10 s, a driver imports the package once and forks one child per run (the
import alone takes longer than the ingest); two further kills hit a freshly started
``python -m model.cli`` process. Each run starts from a copy of a database holding the samples.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from model.data.store import OUR_TABLES, connect
from tests.conftest import samples_copy
from tests.kit import cli_started

ROOT = Path(__file__).resolve().parent.parent
ROWS = 100_000
KILLS = 20
SEED = 20260520

DRIVER = r"""
import os, sys
from model.cli import main
import model.data.ingest, model.data.snapshot, model.cli.data  # what an ingest imports, once, before any fork
print("ready", flush=True)
for line in sys.stdin:
    db, path = line.rstrip("\n").split("\t")
    pid = os.fork()
    if pid == 0:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        try:
            code = main(["--db", db, "ingest", path])
        except BaseException:
            code = 3
        os._exit(code)
    print(f"pid {pid}", flush=True)
    _, status = os.waitpid(pid, 0)
    print(f"done {status}", flush=True)
"""


def write_big_csv(path: Path, rows: int) -> None:
    """A canonical CSV of ``rows`` distinct load points (B200/MI355X, so every reader can price them)."""
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("hardware,framework,precision,gpus,tp,concurrency,isl,osl,tput_per_gpu,tok_s_user,ttft_ms,tpot_ms\n")
        for i in range(rows):
            handle.write(f"{('B200', 'MI355X')[i % 2]},big{i % 3},fp8,8,8,{1 + i % 512},{1024 + i % 7},1024,"
                         f"{100 + i % 9000}.5,{5 + i % 300}.25,{100 + i % 2000},{1 + i % 50}.5\n")


def earlier_checksums(con, sample_ids: list[int]) -> dict[str, tuple[int, int]]:
    """(count, hash sum) of every row the samples put in each table."""
    out = {}
    marks = ", ".join("?" * len(sample_ids))
    for table in OUR_TABLES:   # the marker and pins whole; the samples' rows and data versions
        whole = table in ("costfrontier_meta", "cost_profile_versions", "pins")
        where = "" if whole else f" WHERE source_id IN ({marks})" if table != "store_versions" else \
            f" WHERE version IN (SELECT added_in FROM sources WHERE source_id IN ({marks}))"
        params = [] if whole else sample_ids
        row = con.execute(f"SELECT count(*), coalesce(sum(hash(t)), 0) FROM {table} t{where}", params).fetchone()
        out[table] = (int(row[0]), int(row[1]))
    return out


def big_rows(con, name: str) -> tuple[int, int]:
    """(sources rows, points rows) of the big file."""
    sources = con.execute("SELECT count(*) FROM sources WHERE file_name = ?", [name]).fetchone()[0]
    points = con.execute("SELECT count(*) FROM points p JOIN sources s USING (source_id) WHERE s.file_name = ?",
                         [name]).fetchone()[0]
    return int(sources), int(points)


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("crash")
    big = tmp / "big.csv"
    write_big_csv(big, ROWS)
    base = samples_copy(tmp / "base.duckdb")
    con = connect(base)
    sample_ids = [r[0] for r in con.execute("SELECT source_id FROM sources ORDER BY 1").fetchall()]
    expected = earlier_checksums(con, sample_ids)
    con.close()
    return tmp, big, base, sample_ids, expected


def check(db: Path, big: Path, sample_ids, expected) -> str:
    con = connect(db)  # opens: raises StoreError otherwise
    try:
        sources, points = big_rows(con, big.name)
        assert (sources, points) in ((0, 0), (1, ROWS)), (sources, points)
        assert earlier_checksums(con, sample_ids) == expected
    finally:
        con.close()
    return "all" if points else "none"


def fresh_copy(base: Path, target: Path) -> None:
    for stale in (target, Path(str(target) + ".wal")):
        if stale.exists():
            stale.unlink()
    shutil.copy(base, target)


@pytest.mark.slow
def test_sigkill_during_ingest_keeps_all_or_nothing(setup):
    tmp, big, base, sample_ids, expected = setup
    rng = random.Random(SEED)
    driver = subprocess.Popen([sys.executable, "-c", DRIVER], cwd=ROOT, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True, bufsize=1)
    try:
        assert driver.stdout.readline().strip() == "ready"

        def run(db: Path, kill_after: float | None) -> tuple[bool, float]:
            driver.stdin.write(f"{db}\t{big}\n")
            driver.stdin.flush()
            pid = int(driver.stdout.readline().split()[1])
            started = time.perf_counter()
            if kill_after is not None:
                time.sleep(kill_after)
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            status = int(driver.stdout.readline().split()[1])
            return os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL, time.perf_counter() - started

        # one run to the end: how long the whole ingest takes, and that it stores every row
        db = tmp / "run.duckdb"
        fresh_copy(base, db)
        killed, duration = run(db, None)
        assert not killed and check(db, big, sample_ids, expected) == "all"

        outcomes = []
        for _ in range(KILLS):
            fresh_copy(base, db)
            killed, took = run(db, rng.uniform(0.0, duration))
            if not killed:          # it ended before the kill: the first run was slower (a busy machine), so the
                duration = min(duration, took)   # kills are spread over the ingest as it runs now
            outcomes.append((killed, check(db, big, sample_ids, expected)))
    finally:
        driver.stdin.close()
        driver.wait(timeout=30)

    killed_mid_run = [o for k, o in outcomes if k]
    # the kills really land while the ingest runs, before and after its commit
    assert len(killed_mid_run) >= KILLS // 2, outcomes
    assert "none" in killed_mid_run, outcomes
    # a database that survived a kill takes the file afterwards, through the same write path, which
    # also clears the private copy a killed writer left beside it
    from model.data.ingest import ingest_file
    from model.data.snapshot import write

    result = write(db, lambda con: ingest_file(con, big))
    assert result.rows_added == ROWS or result.duplicate_of is not None
    assert not list(db.parent.glob(f".{db.name}.writing-*"))
    con = connect(db)
    assert big_rows(con, big.name) == (1, ROWS)
    con.close()
    print(f"\n{KILLS} kills over a {duration:.2f} s ingest of {ROWS} rows: {len(killed_mid_run)} mid-run "
          f"({killed_mid_run.count('none')} none, {killed_mid_run.count('all')} all); nothing lost")


@pytest.mark.slow
def test_sigkill_of_the_real_command_line(setup):
    """The same, twice, against ``python -m model.cli`` started from scratch."""
    tmp, big, base, sample_ids, expected = setup
    rng = random.Random(SEED + 1)
    db = tmp / "cli.duckdb"
    for _ in range(2):
        fresh_copy(base, db)
        proc = cli_started(db, "ingest", big, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(1.5, 2.5))  # imports take ~1.5 s; the ingest ~1 s after them
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        check(db, big, sample_ids, expected)
