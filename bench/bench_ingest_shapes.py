"""Where ingest time goes, and what the alternatives to the 45-field ``points`` table would cost (issue 12).

    python bench/bench_ingest_shapes.py [--rows 1000800] [--series 900]

Measures on one InferenceX-shaped CSV (bench_scale.inferencex_rows), each figure the best of
``--repeat`` runs on a fresh database file, against bare DuckDB
``CREATE TABLE t AS SELECT * FROM read_csv(?)`` of the same file in the same run:

1. the current ingest, end to end and step by step (hash, record count, staging read_csv into a
   temporary table, validation pass, duplicate check, INSERT into ``points``, commit);
2. the final write into other table shapes, from the same validated rows: today's 45 fields
   (most NULL); a narrow "hot" table of the fields analysis reads; hot + the rare fields in one
   STRUCT column; hot + the rare fields as one JSON column;
3. other ways in: INSERT ... SELECT straight from read_csv with the validation as SQL on a view
   (the CSV is parsed twice, no temporary table); pyarrow.csv -> Arrow table -> INSERT.

Asserts nothing; it prints the figures the lead needs to choose (issue 10 owns model/data/ingest.py).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import duckdb

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bench_scale import inferencex_rows  # noqa: E402
from model.core.schema import POINT_FIELDS, SQL_TYPES  # noqa: E402
from model.data import ingest as ingest_module  # noqa: E402
from model.data import pipeline as pipeline_module  # noqa: E402
from model.data.importers.canonical_csv import read_header, stage_csv  # noqa: E402
from model.data.store import connect  # noqa: E402

#: the fields load_points hands the analysis and the pages read per point
HOT = ("model", "isl", "osl", "prefix_cache_hit_rate", "scenario", "hardware", "gpus", "framework", "precision",
       "spec_decoding", "tp", "ep", "dp", "pp", "disaggregated", "concurrency", "total_tokens_per_second_per_gpu",
       "output_tokens_per_second_per_gpu", "input_tokens_per_second_per_gpu", "interactivity", "ttft_p50_s",
       "tpot_median_ms", "source_line", "run_date")
COLD = tuple(f for f in POINT_FIELDS if f not in HOT)

STEPS = {"file_facts": "one read: hash, line ends, record count", "stage_csv": "stage: read_csv -> temp"}
PIPELINE_STEPS = {"_duplicate_warnings": "duplicate check", "_insert": "INSERT INTO points"}


def timed_steps() -> dict[str, float]:
    """Wrap the ingest module's steps so each call adds its time to the returned dict."""
    spent: dict[str, float] = defaultdict(float)

    def wrap(owner, name, label):
        original = getattr(owner, name)

        def timed(*args, **kwargs):
            start = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                spent[label] += time.perf_counter() - start
        setattr(owner, name, timed)

    for name, label in STEPS.items():
        wrap(ingest_module, name, label)
    for name, label in PIPELINE_STEPS.items():
        wrap(pipeline_module, name, label)
    wrap(pipeline_module._Pipeline, "validate", "validation pass")
    return spent


def best_of(repeat: int, fn) -> float:
    took = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        took = min(took, time.perf_counter() - start)
    return took


def normalised_rows(con: duckdb.DuckDBPyConnection, csv: Path) -> str:
    """The validated rows of ``csv`` as the pipeline produces them, in temp table ``staged`` (all 45 fields)."""
    headers, delim = read_header(csv, csv.name)
    raw = stage_csv(con, csv, csv.name, "bench", headers, delim)
    first = int(con.execute(f"SELECT min(rowid) FROM {raw}").fetchone()[0])
    pipe = pipeline_module._Pipeline(con, csv.name, raw, dict(zip([f"c{i}" for i in range(len(headers))], headers)),
                                   {}, f"(r.rowid - {first} + 2)")
    pipe.map_columns()
    select, params = pipe.select()
    con.execute(f"CREATE TEMP TABLE staged AS {select}", params)
    return raw


def ddl(name: str, fields, extra: str = "") -> str:
    cols = [f"{f} {SQL_TYPES[f]}" for f in fields]
    return f"CREATE TABLE {name} (point_id BIGINT, source_id BIGINT, {', '.join(cols)}{extra})"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1_000_800)
    parser.add_argument("--series", type=int, default=900)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        csv = tmp / "ix.csv"
        inferencex_rows(args.rows, args.series).to_csv(csv, index=False)
        print(f"{args.rows:,} rows, {csv.stat().st_size / 1e6:.0f} MB CSV; best of {args.repeat}")

        def fresh(prefix: str) -> Path:
            return tmp / f"{prefix}{time.perf_counter_ns()}.duckdb"

        def bare():
            con = duckdb.connect(str(fresh("bare")))
            con.execute("CREATE TABLE t AS SELECT * FROM read_csv(?)", [str(csv)])
            con.close()

        t_bare = best_of(args.repeat, bare)
        print(f"baseline: bare CREATE TABLE AS SELECT * FROM read_csv   {t_bare:6.2f} s   1.00x")

        # 1. today's ingest, end to end and by step
        spent = timed_steps()
        runs = []
        for _ in range(args.repeat):
            spent.clear()
            con = connect(fresh("ours"))
            start = time.perf_counter()
            with contextlib.redirect_stdout(io.StringIO()):
                ingest_module.ingest_file(con, csv)
            total = time.perf_counter() - start
            con.close()
            runs.append((total, dict(spent)))
        total, steps = min(runs, key=lambda r: r[0])
        print(f"current ingest_file, end to end                        {total:6.2f} s   {total / t_bare:.2f}x")
        accounted = 0.0
        for label, seconds in steps.items():
            accounted += seconds
            print(f"    {label:<40} {seconds:6.2f} s   {seconds / t_bare:.2f}x")
        print(f"    {'rest (header, mapping, BEGIN/COMMIT)':<40} {total - accounted:6.2f} s")

        # 2. the final write into other shapes, from the same validated rows
        con = duckdb.connect(str(fresh("shapes")))
        normalised_rows(con, csv)
        every = ", ".join(POINT_FIELDS)
        hot = ", ".join(HOT)
        counts = con.execute("SELECT " + ", ".join(f"count({f})" for f in POINT_FIELDS) + " FROM staged").fetchone()
        present = [f for f, n in zip(POINT_FIELDS, counts) if n]
        shapes = {
            "45 fields (today's points)": (ddl("t", POINT_FIELDS), f"SELECT 1, 1, {every} FROM staged"),
            f"45 fields, INSERT only the {len(present)} present": (
                ddl("t", POINT_FIELDS), f"(point_id, source_id, {', '.join(present)}) SELECT 1, 1, "
                f"{', '.join(present)} FROM staged"),
            f"hot {len(HOT)} fields only": (ddl("t", HOT), f"SELECT 1, 1, {hot} FROM staged"),
            f"hot + STRUCT of {len(COLD)} rare": (ddl("t", HOT, ", rare STRUCT(" + ", ".join(
                f"{f} {SQL_TYPES[f]}" for f in COLD) + ")"), f"SELECT 1, 1, {hot}, struct_pack({', '.join(COLD)}) "
                "FROM staged"),
            f"hot + JSON of {len(COLD)} rare": (ddl("t", HOT, ", rare JSON"),
                                                f"SELECT 1, 1, {hot}, to_json(struct_pack({', '.join(COLD)})) "
                                                "FROM staged"),
        }
        print("final write from the validated rows (INSERT ... SELECT, then COMMIT):")
        for label, (create, select) in shapes.items():
            def write():
                con.execute("DROP TABLE IF EXISTS t")
                con.execute(create)
                con.execute("BEGIN")
                con.execute(f"INSERT INTO t {select}")
                con.execute("COMMIT")
            seconds = best_of(args.repeat, write)
            print(f"    {label:<40} {seconds:6.2f} s   {seconds / t_bare:.2f}x")
        con.close()

        # 3. other ways in
        def straight():
            """Validation and INSERT read the CSV through a view: no temporary copy, two parses."""
            con = connect(fresh("view"))
            headers, delim = read_header(csv, csv.name)
            names = [f"c{i}" for i in range(len(headers))]
            path_sql = str(csv).replace("'", "''")        # our own temporary path; a view takes no parameters
            con.execute(f"CREATE TEMP VIEW raw_view AS SELECT row_number() OVER () - 1 AS rowid, * FROM read_csv("
                        f"'{path_sql}', header = true, names = {names!r}, delim = '{delim}')")
            con.execute("BEGIN")
            with contextlib.redirect_stdout(io.StringIO()):
                pipeline_module.run_pipeline(con, csv.name, "csv", "view", "raw_view",
                                           dict(zip(names, headers)), {},
                                           "(r.rowid + 2)")
            con.execute("COMMIT")
            con.close()

        spent.clear()
        seconds = best_of(args.repeat, straight)
        print("other ways in:")
        print(f"    {'INSERT...SELECT from a read_csv view':<40} {seconds:6.2f} s   {seconds / t_bare:.2f}x  "
              "(validation + insert; no hash, no duplicate-free shortcut)")

        def arrow_bare():
            import pyarrow.csv as pv
            table = pv.read_csv(csv)
            con = duckdb.connect(str(fresh("arrow")))
            con.register("batch", table)
            con.execute("CREATE TABLE t AS SELECT * FROM batch")
            con.close()

        seconds = best_of(args.repeat, arrow_bare)
        print(f"    {'pyarrow.csv -> Arrow -> CREATE TABLE':<40} {seconds:6.2f} s   {seconds / t_bare:.2f}x")


if __name__ == "__main__":
    main()
