"""Core benchmark: ingest and analysis at 1,000,000 rows in 1,000 series. Prints figures; asserts nothing.

    python bench/bench_core.py [--rows 1000000] [--series 1000]

Measured in the same run, against a baseline:
- ingest of a canonical CSV vs bare DuckDB ``CREATE TABLE AS SELECT * FROM read_csv`` of the same file
  (target: at most 1.5x);
- query + frontier + iso table + envelope and crossovers (``crossovers="auto"``: with 20 series a
  workload, the envelope only) over all of it (target: under 1 s).

The shape with 900 series in ONE workload, and the scaling figures, are in ``bench_scale.py``.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
import tempfile
import time
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from model.core.analysis import analyse, frontiers_for  # noqa: E402
from model.core.iso import METHODS  # noqa: E402
from model.core.leave_one_out import leave_one_out_methods  # noqa: E402
from model.core.uncertainty import (  # noqa: E402
    iso_with_error,
    mark_crossovers,
    store_calibration,
    uncertainty,
)
from model.core.view import View  # noqa: E402
from model.data.ingest import ingest_file  # noqa: E402
from model.data.presets import load_presets  # noqa: E402
from model.data.store import connect, load_points  # noqa: E402

HARDWARE = ["H100", "H200", "B200", "B300", "GB200", "GB300", "MI300X", "MI325X", "MI355X"]


def make_rows(rows: int, series: int, seed: int = 7) -> pd.DataFrame:
    """Concurrency sweeps: ``series`` systems x workloads, each over parallelism configs and run dates."""
    rng = np.random.default_rng(seed)
    per_series = rows // series
    n_workloads = max(1, series // 20)
    systems = series // n_workloads
    sid = np.repeat(np.arange(series), per_series)
    workload, system = sid // systems, sid % systems
    hw = np.array(HARDWARE)[system % len(HARDWARE)]
    # (hardware, precision, spec) is distinct for each of the systems in a workload
    spec = np.where((system // (2 * len(HARDWARE))) % 2 == 0, "none", "mtp")
    precision = np.where((system // len(HARDWARE)) % 2 == 0, "fp8", "fp4")
    conc = 2.0 ** rng.integers(0, 10, sid.size)
    tp = 2 ** rng.integers(0, 4, sid.size)
    peak = 800 + 150 * (system % len(HARDWARE)) + 40 * tp
    tput = peak * conc / (conc + 24) * rng.lognormal(0, 0.08, sid.size)
    speed = 60 + 8 * (system % 7) + (spec == "mtp") * 25
    intvty = speed / (1 + conc / 40) * rng.lognormal(0, 0.08, sid.size)
    isl = np.array([1024, 8192, 1024, 32768, 4096])[workload % 5]
    osl = np.array([1024, 1024, 8192, 1024, 512])[workload % 5]
    return pd.DataFrame({
        "hardware": hw, "framework": "sglang", "precision": precision,
        "spec_decode": spec, "model": np.char.add("model-", (workload // 5).astype(str)), "isl": isl, "osl": osl,
        "tp": tp, "gpus": tp, "conc": conc.astype(int), "tput_per_gpu": tput.round(2),
        "output_tput_per_gpu": (tput * osl / (isl + osl)).round(2), "tok_s_user": intvty.round(3),
        "tpot_ms": (1000 / intvty).round(3), "ttft_p50_s": (0.2 + conc / 200).round(3),
        "date": np.datetime64("2026-01-01") + rng.integers(0, 300, sid.size).astype("timedelta64[D]"),
    })


def timed(fn, repeat: int = 3):
    best = float("inf")
    result = None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--series", type=int, default=1_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        csv = tmp / "bench.csv"
        frame = make_rows(args.rows, args.series)
        frame.to_csv(csv, index=False)
        print(f"generated {len(frame):,} rows, {frame.groupby(['hardware', 'framework', 'precision', 'spec_decode', 'model', 'isl', 'osl']).ngroups} series, {csv.stat().st_size / 1e6:.0f} MB")

        def baseline():
            path = tmp / f"bare{time.perf_counter_ns()}.duckdb"
            con = duckdb.connect(str(path))
            con.execute("CREATE TABLE t AS SELECT * FROM read_csv(?)", [str(csv)])
            con.close()

        def ours():
            path = tmp / f"ours{time.perf_counter_ns()}.duckdb"
            con = connect(path)
            result = ingest_file(con, csv)
            con.close()
            return path, result

        t_base, _ = timed(baseline)
        t_ours, (db, result) = timed(ours)
        assert result.rows_added == len(frame)
        print(f"ingest: bare read_csv {t_base:.2f} s, costfrontier ingest {t_ours:.2f} s, "
              f"ratio {t_ours / t_base:.2f}x (target <= 1.5x)")

        con = connect(db)
        t_query, points = timed(lambda: load_points(con), repeat=2)
        scenario = View(by=("hardware", "framework", "precision", "spec_decoding", "model", "isl", "osl"))
        t_front, frontier = timed(lambda: frontiers_for(points, scenario.by, "total"))
        t_price, result = timed(lambda: analyse(points, scenario, load_presets(), frontier=frontier, crossovers="auto"))
        print(f"query all rows to pandas: {t_query:.2f} s")
        print(f"frontier of {len(result.curves)} series ({len(frontier):,} frontier points): {t_front:.3f} s")
        print(f"price + iso table ({len(result.iso):,} cells) + envelope ({len(result.envelope.changes):,} changes) "
              f"+ {result.crossover_pairs} crossovers ({len(result.crossovers):,}): {t_price:.3f} s")
        print(f"frontier + iso + envelope: {t_front + t_price:.3f} s (target < 1 s); "
              f"with the query: {t_query + t_front + t_price:.3f} s")
        # interpolation error (issue 21): leave-one-out of both methods, cached with the frontier in the app;
        # then the bands, the iso table's ± and the crossings within uncertainty, per rerun
        t_loo, loo = timed(lambda: leave_one_out_methods(frontier, METHODS))
        t_cal, calibration = timed(lambda: store_calibration(points))
        t_band, marked = timed(lambda: (lambda u: (iso_with_error(result.iso, result.curves, u),
                                                   mark_crossovers(result.crossovers, result.curves, u)))(
            uncertainty(result.curves, "linear", calibration, loo)))
        print(f"leave-one-out of both methods over {len(loo['linear']):,} interior points: {t_loo:.3f} s (cached with "
              f"the frontier); the store's calibration (its own fit and leave-one-out): {t_cal:.3f} s (once per data "
              f"version); bands + iso range + {len(marked[1]):,} crossings marked: {t_band:.3f} s")
        # every cell's status (issue 44): the series in view without a curve, found in the cost step on every rate
        # change, beside what that step paid already (pricing and the iso table)
        from model.core.frontier import series_labels
        from model.core.status import series_without_curve

        t_status, without = timed(lambda: series_without_curve(points, result.points, result.frontier, result.curves,
                                                                scenario.by,
                                                                "total_tokens_per_second_per_gpu",
                                                                result.usd_per_gpu_hour, series_labels))
        print(f"series without a curve ({len(without)} of {len(result.curves) + len(without)}): {t_status:.3f} s "
              f"= {t_status / t_price:.2f}x price + iso + envelope")
        half = result.points.iloc[::2]        # as an SLA leaving out every other row: half the rows to label
        t_half, without = timed(lambda: series_without_curve(points, half, result.frontier, result.curves,
                                                              scenario.by, "total_tokens_per_second_per_gpu",
                                                              result.usd_per_gpu_hour, series_labels))
        print(f"... with half the rows left out (an SLA): {t_half:.3f} s = {t_half / t_price:.2f}x price + iso + "
              "envelope")
        con.close()
        bench_directory(tmp)


def bench_directory(tmp: Path, files: int = 100) -> None:
    """A sweep as a tool writes it: one vLLM result JSON per concurrency, in one directory."""
    import json

    from model.cli import main as cli

    sweep = tmp / "sweep"
    sweep.mkdir()
    template = json.loads((Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "formats"
                           / "vllm_serve.json").read_text())
    for i in range(files):
        record = dict(template, max_concurrency=i + 1, output_throughput=template["output_throughput"] * (1 + i / 50),
                      total_token_throughput=template["total_token_throughput"] * (1 + i / 50),
                      median_tpot_ms=template["median_tpot_ms"] * (1 + i / 20))
        (sweep / f"vllm_c{i + 1}.json").write_text(json.dumps(record))
    db = tmp / "sweep.duckdb"
    start = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):        # the per-file report is not the figure
        code = cli(["--db", str(db), "ingest", str(sweep), "--set", "hardware=H200", "--set", "gpus=8"])
    took = time.perf_counter() - start
    assert code == 0
    print(f"ingest a directory of {files} vLLM result files (one per concurrency): {took:.2f} s "
          f"({took / files * 1000:.0f} ms per file)")


if __name__ == "__main__":
    main()
