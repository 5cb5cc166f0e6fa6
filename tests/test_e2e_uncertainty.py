"""End to end (issue 21, interpolation error): a share link opens Cost at matched interactivity in Chromium; the
± beside each interpolated $/M and the shaded bands are what ``costfrontier iso --link ... --json`` says."""

from __future__ import annotations

from pathlib import Path

import pytest

from model.present import fmt
from tests.test_e2e import CHROMIUM, SHOTS, _cli, _open, _shows

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian's chromium (apt-get install chromium)"),
]

LINK = "Matched_interactivity?spec=mtp&by=hardware&at=30,65,90"


def test_the_plus_minus_on_the_cost_page_equals_the_cli(server, browser):
    base, db = server
    url = f"{base}/{LINK}"
    page = _open(browser, url)
    expected = _cli(db, "iso", "--link", url)
    cells = [fmt.usd_band(r["usd_per_mtok"], r["usd_per_mtok_low"], r["usd_per_mtok_high"], r["error_from"])
             for r in expected["rows"] if r["status"] in ("measured", "interpolated")]
    assert any(("± " in c or "/+" in c) and "?" not in c for c in cells)
    _shows(page, *cells)
    # the table's cells, row by row, as the reader sees them
    table = page.locator("[data-testid=stTable]").first.inner_text()
    for row in expected["rows"]:
        if row["status"] in ("measured", "interpolated"):
            assert fmt.band(row["usd_per_mtok"], row["usd_per_mtok_low"], row["usd_per_mtok_high"],
                            row["error_from"]) in table
    bands = page.evaluate(
        "() => [...document.querySelectorAll('.js-plotly-plot')].flatMap(p => p._fullData)"
        ".filter(t => t.meta && t.meta.kind === 'band').map(t => t.meta.series)")
    assert sorted(bands) == sorted({r["series"] for r in expected["rows"]})
    figures = expected["interpolation_error"]["by_method"]
    # the default ("auto") prices by monotone on this data, the method in use, and says so
    assert expected["interpolation_error"]["method"] == "monotone"
    _shows(page, f"monotone (in use) by {fmt.percent(figures['monotone']['usd_median'], 1)}",
           "Interpolation: monotone (it fits this store's data better by leave-one-out).",
           "the range held for 18 of 20 (90%) under linear")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.locator("[data-testid=stPlotlyChart]").first.screenshot(path=str(SHOTS / "cost_band.png"))
    page.close()
