"""What a small write into a large store costs, step by step, against the same write into an empty store (issue 19).

    python bench/bench_small_write.py [--rows 1000800] [--repeat 5]

A write (:func:`model.data.snapshot.writing`) copies the live file, opens the copy (which reads every
block once to refuse a damaged store), runs the ingest, CHECKPOINTs, closes, fsyncs the copy and
renames it over the live path. This script builds a store of ``--rows`` InferenceX-shaped points
(``bench_scale.inferencex_rows``, ingested once through ``writing``) and an empty store, then writes
one small file into a fresh copy of each, ``--repeat`` times:

- the steps one by one, as ``writing`` runs them (copy, open, of it the checksum read, ingest,
  CHECKPOINT, close, fsync, rename + directory fsync), medians;
- ``writing`` end to end, median;
- baselines from the same run: the same write into the empty store, and a bare copy + fsync of the
  large store's file.

Also prints what the CHECKPOINT of the small append writes (blocks in use before and after) and the
table's row groups. Asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bench_scale import inferencex_rows  # noqa: E402
from model.data import database, snapshot, store  # noqa: E402
from model.data.ingest import ingest_file  # noqa: E402

SMALL = [  # (file, --set): one vLLM result (1 row) and one canonical CSV (3 rows)
    (ROOT / "tests" / "fixtures" / "formats" / "vllm_serve.json", {"hardware": "H100", "gpus": 8}),
    (ROOT / "data" / "samples" / "wafer_glm52_other_points.csv", None),
]
STEPS = ("copy", "open", "  of it: checksum read", "ingest", "CHECKPOINT", "close", "fsync", "rename + dir fsync")


def used_blocks(path: Path) -> int:
    import duckdb
    con = duckdb.connect(str(path), read_only=True)
    try:
        return int(con.execute("SELECT used_blocks FROM pragma_database_size()").fetchone()[0])
    finally:
        con.close()


def steps_once(live: Path, small: Path, set_fields) -> dict[str, float]:
    """One small write, step by step, as :func:`model.data.snapshot.writing` runs it."""
    spent: dict[str, float] = {}
    verify = database._verify_readable

    def timed_verify(*args):
        start = time.perf_counter()
        try:
            return verify(*args)
        finally:
            spent["  of it: checksum read"] = time.perf_counter() - start

    copy = live.with_name(f".{live.name}.writing-bench")
    start = time.perf_counter()
    shutil.copyfile(live, copy)
    shutil.copymode(live, copy)
    spent["copy"] = time.perf_counter() - start
    database._verify_readable = timed_verify
    try:
        start = time.perf_counter()
        con = store.connect(copy)
        spent["open"] = time.perf_counter() - start
    finally:
        database._verify_readable = verify
    con.execute("SET checkpoint_threshold = '1TB'")
    con.execute("SET memory_limit = ?", [snapshot.write_memory()])
    start = time.perf_counter()
    ingest_file(con, small, set_fields)
    spent["ingest"] = time.perf_counter() - start
    for label, action in (("CHECKPOINT", lambda: con.execute("CHECKPOINT")), ("close", con.close),
                          ("fsync", lambda: snapshot._fsync(copy)),
                          ("rename + dir fsync", lambda: (os.replace(copy, live),
                                                          snapshot._fsync(live.parent, directory=True)))):
        start = time.perf_counter()
        action()
        spent[label] = time.perf_counter() - start
    return spent


def whole_once(live: Path, small: Path, set_fields) -> float:
    start = time.perf_counter()
    snapshot.write(live, lambda con: ingest_file(con, small, set_fields))
    return time.perf_counter() - start


def bare_copy(live: Path) -> float:
    target = live.with_name(live.name + ".bare")
    start = time.perf_counter()
    shutil.copyfile(live, target)
    snapshot._fsync(target)
    took = time.perf_counter() - start
    target.unlink()
    return took


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1_000_800)
    parser.add_argument("--series", type=int, default=900)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        csv = tmp / "large.csv"
        inferencex_rows(args.rows, args.series).to_csv(csv, index=False)
        large, empty = tmp / "large.duckdb", tmp / "empty.duckdb"
        snapshot.write(large, lambda con: ingest_file(con, csv))
        store.connect(empty).close()
        csv.unlink()
        print(f"stores: {args.rows:,} points ({large.stat().st_size / 1e6:.1f} MB) and empty "
              f"({empty.stat().st_size / 1e6:.1f} MB); medians of {args.repeat}; load average "
              f"{os.getloadavg()[0]:.1f}")
        copies = [bare_copy(large) for _ in range(args.repeat)]
        print(f"baseline: bare copy + fsync of the large store's file  {statistics.median(copies):.3f} s")
        for small, set_fields in SMALL:
            print(f"\n{small.name} ({'--set ' + ', '.join(f'{k}={v}' for k, v in set_fields.items()) if set_fields else 'as is'}):")
            results = {}
            for label, source in (("large", large), ("empty", empty)):
                runs, wholes = [], []
                for i in range(args.repeat):
                    live = tmp / f"live-{label}-{i}.duckdb"
                    shutil.copyfile(source, live)
                    before = used_blocks(live)
                    runs.append(steps_once(live, small, set_fields))
                    written = used_blocks(live) - before
                    shutil.copyfile(source, live)
                    wholes.append(whole_once(live, small, set_fields))
                    live.unlink()
                results[label] = ({s: statistics.median(r[s] for r in runs) for s in STEPS},
                                  statistics.median(wholes), written)
            print(f"    {'step':<26} {'large store':>12} {'empty store':>12} {'difference':>11}")
            for s in STEPS:
                a, b = results["large"][0][s], results["empty"][0][s]
                print(f"    {s:<26} {a:10.3f} s {b:10.3f} s {a - b:+9.3f} s")
            a, b = results["large"][1], results["empty"][1]
            print(f"    {'writing() end to end':<26} {a:10.3f} s {b:10.3f} s {a - b:+9.3f} s   ({a / b:.2f}x)")
            print(f"    blocks the write adds to the large store: {results['large'][2]} "
                  f"(256 KiB each; the checkpoint rewrites the table's last row group, not the table)")
        import duckdb
        con = duckdb.connect(str(large), read_only=True)
        groups = con.execute("SELECT row_group_id, max(count) FROM pragma_storage_info('points') "
                             "GROUP BY row_group_id ORDER BY row_group_id").fetchall()
        con.close()
        print(f"\npoints row groups in the large store: {len(groups)}, rows {[g[1] for g in groups]}")


if __name__ == "__main__":
    main()
