"""End to end (issue 28): the sales engineer's view in Debian's Chromium gives one recommendation everywhere.

The view: the bundled MI355X MTP series priced by an on-prem cost profile at 75 % use (carried in the link, so
the shared server's store is not written), 16 B tokens a month at peak-to-average 2, an API at $0.20 in / $0.60
out. Oracle (hand-computed): the API costs (8192 × 0.20 + 1024 × 0.60) ÷ 9216 = $0.2444/M total tokens, below
owning at that volume. The Overview's headline, page 1 of the HTML report and of the PDF, and
``costfrontier iso --json`` on the page's link name the API with its $/M and the owned option's effective $/M at
that volume, and restate the demand as typed ("16 B total tokens a month").
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from model.data.store import connect
from tests.kit import cli
from tests.test_e2e import CHROMIUM, _cli, _main, _quiet
from tests.test_e2e_proposal import _download, _html_text, _section
from tests.test_recommendation import _sales_view

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian's chromium (apt-get install chromium)"),
]

DEMAND = "At 16 B total tokens a month (peak 2× the average), API custom prices is the cheapest way to serve it: $0.24/M"


def _query(tmp_path) -> str:
    """The sales view's link query, its profile built in a throwaway store (the link carries it)."""
    from tests.conftest import samples_copy

    db = samples_copy(tmp_path / "throwaway.duckdb")
    assert cli(db, "tco", "--hardware", "MI355X", "--server-usd", "400000", "--utilization", "0.75",
               "--name", "MI355X on-prem", "--save").code == 0
    with connect(db) as con:
        view = _sales_view(con)
    from urllib.parse import urlencode

    return urlencode(view.to_query())


def test_the_sales_engineers_view_names_the_api_on_the_overview_and_page_one(server, browser, tmp_path):
    base, db = server
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(f"{base}/?{_query(tmp_path)}")
    page.wait_for_function("t => document.body.innerText.includes(t)", arg="the cheapest way to serve it",
                           timeout=60_000)
    _quiet(page)
    body = " ".join(_main(page).split())
    assert DEMAND in body, body[:3000]
    out = _cli(db, "iso", "--link", page.url)["recommendation"]
    head = out["headline"]
    owned = next(o for o in out["options"] if o["kind"] == "owned")
    assert out["winner"] == "API custom prices" and out["options"][0]["usd_per_mtok"] == pytest.approx(0.24444, 1e-4)
    assert f"Owning costs {owned['text']} effective at this volume" in head and head in body
    assert owned["usd_per_mtok"] > out["series"][0]["usd_per_mtok"]          # idle capacity included
    doc = _download(page, "HTML report", tmp_path).read_text(encoding="utf-8")
    first = _html_text(_section(doc, "recommendation"))
    assert head in first and "tokens/day" not in first
    page.locator("[data-testid=stSidebar]").get_by_role("button", name="Prepare PDF").click()
    pdf = _download(page, "PDF", tmp_path)
    if shutil.which("pdftotext"):
        text = subprocess.run(["pdftotext", "-l", "1", str(pdf), "-"], capture_output=True, text=True,
                              check=True).stdout
        flat = " ".join(text.split())
        assert DEMAND in flat and f"Owning costs {owned['text']} effective" in flat, flat[:2000]
