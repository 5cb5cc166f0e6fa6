"""Memory benchmark (issue 32): what a distinct view costs a dashboard replica, before and after the byte-bounded
cache, and what a 900-series PDF costs with its Chromium. Prints figures; asserts nothing.

    python bench/bench_memory.py [--before REV_OR_DIR] [--views 4] [--rows 100000,1000000] [--no-pdf]

For each store (900 series of one workload, ``bench_scale.inferencex_rows``) and each source tree (``--before``:
a folder, or a git revision checked out in a temporary worktree, default the commit before the dashboard loaded
only the columns its pages read (f2f3102; 8a530af is the one before the byte-bounded cache); then this one; each run by its own .venv, else this one's): a real ``streamlit run`` replica (read-only) is warmed with the default
view (the Overview and the Frontier page), then ``--views`` sessions each open a distinct view (a step of the
interactivity slider, ``x=``) on both pages and stay open. Printed: resident memory idle, after the views, and
after the sessions close, and MB per view = (after the views - idle) / views; then the ratio before/after.
The PDF: the report of the 900-series view printed by :func:`model.present.report_output.html_to_pdf`, the peak
resident memory of the Chromium process tree and of this process sampled every 20 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_scale import inferencex_rows  # noqa: E402

from tests.replica import Session, rss_mb, start_server, stop  # noqa: E402


def make_store(rows: int, folder: Path) -> Path:
    from model.data.ingest import ingest_file
    from model.data.store import connect

    db, csv = folder / f"s{rows}.duckdb", folder / f"s{rows}.csv"
    inferencex_rows(rows, 900).to_csv(csv, index=False)
    con = connect(db)
    ingest_file(con, csv)
    con.close()
    csv.unlink()
    return db


async def _views(base: str, views: int) -> tuple[float, list[Session]]:
    sessions = []
    for i in range(views):
        session = await Session(base).open()
        sessions.append(session)
        for page in ("", "Frontier"):
            await session.run(page, f"x={20 + 0.5 * i}", timeout_s=900)
    return time.perf_counter(), sessions


def replica(tree: Path, db: Path, views: int) -> dict:
    python = tree / ".venv" / "bin" / "python"
    proc, base = start_server(tree, db, python=str(python) if python.exists() else None)
    try:
        async def run() -> dict:
            warm = await Session(base).open()
            start = time.perf_counter()
            for page in ("", "Frontier"):
                await warm.run(page, "", timeout_s=900)
            await warm.close()
            out = {"warm_s": time.perf_counter() - start, "idle": rss_mb(proc.pid)}
            start = time.perf_counter()
            done, sessions = await _views(base, views)
            out["per_view_s"] = (done - start) / views
            out["after_views"] = rss_mb(proc.pid)
            for session in sessions:
                await session.close()
            await asyncio.sleep(2)
            out["closed"] = rss_mb(proc.pid)
            return out

        return asyncio.run(run())
    finally:
        stop(proc)


def _tree_rss_mb(root: int, proportional: bool = False) -> float:
    """Resident memory of the descendants of ``root`` (not ``root`` itself), summed (pages shared between them
    count in each), or proportional (each shared page split between its sharers) [MB]."""
    parents = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as f:
                    parents[int(name)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
    below, frontier = set(), {root}
    while frontier:
        frontier = {pid for pid, parent in parents.items() if parent in frontier and pid not in below}
        below |= frontier
    total = 0.0
    for pid in below:
        try:
            total += (pss_mb if proportional else rss_mb)(pid)
        except OSError:
            continue
    return total


def pss_mb(pid: int) -> float:
    """Proportional resident memory of ``pid`` (its share of pages it shares with others) [MB]."""
    with open(f"/proc/{pid}/smaps_rollup") as f:
        for line in f:
            if line.startswith("Pss:"):
                return int(line.split()[1]) / 1024
    return 0.0


def pdf_peak(db: Path) -> dict:
    from model.core.view import View
    from model.data.snapshot import open_snapshot
    from model.present.report import build_report
    from model.present.report_sections import report_parts
    from model.present.view_answer import answer_of_view

    con = open_snapshot(db)
    start = time.perf_counter()
    report = build_report(answer_of_view(con, View(), report_parts(View())))
    built = time.perf_counter() - start
    con.close()
    peak, pss, done = [0.0], [0.0], threading.Event()

    def sample() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], _tree_rss_mb(os.getpid()))
            pss[0] = max(pss[0], _tree_rss_mb(os.getpid(), proportional=True))
            time.sleep(0.02)

    sampler = threading.Thread(target=sample)
    sampler.start()
    start = time.perf_counter()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            size = report.to_pdf(Path(tmp) / "r.pdf", timeout_s=600).stat().st_size
    finally:
        done.set()
        sampler.join()
    return {"build_s": built, "print_s": time.perf_counter() - start, "chromium_peak": peak[0], "chromium_pss": pss[0],
            "python": rss_mb(os.getpid()), "pdf_mb": size / 2**20, "print_html_mb": len(report.print_html) / 2**20}


def compare(rows: int, views: int, db: Path, before_tree: Path, pdf: bool) -> None:
    figures = {}
    for label, tree in (("before", before_tree), ("after", ROOT)):
        r = replica(tree, db, views)
        figures[label] = r
        r["per_view"] = (r["after_views"] - r["idle"]) / views
        print(f"{rows:>9,} rows, {label:6}: idle {r['idle']:.0f} MB, after {views} views {r['after_views']:.0f} MB, "
              f"sessions closed {r['closed']:.0f} MB; {r['per_view']:.1f} MB per view ({r['per_view_s']:.1f} s per "
              f"view, warm-up {r['warm_s']:.0f} s)", flush=True)
    before, after = figures["before"]["per_view"], figures["after"]["per_view"]
    print(f"{rows:>9,} rows: MB per view before/after = {before:.1f}/{after:.1f}"
          + (f" = {before / after:.1f}x" if after > 0.05 else " (after: within the noise)"), flush=True)
    if pdf:
        p = pdf_peak(db)
        print(f"  900-series PDF: report built in {p['build_s']:.1f} s (print HTML {p['print_html_mb']:.1f} MB), "
              f"printed in {p['print_s']:.1f} s ({p['pdf_mb']:.1f} MB); Chromium's peak {p['chromium_peak']:.0f} MB "
              f"(RSS summed; {p['chromium_pss']:.0f} MB proportional), this process {p['python']:.0f} MB", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", default="f2f3102",
                        help="the source tree to compare with: a folder, or a git revision of this repository")
    parser.add_argument("--views", type=int, default=4)
    parser.add_argument("--rows", default="100000,1000000")
    parser.add_argument("--no-pdf", action="store_true")
    args = parser.parse_args()
    with open("/proc/loadavg") as f:
        print(f"load average at start: {' '.join(f.read().split()[:3])} on {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory(prefix="bench-memory-") as tmp:
        before_tree = Path(args.before)
        if not before_tree.is_dir():   # a revision: checked out beside, removed after
            before_tree = Path(tmp) / "before"
            subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(before_tree), args.before],
                           check=True, capture_output=True)
        try:
            for rows in (int(r) for r in args.rows.split(",")):
                views = args.views if rows <= 100_000 else max(2, args.views // 2)
                compare(rows, views, make_store(rows, Path(tmp)), before_tree, rows == 100_000 and not args.no_pdf)
        finally:
            if before_tree.parent == Path(tmp):
                subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(before_tree)],
                               capture_output=True)
    with open("/proc/loadavg") as f:
        print(f"load average at the end: {' '.join(f.read().split()[:3])}")


if __name__ == "__main__":
    main()
