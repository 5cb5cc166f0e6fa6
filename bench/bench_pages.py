"""Server CPU per page view, against a one-chart Streamlit page in the same run (issue 19). Prints figures;
asserts nothing.

    python bench/bench_pages.py [--reruns 5] [--sessions 3] [--pages Frontier,History] [--viewers 1,4,8]
                                [--scale-series 900] [--skip-scale] [--scale-only]

Two servers run side by side on copies of one database (the bundled samples): ours (``app.py`` from the
repository, so with ``.streamlit/config.toml``'s production settings) and the baseline, a one-chart page
that reads the same DuckDB table and draws one Plotly chart and a slider, under Streamlit's defaults
(file watcher on, ``gc.collect(2)`` after every run). Chromium drives both. Server CPU is the server
process's user + system time from ``/proc``, read before a view and again once the page has settled
(an element drawn, no running indicator, no stale element, no server CPU and
almost no browser CPU (under 0.03 s per 0.2 s) for 0.6 s). Browser CPU is the same for every
Chromium process this script started.

0. The first view of a share link after start, on a server left cold and on one ``deploy/warm.py`` warmed
   (its CPU at start printed apart), against the second view.
1. Per page: server CPU of a new session (a fresh browser context opening the page's link), for the first
   viewer of the link on that page (who computes what the server then shares) and the next ones (median of
   ``--sessions``), and of a slider rerun (the sidebar's first slider moved one step up with the keyboard, as a
   user does: each step a rate no view had before, so nothing is answered from the cache), median of ``--reruns``; the ratio to the baseline page's own new session (the median of its
   sessions, one taken after each page's, so a load change during the run moves both) and slider rerun.
2. Concurrent viewers of one link (the overview with non-default rates): 1, 4 and 8 contexts open it at
   once, 3 times; server CPU per view, and the p50/p95 time from navigation to settled. Viewers per core:
   how many viewers one core serves if each opens a new view every 10 s (10 s / server CPU per view).
3. Browser CPU of the Crossovers page on the samples and on ``--scale-series`` series in one workload
   (``bench_scale.inferencex_rows``, 100,000 rows), as it opens (what a person can read) and with every curve
   drawn (``allc=1``): the ratio to the samples' is the target (within 2x).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_ui import ARGS, CHROMIUM, _serve  # noqa: E402

from deploy.warm import warm  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")
LINK = "?r=B200:3.1,MI355X:1.6&at=20,40,60"
PAGES = [("overview", ""), ("Frontier", "Frontier"), ("Matched interactivity", "Matched_interactivity"),
         ("Crossovers", "Crossovers"), ("Ramps", "Ramps"), ("TCO rates", "TCO_rates"),
         ("TCO builder", "TCO_builder"), ("Fleet", "Fleet"), ("Buy, rent or API", "Buy_rent_or_API"),
         ("History", "History"), ("Data", "Data")]

_BASELINE_PAGE = """import duckdb
import plotly.graph_objects as go
import streamlit as st

rate = st.sidebar.slider("$/GPU-hour", 0.5, 10.0, 2.0, 0.1)
con = duckdb.connect({db!r}, read_only=True)
rows = con.execute("SELECT interactivity, total_tokens_per_second_per_gpu FROM points "
                   "WHERE interactivity IS NOT NULL AND total_tokens_per_second_per_gpu > 0").fetchall()
con.close()
x = [r[0] for r in rows]
y = [rate / (r[1] * 3600) * 1e6 for r in rows]
st.plotly_chart(go.Figure(go.Scatter(x=x, y=y, mode="markers")))
"""


def cpu_s(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def descendants(root: int) -> list[int]:
    parent: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    parent[int(entry)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        kids = [c for c, p in parent.items() if p == pid]
        out += kids
        todo += kids
    return out


def browser_cpu_s() -> float:
    total = 0.0
    for pid in descendants(os.getpid()):
        try:
            with open(f"/proc/{pid}/comm") as f:
                if "chrom" not in f.read():
                    continue
            total += cpu_s(pid)
        except OSError:
            continue
    return total


async def settle(page, server: int, quiet_s: float = 0.6) -> None:
    """Until the script run is over and the server has used no CPU for ``quiet_s``."""
    await page.wait_for_selector("[data-testid=stMain] [data-testid=stElementContainer]", timeout=120_000)
    await page.wait_for_function(
        "() => !document.querySelector('[data-testid=stStatusWidget]') && "
        "!document.querySelector('[data-stale=true]')", timeout=120_000)
    last, last_browser, quiet = cpu_s(server), browser_cpu_s(), 0.0
    while quiet < quiet_s:
        await asyncio.sleep(0.2)
        now, now_browser = cpu_s(server), browser_cpu_s()
        quiet = quiet + 0.2 if now == last and now_browser - last_browser < 0.03 else 0.0
        last, last_browser = now, now_browser


async def view_cpu(browser, url: str, server: int, reruns: int) -> tuple[float, float | None, float]:
    """(server CPU of a new session, median server CPU of a slider rerun or None, browser CPU of the view)."""
    context = await browser.new_context(viewport={"width": 1280, "height": 800})
    page = await context.new_page()
    try:
        before, browser_before = cpu_s(server), browser_cpu_s()
        await page.goto(url)
        await settle(page, server)
        first, browser_first = cpu_s(server) - before, browser_cpu_s() - browser_before
        slider = page.locator("[data-testid=stSidebar] [data-testid=stSlider] input[type=range]").first
        if not reruns:
            return first, None, browser_first
        try:
            await slider.wait_for(state="attached", timeout=15_000)
        except Exception:       # a page without a sidebar slider
            return first, None, browser_first
        moved = []
        for i in range(reruns):
            before = cpu_s(server)
            await slider.focus()
            await slider.press("ArrowRight")         # a rate no view had before: never a cache hit
            await asyncio.sleep(0.3)
            await settle(page, server)
            moved.append(cpu_s(server) - before)
        return first, statistics.median(moved), browser_first
    finally:
        await context.close()


async def viewers(browser, url: str, server: int, n: int, rounds: int = 3) -> tuple[float, list[float]]:
    """Server CPU per view and every viewer's navigation-to-settled time, ``n`` viewers at once."""
    async def one(times: list[float]) -> None:
        context = await browser.new_context(viewport={"width": 1280, "height": 800})
        page = await context.new_page()
        start = time.perf_counter()
        await page.goto(url)
        await page.wait_for_selector("[data-testid=stAppViewContainer]", timeout=120_000)
        await page.wait_for_function(
            "() => document.querySelector('[data-testid=stMetric]') && "
            "!document.querySelector('[data-testid=stStatusWidget]')", timeout=120_000)
        times.append(time.perf_counter() - start)
        await context.close()

    times: list[float] = []
    before = cpu_s(server)
    for _ in range(rounds):
        await asyncio.gather(*(one(times) for _ in range(n)))
    await asyncio.sleep(1.0)
    return (cpu_s(server) - before) / (n * rounds), times


def _p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def samples_db(path: Path) -> None:
    subprocess.run([sys.executable, "-m", "model.cli", "--db", str(path), "load-samples"], cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL)


def scale_db(path: Path, series: int) -> None:
    from bench_scale import inferencex_rows

    from model.data.ingest import ingest_file
    from model.data.store import connect

    csv = path.with_suffix(".csv")
    inferencex_rows(100_000, series).to_csv(csv, index=False)
    con = connect(path)
    ingest_file(con, csv)
    con.close()


async def run(args, tmp: Path) -> None:
    from playwright.async_api import async_playwright

    ours_db, floor_db = tmp / "ours.duckdb", tmp / "floor.duckdb"
    samples_db(ours_db)
    shutil.copy(ours_db, floor_db)
    baseline = tmp / "baseline" / "one_chart.py"
    baseline.parent.mkdir()
    baseline.write_text(_BASELINE_PAGE.format(db=str(floor_db)))
    if not args.scale_only:
        cold_db = tmp / "cold.duckdb"
        shutil.copy(ours_db, cold_db)
        cold, cold_url = _serve(ROOT / "app.py", cold_db, ROOT)
        ours, ours_url = _serve(ROOT / "app.py", ours_db, ROOT)
        floor, floor_url = _serve(baseline, None, baseline.parent)   # no config file there: Streamlit's defaults
        try:
            before = cpu_s(ours.pid)
            warmed = await asyncio.to_thread(warm, ours_url)
            warm_cpu = cpu_s(ours.pid) - before
            async with async_playwright() as p:
                browser = await p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
                # the first view of a share link after start: on a server left cold, and on one deploy/warm.py warmed
                first_cold = await view_cpu(browser, cold_url + "/" + LINK, cold.pid, 0)
                cold.terminate()
                first_ours = await view_cpu(browser, ours_url + "/" + LINK, ours.pid, 0)
                second_ours = await view_cpu(browser, ours_url + "/" + LINK, ours.pid, 0)
                first_floor = await view_cpu(browser, floor_url, floor.pid, 0)
                print(f"first view of a share link after start, server CPU: cold server {first_cold[0]:.2f} s; "
                      f"warmed ({warmed[1].split(': ', 1)[1]}, {warm_cpu:.2f} s of CPU at start) {first_ours[0]:.2f} s; "
                      f"second view {second_ours[0]:.2f} s (first/second: cold {first_cold[0] / second_ours[0]:.2f}x, "
                      f"warmed {first_ours[0] / second_ours[0]:.2f}x); baseline page's first view {first_floor[0]:.2f} s")
                _, base_rerun, _ = await view_cpu(browser, floor_url, floor.pid, args.reruns)
                # the baseline's new sessions are taken between the pages' (one after each page), so load that
                # changes during the run moves both; each ratio is against the median of all of them
                base_sessions = [(await view_cpu(browser, floor_url, floor.pid, 0))[0] for _ in range(args.sessions)]
                rows = []
                for title, path in PAGES:
                    if args.pages and title not in args.pages and path not in args.pages:
                        continue
                    first, _, _ = await view_cpu(browser, f"{ours_url}/{path}{LINK}", ours.pid, 0)
                    _, rerun, _ = await view_cpu(browser, f"{ours_url}/{path}{LINK}", ours.pid, args.reruns)
                    nexts = [(await view_cpu(browser, f"{ours_url}/{path}{LINK}", ours.pid, 0))[0]
                             for _ in range(args.sessions)]
                    base_sessions.append((await view_cpu(browser, floor_url, floor.pid, 0))[0])
                    rows.append((title, first, statistics.median(nexts), rerun))
                base_new = statistics.median(base_sessions)
                print(f"\n1. Server CPU per view [s] (baseline: one-chart page, Streamlit defaults: new session "
                      f"{base_new:.3f} s, median of {len(base_sessions)} taken between the pages' "
                      f"(range {min(base_sessions):.3f}–{max(base_sessions):.3f}), slider rerun {base_rerun:.3f} s)")
                print(f"| page | first viewer's session | ratio | next viewer's session (median of {args.sessions}) "
                      "| ratio | slider rerun | ratio |\n|---|---|---|---|---|---|---|")
                for title, first, new, rerun in rows:
                    rerun_text = f"{rerun:.3f} | {rerun / base_rerun:.2f}x" if rerun is not None else "— | —"
                    print(f"| {title} | {first:.3f} | {first / base_new:.2f}x | {new:.3f} | {new / base_new:.2f}x | "
                          f"{rerun_text} |", flush=True)

                print("\n2. Concurrent viewers of one link (overview), 3 rounds each")
                print("| viewers | server CPU per view [s] | p50 [s] | p95 [s] | viewers per core (a view each 10 s) |")
                print("|---|---|---|---|---|")
                for n in args.viewers:
                    per_view, times = await viewers(browser, ours_url + "/" + LINK, ours.pid, n)
                    print(f"| {n} | {per_view:.3f} | {_p(times, 0.5):.2f} | {_p(times, 0.95):.2f} | "
                          f"{10 / per_view:.0f} |", flush=True)
                await browser.close()
        finally:
            for server in (cold, ours, floor):
                server.terminate()
                server.wait(timeout=20)
    if args.skip_scale:
        return
    big = tmp / "scale.duckdb"
    scale_db(big, args.scale_series)
    print("\n3. Browser CPU of the Crossovers page (new context, until settled) [s]")
    figures = {}
    cases = (("samples", ours_db, ""), (f"{args.scale_series} series", big, ""),
             (f"{args.scale_series} series, every curve drawn (allc=1, as before issue 19)", big, "?allc=1"))
    for label, db, query in cases:
        server, url = _serve(ROOT / "app.py", db, ROOT)
        try:
            async with async_playwright() as p:
                browser = await p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
                await view_cpu(browser, f"{url}/Crossovers{query}", server.pid, 0)       # warm the server
                runs = [await view_cpu(browser, f"{url}/Crossovers{query}", server.pid, 0) for _ in range(3)]
                await browser.close()
        finally:
            server.terminate()
            server.wait(timeout=20)
        figures[label] = statistics.median(r[2] for r in runs)
        print(f"{label}: browser {figures[label]:.2f} s ({figures[label] / next(iter(figures.values())):.2f}x the "
              f"samples'), server {statistics.median(r[0] for r in runs):.2f} s", flush=True)
    print("target: the 900-series page within 2x of the samples'")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reruns", type=int, default=5)
    parser.add_argument("--sessions", type=int, default=3,
                        help="new sessions per page after the first viewer's (median printed), and of the baseline")
    parser.add_argument("--pages", type=lambda s: s.split(","), default=[],
                        help="only these pages of part 1 (titles or paths, comma-separated)")
    parser.add_argument("--viewers", type=lambda s: [int(v) for v in s.split(",")], default=[1, 4, 8])
    parser.add_argument("--scale-series", type=int, default=900)
    parser.add_argument("--skip-scale", action="store_true")
    parser.add_argument("--scale-only", action="store_true", help="only part 3")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    print(f"{time.strftime('%Y-%m-%d %H:%M')}, load average {load:.1f} on {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(run(args, Path(tmp)))


if __name__ == "__main__":
    main()
