"""Trace benchmark: read a request trace in the Azure LLM inference trace format and size a fleet that follows
it; then read a trace the size of the upload's limit. Prints figures; asserts nothing (targets: under 2 s for
10,000 requests, issue 31; peak memory at most about 3x the file's size for a 200 MB trace, issue 38).

    python bench/bench_trace.py [--requests 10000] [--days 1] [--window 5] [--big-mb 200] [--no-baseline]

The small trace is generated with a daily pattern (busier by day) in the columns and timestamp format of
Azure/AzurePublicDataset's ``TIMESTAMP,ContextTokens,GeneratedTokens``. The big one (``--big-mb``, 0 to skip) is
``timestamp,input_tokens,output_tokens`` with times in seconds (about 19 bytes a request: 200 MB is about 10.8 M
requests, the issue's 220 MB was 11.3 M), written once to the temporary folder and reused. Each reader runs in a
fresh Python process that reports its own peak resident memory: the streaming reader
(:func:`model.data.trace_files.read_trace_file`), the same with the request mix bucketed by length as the GPU mix page and
``mix --trace`` read it (:func:`model.data.trace_files.trace_and_mix`: one pass more), and, as the same-run baseline, the
reader they replaced (the whole file read by pandas as text, then converted: the code of
``model.core.trace.read_trace`` before issue 38, and of the mix's ``read_requests`` before the GPU mix page),
beside a process that imports the same modules and reads nothing.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from model.core.demand import demand  # noqa: E402
from model.core.fleet import fleet_over_time, size_for_demand  # noqa: E402
from model.core.volume import cheaper_where, owned_cost, rented_cost  # noqa: E402
from model.data.trace_files import read_trace  # noqa: E402


def _trace(requests: int, days: float, seed: int = 7) -> bytes:
    rng = np.random.default_rng(seed)
    span = days * 86_400
    t = rng.uniform(0, span, requests * 3)
    keep = rng.random(t.size) < 0.2 + 0.8 * np.sin(np.pi * (t % 86_400) / 86_400) ** 2
    t = np.sort(t[keep][:requests])
    stamps = pd.Timestamp("2023-11-16") + pd.to_timedelta(t, unit="s")
    frame = pd.DataFrame({"TIMESTAMP": stamps.strftime("%Y-%m-%d %H:%M:%S.%f") + "0",
                          "ContextTokens": rng.integers(200, 4000, t.size),
                          "GeneratedTokens": rng.integers(20, 600, t.size)})
    return frame.to_csv(index=False).encode()


ROOT = Path(__file__).resolve().parent.parent
#: what each child process runs on the big trace (argv[1]: its path); it prints its time and peak memory as JSON
_CHILD = {
    "idle": "import duckdb; import model.data.trace_files as t",
    "streaming": "import model.data.trace_files as t; tr = t.read_trace_file(path, 'big.csv'); "
                 "out.update(requests=tr.requests, inline_chars=len(tr.to_text()), reference_chars=len(tr.reference))",
    "bucketed streaming (GPU mix)": "import model.data.trace_files as m; tr, mix = m.trace_and_mix(path, 'big.csv'); "
                                    "out.update(requests=tr.requests, buckets=len(mix.buckets))",
    "whole file (before)": "import numpy as np, pandas as pd; "
                           "f = pd.read_csv(path, dtype=str, skipinitialspace=True); "
                           "i = pd.to_numeric(f['input_tokens'], errors='coerce').to_numpy(dtype=float); "
                           "o = pd.to_numeric(f['output_tokens'], errors='coerce').to_numpy(dtype=float); "
                           "s = pd.to_numeric(f['timestamp'], errors='coerce').to_numpy(dtype=float); "
                           "b = np.floor((s - s.min()) / 60).astype(np.int64); c = np.bincount(b); "
                           "out.update(requests=int(c.sum()), sums=[float(i.sum()), float(o.sum())])",
}
_WRAP = ("import json, resource, sys, time\nsys.path.insert(0, {root!r})\npath = sys.argv[1]\nout = {{}}\n"
         "begin = time.perf_counter()\n{body}\nout['seconds'] = time.perf_counter() - begin\n"
         "out['peak_mb'] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024\nprint(json.dumps(out))\n")


def big_trace(mb: int, seed: int = 11) -> Path:
    """A trace of about ``mb`` MB (10^6 bytes) in seconds, written once to the temporary folder."""
    path = Path(tempfile.gettempdir()) / f"costfrontier_bench_trace_{mb}mb_{seed}.csv"
    if path.exists():
        return path
    rng = np.random.default_rng(seed)
    partial = path.with_suffix(".partial")
    requests = int(mb * 1e6 / 18.6)          # bytes a row of this format averages
    span = 7 * 86_400.0
    with open(partial, "w", encoding="utf-8") as out:
        out.write("timestamp,input_tokens,output_tokens\n")
        for start in range(0, requests, 1_000_000):
            k = min(1_000_000, requests - start)
            t = np.sort(rng.uniform(0, span, k)) / (requests / k) + span * start / requests
            frame = pd.DataFrame({"timestamp": t, "input_tokens": rng.integers(20, 9_000, k),
                                  "output_tokens": rng.integers(5, 900, k)})
            frame.to_csv(out, index=False, header=False, float_format="%.2f")
    partial.replace(path)
    return path


def _child(what: str, path: Path) -> dict:
    code = _WRAP.format(root=str(ROOT), body=_CHILD[what].replace("; ", "\n"))
    done = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def bench_big(mb: int, baseline: bool) -> None:
    path = big_trace(mb)
    size_mb = path.stat().st_size / 1e6
    print(f"\nbig trace: {path.name}, {size_mb:,.0f} MB")
    idle = _child("idle", path)
    runs = {"streaming": _child("streaming", path),
            "bucketed streaming (GPU mix)": _child("bucketed streaming (GPU mix)", path)}
    if baseline:
        runs["whole file (before)"] = _child("whole file (before)", path)
    print(f"  idle process (the same imports, nothing read): peak {idle['peak_mb']:,.0f} MB")
    for what, run in runs.items():
        print(f"  {what}: {run['seconds']:.1f} s, peak {run['peak_mb']:,.0f} MB = {run['peak_mb'] / size_mb:.2f}x the "
              f"file ({(run['peak_mb'] - idle['peak_mb']) / size_mb:.2f}x above the idle process), "
              f"{run['requests']:,} requests")
    stream = runs["streaming"]
    print(f"  the view: {stream['inline_chars']:,} characters inline (t1;...), {stream['reference_chars']} as a "
          "stored trace's reference (s1;...)")
    if baseline:
        before = runs["whole file (before)"]
        print(f"  streaming against before: {before['seconds'] / stream['seconds']:.1f}x faster, "
              f"{before['peak_mb'] / stream['peak_mb']:.1f}x less peak memory")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--requests", type=int, default=10_000)
    parser.add_argument("--days", type=float, default=1.0)
    parser.add_argument("--window", type=int, default=5)
    parser.add_argument("--big-mb", type=int, default=200, help="size of the big trace [MB]; 0 skips it")
    parser.add_argument("--no-baseline", action="store_true", help="skip the reader it replaced (2-3 GB, 15-40 s)")
    args = parser.parse_args()
    data = _trace(args.requests, args.days)
    capacity = pd.DataFrame([{"series": "MI355X", "hardware": "MI355X", "per_node_rps": 0.02, "gpus_per_node": 8,
                              "isl": 2_000, "osl": 300, "capacity_from": "bench"}])
    begin = time.perf_counter()
    trace = read_trace(data, "bench.csv")
    read_s = time.perf_counter() - begin
    need = demand(trace=trace, window_minutes=args.window, min_nodes=1)
    sized = size_for_demand(capacity, need, {"MI355X": 1.48})
    over = fleet_over_time(capacity, need)
    total_s = time.perf_counter() - begin
    row = sized.iloc[0]
    print(f"{trace.requests:,} requests over {len(trace.counts) / 60:.3g} h, {len(over)} windows of {args.window} min")
    print(f"read: {read_s:.3f} s; read + sizing + the day's fleet: {total_s:.3f} s (target < 2 s)")
    print(f"peak {row['demand_rps']:.3g} req/s, mean {row['mean_rps']:.3g} req/s; nodes {row['nodes']:.0f} at the "
          f"peak, {row['mean_nodes']:.3g} following the load; ${row['usd_per_month']:,.0f} vs "
          f"${row['usd_per_month_autoscaled']:,.0f} a month")
    curve = need.shape
    begin = time.perf_counter()
    owned = owned_cost(0.02 * 2300, 8, 1.48, curve.peak_to_average)
    od = rented_cost(0.02 * 2300, 8, 2.1, True, 1, curve.peak_to_average, weights=curve.weights)
    cheaper_where(owned, od)
    print(f"break-even of owned against on demand following {len(curve.weights)} windows: "
          f"{time.perf_counter() - begin:.3f} s")
    if args.big_mb:
        bench_big(args.big_mb, not args.no_baseline)


if __name__ == "__main__":
    main()
