"""End to end: the sidebar's report buttons in Debian's Chromium, on a non-default view.

The files the browser downloads are checked against ``costfrontier iso --json`` for the same view
(the oracle of tests/test_report.py). A screenshot of the sidebar with the report box goes to
test-output/screenshots/report_box.png.
"""

from __future__ import annotations

import io
import json
import re
import shutil
import subprocess
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from model.present.figures import usd
from tests.kit import cli_json
from tests.test_app_report import CLI_VIEW, check_report, money, ratio
from tests.test_e2e import CHROMIUM, SHOTS, _cli, _open, _settle, _type_rate

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian's chromium (apt-get install chromium)"),
]

PATH = "Matched_interactivity"
#: the view: MTP only, series by hardware, both rates overridden, two targets, MI355X the baseline, an SLA
LINK = "spec=mtp&by=hardware&r=B200:1.6,MI355X:1.3&at=24,55&base=MI355X&sla=interactivity=20"
NAME = re.compile(r"cost-frontier-GLM-5-\d{4}-\d{2}-\d{2}\.(html|xlsx|pdf)")


def _sidebar_download(page, label: str):
    """A report button in the sidebar by its accessible name ("PDF" is not "Prepare PDF")."""
    return page.locator("[data-testid=stSidebar]").get_by_role("button", name=label, exact=True)


def _download(page, label: str, folder: Path) -> Path:
    with page.expect_download(timeout=90_000) as info:
        _sidebar_download(page, label).click()
    download = info.value
    assert download.failure() is None, download.failure()
    assert NAME.fullmatch(download.suggested_filename), download.suggested_filename
    path = folder / download.suggested_filename
    download.save_as(path)
    return path


def test_html_report_button_downloads_the_view(server, browser, tmp_path):
    base, db = server
    page = _open(browser, f"{base}/{PATH}?{LINK}")
    html = _download(page, "HTML report", tmp_path).read_text(encoding="utf-8")
    iso = _cli(db, "iso", *CLI_VIEW)["rows"]
    report = check_report(html, iso)
    # the report reopens this view: the share box's link, served by this server
    link = report.links[-1]
    assert link == page.locator("[data-testid=stSidebar] [data-testid=stCode]").first.inner_text().strip()  # live
    assert link.startswith(f"{base}/{PATH}?")
    assert {k: v[0] for k, v in parse_qs(urlsplit(link).query).items()} == \
        {**{k: v[0] for k, v in parse_qs(LINK).items()}, "wl": "GLM-5|8192|1024"}

    from openpyxl import load_workbook

    book = load_workbook(io.BytesIO(_download(page, "Tables (XLSX)", tmp_path).read_bytes()), data_only=True)
    assert book.sheetnames[:2] == ["Cost at matched interactivity", "Assumptions"]
    sheet = book["Cost at matched interactivity"]
    header = [c.value for c in sheet[4]]
    cells = {(r[header.index("Interactivity [tok/s/user]")], r[header.index("Series")]): r[header.index("$/M tokens")]
             for r in sheet.iter_rows(min_row=5, values_only=True)}
    for row in iso:   # shown rounded: 2 decimals (3 below $0.10), by the report's rule
        value = row["usd_per_mtok"]
        expected = None if value is None else round(value, 2 if value >= 0.1 else 3)
        got = cells[(row["interactivity"], row["series"])]      # a formula's cached result, whole
        assert (None if got is None else round(got, 2 if got >= 0.1 else 3)) == expected, row
    page.close()


@pytest.mark.skipif(shutil.which("pdftotext") is None, reason="needs poppler-utils (apt-get install poppler-utils)")
def test_prepare_pdf_downloads_the_view_and_a_new_view_drops_it(server, browser, tmp_path):
    base, db = server
    page = _open(browser, f"{base}/{PATH}?{LINK}")
    assert not _sidebar_download(page, "PDF").count(), "no PDF before one is asked for"
    page.locator("[data-testid=stSidebar]").get_by_role("button", name="Prepare PDF").click()
    _sidebar_download(page, "PDF").wait_for(timeout=90_000)
    _settle(page)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.locator("[data-testid=stSidebar]").screenshot(path=str(SHOTS / "report_box.png"))
    pdf = _download(page, "PDF", tmp_path)
    assert pdf.read_bytes().startswith(b"%PDF")
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    lines = [" ".join(line.split()) for line in text.splitlines()]
    priced = [row for row in _cli(db, "iso", *CLI_VIEW)["rows"] if row["usd_per_mtok"] is not None]
    assert len(priced) == 3
    for row in priced:
        expected = f"{row['interactivity']:.1f} {row['series']} {money(row)} {ratio(row)} {usd(row['usd_per_gpu_hour'], '')}"
        assert any(line.startswith(expected) for line in lines), expected
    # another rate is another view: its PDF has to be prepared again, the old one is not offered
    _type_rate(page, "B200", "2.5")
    page.locator("[data-testid=stSidebar]").get_by_role("button", name="Prepare PDF").wait_for(timeout=15_000)
    assert not _sidebar_download(page, "PDF").count()
    page.close()


def test_download_bundle_verifies_offline(server, browser, tmp_path):
    """The report box's "Download bundle": one zip, made when clicked, that ``costfrontier verify`` passes with no
    store, and whose figures are the CLI's for the same view."""
    base, db = server
    page = _open(browser, f"{base}/{PATH}?{LINK}")
    with page.expect_download(timeout=180_000) as info:
        _sidebar_download(page, "Download bundle").click()
    download = info.value
    assert download.failure() is None, download.failure()
    assert re.fullmatch(r"cost-frontier-GLM-5-\d{4}-\d{2}-\d{2}-bundle\.zip", download.suggested_filename)
    path = tmp_path / download.suggested_filename
    download.save_as(path)
    page.close()
    verified = cli_json(None, "verify", path)
    assert verified["exit"] == 0 and verified["differs"] == [] and verified["lacks"] == []
    assert verified["files"] >= 8 and verified["figures"] > 50
    assert f"v={verified['data_version']}&vd=" in verified["link"] and verified["link"].startswith(f"{base}/{PATH}?")
    import zipfile

    with zipfile.ZipFile(path) as archive:
        manifest = json.loads(archive.read(f"{path.stem}/manifest.json"))
        assert f"{path.stem}/report.pdf" in archive.namelist()
    figures = {f["id"]: f for f in manifest["figures"]}
    for row in _cli(db, "iso", *CLI_VIEW)["rows"]:      # the bundle's figures are the CLI's, with its statuses
        figure = figures[f"Cost at matched interactivity | {row['interactivity']:.1f} | {row['series']} | $/M tokens"]
        assert figure["status"] == row["status"] and figure["text"] == (money(row) if row["usd_per_mtok"] is not None
                                                                       else "—")
