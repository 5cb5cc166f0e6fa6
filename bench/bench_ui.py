"""Dashboard benchmark at 100,000 rows. Prints figures; asserts nothing.

    python bench/bench_ui.py [--rows 100000] [--no-browser]

1. Server-side rerun after a TCO slider change (target < 150 ms), measured with Streamlit's
   AppTest running the real page script, against a rerun with nothing changed (baseline) and
   the first, cold run.
2. Cold share-link load in Chromium (target < 3 s): a fresh browser context opens a link with
   non-default rates and targets against a freshly started server, until the $/M table is on
   screen; baseline: the same link opened again in a new context (server caches warm).
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_core import make_rows  # noqa: E402

from model.data.ingest import ingest_file  # noqa: E402
from model.data.store import connect  # noqa: E402

PAGE = "views/matched_interactivity.py"
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]


def build_db(tmp: Path, rows: int) -> tuple[Path, str, str]:
    frame = make_rows(rows, max(20, rows // 1000))
    csv = tmp / "ui.csv"
    frame.to_csv(csv, index=False)
    db = tmp / "ui.duckdb"
    con = connect(db)
    ingest_file(con, csv)
    con.close()
    # every row in view: all workloads, series split by model and ISL/OSL
    return db, "all", str(frame.iloc[0]["hardware"])


def bench_rerun(db: Path, workload: str, hardware: str, repeats: int = 15) -> None:
    from streamlit.testing.v1 import AppTest

    os.environ["COSTFRONTIER_DB"] = str(db)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)   # the frame, then the page
    at.query_params["wl"] = workload
    at.query_params["at"] = "20,40,60"
    start = time.perf_counter()
    at.run()
    at.switch_page(PAGE).run()
    cold = time.perf_counter() - start
    assert not at.exception, at.exception
    slider = at.slider(key=f"rate::{hardware}")
    noop, moved = [], []
    for i in range(repeats):
        start = time.perf_counter()
        at.run()
        noop.append(time.perf_counter() - start)
        slider = at.slider(key=f"rate::{hardware}")
        start = time.perf_counter()
        slider.set_value(round(1.0 + 0.05 * (i + 1), 2)).run()
        moved.append(time.perf_counter() - start)
        assert not at.exception, at.exception
    med_noop, med_moved = statistics.median(noop), statistics.median(moved)
    print(f"rerun after a slider change: median {med_moved * 1000:.0f} ms over {repeats} "
          f"(target < 150 ms); rerun with nothing changed {med_noop * 1000:.0f} ms "
          f"(ratio {med_moved / med_noop:.2f}x); first cold run {cold * 1000:.0f} ms")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


_BASELINE_PAGE = """import plotly.graph_objects as go
import streamlit as st

st.text_input("targets")
st.plotly_chart(go.Figure(go.Scatter(x=[1, 2, 3], y=[3, 1, 2])))
st.table({"series": ["a", "b"], "usd_per_mtok": [0.22, 0.31]})
"""


def _serve(script: Path, db: Path | None, cwd: Path) -> tuple[subprocess.Popen, str]:
    port = _free_port()
    env = {**os.environ, **({"COSTFRONTIER_DB": str(db)} if db else {})}
    server = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(script), "--server.port", str(port),
         "--server.address", "127.0.0.1", "--server.headless", "true"],
        cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            if urllib.request.urlopen(f"{base}/_stcore/health", timeout=1).read() == b"ok":
                break
        except OSError:
            time.sleep(0.2)
    return server, base


def _loads(browser, url: str, repeats: int = 3) -> list[float]:
    """Seconds from navigation until the first st.table is on screen, each in a fresh context."""
    times = []
    for _ in range(repeats):
        context = browser.new_context(viewport={"width": 1280, "height": 800})
        page = context.new_page()
        start = time.perf_counter()
        page.goto(url)
        page.wait_for_selector("[data-testid=stTable]", timeout=120_000)
        times.append(time.perf_counter() - start)
        context.close()
    return times


def bench_browser(db: Path, workload: str, tmp: Path) -> None:
    from playwright.sync_api import sync_playwright

    baseline_script = tmp / "baseline_app.py"
    baseline_script.write_text(_BASELINE_PAGE)
    ours, ours_base = _serve(ROOT / "app.py", db, ROOT)
    floor, floor_base = _serve(baseline_script, None, tmp)
    link = f"{ours_base}/Matched_interactivity?wl={workload}&r=H100:1.1,B200:2.5&at=20,40,60&method=monotone"
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            ours_times = _loads(browser, link)
            floor_times = _loads(browser, floor_base)
            browser.close()
    finally:
        for server in (ours, floor):
            server.terminate()
            server.wait(timeout=20)
    cold, warm, base = ours_times[0], min(ours_times[1:]), min(floor_times)
    print(f"share link, cold (new server, new browser context, until the $/M table shows): {cold:.2f} s "
          f"(target < 3 s); same link with the server warm: {warm:.2f} s")
    print(f"baseline in this browser: a one-chart, one-table Streamlit page loads in {base:.2f} s; "
          f"ratios cold {cold / base:.2f}x, warm {warm / base:.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--no-browser", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db, workload, hardware = build_db(Path(tmp), args.rows)
        # one process may hold a DuckDB file: the browser's server gets its own copy
        served = Path(tmp) / "served.duckdb"
        shutil.copy(db, served)
        print(f"{args.rows:,} rows; page {PAGE}; workload {workload}")
        bench_rerun(db, workload, hardware)
        if not args.no_browser and Path(CHROMIUM).exists():
            bench_browser(served, workload, Path(tmp))


if __name__ == "__main__":
    main()
