"""Scale benchmark (issue 12): 900 series in ONE workload, as InferenceX's own data is shaped.

    python bench/bench_scale.py [--rows 1000800] [--series 900] [--no-scaling] [--ingest-only]

Every series is hardware x framework x precision x speculative decoding of one model at
ISL 8192 / OSL 1024, each a concurrency sweep over parallelism configs and run dates.
Prints figures against baselines measured in the same run; asserts nothing:

- ingest vs bare DuckDB ``CREATE TABLE AS SELECT * FROM read_csv`` of the same file, with
  the peak RSS of each (each in its own process);
- ``iso`` (no crossovers) and ``crossover`` (envelope + each series against a baseline) over
  all rows: query, frontier and analysis in a fresh process, against a bare DuckDB scan of
  the same rows plus a numpy sort of them; peak RSS; and the CLI end to end minus its start-up;
- pairwise crossovers of 20 selected series among the 900;
- the same at the current spread shape (bench_core: 1,000 series over 50 workloads);
- scaling: 10k / 100k / 1M rows at 900 series, and 10 / 100 / 900 series at 1M rows.

Targets (issue 12): iso and crossover under 1 s beyond start-up; 20-pair crossovers under 0.5 s.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import itertools
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

HARDWARE = ["H100", "H200", "B200", "B300", "GB200", "GB300", "MI300X", "MI325X", "MI355X"]
FRAMEWORKS = ["sglang", "vllm", "trtllm", "dynamo-sglang", "dynamo-trtllm"]
PRECISIONS = ["fp8", "fp4", "mxfp4", "bf16", "int4"]
SPECS = ["none", "mtp", "eagle3", "ngram"]
BY = "hardware,framework,precision,spec_decoding"


def inferencex_rows(rows: int, series: int, seed: int = 11) -> pd.DataFrame:
    """``rows`` rows in ``series`` series of one workload (GLM-5, ISL 8192 / OSL 1024)."""
    rng = np.random.default_rng(seed)
    combos = list(itertools.product(SPECS, PRECISIONS, FRAMEWORKS, HARDWARE))[:series]   # hardware varies fastest
    sid = np.sort(np.arange(rows) % series)
    spec, precision, framework, hardware = (np.array(c, dtype=object)[sid] for c in zip(*combos))
    hw = sid % len(HARDWARE)
    conc = 2.0 ** rng.integers(0, 11, rows)
    tp = 2 ** rng.integers(0, 4, rows)
    quality = 1 + 0.3 * np.sin(sid * 1.7)                  # every series its own curve, so they cross
    peak = (700 + 160 * hw + 35 * tp) * quality
    tput = peak * conc / (conc + 24 + 8 * np.cos(sid)) * rng.lognormal(0, 0.08, rows)
    speed = (55 + 9 * (hw % 7) + 25 * (spec != "none")) * (2 - quality)
    intvty = speed / (1 + conc / (30 + 10 * (sid % 5))) * rng.lognormal(0, 0.08, rows)
    return pd.DataFrame({
        "hardware": hardware, "framework": framework, "precision": precision, "spec_decode": spec,
        "model": "GLM-5", "isl": 8192, "osl": 1024, "tp": tp, "gpus": tp, "conc": conc.astype(int),
        "tput_per_gpu": tput.round(2), "output_tput_per_gpu": (tput / 9).round(2), "tok_s_user": intvty.round(3),
        "tpot_ms": (1000 / intvty).round(3), "ttft_p50_s": (0.2 + conc / 200).round(3),
        "date": np.datetime64("2026-01-01") + rng.integers(0, 300, rows).astype("timedelta64[D]"),
    })


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def best(fn, repeat: int = 3):
    took, result = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        took = min(took, time.perf_counter() - start)
    return took, result


# ----------------------------------------------------------------------------- child phases (fresh processes)

def phase_ingest(csv: str, db: str) -> dict:
    from model.data.ingest import ingest_file
    from model.data.store import connect

    start = time.perf_counter()
    con = connect(Path(db))
    result = ingest_file(con, Path(csv))
    con.close()
    return {"seconds": time.perf_counter() - start, "rows": result.rows_added, "rss_mib": peak_rss_mib()}


def phase_bare(csv: str, db: str) -> dict:
    import duckdb

    start = time.perf_counter()
    con = duckdb.connect(db)
    con.execute("CREATE TABLE t AS SELECT * FROM read_csv(?)", [csv])
    con.close()
    return {"seconds": time.perf_counter() - start, "rss_mib": peak_rss_mib()}


def phase_analyse(db: str, by: str, repeat: int) -> dict:
    from model.core.analysis import analyse, frontiers_for
    from model.core.crossings import crossovers
    from model.core.view import View
    from model.data.inputs import analysis_columns
    from model.data.presets import load_presets
    from model.data.store import connect, load_points

    con = connect(Path(db), read_only=True)
    keys = tuple(by.split(","))
    out: dict = {}
    # baseline: a bare DuckDB scan of what the analysis needs (series, x, y) and a numpy sort of it
    def bare():
        cols = con.cursor().execute(f"SELECT hash({', '.join(keys)}) AS series, interactivity, "
                                    "total_tokens_per_second_per_gpu FROM points").fetchnumpy()
        return np.lexsort((cols["total_tokens_per_second_per_gpu"], cols["interactivity"], cols["series"]))

    out["baseline"], _ = best(bare, repeat)
    out["load"], points = best(lambda: load_points(con), repeat)
    # what iso and crossover load: the columns their analysis reads (model.data.inputs.analysis_columns)
    out["load_projected"], _ = best(lambda: load_points(con, columns=analysis_columns(View(by=keys))), repeat)
    scenario = View(by=keys, targets=(10.0, 20.0, 50.0))
    presets = load_presets()
    out["frontier"], frontier = best(lambda: frontiers_for(points, keys, "total"), repeat)
    out["iso"], result = best(lambda: analyse(points, scenario, presets, frontier=frontier, crossovers="none"), repeat)
    names = sorted(result.curves)
    out["series"], out["frontier_points"], out["rows"] = len(names), len(frontier), len(points)
    baseline = names[len(names) // 2]
    with_base = scenario.model_copy(update={"baseline": baseline})
    out["crossover"], cross = best(lambda: analyse(points, with_base, presets, frontier=frontier, crossovers="auto"), repeat)
    out["crossover_pairs"], out["crossings"] = cross.crossover_pairs, len(cross.crossovers)
    out["envelope_changes"] = len(cross.envelope.changes)
    selected = tuple(names[:: max(1, len(names) // 20)][:20])
    out["pairs20"], twenty = best(lambda: analyse(points, scenario, presets, frontier=frontier, crossovers="pairs",
                                                  selected=selected), repeat)
    out["pairs20_crossings"] = len(twenty.crossovers)
    pairs = [(a, b) for i, a in enumerate(selected) for b in selected[i + 1:]]
    out["pairs20_only"], _ = best(lambda: crossovers(result.curves, result.scenario.method, None, pairs), repeat)
    out["baseline_series"] = baseline
    out["rss_mib"] = peak_rss_mib()
    return out


def child(phase: str, *args) -> dict:
    done = subprocess.run([sys.executable, __file__, "--phase", phase, *map(str, args)], capture_output=True,
                          text=True)
    if done.returncode:
        raise SystemExit(f"phase {phase} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def wall(argv: list[str], cwd: Path | None = None) -> float:
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, cwd=cwd)
    return time.perf_counter() - start


# ----------------------------------------------------------------------------- report

def ingest_pair(tmp: Path, frame: pd.DataFrame, name: str) -> tuple[Path, dict, dict]:
    csv = tmp / f"{name}.csv"
    frame.to_csv(csv, index=False)
    runs = []
    for i in range(2):                                     # best of two, alternating
        bare = child("bare", csv, tmp / f"{name}_bare{i}.duckdb")
        ours = child("ingest", csv, tmp / f"{name}_ours{i}.duckdb")
        runs.append((bare, ours))
    bare = min((r[0] for r in runs), key=lambda r: r["seconds"])
    ours = min((r[1] for r in runs), key=lambda r: r["seconds"])
    return tmp / f"{name}_ours0.duckdb", bare, ours


def report_analysis(label: str, a: dict) -> None:
    total_iso = a["load"] + a["frontier"] + a["iso"]
    total_cross = a["load"] + a["frontier"] + a["crossover"]
    print(f"  {label}: {a['rows']:,} rows, {a['series']} series, {a['frontier_points']:,} frontier points")
    print(f"    baseline (bare DuckDB scan of series hash, x, y + numpy lexsort of them): {a['baseline']:.3f} s")
    print(f"    load_points {a['load']:.3f} s | frontier {a['frontier']:.3f} s | iso table {a['iso']:.3f} s | "
          f"envelope + {a['crossover_pairs']} pairs {a['crossover']:.3f} s "
          f"({a['envelope_changes']} envelope changes, {a['crossings']} crossings)")
    print(f"    iso total {total_iso:.3f} s ({total_iso / a['baseline']:.1f}x baseline; target < 1 s) | "
          f"crossover total {total_cross:.3f} s ({total_cross / a['baseline']:.1f}x baseline; target < 1 s)")
    if "load_projected" in a:
        projected = a["load_projected"] - a["load"]
        print(f"    load_points of the analysis' columns only (as iso and crossover load): {a['load_projected']:.3f} s; "
              f"iso total {total_iso + projected:.3f} s, crossover total {total_cross + projected:.3f} s with it")
    print(f"    pairwise crossovers of 20 selected series: {a['pairs20_only']:.3f} s for the 190 pairs alone, "
          f"{a['pairs20']:.3f} s for analyse(crossovers='pairs', selected=...) with the iso table and envelope "
          f"({a['pairs20_crossings']} crossings; target < 0.5 s)")
    print(f"    peak RSS of the analysis process: {a['rss_mib']:.0f} MiB")


#: issue 30's measurement, run in a child with a checkout's code first on the path (``--versions-against``): the
#: latest-version read (the analysis' projection and every column) and a small write (a 10-row file) at 1M rows
_READ_WRITE = """
import json, sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from model.data.presets import load_presets  # noqa: E402
from model.core.view import View
from model.data.inputs import analysis_columns
from model.data.ingest import ingest_file
from model.data.store import connect, load_points
db, tiny, keys, out = Path(sys.argv[2]), Path(sys.argv[3]), tuple(sys.argv[4].split(",")), {}
con = connect(db, read_only=True)
def best(fn, n=5):
    took = float("inf")
    for _ in range(n):
        start = time.perf_counter(); fn(); took = min(took, time.perf_counter() - start)
    return took
out["read_projected"] = best(lambda: load_points(con, columns=analysis_columns(View(by=keys))))
out["read_full"] = best(lambda: load_points(con), 3)
con.close()
con = connect(db)
writes = []
for i in range(3):
    path = tiny.with_name(f"{tiny.stem}_{sys.argv[5]}_{i}.csv")
    conc = 1000 + 10 * int(sys.argv[6]) + i     # new content each time: a duplicate file would write nothing
    path.write_text(tiny.read_text() + f"B200,sglang,fp8,none,GLM-5,8192,1024,8,8,{conc},900,100,20,50,0.5,2026-01-01\\n")
    start = time.perf_counter(); ingest_file(con, path); writes.append(time.perf_counter() - start)
out["small_write"] = min(writes)
try:                      # a checkout with data versions: the latest read while a removed source is hidden
    from model.data.versions import hide_source
except ImportError:
    hide_source = None
if hide_source is not None:
    hide_source(con, int(con.execute("SELECT max(source_id) FROM sources").fetchone()[0]))
    con.close()
    con = connect(db, read_only=True)
    out["read_projected_hidden"] = best(lambda: load_points(con, columns=analysis_columns(View(by=keys))))
    con.close()
    con = connect(db)     # shown again, so the next run's plain latest read filters nothing, as before
    con.execute("UPDATE sources SET removed_in = NULL, sha256 = split_part(sha256, ':', 1)")
con.close()
print(json.dumps(out))
"""


def against_cli(other: Path, db: Path, baseline: str) -> None:
    """The CLI's commands of this checkout and of ``other`` on the same store (``python -m model.cli`` from each
    tree: each its own code), alternating, best of 3 each; beyond start-up, with the ratio this / other."""
    where = ["--where", "model=GLM-5", "--where", "isl=8192", "--where", "osl=1024"]
    commands = {"iso": ["iso", "--by", BY, "--at", "10,20,50", "--json"],
                "crossover": ["crossover", "--by", BY, "--baseline", baseline, "--json"],
                "iso with a volume": ["iso", "--by", BY, *where, "--at", "10,20,50", "--volume", "2e10", "--json"],
                "size": ["size", "--by", BY, *where, "--peak-rps", "5", "--json"],
                "volume": ["volume", "--by", BY, *where, "--volume", "2e10", "--json"]}
    start = {}
    for name, root in (("this", ROOT), ("other", other)):
        start[name] = min(wall([sys.executable, "-c", "import model.cli, model.core.analysis, model.data.store"],
                               cwd=root) for _ in range(3))
    print(f"  this checkout against {other} on the same store, beyond start-up (this {start['this']:.2f} s, "
          f"other {start['other']:.2f} s), best of 3 alternating:")
    for label, argv in commands.items():
        took = {"this": [], "other": []}
        for _ in range(3):
            for name, root in (("this", ROOT), ("other", other)):
                took[name].append(wall([sys.executable, "-m", "model.cli", "--db", str(db), *argv], cwd=root)
                                  - start[name])
        a, b = min(took["this"]), min(took["other"])
        print(f"    {label}: {a:.2f} s vs {b:.2f} s: ratio {a / b:.2f}")


def versions_bench(rows: int, series: int, other: Path) -> None:
    """Latest-version reads and small writes at ``rows`` rows: this checkout against ``other`` (e.g. /work/main),
    alternating, each in its own process; prints each best time and the ratio this / other."""
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        csv, tiny = tmp / "ix.csv", tmp / "tiny.csv"
        frame = inferencex_rows(rows, series)
        frame.to_csv(csv, index=False)
        inferencex_rows(9, 9, seed=3).to_csv(tiny, index=False)
        dbs = {"other": tmp / "other.duckdb", "this": tmp / "this.duckdb"}
        for name, root in (("other", other), ("this", ROOT)):
            subprocess.run([sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv[1]); from pathlib import Path;"
                            "from model.data.store import connect; from model.data.ingest import ingest_file;"
                            "c = connect(Path(sys.argv[2])); ingest_file(c, Path(sys.argv[3])); c.close()",
                            str(root), str(dbs[name]), str(csv)], check=True, cwd=root)
        runs: dict[str, list[dict]] = {"other": [], "this": []}
        for i in range(3):
            for name, root in (("other", other), ("this", ROOT)):
                done = subprocess.run([sys.executable, "-c", _READ_WRITE, str(root), str(dbs[name]), str(tiny), BY,
                                       name, str(i)], capture_output=True, text=True, check=True, cwd=root)
                runs[name].append(json.loads(done.stdout.strip().splitlines()[-1]))
        print(f"latest-version read and small write at {len(frame):,} rows: this checkout vs {other} (best of 3 "
              "alternating runs, each the best of its repeats)")
        for key in ("read_projected", "read_full", "small_write"):
            a, b = (min(r[key] for r in runs[n]) for n in ("this", "other"))
            print(f"  {key}: {a:.4f} s vs {b:.4f} s: ratio {a / b:.3f}")
        if all("read_projected_hidden" in r for r in runs["this"]):
            a, b = (min(r["read_projected_hidden"] for r in runs["this"]), min(r["read_projected"] for r in runs["other"]))
            print(f"  read_projected with a removed (hidden) source, this checkout: {a:.4f} s: ratio {a / b:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1_000_800)
    parser.add_argument("--series", type=int, default=900)
    parser.add_argument("--no-scaling", action="store_true")
    parser.add_argument("--ingest-only", action="store_true", help="only the ingest against bare read_csv")
    parser.add_argument("--versions-against", metavar="ROOT", help="only the latest-version read and a small write, "
                        "against the checkout at ROOT (issue 30)")
    parser.add_argument("--against", metavar="ROOT", help="also time the CLI's iso, crossover, size and volume of the "
                        "checkout at ROOT (e.g. a git worktree of an earlier commit) on the same store, alternating")
    parser.add_argument("--phase")
    parser.add_argument("args", nargs="*")
    args = parser.parse_args()
    if args.versions_against:
        versions_bench(args.rows, args.series, Path(args.versions_against))
        return
    if args.phase:
        fn = {"ingest": phase_ingest, "bare": phase_bare, "analyse": phase_analyse}[args.phase]
        with contextlib.redirect_stdout(io.StringIO()):
            result = fn(*args.args[:2], *([int(a) for a in args.args[2:]]))
        print(json.dumps(result))
        return
    exe = str(Path(sys.executable).parent / "costfrontier")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        frame = inferencex_rows(args.rows, args.series)
        print(f"InferenceX shape: {len(frame):,} rows, {args.series} series in one workload (GLM-5, ISL 8192/OSL 1024)")
        db, bare, ours = ingest_pair(tmp, frame, "ix")
        del frame
        print(f"  ingest: bare read_csv {bare['seconds']:.2f} s (peak RSS {bare['rss_mib']:.0f} MiB), costfrontier "
              f"{ours['seconds']:.2f} s (peak RSS {ours['rss_mib']:.0f} MiB): {ours['seconds'] / bare['seconds']:.2f}x "
              "(target <= 1.5x)")
        if args.ingest_only:
            return
        analysis = child("analyse", db, BY, 3)
        report_analysis("analysis in one process", analysis)
        start_up = min(wall([sys.executable, "-c", "import model.cli, model.core.analysis, model.data.store"]) for _ in range(3))
        iso_cli = min(wall([exe, "--db", str(db), "iso", "--by", BY, "--at", "10,20,50", "--json"]) for _ in range(2))
        cross_cli = min(wall([exe, "--db", str(db), "crossover", "--by", BY, "--baseline",
                              analysis["baseline_series"], "--json"]) for _ in range(2))
        print(f"  CLI end to end: start-up (python + imports) {start_up:.2f} s; iso {iso_cli:.2f} s "
              f"({iso_cli - start_up:.2f} s beyond start-up); crossover --baseline {cross_cli:.2f} s "
              f"({cross_cli - start_up:.2f} s beyond start-up); target < 1 s beyond start-up")
        if args.against:
            against_cli(Path(args.against), db, analysis["baseline_series"])

        from bench.bench_core import make_rows
        spread = make_rows(1_000_000, 1_000)
        sdb, sbare, sours = ingest_pair(tmp, spread, "spread")
        del spread
        print("Spread shape (bench_core): 1,000,000 rows, 1,000 series over 50 workloads")
        print(f"  ingest: bare read_csv {sbare['seconds']:.2f} s, costfrontier {sours['seconds']:.2f} s: "
              f"{sours['seconds'] / sbare['seconds']:.2f}x")
        report_analysis("analysis", child("analyse", sdb, BY + ",model,isl,osl", 2))
        if args.no_scaling:
            return
        print("Scaling (InferenceX shape; times in s; ratio = total / baseline of the same size)")
        print(f"  {'rows':>10} {'series':>6} {'baseline':>9} {'load':>6} {'frontier':>8} {'iso':>6} "
              f"{'cross':>6} {'iso tot':>7} {'ratio':>6}")
        for rows, series in ((10_000, 900), (100_000, 900), (args.rows, 900), (args.rows, 100), (args.rows, 10)):
            if (rows, series) == (args.rows, args.series):
                a, path = analysis, db
            else:
                path = tmp / f"scale_{rows}_{series}.csv"
                inferencex_rows(rows, series).to_csv(path, index=False)
                child("ingest", path, tmp / f"scale_{rows}_{series}.duckdb")
                path.unlink()
                a = child("analyse", tmp / f"scale_{rows}_{series}.duckdb", BY, 3)
            total = a["load"] + a["frontier"] + a["iso"]
            print(f"  {a['rows']:>10,} {a['series']:>6} {a['baseline']:>9.3f} {a['load']:>6.3f} {a['frontier']:>8.3f} "
                  f"{a['iso']:>6.3f} {a['crossover']:>6.3f} {total:>7.3f} {total / a['baseline']:>6.1f}")


if __name__ == "__main__":
    main()
