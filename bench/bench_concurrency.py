"""Concurrent distinct views on one server (issue 39): server CPU per view and each session's time, this checkout
against another in the same run. Prints figures; asserts nothing.

    python bench/bench_concurrency.py [--against DIR] [--sessions 8] [--rounds 3] [--page Matched_interactivity]

For each source tree (``--against``: a folder holding another checkout, e.g. a git worktree of the commit before
the answer was built in named steps; then this one), a real ``streamlit run`` server (read-only) of a copy of the
bundled samples is warmed with the default view, then ``--sessions`` sessions (Streamlit's own WebSocket, as a
browser's) open the page at once, each with a view of its own (the interactivity you need, ``x=``: a distinct
answer, the same fit), ``--rounds`` times with new views. Printed per tree: the server's CPU per view (user +
system from /proc, over the round / views), and each round's session times: the fastest, the median and the slowest.
With answers computed by whoever reads a part first under one lock per part for every answer (Python 3.11's
``functools.cached_property``), sessions of distinct views took turns; computed as values, each session's rerun runs
its own steps, so the slowest session is not the sum of the others' work.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from model.data.samples import load_samples  # noqa: E402
from model.data.store import connect  # noqa: E402
from tests.replica import Session, start_server, stop  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")


def _cpu(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


async def _round(base: str, page: str, views: list[str]) -> list[float]:
    async def one(query: str) -> float:
        session = await Session(base).open()
        try:
            start = time.perf_counter()
            status = await session.run(page, query)
            assert status == "FINISHED_SUCCESSFULLY" and not session.errors, (status, session.errors)
            return time.perf_counter() - start
        finally:
            await session.close()
    return list(await asyncio.gather(*(one(q) for q in views)))


def measure(tree: Path, db: Path, page: str, sessions: int, rounds: int) -> dict:
    proc, base = start_server(tree, db, read_only=True)
    try:
        asyncio.run(_round(base, page, ["by=hardware"]))            # warm: the imports, the fit of the default view
        cpu, times = [], []
        for r in range(rounds):
            views = [f"by=hardware&x={20 + r * sessions + i + 0.5}" for i in range(sessions)]
            before = _cpu(proc.pid)
            times.append(asyncio.run(_round(base, page, views)))
            cpu.append((_cpu(proc.pid) - before) / sessions)
        return {"cpu_per_view": statistics.median(cpu), "times": times}
    finally:
        stop(proc)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--against", type=Path, help="another checkout to compare with (a folder)")
    parser.add_argument("--sessions", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--page", default="Matched_interactivity")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="costfrontier-concurrency-"))
    try:
        db = folder / "samples.duckdb"
        con = connect(db)
        load_samples(con)
        con.close()
        trees = ([("other", args.against)] if args.against else []) + [("this", ROOT)]
        found = {}
        for name, tree in trees:
            copy = folder / f"{name}.duckdb"
            shutil.copy(db, copy)
            found[name] = measure(tree, copy, args.page, args.sessions, args.rounds)
            fig = found[name]
            flat = [t for round_times in fig["times"] for t in round_times]
            slowest = statistics.median(max(t) for t in fig["times"])
            print(f"{name} ({tree}): {args.sessions} sessions of distinct views on {args.page}, {args.rounds} rounds: "
                  f"server CPU per view {fig['cpu_per_view']:.3f} s; session time fastest {min(flat):.2f} s, median "
                  f"{statistics.median(flat):.2f} s, slowest of a round (median) {slowest:.2f} s")
        if "other" in found:
            a, b = found["this"], found["other"]
            print(f"ratios this / other: server CPU per view {a['cpu_per_view'] / b['cpu_per_view']:.2f}, slowest "
                  f"session of a round {statistics.median(max(t) for t in a['times']) / statistics.median(max(t) for t in b['times']):.2f}")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
