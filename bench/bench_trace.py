"""Trace benchmark: read a request trace in the Azure LLM inference trace format and size a fleet that follows
it. Prints figures; asserts nothing (the target is under 2 s for 10,000 requests, issue 31).

    python bench/bench_trace.py [--requests 10000] [--days 1] [--window 5]

The trace is generated with a daily pattern (busier by day) in the columns and timestamp format of
Azure/AzurePublicDataset's ``TIMESTAMP,ContextTokens,GeneratedTokens``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from model.core.demand import demand  # noqa: E402
from model.core.fleet import fleet_over_time, size_for_demand  # noqa: E402
from model.core.trace import read_trace  # noqa: E402
from model.core.volume import cheaper_where, owned_cost, rented_cost  # noqa: E402


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--requests", type=int, default=10_000)
    parser.add_argument("--days", type=float, default=1.0)
    parser.add_argument("--window", type=int, default=5)
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


if __name__ == "__main__":
    main()
