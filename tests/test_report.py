"""The proposal report: its numbers are the CLI's, its sources are named, it opens offline.

Every number read back from the HTML, the PDF or the XLSX is compared with what ``costfrontier
iso --json`` / ``crossover --json`` print for the same view, formatted by the report's rule
(money 2 decimals, 3 below $0.10; interactivity 1 decimal; ratios ``1.41x``).
"""

from __future__ import annotations

import hashlib
import io
import re
import shutil
import subprocess
import zipfile
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pandas as pd
import pytest

from model.cli.options import view_of_link
from model.core.view import View
from model.data.store import connect, list_sources, load_points
from model.present.answers import pair_intervals
from model.present.figures import usd
from model.present.report import ReportError, html_to_pdf, view_link
from model.present.report_output import round_usd
from model.present.workbook import report_xlsx
from tests.kit import cli, cli_json, report_of_view

CHROMIUM = "/usr/bin/chromium"
needs_chromium = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian's chromium (apt-get install chromium)")
needs_poppler = pytest.mark.skipif(shutil.which("pdftotext") is None,
                                   reason="needs poppler-utils (apt-get install poppler-utils; .ci/run installs it)")

VIEW = ["--by", "hardware", "--where", "spec_decoding=mtp", "--where", "model=GLM-5", "--rate", "B200=1.60", "--baseline", "MI355X",
        "--at", "20,24.5,35,55,77,90", "--method", "linear"]


class _Tables(HTMLParser):
    """``<table id=...>`` -> list of rows (dict header -> cell text); also every ``<a href>``."""

    def __init__(self):
        super().__init__()
        self.tables: dict[str, list[dict[str, str]]] = {}
        self.links: list[str] = []
        self._id = None
        self._headers: list[str] = []
        self._row: list[str] | None = None
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "table":
            self._id, self._headers = attrs.get("id"), []
            self.tables[self._id] = []
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th"):
            self._cell = []
        elif tag == "a":
            self.links.append(attrs.get("href", ""))

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self._row.append("".join(self._cell))
            self._cell = None
        elif tag == "tr" and self._row is not None:
            if not self._headers:
                self._headers = self._row
            else:
                self.tables[self._id].append(dict(zip(self._headers, self._row)))
            self._row = None


def parse(html: str) -> _Tables:
    parser = _Tables()
    parser.feed(html)
    return parser


@pytest.fixture(scope="module")
def db(samples_template, tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("report") / "samples.duckdb"
    shutil.copy(samples_template, path)
    return path


@pytest.fixture(scope="module")
def html_report(db, tmp_path_factory) -> str:
    out = tmp_path_factory.mktemp("html") / "proposal.html"
    assert cli(db, "report", *VIEW, "--out", out).code == 0
    return out.read_text(encoding="utf-8")


def test_html_iso_table_equals_cli_json(db, html_report):
    iso = cli_json(db, "iso", *VIEW)
    shown = parse(html_report).tables["iso"]
    assert len(shown) == len(iso["rows"]) == 12
    by_key = {(r["Interactivity [tok/s/user]"], r["Series"]): r for r in shown}
    for row in iso["rows"]:
        cell = by_key[(f"{row['interactivity']:.1f}", row["series"])]
        assert cell["$/M tokens"] == (usd(row["usd_per_mtok"], "") if row["usd_per_mtok"] is not None else "—")
        assert cell["Ratio to MI355X"] == (f"{row['ratio_to_baseline']:.2f}x"
                                           if row["ratio_to_baseline"] is not None else "—")
        assert cell["$/GPU-hour"] == usd(row["usd_per_gpu_hour"], "")
    # the override is in force: B200 priced at $1.60, not its $1.95 preset
    assert {r["$/GPU-hour"] for r in shown if r["Series"] == "B200"} == {"$1.60"}
    # 24.5 falls between two MI355X frontier points, so it is interpolated
    assert by_key[("24.5", "MI355X")]["Status"] == "interpolated between two frontier points"


def test_html_crossovers_equal_cli_json(db, html_report):
    cross = cli_json(db, "crossover", *VIEW)
    shown = parse(html_report).tables["crossovers"]
    assert len(shown) == len(cross["rows"]) >= 1
    for cell, row in zip(shown, sorted(cross["rows"], key=lambda r: r["interactivity"])):
        assert cell["Interactivity [tok/s/user]"] == f"{row['interactivity']:.1f}"
        assert cell["$/M tokens at the crossing"] == usd(row["usd_per_mtok"], "")
        assert (cell["Cheaper below"], cell["Cheaper above"]) == (row["cheaper_below"], row["cheaper_above"])


def test_answer_paragraph_names_the_cheapest_with_the_cli_numbers(db, tmp_path):
    out = tmp_path / "r.html"
    assert cli(db, "report", *VIEW, "--x", "55", "--out", out).code == 0
    at = sorted(cli_json(db, "iso", *VIEW)["rows"], key=lambda r: r["usd_per_mtok"] or 1e9)
    at = [r for r in at if r["interactivity"] == 55.0]
    best, second = at[0], at[1]
    html = out.read_text(encoding="utf-8")
    answer = html.split("class=answer>")[1].split("</p>")[0]
    first = html.split("<section id=recommendation")[1].split("</section>")[0]
    errors = {r["series"]: r["usd_per_mtok_error"] for r in at}
    # B200 at $1.60 is level with MI355X at 55 (the gap, under $0.001/M, lies inside their ± bands): no winner named,
    # each series with its ± (the iso table's), and the break-even as the range those bands allow
    gap = second["usd_per_mtok"] - best["usd_per_mtok"]
    assert gap < best["usd_per_mtok"] * errors[best["series"]] + second["usd_per_mtok"] * errors[second["series"]]
    assert "At 55.0 tok/s/user, which series is cheapest is not settled by the data" in answer
    for row in (best, second):
        assert f"{row['series']} {usd(row['usd_per_mtok'])} ± {errors[row['series']] * 100:.0f} %" in answer
    assert "is the cheapest" not in answer and "is cheapest at" not in first
    needed = second["usd_per_gpu_hour"] * best["usd_per_mtok"] / second["usd_per_mtok"]
    low = needed * (1 - errors[best["series"]]) / (1 + errors[second["series"]])
    high = needed * (1 + errors[best["series"]]) / (1 - errors[second["series"]])
    assert f"at a rate from {usd(low, '')} to {usd(high, '/GPU-hour')}" in first


def test_assumptions_name_every_rate_and_where_it_came_from(html_report):
    rows = {r["Item"]: r for r in parse(html_report).tables["assumptions"]}
    assert rows["$/GPU-hour, B200"]["Value"] == "$1.60"
    assert rows["$/GPU-hour, B200"]["Where it came from"] == \
        "set in this view (typed, or from a link or --rate); preset $1.95/GPU-hour"
    # MI355X keeps the 2025-08 owning_hyperscaler preset ($1.48, the rate the InferenceX tables use)
    assert rows["$/GPU-hour, MI355X"]["Value"] == "$1.48"
    assert "price set 2025-08, tier owning_hyperscaler" in rows["$/GPU-hour, MI355X"]["Where it came from"]
    assert rows["Workload"]["Value"] == "GLM-5, ISL 8192 / OSL 1024 tokens"
    assert rows["Filters"]["Value"] == "model = GLM-5; spec_decoding = mtp"
    assert rows["Interpolation"]["Value"].startswith("linear")
    assert rows["Token basis"]["Value"] == "total tokens (input + output)"
    assert rows["Interactivity targets [tok/s/user]"]["Value"] == "20.0, 24.5, 35.0, 55.0, 77.0, 90.0"


def test_provenance_lists_every_source_with_its_sha256(db, html_report):
    con = connect(db, read_only=True)
    try:
        sources = list_sources(con)
        used_ids = set(load_points(con, {"spec_decoding": ["mtp"], "model": ["GLM-5"]})["source_id"])
    finally:
        con.close()
    rows = {r["File"]: r for r in parse(html_report).tables["provenance"]}
    used = sources[sources["source_id"].isin(used_ids) | (sources["kind"] == "tco_rates")]
    assert set(rows) == set(used["file_name"])
    for source in used.itertuples():
        assert rows[source.file_name]["SHA-256"] == source.sha256
        assert rows[source.file_name]["Rows in file"] == str(source.rows)
    # the SHA-256 is the file's own: recompute it from the bundled sample
    sample = Path(__file__).resolve().parent.parent / "data" / "samples" / "inferencex_glm5_fp8_2026-05-20.csv"
    assert rows[sample.name]["SHA-256"] == hashlib.sha256(sample.read_bytes()).hexdigest()
    assert rows[sample.name]["Run date"] == "2026-05-20"
    # MTP rows only: the sample holds 15 of its 29 rows with MTP
    assert rows[sample.name]["Rows in view"] == "15"


def test_share_link_reopens_the_same_view(html_report):
    link = next(a for a in parse(html_report).links if "?" in a)
    state, notices = View.from_query(parse_qs(urlsplit(link).query))
    assert notices == []
    assert state.rates == (("B200", 1.6),) and state.by == ("hardware",) and state.spec_decoding == ("mtp",)
    assert state.targets == (20.0, 24.5, 35.0, 55.0, 77.0, 90.0) and state.baseline == "MI355X"


def test_view_link_round_trips_the_view_with_every_filter():
    state = View(by=("hardware", "spec_decoding"), basis="blended", method="monotone", rates=(("B200", 2.5),),
                      targets=(30.0, 60.0), sla="ttft_p95=2", w_input=0.5, workload="GLM-5|8192|1024",
                      hardware=("B200", "MI355X"), filters=(("tp", "8"),), demand_rps=12.0, interactivity_needed=50.0)
    link = view_link(state, "https://cf.example/")
    back, notices = view_of_link(link)
    assert back == state and notices == []
    assert back.where() == {"model": ["GLM-5"], "isl": ["8192"], "osl": ["1024"], "hardware": ["B200", "MI355X"],
                            "tp": ["8"]}


def test_view_link_defaults_to_the_public_address(monkeypatch):
    monkeypatch.setenv("COSTFRONTIER_PUBLIC_URL", "https://costs.example.com/team")
    assert view_link(View(interactivity_needed=50.0)) == "https://costs.example.com/team/?x=50"
    monkeypatch.delenv("COSTFRONTIER_PUBLIC_URL")
    assert view_link(View()) == "http://localhost:8501/"


def test_report_of_a_link_uses_the_links_view(db, tmp_path):
    link = "http://cf.example:8501/Crossovers?spec=mtp&by=hardware&r=MI355X:2&x=40&bogus=1"
    out = tmp_path / "r.html"
    code, _, err = cli(db, "report", "--link", link, "--out", out)
    assert code == 0
    assert "ignored unknown link parameter 'bogus'" in err
    tables = parse(out.read_text(encoding="utf-8"))
    rows = {r["Item"]: r for r in tables.tables["assumptions"]}
    assert rows["$/GPU-hour, MI355X"]["Value"] == "$2.00"
    assert rows["$/GPU-hour, MI355X"]["Where it came from"].startswith("set in this view")
    assert rows["Interactivity you need [tok/s/user]"]["Value"] == "40.0"
    # a link without a workload opens the first one, on the dashboard and in its report
    assert rows["Filters"]["Value"] == "isl = 8192; model = GLM-5; osl = 1024; spec_decoding = mtp"
    assert link in tables.links


def test_a_profile_with_any_printable_name_reaches_the_report_through_its_link(db, tmp_path):
    from urllib.parse import urlencode

    from model.core.cost_profiles import cost_profile, profiles_to_text
    from model.core.view import View

    name = 'B200, quote #2 $ % @ "é" || x'
    state = View(spec_decoding=("mtp",), by=("hardware",), priced_by=(name,),
                      profiles=profiles_to_text([cost_profile(name=name, hardware="B200", usd_per_gpu_hour=2.25)]))
    link = "http://cf.example:8501/Crossovers?" + urlencode(state.to_query(), safe=":,|")   # as ui.state.share_link
    out = tmp_path / "r.html"
    code, _, err = cli(db, "report", "--link", link, "--out", out)
    assert code == 0
    assert "not applied" not in err
    tables = parse(out.read_text(encoding="utf-8"))
    rows = {r["Item"]: r for r in tables.tables["assumptions"]}
    assert rows["$/GPU-hour, B200"]["Value"] == "$2.25"
    assert link in tables.links and view_of_link(link) == (state, [])


def test_xlsx_tables_hold_the_clis_numbers_with_assumptions_sheet(db, tmp_path):
    """Numbers are stored whole and shown rounded (a number format); costs are formulas whose cached results are the
    product's (tests/test_workbook.py recalculates them)."""
    from openpyxl import load_workbook

    out = tmp_path / "tables.xlsx"
    assert cli(db, "report", *VIEW, "--out", out).code == 0
    iso = cli_json(db, "iso", *VIEW)["rows"]
    book = load_workbook(out)
    assert book.sheetnames == ["Cost at matched interactivity", "Assumptions", "Crossovers", "Frontier points",
                               "How often the range held", "Provenance"]
    frame = pd.read_excel(out, sheet_name="Cost at matched interactivity", header=3)
    got = {(r["Interactivity [tok/s/user]"], r["Series"]): r for r in frame.to_dict("records")}
    for row in iso:
        cell = got[(round(row["interactivity"], 1), row["series"])]
        assert round_usd(cell["$/M tokens"]) == round_usd(row["usd_per_mtok"])
        assert round(cell["Ratio to MI355X"], 2) == round(row["ratio_to_baseline"], 2)
        assert round(cell["tok/s/GPU"], 1) == round(row["tokens_per_second_per_gpu"], 1)
    sheet = book["Cost at matched interactivity"]
    assert sheet["C5"].data_type == "f" and sheet["C5"].number_format == "[<0.1]0.000##;#,##0.00"
    assumptions = pd.read_excel(out, sheet_name="Assumptions", header=3)
    assert "set in this view (typed, or from a link or --rate); preset $1.95/GPU-hour" in set(assumptions["Where it came from"])
    frontier = pd.read_excel(out, sheet_name="Frontier points", header=3)
    assert {"$/M tokens", "tok/s/GPU", "Source file", "Line"} <= set(frontier.columns)
    assert frontier["$/M tokens"].notna().all()


def test_downloads_are_formula_safe(tmp_path):
    con = connect(tmp_path / "f.duckdb")
    csv = tmp_path / "evil.csv"
    csv.write_text("hardware,framework,precision,gpus,isl,osl,concurrency,tput_per_gpu,tok_s_user\n"
                   "B200,=HYPERLINK(\"http://x\"),fp8,8,1024,1024,4,1000,50\n"
                   "B200,=HYPERLINK(\"http://x\"),fp8,8,1024,1024,8,1500,30\n", encoding="utf-8")
    from model.data.ingest import ingest_file

    ingest_file(con, csv, [])
    # grouped by framework alone, the series label itself starts with "="
    report = report_of_view(con, View(by=("framework",)))
    con.close()
    with zipfile.ZipFile(io.BytesIO(report.tables_csv())) as archive:
        frontier = archive.read("frontier_points.csv").decode()
        assert "assumptions.csv" in archive.namelist()
    assert "'=hyperlink" in frontier.lower() and ",=hyperlink" not in frontier.lower()
    from openpyxl import load_workbook

    book = load_workbook(io.BytesIO(report_xlsx(report)))
    texts = [c.value for row in book["Frontier points"].iter_rows() for c in row if isinstance(c.value, str)]
    assert any(t.lower().startswith("'=hyperlink") for t in texts)
    # the only formulas are the workbook's own costs: none holds a label's text
    formulas = [c.value for ws in book for row in ws.iter_rows() for c in row if c.data_type == "f"]
    assert formulas and not any("hyperlink" in f.lower() for f in formulas)


def test_fleet_table_prints_utilisation_as_a_share_and_capacity_to_three_figures(db, tmp_path):
    """Issue 50: the report printed utilisation as "0.07x" (a ratio) and both series' capacity as 0.8 req/s, where
    0.827 and 0.791 are what set their node counts (13 each, by `size`)."""
    out = tmp_path / "fleet.html"
    link = "http://localhost:8501/Fleet?wl=GLM-5|8192|1024&x=50&rps=10"
    assert cli(db, "report", "--link", link, "--out", out).code == 0
    parser = _Tables()
    parser.feed(out.read_text(encoding="utf-8"))
    rows = {r["Series"]: r for r in parser.tables["extra-fleet"]}
    sized = {r["series"]: r for r in cli_json(db, "size", "--link", link)["rows"]}
    for series in ("B200 · sglang · fp8 · mtp", "MI355X · sglang · fp8 · mtp"):
        assert rows[series]["Per node [req/s]"] == f"{sized[series]['per_node_rps']:.3f}"
        assert rows[series]["Utilisation"] == f"{sized[series]['utilization']:.1%}"
    assert rows["B200 · sglang · fp8 · mtp"]["Per node [req/s]"] == "0.827"
    assert rows["MI355X · sglang · fp8 · mtp"]["Per node [req/s]"] == "0.791"
    assert rows["MI355X · sglang · fp8 · mtp"]["Utilisation"] == "97.2%"


def test_bad_out_suffix_is_refused(db, tmp_path):
    code, _, err = cli(db, "report", "--out", tmp_path / "r.docx")
    assert code == 2
    assert "--out must end in .html, .pdf, .xlsx, .zip" in err
    assert not (tmp_path / "r.docx").exists()


def test_missing_chromium_is_a_clear_error(tmp_path):
    with pytest.raises(ReportError, match="Chromium could not be started"):
        html_to_pdf("<p>x</p>", tmp_path / "r.pdf", chromium=str(tmp_path / "no-chromium"))
    assert not (tmp_path / "r.pdf").exists()


@pytest.mark.slow
@needs_chromium
@needs_poppler
def test_pdf_numbers_equal_cli_json(db, tmp_path):
    out = tmp_path / "proposal.pdf"
    assert cli(db, "report", *VIEW, "--out", out).code == 0
    assert out.read_bytes().startswith(b"%PDF")
    text = subprocess.run(["pdftotext", "-layout", str(out), "-"], capture_output=True, text=True, check=True).stdout
    lines = [" ".join(line.split()) for line in text.splitlines()]
    iso = cli_json(db, "iso", *VIEW)["rows"]
    for row in iso:
        expected = (f"{row['interactivity']:.1f} {row['series']} {usd(row['usd_per_mtok'], '')} "
                    f"{row['ratio_to_baseline']:.2f}x {usd(row['usd_per_gpu_hour'], '')}")
        assert any(line.startswith(expected) for line in lines), expected
    cross = cli_json(db, "crossover", *VIEW)   # each pair said once, as intervals
    said = pair_intervals(pd.DataFrame(cross["rows"]), pd.DataFrame(cross["reach"]))["text"]
    assert len(said) >= 1 and all("".join(t.split()) in "".join(text.split()) for t in said), list(said)
    # the charts were drawn before printing: their axis titles are text in the PDF (the tables' headers wrap)
    assert text.count("Interactivity [tok/s/user]") >= 2 and "Throughput [tok/s/GPU]" in text
    flat = "".join(text.split())
    con = connect(db, read_only=True)
    try:
        sources = list_sources(con)
    finally:
        con.close()
    inferencex = sources.loc[sources["file_name"] == "inferencex_glm5_fp8_2026-05-20.csv", "sha256"].iloc[0]
    assert inferencex[:16] in flat


@pytest.mark.slow
@needs_chromium
@needs_poppler
def test_pdf_bytes_for_a_download_button_and_no_heading_alone_at_a_page_foot(db, tmp_path):
    con = connect(db, read_only=True)
    try:    # issue 50: this view's "Break-even volumes" heading sat alone at the foot of page 5, its table on page 6
        report = report_of_view(con, View.from_query({"wl": "GLM-5|8192|1024", "x": "50", "rps": "10",
                                                      "tpm": "1e10"})[0])
    finally:
        con.close()
    data = report.pdf_bytes()
    assert data.startswith(b"%PDF") and b"%%EOF" in data[-64:]
    (tmp_path / "r.pdf").write_bytes(data)
    headings = {re.sub(r"<[^>]+>", "", h).strip() for h in re.findall(r"<h[23][^>]*>(.*?)</h[23]>", report.html)}
    pages = subprocess.run(["pdftotext", "-layout", str(tmp_path / "r.pdf"), "-"], capture_output=True, text=True,
                           check=True).stdout.split("\f")
    feet = [[line.strip() for line in page.splitlines() if line.strip()][-1:] for page in pages]
    assert len(pages) > 4 and "Break-even volumes" in headings
    assert not [(i + 1, foot) for i, foot in enumerate(feet) if foot and foot[0] in headings]


@pytest.mark.slow
@needs_chromium
def test_html_opens_offline_without_console_errors(html_report, tmp_path, browser):
    path = tmp_path / "proposal.html"
    path.write_text(html_report, encoding="utf-8")
    errors, requests = [], []
    context = browser.new_context()     # tests/conftest.py's Chromium; a context of its own for the listeners and route
    page = context.new_page()
    try:
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))

        def offline(route):
            if route.request.url.startswith("file://"):
                route.continue_()
            else:
                requests.append(route.request.url)
                route.abort()

        page.route("**/*", offline)
        page.goto(path.as_uri())
        page.wait_for_selector("#cost-chart .main-svg", timeout=20_000)
        page.wait_for_selector("#frontier-chart .main-svg", timeout=20_000)
        curves = page.locator("#cost-chart .scatterlayer .trace").count()
    finally:
        context.close()
    assert errors == [] and requests == []
    assert curves >= 2


def test_text_from_files_cannot_inject_markup(tmp_path):
    con = connect(tmp_path / "x.duckdb")
    csv = tmp_path / "x.csv"
    evil = "</script><script>alert(1)</script>"
    csv.write_text("hardware,framework,precision,gpus,isl,osl,concurrency,tput_per_gpu,tok_s_user\n"
                   f"B200,{evil},fp8,8,1024,1024,4,1000,50\nB200,{evil},fp8,8,1024,1024,8,1500,30\n", encoding="utf-8")
    from model.data.ingest import ingest_file

    ingest_file(con, csv, [])
    report = report_of_view(con, View(by=("framework",)))
    con.close()
    assert "<script>alert(1)" not in report.html.lower() and "<script>alert(1)" not in report.print_html.lower()
    # shown as typed in the tables (the series label is the framework, lower-cased by the importer)
    assert [r["Series"] for r in parse(report.html).tables["iso"]][0] == evil.lower()


def test_unknown_baseline_falls_back_to_the_first_series_and_says_so(db):
    con = connect(db, read_only=True)
    try:
        report = report_of_view(con, View(by=("hardware",), baseline="H100", spec_decoding=("mtp",)))
    finally:
        con.close()
    assert "baseline &#x27;H100&#x27; is not among the series shown; ratios are to B200" in report.html
    ratios = {r["Series"]: r["Ratio to B200"] for r in parse(report.html).tables["iso"]}
    assert ratios["B200"] == "1.00x"


def test_a_table_wider_than_a_printed_page_is_printed_in_parts_each_with_its_keys():
    # the Seller economics table's 35 columns ran off an A4 page in the PDF (verify found its figures missing from
    # the PDF's text): the print holds at most PRINT_COLUMNS columns beside the key columns in each part
    import re as _re

    from model.present.report_output import PRINT_COLUMNS, html_table

    shown = pd.DataFrame({"Series": ["a", "b"], "Option": ["owned", "rented"],
                          **{f"c{i}": [f"{i}.0", f"{i}.5"] for i in range(30)}})
    spec = [("Series", "Series", "text"), ("Option", "Option", "text")] + [(f"c{i}", f"c{i}", "usd") for i in range(30)]
    whole = html_table(shown, "t", spec, figures=("T", ["Series", "Option"]))
    parts = html_table(shown, "t", spec, figures=("T", ["Series", "Option"]), most_columns=PRINT_COLUMNS)
    assert _re.findall(r'<table id="([^"]+)"', parts) == ["t", "t-2", "t-3"]
    assert parts.count("<th>Series</th>") == 3 and parts.count("T, continued") == 2
    for table in _re.findall(r"<table.*?</table>", parts):
        assert len(_re.findall(r"<th", table)) <= PRINT_COLUMNS + 2
    figures = lambda text: sorted(_re.findall(r'data-figure="([^"]+)">([^<]*)<', text))   # noqa: E731
    assert figures(parts) == figures(whole) and len(figures(whole)) == 60
    assert html_table(shown.iloc[:, :10], "t", spec[:10], figures=("T", ["Series", "Option"]),
                      most_columns=PRINT_COLUMNS).count("<table") == 1
