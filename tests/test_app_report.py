"""The sidebar's report box under AppTest: the buttons are there on every page, the HTML they
download is the report of the view on screen, the PDF is printed only when asked and never offered
for another view, and a failed print tells the viewer what to do without naming a server path.

The report's numbers are checked against the CLI's JSON for the same view (``costfrontier iso``),
the oracle the report tests use (tests/test_report.py).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from model.data.store import connect
from model.present.figures import usd
from tests.kit import open_page
from tests.test_app import PAGES, _db
from tests.test_e2e import _cli as cli_json
from tests.test_report import parse

#: one non-default view: filters, grouping, both rates overridden, targets, a baseline, an SLA
QUERY = {"spec": "mtp", "by": "hardware", "r": "B200:1.6,MI355X:1.3", "at": "24,55", "base": "MI355X",
         "sla": "interactivity=20"}
CLI_VIEW = ("--by", "hardware", "--where", "spec_decoding=mtp", "--where", "model=GLM-5", "--rate", "B200=1.6",
            "--rate", "MI355X=1.3", "--sla", "interactivity=20", "--at", "24,55", "--baseline", "MI355X")
needs_chromium = pytest.mark.skipif(not Path("/usr/bin/chromium").exists(),
                                    reason="needs Debian's chromium (apt-get install chromium)")


@pytest.fixture
def app(tmp_path, monkeypatch):
    """Factory: the app opened on a page from a link, over a fresh database (samples or empty)."""

    def make(page: str = PAGES[0], samples: bool = True, query: dict | None = None):
        monkeypatch.setenv("COSTFRONTIER_DB", str(_db(tmp_path, samples)))
        return open_page(page, query)

    return make


def money(row: dict) -> str:
    """A CLI iso row's $/M by the report's rule (model.present.figures.usd), or its dash when out of reach."""
    return "—" if row["usd_per_mtok"] is None else usd(row["usd_per_mtok"], "")


def ratio(row: dict) -> str:
    """A CLI iso row's ratio to the baseline as the report shows it ("—" where either is out of reach)."""
    return "—" if row["ratio_to_baseline"] is None else f"{row['ratio_to_baseline']:.2f}x"


def check_report(html: str, iso: list[dict]):
    """The report of :data:`QUERY`'s view: its assumptions name the view's rates, filters, targets,
    baseline and SLA, and its iso table holds the CLI's $/M and ratios (``iso``: CLI JSON rows).
    Returns the parsed report (tables and links)."""
    report = parse(html)
    rows = {r["Item"]: (r["Value"], r["Where it came from"]) for r in report.tables["assumptions"]}
    assert rows["$/GPU-hour, B200"] == ("$1.60", "set in this view (typed, or from a link or --rate); preset $1.95/GPU-hour")
    assert rows["$/GPU-hour, MI355X"] == ("$1.30", "set in this view (typed, or from a link or --rate); preset $1.48/GPU-hour")
    assert rows["Filters"][0] == "isl = 8192; model = GLM-5; osl = 1024; spec_decoding = mtp"
    assert rows["Series grouped by"][0] == "hardware"
    assert rows["Latency SLA"][0] == "interactivity >= 20 tok/s/user"
    assert rows["Interactivity targets [tok/s/user]"][0] == "24.0, 55.0"
    assert rows["Ratios relative to"] == ("MI355X", "the view")
    shown = {(r["Interactivity [tok/s/user]"], r["Series"]): r for r in report.tables["iso"]}
    assert len(shown) == len(iso) == 4
    for row in iso:
        cell = shown[(f"{row['interactivity']:.1f}", row["series"])]
        assert (cell["$/M tokens"], cell["Ratio to MI355X"]) == (money(row), ratio(row)), (cell, row)
    # the SLA (interactivity >= 20) moves MI355X's frontier past 24 tok/s/user: not priced there
    assert shown[("24.0", "MI355X")]["$/M tokens"] == "—" and shown[("24.0", "MI355X")]["Status"] == "out of reach (too slow)"
    return report


def _downloads(at) -> dict:
    return {b.key: b for b in at.sidebar.get("download_button")}


def _report_html(at) -> str:
    """What the HTML button downloads: the same function, on the view, data version and link on screen."""
    from ui.report import report_of

    return report_of(at.session_state["_view"], at.sidebar.code[0].value).html


def _cli_iso(tmp_path: Path) -> list[dict]:
    """``costfrontier iso --json`` of the same view, on a copy (this process holds the app's connection)."""
    copy = tmp_path / "cli.duckdb"
    shutil.copy(os.environ["COSTFRONTIER_DB"], copy)
    con = connect(copy)
    con.close()
    return cli_json(copy, "iso", *CLI_VIEW)["rows"]


@pytest.mark.parametrize("page", PAGES)
def test_every_page_offers_the_report(app, page):
    at = app(page, query={"spec": "mtp"})
    assert not at.exception, at.exception
    buttons = _downloads(at)
    assert buttons["report_html"].label == "HTML report" and buttons["report_xlsx"].label == "Tables (XLSX)"
    assert "report_pdf" not in buttons, "no PDF is offered before one is asked for"
    assert at.button(key="report_prepare_pdf").label == "Prepare PDF"


def test_empty_database_offers_no_report(app):
    at = app(samples=False)
    assert not at.exception
    assert not _downloads(at)
    assert any("Load benchmark data to make a report" in c.value for c in at.sidebar.caption)


def test_html_report_is_the_view_on_screen(app, tmp_path):
    at = app("views/matched_interactivity.py", query=QUERY)
    assert not at.exception
    assert "report_html" in _downloads(at)
    report = check_report(_report_html(at), _cli_iso(tmp_path))
    link = at.sidebar.code[0].value                     # the report reopens the view: the share box's link
    assert report.links[-1] == link and link.startswith("http://localhost:8501/Matched_interactivity?")
    assert {k: v[0] for k, v in parse_qs(urlsplit(link).query).items()} == {**QUERY, "wl": "GLM-5|8192|1024"}


@pytest.mark.slow
@needs_chromium
@pytest.mark.skipif(shutil.which("pdftotext") is None, reason="needs poppler-utils (apt-get install poppler-utils)")
def test_prepare_pdf_then_a_changed_view_drops_it(app, tmp_path):
    at = app("views/crossovers.py", query=QUERY)
    at.button(key="report_prepare_pdf").click().run()
    assert not at.exception and not at.sidebar.error
    assert _downloads(at)["report_pdf"].label == "PDF"
    key, pdf = at.session_state["_report_pdf"]
    assert pdf.startswith(b"%PDF")
    text = subprocess.run(["pdftotext", "-layout", "-", "-"], input=pdf, capture_output=True, check=True).stdout
    text = " ".join(text.decode().split())
    priced = [row for row in _cli_iso(tmp_path) if row["usd_per_mtok"] is not None]
    assert len(priced) == 3
    for row in priced:
        assert f"{row['interactivity']:.1f} {row['series']} {money(row)}" in text, row
    at.slider(key="rate::B200").set_value(2.5).run()      # another view: the PDF of the last one is not offered
    assert "report_pdf" not in _downloads(at)
    assert at.button(key="report_prepare_pdf").label == "Prepare PDF"


def test_a_failed_print_is_told_plainly(app, tmp_path, monkeypatch):
    """A Chromium that fails (a real process, printing a server path on stderr as a crash would)."""
    secret = tmp_path / "srv-secret"
    broken = tmp_path / "chromium"
    broken.write_text(f"#!/bin/sh\necho 'FATAL: cannot write {secret}/profile/lock' >&2\nexit 3\n")
    broken.chmod(0o755)
    monkeypatch.setenv("COSTFRONTIER_CHROMIUM", str(broken))
    at = app("views/matched_interactivity.py", query=QUERY)
    at.button(key="report_prepare_pdf").click().run()
    assert not at.exception
    message = at.sidebar.error[0].value
    assert message.startswith("The PDF could not be printed on this server.") and "HTML report" in message
    assert not re.search(r"/(tmp|srv|usr|home|work|root)\b", message) and str(tmp_path) not in message
    assert "report_pdf" not in _downloads(at)


@pytest.mark.parametrize("page,name", [("views/frontier.py", "Frontier points"),
                                       ("views/matched_interactivity.py", "Cost at matched interactivity"),
                                       ("views/crossovers.py", "Crossovers")])
def test_pages_offer_their_table_as_csv(app, page, name):
    at = app(page, query=QUERY)
    assert not at.exception
    assert at.get("download_button")  # the page's own button, besides the sidebar's
    assert [b.label for b in at.main.get("download_button")] == [f"{name} (CSV)"]


def test_crossovers_csv_is_the_cli_crossovers_rounded(app, tmp_path):
    import io

    import pandas as pd

    from model.data.export import safe_csv
    from ui.report import report_of

    at = app("views/crossovers.py", query=QUERY)
    csv = safe_csv(report_of(at.session_state["_view"], at.sidebar.code[0].value).tables["Crossovers"])
    shown = pd.read_csv(io.StringIO(csv))
    copy = tmp_path / "cli.duckdb"
    shutil.copy(os.environ["COSTFRONTIER_DB"], copy)
    rows = sorted(cli_json(copy, "crossover", *CLI_VIEW[:-4])["rows"], key=lambda r: r["interactivity"])
    assert len(shown) == len(rows) >= 1
    for (_, cell), row in zip(shown.iterrows(), rows):
        assert cell["Interactivity [tok/s/user]"] == round(row["interactivity"], 1)
        assert cell["$/M tokens at the crossing"] == round(row["usd_per_mtok"], 2 if row["usd_per_mtok"] >= 0.1 else 3)
        assert (cell["Cheaper below"], cell["Cheaper above"]) == (row["cheaper_below"], row["cheaper_above"])
