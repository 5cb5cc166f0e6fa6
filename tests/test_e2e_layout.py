"""Issue 28, the rooms people use: in Chromium, the Overview's answer on a 390×844 phone's first screen and at 1280×720;
every column a decision needs drawn in its table (Fleet, Frontier, Reach, the upload preview); one error box per
refused upload naming the form's fields; Back once per page. The first screens of Overview, Fleet and Data at both
sizes go to test-output/screenshots/layout_*.png (look at them): taken on the way through every page by
tests/test_e2e.py's journeys (every address at 1280×720, every page on a phone), with this module's checks."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from model.present.fmt import for_people
from tests.conftest import CHROMIUM, FIXTURES
from tests.test_e2e import SHOTS, _settle
from ui.widgets import SHORT_HEADERS

PHONE, LAPTOP = (390, 844), (1280, 720)
FLEET = "Fleet?wl=GLM-5.2|20000|1000&sla=ttft_p95=5&rps=10"
#: page, the columns a decision needs in one of its tables (as the frame names them)
DECISIONS = (("Fleet", FLEET, ("series", "nodes", "gpus", "kw", "usd_per_month")),
             ("Fleet budget", "Fleet?wl=GLM-5.2|20000|1000&sla=ttft_p95=5&mw=2.5",
              ("series", "limit", "nodes", "gpus", "kw", "usd_per_month", "requests_per_second", "tokens_per_second",
               "users")),
             ("Frontier", "Frontier?spec=mtp",
              ("series", "interactivity", "tokens_per_second_per_gpu", "usd_per_mtok", "repeats")),
             ("Ramps", "Ramps?wl=GLM-5.2|20000|1000&sla=ttft_p95=1.1",
              ("series", "status", "request_rate", "usd_per_mtok", "ttft_s")),
             ("Crossovers", "Crossovers?spec=mtp",
              ("series", "min_interactivity", "max_interactivity", "usd_per_mtok_at_min", "usd_per_mtok_at_max")))
#: files the preview refuses until the form names the hardware and the GPU count, and one it reads
NEED_FORM = ("vllm_serve.json", "vllm_reduced_seconds.json", "sglang_bench_serving.jsonl", "llmperf_summary.json")
READS = "inferencex_agg.json"

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian's chromium (apt-get install chromium)"),
]


def _open(browser, url: str, size: tuple[int, int]):
    page = browser.new_page(viewport={"width": size[0], "height": size[1]}, is_mobile=size == PHONE, has_touch=size == PHONE)
    page.goto(url)
    _settle(page)
    return page


def _headers(columns) -> list[str]:
    """The headers a table draws for these frame columns (:func:`for_people`, then :data:`SHORT_HEADERS`)."""
    return [SHORT_HEADERS.get(h, h) for h in for_people(pd.DataFrame({c: [] for c in columns})).columns]


def _drawn_headers(grid) -> list[str]:
    """The headers the grid has drawn: Glide's grid puts in the page only the columns inside its scroll area."""
    return [h.inner_text().strip() for h in grid.locator("[role=columnheader]").all()]


def _fits(grid) -> bool:
    """The grid's columns fit its width: nothing to scroll sideways to (its scroller is no wider than itself)."""
    return grid.evaluate("g => { const s = g.querySelector('.dvn-scroller'); "
                         "return !!s && s.scrollWidth <= s.clientWidth + 1; }")


def _upload(page, names: tuple[str, ...]) -> None:
    page.locator("[data-testid=stFileUploader] input[type=file]").set_input_files(
        [str(FIXTURES / "formats" / n) for n in names])
    page.wait_for_timeout(1_000)
    _settle(page)


def check_first_screen(page, size: tuple[int, int], name: str) -> None:
    """The Overview as a person opens it at ``size`` (the page is open on it): the headline (the answer) is inside
    the first screen, and no table toolbar lies over it (a phone always shows the toolbars). Its first screen goes
    to test-output/screenshots/layout_<name>_<width>.png."""
    headline = page.locator("[data-testid=stMain] h3").first
    box = headline.bounding_box()
    assert box is not None and box["height"] > 0
    assert box["y"] >= 0, box
    # the headline's last words are its own: no table toolbar shown lies over its text
    text = page.evaluate("h => { const r = document.createRange(); r.selectNodeContents(h); "
                         "const b = r.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; }",
                         headline.element_handle())
    assert text[3] <= size[1], (text, size)
    toolbars = page.evaluate("() => [...document.querySelectorAll('[data-testid=stMain] [data-testid=stElementToolbar]')]"
                             ".filter(t => getComputedStyle(t).opacity !== '0').map(t => { "
                             "const b = t.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; })")
    if size == PHONE:
        assert toolbars, "a phone shows the table's toolbar"
    for bar in toolbars:
        assert bar[1] >= text[3] or bar[3] <= text[1] or bar[0] >= text[2] or bar[2] <= text[0], (bar, text)
    page.screenshot(path=str(SHOTS / f"layout_{name}_{size[0]}.png"))


def upload_and_shoot(page, size: tuple[int, int]) -> None:
    """On the Data page (open): the file that reads is uploaded, its preview scrolled to, and the screen goes to
    test-output/screenshots/layout_data_<width>.png."""
    _upload(page, (READS,))
    page.locator("[data-testid=stMain] [data-testid=stDataFrame]").first.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / f"layout_data_{size[0]}.png"))
    assert not page.locator("[data-testid=stException]").count()


def check_decision_columns(page, name: str, columns) -> None:
    """At 1280 wide beside the sidebar, the page's table of ``columns`` draws every one of them, with nothing to
    scroll sideways to."""
    wanted = _headers(columns)
    grids = page.locator("[data-testid=stMain] [data-testid=stDataFrame]").all()
    grid = max(grids, key=lambda g: len(set(_drawn_headers(g)) & set(wanted)))   # the table of these columns
    grid.scroll_into_view_if_needed()
    page.wait_for_timeout(300)
    drawn = _drawn_headers(grid)
    for header in wanted:
        assert header in drawn, (name, header, drawn)
    assert _fits(grid), (name, drawn)
    box = grid.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= LAPTOP[0], box


#: Fleet, Frontier, Crossovers and Ramps are checked on the way through every address (tests/test_e2e.py)
@pytest.mark.parametrize("name, path, columns", DECISIONS[1:2], ids=[d[0] for d in DECISIONS[1:2]])
def test_decision_columns_are_drawn_at_1280(server, browser, name, path, columns):
    """At 1280×720 beside the sidebar, each table draws every column a decision needs, with nothing to scroll
    sideways to; the columns a reader checks (sources, recipe parts) come with the "More columns" switch."""
    base, _ = server
    page = _open(browser, f"{base}/{path}", LAPTOP)
    check_decision_columns(page, name, columns)
    page.close()


def test_upload_preview_and_errors(server, browser):
    """Four files that need the form: four error boxes, each naming the form's Hardware and GPU fields once; the
    file that reads gets a preview whose interactivity and tok/s/GPU are drawn at 1280 without scrolling."""
    base, _ = server
    page = _open(browser, f"{base}/Data?spec=mtp", LAPTOP)
    _upload(page, (*NEED_FORM, READS))
    errors = [e.inner_text() for e in page.locator("[data-testid=stMain] [data-testid=stAlertContentError]").all()]
    assert len(errors) == len(NEED_FORM), errors
    for name, text in zip(NEED_FORM, errors):
        assert text.startswith(name), text
        assert text.count("Hardware") == 1 and text.count("GPUs serving each point") == 1, text
        assert "also line" not in text and "\n-" not in text, text
    grid = page.locator("[data-testid=stMain] [data-testid=stDataFrame]").first
    grid.scroll_into_view_if_needed()
    page.wait_for_timeout(300)
    drawn = _drawn_headers(grid)
    for header in _headers(("hardware", "gpus", "interactivity", "total_tokens_per_second_per_gpu")):
        assert header in drawn, (header, drawn)
    assert _fits(grid), drawn
    page.screenshot(path=str(SHOTS / "layout_data_errors_1280.png"))
    page.close()
