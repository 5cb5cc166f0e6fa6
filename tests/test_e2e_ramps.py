"""End to end (issue 27): the Ramps page, the Fleet page and ``costfrontier capacity`` answer one view one way.

Debian's Chromium opens share links on a real ``streamlit run app.py`` over a copy of the samples. The issue's
case, ``?wl=GLM-5.2|20000|1000&sla=ttft_p95=1.1&asof=2000-01-01``: no sample row is dated on or before
2000-01-01, so the view holds no rows; Ramps showed 2 knees (computed before the as-of) while Fleet said "No load
ramps or sweeps in this view". Now both say there is nothing, as ``capacity --link`` does. Without the as-of the
knees the page draws are the ones ``capacity --link ... --json`` prints; oracle (published, Wafer GLM-5.2 MXFP4 on
8x MI355X): 2.0 req/s and 1,944 tok/s/node at TTFT p95 <= 1.1 s.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.conftest import CHROMIUM
from tests.test_e2e import SHOTS, _cli, _main, _settle

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian's chromium (apt-get install chromium)"),
]

WAFER = "wl=GLM-5.2|20000|1000&sla=ttft_p95=1.1&rps=10"
AS_OF = WAFER + "&asof=2000-01-01"
MI355X = "MI355X · sglang · mxfp4 · mtp"


def _page(browser, url: str, *texts: str, timeout_s: float = 30):
    """The page at ``url`` once its main area shows every text."""
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(url)
    _settle(page)
    deadline = time.time() + timeout_s
    while not all(t in _main(page) for t in texts):
        assert time.time() < deadline, (texts, _main(page)[:3000])
        page.wait_for_timeout(250)
    return page


def _knees_drawn(page) -> dict[str, tuple]:
    """{series: (req/s, tok/s/node, $/M)} of every knee star on the page's charts."""
    rows = page.evaluate(
        "() => [...document.querySelectorAll('.js-plotly-plot')].flatMap(p => p._fullData || [])"
        ".filter(t => t.meta && t.meta.kind === 'knee')"
        ".map(t => [t.meta.series, Number(t.x[0]), Number(t.y[0]), t.meta.usd_per_mtok])")
    return {series: (x, y, cost) for series, x, y, cost in rows}


def test_the_as_of_view_has_no_knees_on_ramps_fleet_and_capacity(server, browser):
    base, db = server
    ramps = _page(browser, f"{base}/Ramps?{AS_OF}", "No request-rate ramps in view",
                  "As of 2000-01-01: 0 of 9 rows")
    assert _knees_drawn(ramps) == {} and "Knee of each ramp" not in _main(ramps)
    SHOTS.mkdir(parents=True, exist_ok=True)
    ramps.screenshot(path=str(SHOTS / "ramps_as_of_1280.png"), full_page=True)
    ramps.close()
    fleet = _page(browser, f"{base}/Fleet?{AS_OF}", "No load ramps or sweeps in this view to size a fleet from")
    assert "5 nodes" not in _main(fleet)
    fleet.close()
    link = f"http://localhost:8501/Ramps?{AS_OF}"
    assert _cli(db, "capacity", "--link", link)["rows"] == []
    assert "no load ramps or sweeps in this view to size a fleet from" in _cli(db, "size", "--link", link)["notes"]


def test_without_as_of_the_page_draws_the_knees_capacity_prints(server, browser):
    base, db = server
    page = _page(browser, f"{base}/Ramps?{WAFER}", "Knee of each ramp")
    deadline = time.time() + 20
    while not (drawn := _knees_drawn(page)) and time.time() < deadline:
        page.wait_for_timeout(250)
    printed = _cli(db, "capacity", "--link", f"http://localhost:8501/Ramps?{WAFER}")["rows"]
    expected = {r["series"]: (r["request_rate"], r["tokens_per_second_per_node"], r["usd_per_mtok"])
                for r in printed if r["request_rate"] is not None}
    assert drawn == expected
    assert drawn[MI355X][:2] == (2.0, 1944.0)           # published
    assert drawn[MI355X][2] == pytest.approx(1.48 / (243 * 3600) * 1e6)
    page.close()
    fleet = _page(browser, f"{base}/Fleet?{WAFER}", f"{MI355X}: 5 nodes, 40 GPUs")   # 10 req/s / 2.0 per node
    fleet.close()
