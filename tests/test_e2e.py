"""End to end: Debian's Chromium, driven by Playwright, against `streamlit run` on a loopback port.

Screenshots of every page go to test-output/screenshots/ (CI keeps the directory).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from model.figures import usd
from model.samples import load_samples
from model.store import connect
from tests.conftest import ROOT

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]
SHOTS = ROOT / "test-output" / "screenshots"
PAGES = {"overview": "", "frontier": "Frontier", "cost": "Matched_interactivity", "crossovers": "Crossovers",
         "ramps": "Ramps?wl=GLM-5.2|20000|1000&sla=ttft_p95=1.1", "tco_rates": "TCO_rates", "data": "Data"}

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian's chromium (apt-get install chromium)"),
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    db = tmp_path_factory.mktemp("e2e") / "e2e.duckdb"
    con = connect(db)
    load_samples(con)
    con.close()
    # DuckDB lets one process write a file; the CLI answers from an identical copy
    cli_db = db.with_name("cli.duckdb")
    shutil.copy(db, cli_db)
    port = _free_port()
    env = {**os.environ, "COSTFRONTIER_DB": str(db)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.port", str(port),
         "--server.address", "127.0.0.1", "--server.headless", "true", "--browser.gatherUsageStats", "false"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            if urllib.request.urlopen(f"{base}/_stcore/health", timeout=2).read() == b"ok":
                break
        except OSError:
            time.sleep(0.3)
    else:
        proc.kill()
        pytest.fail("streamlit did not start: " + proc.stdout.read().decode()[-2000:])
    yield base, cli_db
    proc.terminate()
    proc.wait(timeout=20)


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


def _open(browser, url: str):
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(url)
    _settle(page)
    return page


def _settle(page) -> None:
    page.wait_for_selector("[data-testid=stSidebar] [data-testid=stSlider]", timeout=30_000)
    # running indicator gone, no stale elements left
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=stStatusWidget]') && "
        "!document.querySelector('[data-stale=true]')", timeout=30_000)
    page.wait_for_timeout(500)


def _cli(db: Path, *argv) -> dict:
    exe = Path(sys.executable).parent / "costfrontier"
    out = subprocess.run([str(exe), "--db", str(db), *argv, "--json"], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def test_share_link_shows_the_cli_answer_and_a_slider_moves_it(server, browser):
    base, db = server
    link = f"{base}/Matched_interactivity?spec=mtp&by=hardware&r=B200:1.6,MI355X:1.3&at=24,55&base=MI355X"
    page = _open(browser, link)
    table = page.locator("[data-testid=stTable]").first.inner_text()
    answer = _cli(db, "iso", "--by", "hardware", "--where", "spec_decoding=mtp", "--where", "model=GLM-5",
                  "--rate", "B200=1.6", "--rate", "MI355X=1.3", "--at", "24,55")
    assert answer["usd_per_gpu_hour"] == {"B200": 1.6, "MI355X": 1.3}
    for row in answer["rows"]:
        assert usd(row["usd_per_mtok"]) in table, (row, table)
    # the slider moves the numbers: five steps right is +$0.05/GPU-h on B200
    b200_before = next(r for r in answer["rows"] if r["series"] == "B200" and r["interactivity"] == 24)
    thumb = page.locator("[data-testid=stSlider]").filter(has_text="B200").get_by_role("slider")
    thumb.focus()
    for _ in range(5):
        thumb.press("ArrowRight")
    page.wait_for_function("() => decodeURIComponent(location.search).includes('B200:1.65')", timeout=15_000)
    _settle(page)
    moved = page.locator("[data-testid=stTable]").first.inner_text()
    expected = b200_before["usd_per_mtok"] * 1.65 / 1.6          # cost is linear in the rate
    assert usd(expected) in moved and moved != table
    page.screenshot(path=str(SHOTS.parent / "slider_moved.png"), full_page=True)
    page.close()


def test_crossover_label_and_share_box(server, browser):
    base, db = server
    page = _open(browser, f"{base}/Crossovers?spec=mtp&by=hardware")
    body = page.locator("[data-testid=stMain]").inner_text()
    answer = _cli(db, "crossover", "--by", "hardware", "--where", "spec_decoding=mtp", "--where", "model=GLM-5")
    (row,) = answer["rows"]
    assert f"{row['cheaper_below']} cheaper below {row['interactivity']:.1f} tok/s/user" in body
    share = page.locator("[data-testid=stSidebar] [data-testid=stCode]").inner_text()
    assert "/Crossovers?" in share and "spec=mtp" in share and len(share) < 300
    page.close()


def test_screenshots_of_every_page(server, browser):
    base, _ = server
    SHOTS.mkdir(parents=True, exist_ok=True)
    for name, path in PAGES.items():
        page = _open(browser, f"{base}/{path}" + ("&" if "?" in path else "?spec=mtp"))
        assert not page.locator("[data-testid=stException]").count(), name
        page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)
        page.close()
    assert len(list(SHOTS.glob("*.png"))) >= len(PAGES)


def test_editing_the_rates_table_moves_the_slider_and_the_link(server, browser):
    base, _ = server
    page = _open(browser, f"{base}/TCO_rates?spec=mtp")
    grid = page.locator("[data-testid=stDataFrame]").first
    box = grid.bounding_box()
    # the grid takes a moment after it is drawn before it accepts edits; typing lands only once the
    # cell editor is open, so the edit is retried as a whole if the link does not follow
    page.wait_for_timeout(2_000)
    for attempt in range(3):
        for _ in range(6):
            page.mouse.dblclick(box["x"] + box["width"] * 0.62, box["y"] + 52)   # B200 row, "your $/GPU-hour"
            page.wait_for_timeout(800)
            if page.locator("textarea, input.gdg-input").count():
                break
        page.keyboard.press("Control+A")
        page.wait_for_timeout(300)
        page.keyboard.type("1.5", delay=50)
        page.wait_for_timeout(300)
        page.keyboard.press("Enter")
        try:
            page.wait_for_function("() => decodeURIComponent(location.search).includes('r=B200:1.5')",
                                   timeout=10_000)
            break
        except Exception:
            if attempt == 2:
                page.screenshot(path=str(SHOTS.parent / "rates_table_failure.png"), full_page=True)
                raise
    _settle(page)
    slider = page.locator("[data-testid=stSlider]").filter(has_text="B200").inner_text()
    assert "$1.50" in slider
    page.close()
