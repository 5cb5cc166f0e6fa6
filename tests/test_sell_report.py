"""Issue 52's parts in the report, the workbook and the proposal bundle: the seller's economics, the highest
interactivity under a $/M cap and the bill by tenant are report tables whose figures equal ``sell --json``,
``solve --json`` and ``size --json``; the workbook's "Seller economics" sheet, recalculated by LibreOffice, finds
the same numbers; ``verify`` rebuilds every figure from the bundle alone and names one changed."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from openpyxl import load_workbook

from model.present.bundle import EXIT_DIFFERS, EXIT_OK
from tests.kit import cli, cli_json
from tests.test_report import needs_chromium
from tests.test_workbook import SOFFICE, needs_soffice, sheets

pytestmark = pytest.mark.slow

BASE = ["--where", "model=GLM-5", "--where", "isl=8192", "--where", "osl=1024", "--x", "30", "--rent", "B200=3",
        "--volume", "2e9"]
VIEW = [*BASE, "--api", "GLM-5.2", "--licence-fee", "0.3"]
ISSUE52 = ["--max-usd-per-mtok", "0.5", "--tenants", "acme:9e8:1e8,beta:3e8:2e8:1e8"]


@pytest.fixture(scope="module")
def bundle(samples_template, tmp_path_factory):
    folder = tmp_path_factory.mktemp("sell")
    db = folder / "samples.duckdb"
    shutil.copy(samples_template, db)
    assert cli(db, "report", *VIEW, *ISSUE52, "--bundle", folder / "bundle").code == 0
    return db, folder / "bundle"


@needs_chromium
def test_the_reports_figures_are_the_clis_and_verify_checks_them(bundle, tmp_path):
    db, folder = bundle
    figures = {f["id"]: f for f in json.loads((folder / "manifest.json").read_text())["figures"]}
    sell = cli_json(db, "sell", *VIEW)
    assert len(sell["rows"]) == 6         # 4 series owned, B200's two rented
    for r in sell["rows"]:
        key = f"Seller economics | {r['series']} | {r['option']}"
        assert figures[f"{key} | Revenue [$/GPU-hour]"]["value"] == pytest.approx(r["revenue_per_gpu_hour"])
        assert figures[f"{key} | Profit [$/GPU-hour]"]["value"] == pytest.approx(r["profit_per_gpu_hour"])
        assert figures[f"{key} | Break-even utilisation [%]"]["value"] == pytest.approx(
            r["break_even_utilisation"] * 100)
        assert figures[f"{key} | Profit [$ B per GW-year]"]["value"] == pytest.approx(r["profit_per_gw_year"] / 1e9)
    solve = cli_json(db, "solve", *BASE, "--max-usd-per-mtok", "0.5")
    for r in solve["under_cap"]:
        key = f"Highest interactivity under the $/M cap | {r['series']}"
        assert figures[f"{key} | Highest interactivity [tok/s/user]"]["value"] == pytest.approx(r["interactivity"])
    split = cli_json(db, "size", *BASE, "--tenants", ISSUE52[-1])["chargeback"]
    for t in split["tenants"]:
        assert figures[f"Chargeback by tenant | {t['tenant']} | $ per month"]["value"] == t["usd_per_month"]
    html = (folder / "report.html").read_text(encoding="utf-8")
    assert "id=sell-section" in html and "id=solve-section" in html and "id=chargeback-section" in html
    assert f"The tenants&#x27; $ a month add up to the fleet&#x27;s: ${split['usd_per_month']:,.2f}." in html
    assert cli(None, "verify", folder).code == EXIT_OK
    # a profit changed in the manifest is named
    copy = shutil.copytree(folder, tmp_path / "copy")
    manifest = json.loads((copy / "manifest.json").read_text())
    wanted = f"Seller economics | {sell['rows'][0]['series']} | owned | Profit [$/GPU-hour]"
    (figure,) = [f for f in manifest["figures"] if f["id"] == wanted]
    figure["value"], figure["text"] = 9.99, "$9.99"
    (copy / "manifest.json").write_text(json.dumps(manifest))
    done = cli(None, "verify", copy, "--json")
    assert done.code == EXIT_DIFFERS
    assert json.loads(done.out)["differs"][0]["what"] == f"figure {wanted}"


@needs_soffice
def test_libreoffice_recalculates_the_seller_sheet_to_the_clis_answer(bundle, tmp_path):
    """The workbook stripped of its cached results, recalculated by LibreOffice, and once more with the B200 rate
    and the licence fee changed: every formula of the Seller economics sheet equals ``sell --json`` at those inputs."""
    db, folder = bundle
    book = load_workbook(folder / "tables.xlsx")
    book.save(tmp_path / "as_made.xlsx")
    title, coordinate = next(book.defined_names["rate_B200"].destinations)
    book[title][coordinate.replace("$", "")].value = 2.5
    seller = book["Seller economics"]
    headers = [c.value for c in seller[4]]
    fee = headers.index("Licence fee [share]") + 1
    for row in range(5, seller.max_row + 1):
        seller.cell(row, fee).value = 0.2
    book.save(tmp_path / "changed.xlsx")
    done = subprocess.run([SOFFICE, f"-env:UserInstallation={(tmp_path / 'lo').as_uri()}", "--headless", "--norestore",
                           "--convert-to", "xlsx", "--outdir", str(tmp_path / "calc"), str(tmp_path / "as_made.xlsx"),
                           str(tmp_path / "changed.xlsx")], capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-500:]
    for name, extra in (("as_made", []), ("changed", ["--rate", "B200=2.5", "--licence-fee", "0.2"])):
        cli = {(r["series"], r["option"]): r for r in cli_json(db, "sell", *VIEW, *extra)["rows"]}
        rows = sheets(tmp_path / "calc" / f"{name}.xlsx")["Seller economics"]
        assert len(rows) == len(cli) == 6
        for row in rows:
            r = cli[(row["Series"], row["Paid as"])]
            for header, key, scale in (("Revenue [$/GPU-hour]", "revenue_per_gpu_hour", 1),
                                       ("Profit [$/GPU-hour]", "profit_per_gpu_hour", 1),
                                       ("Profit, range's bottom", "profit_per_gpu_hour_low", 1),
                                       ("Break-even utilisation [%]", "break_even_utilisation", 100),
                                       ("Break-even, range's top [%]", "break_even_utilisation_high", 100),
                                       ("Profit [$ B per GW-year]", "profit_per_gw_year", 1e-9),
                                       ("Profit, utilisation +10 points [$ B per GW-year]", "profit_up", 1e-9),
                                       ("Fleet profit [$ per month]", "profit_per_month", 1),
                                       ("Sale price [$/M tokens sold]", "blended_usd_per_mtok", 1)):
                assert row[header] == pytest.approx(r[key] * scale, rel=1e-9), (name, row["Series"], header)
