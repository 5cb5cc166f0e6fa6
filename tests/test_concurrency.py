"""Many viewers, one writer: Streamlit serves each session on its own thread, all sharing one DuckDB
connection through ``.cursor()``. Readers must never error and never see part of a file."""

from __future__ import annotations

import threading
import time

import pytest

from model.analysis import Scenario, analyse
from model.ingest import IngestError, ingest_file
from model.store import connect, load_points, table_checksums
from tests.test_crash_safety import write_big_csv

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
                    result = analyse(points, Scenario())
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
