"""End to end (issue 21): the History page opened by a link in Chromium shows the same table as
``costfrontier history --json``, on a store with several run dates (tests/fixtures/history)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from model.data.ingest import ingest_file
from model.data.store import connect
from model.present.fmt import for_people
from tests.conftest import FIXTURES
from tests.test_e2e import CHROMIUM, SHOTS, _settle, _shows

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian's chromium (apt-get install chromium)"),
]
COLUMNS = ["series", "run_date", "usd_per_mtok", "status", "best_usd_per_mtok", "best_from", "source"]


def test_history_page_by_link_equals_the_cli(tmp_path, browser):
    from deploy.serve import free_port, start_replica, stop, wait_healthy

    db = tmp_path / "history.duckdb"          # this test's own store, served by its own server
    con = connect(db)
    for name in ("runs_2026-01-10.csv", "runs_2026-02-10.csv", "runs_2026-03-10.csv", "runs_undated.csv"):
        ingest_file(con, FIXTURES / "history" / name)
    con.close()
    cli_db = db.with_name("cli.duckdb")        # one process writes a DuckDB file; the CLI reads a copy
    shutil.copy(db, cli_db)
    port = free_port()
    proc = start_replica(db, port, read_only=False)
    base = f"http://127.0.0.1:{port}"
    page = None
    try:
        wait_healthy(base, proc, timeout_s=60)
        page = browser.new_page(viewport={"width": 1280, "height": 1000})
        page.goto(f"{base}/History?wl=all&by=hardware&x=40&rep=latest")
        _settle(page)
        _shows(page, "History by run date", "Best so far set by", "1 of 15 rows states no run date")
        cells = page.locator("[data-testid=stTable] table").first
        header = [h.strip() for h in cells.locator("thead th").all_inner_texts()]
        body = [[c.strip() for c in row.locator("th, td").all_inner_texts()]
                for row in cells.locator("tbody tr").all()]
        shown = pd.DataFrame(body, columns=header)
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "history.png"), full_page=True)
    finally:
        if page is not None:
            page.close()
        stop(proc)
    exe = Path(sys.executable).parent / "costfrontier"
    out = subprocess.run([str(exe), "--db", str(cli_db), "history", "--at", "40", "--by", "hardware", "--repeats",
                          "latest", "--json"], capture_output=True, text=True, check=True)
    cli = for_people(pd.DataFrame(json.loads(out.stdout)["rows"])[COLUMNS])
    assert list(shown.columns) == list(cli.columns)
    assert shown.values.tolist() == cli.values.tolist()
    assert len(shown) == 5
