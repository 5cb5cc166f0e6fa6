"""Issue 41, the edges of the answer, in Debian's Chromium: the sales engineer's view (an on-prem MI355X profile,
20 B tokens a month, business-hours shape, peak 12 req/s).

- The answer first: on Fleet and Buy, rent or API the answer (the green line and the table of its decision columns)
  lies inside the first screen at 390×844 and 1280×720, with nothing to scroll sideways to; the first screens go to
  test-output/screenshots/edges_<page>_<width>.png (look at them).
- A fleet figure is an option or says what it is: no $ a month the Fleet page, the report's Fleet section or the
  workbook's Fleet sheet prints is below the recommended option's unless it is one of the options the comparison
  lists (before the issue, "following the load" priced an owned fleet by the hour: $31,317 and $32,315 a month,
  under the API's $34,667, offered nowhere).
- The PDF of that view is tagged (``pdfinfo``: "Tagged: yes").

Oracle for the comparison: 20 B total tokens a month of the 8,192/1,024 workload at GLM-5.2's list price,
8/9 × $1.40 + 1/9 × $4.40 = $1.7333/M, so the API bills $34,667 a month.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from urllib.parse import urlencode

import pytest
from openpyxl import load_workbook

from model.data.store import connect
from model.present.workbook_cells import HEADER_ROW
from tests.kit import cli
from tests.test_e2e import CHROMIUM, SHOTS, _cli, _main, _settle
from tests.test_e2e_layout import LAPTOP, PHONE
from tests.test_e2e_proposal import _html_text, _section

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian's chromium (apt-get install chromium)"),
]

PROFILE = "MI355X on-prem"
#: a monthly amount as a page, the report or a sentence prints it ($1,000 and up)
_AMOUNT = re.compile(r"\$(\d{1,3}(?:,\d{3})+)(?!\.\d)")


def _query(tmp_path) -> str:
    """The sales engineer's view as a link: its profile built in a throwaway store (the link carries it)."""
    from model.core.cost_profiles import profiles_to_text
    from model.core.view import View
    from model.data.profiles import load_profiles
    from tests.conftest import samples_copy

    db = samples_copy(tmp_path / "throwaway.duckdb")
    assert cli(db, "tco", "--hardware", "MI355X", "--server-usd", "400000", "--utilization", "0.75",
               "--name", PROFILE, "--save").code == 0
    with connect(db) as con:
        profiles = [p for p in load_profiles(con) if p.name == PROFILE]
    view = View().replace(workload="GLM-5|8192|1024", profiles=profiles_to_text(profiles), priced_by=(PROFILE,),
                          tokens_per_month=20e9, shape="business-hours", demand_rps=12.0)
    return urlencode(view.to_query())


def _first_screen(page, size: tuple[int, int], name: str) -> None:
    """The answer line and its table lie inside the first screen, the table no wider than the page's room."""
    main = page.locator("[data-testid=stMain]")
    line = main.locator("[data-testid=stAlertContentSuccess]").first
    table = main.locator("[data-testid=stTable]").first
    for what, box in (("answer", line.bounding_box()), ("table", table.bounding_box())):
        assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= size[1], (name, size, what, box)
        assert box["x"] >= 0 and box["x"] + box["width"] <= size[0], (name, size, what, box)
    sideways = table.evaluate("t => [...t.querySelectorAll('*')].some(e => e.scrollWidth > e.clientWidth + 1 && "
                              "['auto', 'scroll'].includes(getComputedStyle(e).overflowX))")
    assert not sideways, (name, size)
    page.screenshot(path=str(SHOTS / f"edges_{name}_{size[0]}.png"))


def _amounts(text: str) -> list[int]:
    return [int(a.replace(",", "")) for a in _AMOUNT.findall(text)]


def _offered_or_dearer(amounts, least: float, offered: set[int], where: str) -> None:
    for amount in amounts:
        assert amount >= round(least) or amount in offered, (where, amount, round(least), sorted(offered))


def test_the_sales_engineers_answer_is_first_and_no_fleet_figure_undercuts_it_unoffered(server, browser, tmp_path):
    base, db = server
    SHOTS.mkdir(parents=True, exist_ok=True)
    query = _query(tmp_path)
    rec = _cli(db, "iso", "--link", f"{base}/?{query}")["recommendation"]
    api = rec["options"][0]
    assert rec["winner"] == api["name"] == "API GLM-5.2 (Z.ai)" and round(api["usd_per_month"]) == 34_667
    offered = {round(o["usd_per_month"]) for o in rec["options"]}
    least = api["usd_per_month"]
    fleet_text = ""
    for name, path in (("fleet", "Fleet"), ("buy", "Buy_rent_or_API")):
        for size in (PHONE, LAPTOP):
            page = browser.new_page(viewport={"width": size[0], "height": size[1]}, is_mobile=size == PHONE,
                                    has_touch=size == PHONE)
            page.goto(f"{base}/{path}?{query}")
            _settle(page)
            page.locator("[data-testid=stMain] [data-testid=stTable]").first.wait_for(timeout=30_000)
            _first_screen(page, size, name)
            if name == "fleet":
                fleet_text = _main(page)
            page.close()
    # an owned fleet is never priced by the hour (the day chart may still draw the nodes on demand would run)
    assert not re.search(r"following the load[^.]*\$", fleet_text), fleet_text
    _offered_or_dearer(_amounts(fleet_text), least, offered, "Fleet page")
    # the report and its workbook of the page's view
    doc, book, pdf = tmp_path / "p.html", tmp_path / "p.xlsx", tmp_path / "p.pdf"
    for out in (doc, book, pdf):
        assert cli(db, "report", "--link", f"{base}/Fleet?{query}", "--out", out).code == 0
    fleet = _html_text(_section(doc.read_text(encoding="utf-8"), "fleet-section"))
    assert not re.search(r"following the load[^.]*\$", fleet) and len(_amounts(fleet)) >= 4
    _offered_or_dearer(_amounts(fleet), least, offered, "report")
    sheet = load_workbook(book, data_only=True)["Fleet"]
    headers = [c.value for c in sheet[HEADER_ROW]]
    money = [i for i, h in enumerate(headers) if h and "$ per month" in h]
    cells = [row[i] for row in sheet.iter_rows(min_row=HEADER_ROW + 1, values_only=True) for i in money]
    assert len(cells) >= 4 and all(isinstance(c, (int, float)) for c in cells), cells
    _offered_or_dearer([round(c) for c in cells], least, offered, "workbook")
    if shutil.which("pdfinfo"):
        said = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout
        assert re.search(r"^Tagged:\s+yes$", said, flags=re.M), said
