"""End to end: a sales engineer's proposal, as a user clicks it in Debian's Chromium.

Build an on-prem B200 cost profile on the TCO builder (a name with a comma), size a fleet for 12 req/s on
the Fleet page, download the HTML report and the PDF from the sidebar, and check that both carry the
profile (its section, its parts, its rate source) and the fleet sentence the page shows; that the
report's share link gives the CLI (``iso --link``, ``size --link``) the same $/M and fleet; and that the
link, opened in a fresh browser, reopens the same view. Screenshots of the TCO builder and the Fleet page
go to test-output/screenshots/proposal_*.png, and the PDF's first page to docs/img/proposal_page1.png (the README
shows it).
"""

from __future__ import annotations

import html
import re
import shutil
import subprocess
import time
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from model.core.view import View
from model.data.presets import load_presets, onprem_defaults
from model.present.fmt import usd
from model.present.printed import pdf_text as _pdf_text
from model.present.printed import plain as _plain
from tests.test_app_report import money
from tests.test_e2e import CHROMIUM, SHOTS, _cli, _main, _open, _settle, docs_picture

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian's chromium (apt-get install chromium)"),
    pytest.mark.skipif(shutil.which("pdftotext") is None, reason="needs poppler-utils (apt-get install poppler-utils)"),
]

NAME = "B200 quote, rev 2"          # a comma: the link joins profile names with "||", not ","
VIEW = "spec=mtp&by=hardware&x=50&at=50"
PARTS = ("Capital [$/GPU-hour]", "Power [$/GPU-hour]", "Facility [$/GPU-hour]", "Operations [$/GPU-hour]")


def _words(text: str) -> str:
    return " ".join(text.split())


def _html_text(fragment: str) -> str:
    """Visible text of an HTML fragment (scripts dropped, entities decoded), whitespace collapsed."""
    fragment = re.sub(r"<script\b.*?</script>", " ", fragment, flags=re.S | re.I)
    return _words(html.unescape(re.sub(r"<[^>]+>", " ", fragment)))


def _section(doc: str, sid: str) -> str:
    match = re.search(rf"<section id={re.escape(sid)}\b.*?</section>", doc, flags=re.S)
    assert match, sid
    return match.group(0)


def _rows(table: str) -> list[list[str]]:
    """The cells of every body row of an HTML table, as text."""
    return [[_html_text(c) for c in re.findall(r"<td\b[^>]*>(.*?)</td>", tr, flags=re.S)]
            for tr in re.findall(r"<tr\b[^>]*>.*?</tr>", table, flags=re.S)]


def _download(page, label: str, folder: Path) -> Path:
    with page.expect_download(timeout=90_000) as info:
        page.locator("[data-testid=stSidebar]").get_by_role("button", name=label, exact=True).click()
    download = info.value
    assert download.failure() is None, download.failure()
    path = folder / download.suggested_filename
    download.save_as(path)
    return path


def _go(page, label: str, path: str) -> None:
    """Click a sidebar page link, as a user does, and wait for the page."""
    page.locator("[data-testid=stSidebar] [data-testid=stPageLink] a", has_text=label).first.click()
    page.wait_for_function(f"() => location.pathname.endsWith('/{path}')", timeout=15_000)
    _settle(page)


def _fleet_sentence(page, series: str, timeout_s: float = 20) -> str:
    """The Fleet page's sentence for ``series`` (a paragraph of its own), as the page shows it."""
    deadline = time.time() + timeout_s
    while True:
        found = [_words(t) for t in page.locator("[data-testid=stMain] [data-testid=stMarkdownContainer]")
                 .all_inner_texts() if _words(t).startswith(f"{series}: ") and " GPUs, " in t]
        if found or time.time() > deadline:
            assert len(found) == 1, (found, _main(page))
            return found[0]
        page.wait_for_timeout(250)


def test_a_proposal_built_in_the_browser_carries_the_profile_and_the_fleet_the_cli_computes(server, browser,
                                                                                            tmp_path):
    base, db = server
    SHOTS.mkdir(parents=True, exist_ok=True)
    started = time.time()

    # 1-2. the TCO builder on an MTP view by hardware: an on-prem B200 build-up from a server quote
    page = _open(browser, f"{base}/TCO_builder?{VIEW}")
    form = page.locator("[data-testid=stForm]").filter(has_text="Server price per node")
    # the GPU is chosen above the form: choosing it reruns the page, and the form starts from its defaults
    page.locator("[data-testid=stMain] [data-testid=stSelectbox]").filter(has_text="Hardware").first.click()
    page.get_by_role("option", name="B200", exact=True).click()
    _settle(page)
    # the view's price set (the default, 2025-08): the kW per GPU TCO rates and Fleet show beside it
    b200_kw = onprem_defaults("B200", load_presets(), "2025-08")["kw_per_gpu"][0]
    power = form.get_by_role("textbox", name="All-in power per GPU [kW]")
    for _ in range(50):                     # the rerun that refills the form may land after the page settles
        if float(power.input_value()) == pytest.approx(b200_kw):
            break
        page.wait_for_timeout(200)
    assert float(power.input_value()) == pytest.approx(b200_kw), "the form shows B200's own all-in power"
    form.get_by_role("textbox", name="Profile name").fill(NAME)
    form.get_by_role("textbox", name="Server price per node [$]").fill("400000")
    form.get_by_role("textbox", name="Utilisation [% of hours billable]").fill("80")
    shown_kw = float(form.get_by_role("textbox", name="All-in power per GPU [kW]").input_value())
    form.get_by_role("button", name="Add to this view and price with it").click()
    for _ in range(100):                    # the address bar follows the view once the rerun is done
        if View.from_query(parse_qs(urlsplit(page.url).query, keep_blank_values=True))[0].priced_by == (NAME,):
            break
        page.wait_for_timeout(200)
    else:
        page.screenshot(path=str(SHOTS / "proposal_failure.png"), full_page=True)
        raise AssertionError(f"the profile never reached the address bar: {page.url}")
    _settle(page)
    assert not page.locator("[data-testid=stException]").count()
    state, notices = View.from_query(parse_qs(urlsplit(page.url).query, keep_blank_values=True))
    assert notices == [] and state.priced_by == (NAME,)
    (profile,) = state.cost_profiles()
    assert (profile.name, profile.hardware) == (NAME, "B200")
    assert profile.onprem.server_usd == 400000 and profile.onprem.utilization == pytest.approx(0.8)
    assert profile.onprem.kw_per_gpu == pytest.approx(shown_kw), "the profile holds the power the form showed"
    assert shown_kw == pytest.approx(b200_kw), "B200's own all-in power, not another GPU's default"
    sidebar = page.locator("[data-testid=stSidebar]").inner_text()
    assert f"cost profile '{NAME}' ${profile.rate():,.2f}/GPU-hour" in sidebar, sidebar
    page.screenshot(path=str(SHOTS / "proposal_tco_builder_1280.png"), full_page=True)

    # 3. the Fleet page by its sidebar link: 12 req/s at peak
    _go(page, "Fleet", "Fleet")
    rps = page.get_by_role("textbox", name="Peak demand [req/s]")
    rps.fill("12")
    rps.press("Enter")
    page.wait_for_function("() => location.search.includes('rps=12')", timeout=15_000)
    _settle(page)
    sentence = _fleet_sentence(page, "B200")
    # the profile's PUE (its build-up's default, 1.56): the facility power beside the IT power (issue 50)
    assert re.match(r"B200: [\d,]+ nodes( \([\d,]+ to [\d,]+ within its capacity's range\))?, [\d,]+ GPUs, [\d,]+ kW IT, "
                    r"[\d,]+ kW facility at PUE 1\.56, "
                    r"\$[\d,]+ a month at \$[\d.,]+/GPU-hour; "
                    rf"rate: cost profile '{re.escape(NAME)}' at its full-use rate ", sentence), sentence
    assert usd(profile.paid_rate(), "/GPU-hour") in sentence and usd(profile.rate(), "/GPU-hour") in sentence
    page.screenshot(path=str(SHOTS / "proposal_fleet_1280.png"), full_page=True)

    # 4. the HTML report and the PDF from the sidebar
    doc = _download(page, "HTML report", tmp_path).read_text(encoding="utf-8")
    page.locator("[data-testid=stSidebar]").get_by_role("button", name="Prepare PDF").click()
    page.locator("[data-testid=stSidebar]").get_by_role("button", name="PDF", exact=True).wait_for(timeout=90_000)
    _settle(page)
    pdf = _download(page, "PDF", tmp_path)
    assert pdf.read_bytes().startswith(b"%PDF")
    # its first page is the picture of a proposal the README shows (taken again when its words change)
    first = subprocess.run(["pdftotext", "-f", "1", "-l", "1", str(pdf), "-"], capture_output=True, text=True,
                           check=True).stdout
    docs_picture("proposal_page1", re.sub(r"Prepared \S+ \S+ UTC", "Prepared (date) UTC", first),
                 lambda path: subprocess.run(["pdftoppm", "-png", "-r", "60", "-f", "1", "-l", "1", "-singlefile",
                                              str(pdf), str(path.with_suffix(""))], check=True, timeout=60))
    # read as verify reads it (PDFium, spaces and line breaks aside): pdftotext drops a hyphen where a line breaks
    # ("full-use" printed across two lines read "fulluse")
    pdf_text = _plain(_pdf_text(pdf.read_bytes()))

    sections = {(_html_text(m.group(1)), m.group(0)) for m in
                re.finditer(r"<section id=profile-\d+\b[^>]*><h2>(.*?)</h2>.*?</section>", doc, flags=re.S)}
    mine = [body for title, body in sections if title == f"Cost profile: {NAME}"]
    assert len(mine) == 1, [t for t, _ in sections]
    profile_text = _html_text(mine[0])
    for part in PARTS:
        assert part in profile_text, part
    b = profile.breakdown()
    assert (f"capital {usd(b.capital, '')}, power {usd(b.power, '')}, facility {usd(b.facility, '')}, "
            f"operations {usd(b.operations, '')}") in profile_text
    fleet_text = _html_text(_section(doc, "fleet-section"))
    assert sentence in fleet_text, (sentence, fleet_text)
    assumptions = re.search(r"<table[^>]*id=['\"]?assumptions\b.*?</table>", doc, flags=re.S)
    assert assumptions, "assumptions table"
    b200 = [r for r in _rows(assumptions.group(0)) if r and r[0] == "$/GPU-hour, B200"]
    assert len(b200) == 1 and b200[0][1] == usd(profile.rate(), ""), b200
    assert b200[0][2].startswith(f"cost profile '{NAME}' (on-prem build-up)"), b200

    assert _plain(f"Cost profile: {NAME}") in pdf_text
    for part in PARTS:
        assert _plain(part) in pdf_text or _plain(part.split(" [")[0]) in pdf_text, part
    assert _plain(sentence) in pdf_text, (sentence, pdf_text[:3000])
    assert _plain(f"cost profile '{NAME}' (on-prem build-up)") in pdf_text

    # 5. the report's share link gives the CLI the same view: $/M at 50 tok/s/user and the fleet
    link = html.unescape(re.search(r"<a id=share-link href=\"([^\"]+)\"", doc).group(1))
    assert link.startswith(f"{base}/Fleet?"), link
    iso = _cli(db, "iso", "--link", link, "--at", "50")
    row = next(r for r in iso["rows"] if r["series"] == "B200" and r["interactivity"] == 50)
    source = next(r for r in iso["rate_sources"] if r["hardware"] == "B200")
    assert source["source"] == "cost profile" and source["detail"] in _html_text(assumptions.group(0))
    assert source["usd_per_gpu_hour"] == pytest.approx(profile.rate())
    iso_rows = _rows(_section(doc, "iso-section"))
    assert [r[2] for r in iso_rows if r[1:2] == ["B200"]] == [money(row)], (row, iso_rows)
    assert _plain(f"B200 {money(row)}") in pdf_text
    size = _cli(db, "size", "--link", link)
    fleet = next(r for r in size["rows"] if r["series"] == "B200" and r["nodes"])
    assert sentence in size["sentences"], (sentence, size["sentences"])
    within = (f" ({fleet['nodes_low']:,.0f} to {fleet['nodes_high']:,.0f} within its capacity's range)"
              if fleet["nodes_low"] != fleet["nodes_high"] else "")
    assert (f"B200: {fleet['nodes']:,.0f} nodes{within}, {fleet['gpus']:,.0f} GPUs, {fleet['kw']:,.0f} kW IT, "
            f"{fleet['facility_kw']:,.0f} kW facility at PUE {fleet['pue']:g}, "
            f"${fleet['usd_per_month']:,.0f} a month") in sentence
    page.close()

    # 6. the link in a fresh browser (no session): the same fleet, and the TCO builder lists the profile
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        fresh = context.new_page()
        fresh.goto(link)
        _settle(fresh)
        assert _fleet_sentence(fresh, "B200") == sentence
        _go(fresh, "TCO builder", "TCO_builder")
        chosen = fresh.locator("[data-testid=stMultiSelect]").filter(has_text="Price series with").inner_text()
        assert NAME in chosen, chosen
        assert f"cost profile '{NAME}'" in fresh.locator("[data-testid=stSidebar]").inner_text()
        assert "Profiles in this view" in _main(fresh)
        assert not fresh.locator("[data-testid=stException]").count()
    finally:
        context.close()
    assert time.time() - started < 180
