"""The report's workbook recalculates: its costs are formulas of the rates and build-up inputs on its Assumptions
sheet, and LibreOffice, calculating them, finds the CLI's numbers.

The oracle is the CLI (``iso``, ``frontier``, ``size``, ``volume``, ``tco`` with ``--json``) for the same view, at the
rates the workbook holds; numbers are compared as the report shows them (money 2 decimals, 3 below $0.10; tok/s/GPU 1
decimal; ratios 2; whole dollars a month). One LibreOffice run (``soffice --headless --convert-to xlsx``, a private
profile) recalculates two copies of one workbook stripped of their cached results: one at the rates as made, one with
the B200 rate and the on-prem server price changed. The view has a demand with a business-hours shape, B200 rented on
demand and the API matched by name, so the Fleet sheet follows the load and Buy, rent or API ranks four options: on
those two sheets every number not marked as a value (the sheet's note, :data:`model.present.workbook.VALUES_MARK`)
equals the CLI's at the changed inputs (issue 41: the workbook recalculates whole).
"""

from __future__ import annotations

import shutil
import subprocess
from datetime import datetime
from pathlib import Path

import pytest
from openpyxl import load_workbook
from openpyxl.utils import get_column_letter

from model.present.figures import usd
from model.present.workbook import VALUES_MARK
from model.present.workbook_cells import HEADER_ROW
from tests.kit import cli, cli_json

SOFFICE = shutil.which("soffice") or shutil.which("libreoffice")
needs_soffice = pytest.mark.skipif(SOFFICE is None, reason="needs LibreOffice (apt-get install libreoffice-calc-nogui; "
                                                           "deploy/system-deps.sh installs it)")

PROFILE = "MI355X on-prem"
SELECTION = ["--by", "hardware", "--where", "spec_decoding=mtp", "--where", "model=GLM-5"]
#: linear: the iso sheet's formulas of the two knots around each target are checked (monotone's hold a number)
VIEW = [*SELECTION, "--profile", PROFILE, "--interactivity", "40", "--method", "linear"]
FLEET = ["--demand-rps", "100", "--shape", "business-hours", "--rent", "B200=2.5", "--on-demand"]
X = 40.0


def _tco(server: float, pue: float | None = None) -> list[str]:
    return ["tco", "--hardware", "MI355X", "--server-usd", f"{server:g}", "--utilization", "0.7", "--name", PROFILE,
            *(["--pue", f"{pue:g}"] if pue else [])]


def store(samples_template, folder: Path) -> Path:
    db = folder / "samples.duckdb"
    shutil.copy(samples_template, db)
    cli_json(db, *_tco(250_000), "--save")
    return db


def sheets(path: Path, data_only: bool = True) -> dict[str, list[dict]]:
    """Every sheet's table as rows of header -> cell value (computed values with ``data_only``)."""
    book = load_workbook(path, data_only=data_only)
    out = {}
    for sheet in book:
        rows = list(sheet.iter_rows(min_row=HEADER_ROW, values_only=True))
        out[sheet.title] = [dict(zip(rows[0], r)) for r in rows[1:] if any(v is not None for v in r)]
    return out


def answer(db: Path, *rate, fleet: tuple[str, ...] = ()) -> dict:
    """The CLI's answer at the rates given (``--rate B200=...``) and the stored profile; ``fleet``: the fleet's
    settings (``--pue``) for ``size``."""
    iso = cli_json(db, "iso", *VIEW, *rate)
    return {"iso": iso["rows"], "frontier": cli_json(db, "frontier", *VIEW, *rate)["rows"],
            "size": cli_json(db, "size", *VIEW, *FLEET, *rate, *fleet)["rows"],
            "volume": cli_json(db, "volume", *VIEW, *FLEET, *rate)["options"],
            "rates": iso["usd_per_gpu_hour"]}


def values_marked(path: Path) -> dict[str, set[str]]:
    """Each sheet's columns marked as values (its note, row 3), not formulas of the Assumptions."""
    out = {}
    for sheet in load_workbook(path, data_only=False):
        note = str(sheet.cell(3, 1).value or "")
        said = note.split(VALUES_MARK, 1)[1].rstrip(".") if VALUES_MARK in note else ""
        out[sheet.title] = {h for h in said.split("; ") if h}
    return out


def check_unmarked(book: dict[str, list[dict]], marked: dict[str, set[str]], want: dict) -> int:
    """On the Fleet and Buy, rent or API sheets every number in a column not marked as a value equals the CLI's
    (``size``, ``volume``) as the report shows it; returns how many cells were compared."""
    compared = 0
    money = {"$ per month", "Rented on demand: $ per month following the load", "$ per month, capacity + its ±",
             "$ per month, capacity − its ±"}
    size = {r["series"]: r for r in want["size"]}
    keys = {"GPUs": "gpus", "$ per month": "usd_per_month", "$/GPU-hour paid": "usd_per_gpu_hour",
            "Effective [$/M tokens]": "effective_usd_per_mtok",
            "Rented on demand: $ per month following the load": "usd_per_month_autoscaled",
            "Rented on demand: $/GPU-hour (set in this view)": "usd_per_gpu_hour_autoscaled",
            "Rented on demand: effective [$/M tokens]": "effective_usd_per_mtok_autoscaled",
            "IT power [kW]": "kw", "Facility power [kW]": "facility_kw", "kW per GPU (all-in IT)": "kw_per_gpu",
            "PUE": "pue"}
    options = {r["option"]: r for r in want["volume"]}
    option_keys = {"$ per month": "usd_per_month", "Effective [$/M tokens]": "effective_usd_per_mtok",
                   "$/GPU-hour": "usd_per_gpu_hour", "$ per month, capacity + its ±": "usd_per_month_low",
                   "$ per month, capacity − its ±": "usd_per_month_high"}
    for sheet, rows, key, oracle, by in (("Fleet", book["Fleet"], "Series", size, keys),
                                         ("Buy, rent or API", book["Buy, rent or API"], "Option", options,
                                          option_keys)):
        assert {r[key] for r in rows} == set(oracle), sheet
        for row in rows:
            mine = oracle[row[key]]
            for header, value in row.items():
                if not isinstance(value, (int, float)) or header in marked[sheet] or header == key:
                    continue
                assert header in by, (sheet, header, "a number that is neither a formula checked here nor marked")
                expected = mine[by[header]]
                shown = (lambda v: round(v)) if header in money else (lambda v: usd(v, ""))
                assert shown(value) == shown(expected), (sheet, row[key], header, value, expected)
                compared += 1
    return compared


def check(book: dict[str, list[dict]], want: dict, build_up: dict) -> int:
    """Every recalculated cost of ``book`` equals ``want`` (the CLI) as the report shows it; returns how many
    $/M cells were compared."""
    iso = book["Cost at matched interactivity"]
    compared = 0
    cheapest = {}
    for row in want["iso"]:
        if row["usd_per_mtok"] is not None:
            cheapest[row["interactivity"]] = min(cheapest.get(row["interactivity"], 1e99), row["usd_per_mtok"])
    got = {(r["Interactivity [tok/s/user]"], r["Series"]): r for r in iso}
    assert len(got) == len(want["iso"])
    for row in want["iso"]:
        cell = got[(row["interactivity"], row["Series"] if "Series" in row else row["series"])]
        if row["usd_per_mtok"] is None:
            assert cell["$/M tokens"] is None
            continue
        assert usd(cell["$/M tokens"], "") == usd(row["usd_per_mtok"], ""), row
        assert usd(cell["$/GPU-hour"], "") == usd(row["usd_per_gpu_hour"], "")
        assert f"{cell['tok/s/GPU']:.1f}" == f"{row['tokens_per_second_per_gpu']:.1f}"
        assert f"{cell['Ratio to B200']:.2f}" == f"{row['ratio_to_baseline']:.2f}"
        be = row["usd_per_gpu_hour"] * cheapest[row["interactivity"]] / row["usd_per_mtok"]
        assert usd(cell["Break-even $/GPU-hour"], "") == usd(be, "")
        compared += 1
    frontier = {(r["Series"], r["Interactivity [tok/s/user]"], r["tok/s/GPU"]): r for r in book["Frontier points"]}
    assert len(frontier) == len(want["frontier"])
    for row in want["frontier"]:
        cell = frontier[(row["series"], row["interactivity"], row["tokens_per_second_per_gpu"])]
        assert usd(cell["$/M tokens"], "") == usd(row["usd_per_mtok"], "")
        assert usd(cell["$/GPU-hour"], "") == usd(row["usd_per_gpu_hour"], "")
        compared += 1
    fleet = {r["Series"]: r for r in book["Fleet"]}
    assert {r["series"] for r in want["size"] if r["nodes"]} == set(fleet)
    for row in want["size"]:
        cell = fleet[row["series"]]
        assert (cell["Nodes"], cell["GPUs"]) == (row["nodes"], row["gpus"])
        assert usd(cell["$/GPU-hour paid"], "") == usd(row["usd_per_gpu_hour"], "")
        assert round(cell["$ per month"]) == round(row["usd_per_month"]), row
    parts = book[f"Parts {PROFILE}"][0]
    for header, key in (("Capital [$/GPU-hour]", "capital"), ("Power [$/GPU-hour]", "power"),
                        ("Facility [$/GPU-hour]", "facility"), ("Operations [$/GPU-hour]", "operations"),
                        ("At full use [$/GPU-hour]", "usd_per_gpu_hour_full_use"),
                        ("Effective [$/GPU-hour]", "usd_per_gpu_hour")):
        assert usd(parts[header], "") == usd(build_up[key], ""), header
    assert parts["Capital per GPU [$]"] == pytest.approx(build_up["capital_per_gpu"], rel=1e-12)
    rates = {r["Item"]: r["Value"] for r in book["Assumptions"]}
    for hardware, rate in want["rates"].items():
        assert usd(rates[f"$/GPU-hour, {hardware}"], "") == usd(rate, "")
    # the tornado's base: the $/M of the profile's series at the interactivity you need
    at_x = next(r for r in want["iso"] if r["series"] == "MI355X" and r["interactivity"] == X)
    tornado = book[f"Sensitivity {PROFILE}"]
    assert len(tornado) == 6 and {usd(r["At base [$/M]"], "") for r in tornado} == {usd(at_x["usd_per_mtok"], "")}
    server = next(r for r in tornado if r["Input"] == "server price")
    assert server["Base"] == build_up["inputs"]["server_usd"] and server["Low (−20 %)"] == pytest.approx(
        0.8 * build_up["inputs"]["server_usd"])
    return compared


@pytest.fixture(scope="module")
def made(samples_template, tmp_path_factory) -> tuple[Path, Path, dict, dict]:
    """(store, the report's workbook, the CLI's answer, the build-up) of the view with an on-prem profile and a fleet."""
    folder = tmp_path_factory.mktemp("workbook")
    db = store(samples_template, folder)
    out = folder / "tables.xlsx"
    assert cli(db, "report", *VIEW, *FLEET, "--out", out).code == 0
    return db, out, answer(db), cli_json(db, *_tco(250_000))["rows"][0]


def test_the_workbooks_costs_are_formulas_whose_cached_results_are_the_clis(made):
    _, out, as_made, build_up = made
    formulas = sheets(out, data_only=False)
    iso = formulas["Cost at matched interactivity"]
    priced = [r for r in iso if r["$/M tokens"] is not None]
    assert priced and all(str(r["$/M tokens"]).startswith("=") and str(r["tok/s/GPU"]).startswith("=")
                          for r in priced)
    assert {r["Knot a: $/GPU-hour"] for r in priced if r["Series"] == "B200"} == {"=rate_B200"}
    assert {r["$/GPU-hour"] for r in formulas["Frontier points"] if r["Series"] == "MI355X"} == {"=rate_MI355X"}
    fleet = {r["Series"]: r for r in formulas["Fleet"]}
    letter = {h: get_column_letter(i + 1) for i, h in enumerate(fleet["B200"])}   # the sheet's columns, in order
    row = 5 + list(fleet).index("B200")
    assert fleet["B200"]["$ per month"] == (f"={letter['Nodes']}{row}*{letter['GPUs per node']}{row}*"
                                            f"{letter['$/GPU-hour paid']}{row}*hours_per_month")
    assert fleet["MI355X"]["$/GPU-hour paid"] == "=onprem_MI355X_on_prem_full_use"   # every hour is paid for
    rates = {r["Item"]: r["Value"] for r in formulas["Assumptions"]}
    assert rates["$/GPU-hour, MI355X"] == "=onprem_MI355X_on_prem_effective" and rates["$/GPU-hour, B200"] == 1.95
    assert rates[f"{PROFILE}: Server price per node [$]"] == 250_000
    # a reader that does not calculate shows the product's own numbers (the cached results)
    assert check(sheets(out), as_made, build_up) >= 24


@needs_soffice
def test_libreoffice_recalculates_the_clis_answer_at_the_rates_as_made_and_at_changed_ones(made, tmp_path):
    db, out, as_made, made_up = made
    book = load_workbook(out)                     # openpyxl drops the cached results: LibreOffice must calculate
    book.save(tmp_path / "as_made.xlsx")
    # issue 50: PUE is live too: the fleet's (the rows no build-up prices) and the build-up's; facility power follows
    for name, value in (("rate_B200", 3.0), ("onprem_MI355X_on_prem_server_usd", 300_000), ("fleet_pue", 1.3),
                        ("onprem_MI355X_on_prem_pue", 1.3)):
        title, coordinate = next(book.defined_names[name].destinations)
        book[title][coordinate.replace("$", "")].value = value
    book.save(tmp_path / "changed.xlsx")
    assert sheets(tmp_path / "changed.xlsx")["Fleet"][0]["$ per month"] is None     # nothing cached
    done = subprocess.run([SOFFICE, f"-env:UserInstallation={(tmp_path / 'lo-profile').as_uri()}", "--headless",
                           "--norestore", "--convert-to", "xlsx", "--outdir", str(tmp_path / "calc"),
                           str(tmp_path / "as_made.xlsx"), str(tmp_path / "changed.xlsx")],
                          capture_output=True, text=True, timeout=240)
    assert done.returncode == 0 and (tmp_path / "calc" / "changed.xlsx").exists(), done.stderr[-500:]
    assert check(sheets(tmp_path / "calc" / "as_made.xlsx"), as_made, made_up) >= 24
    # a store holding the server price the reviewer typed; the CLI prices B200 at the rate typed
    db = Path(shutil.copy(db, tmp_path / "changed.duckdb"))
    cli_json(db, *_tco(300_000, 1.3), "--save")
    changed, build_up = answer(db, "--rate", "B200=3", fleet=("--pue", "1.3")), cli_json(db, *_tco(300_000, 1.3))["rows"][0]
    assert {r["pue"] for r in changed["size"]} == {1.3} and all(
        r["facility_kw"] == pytest.approx(1.3 * r["kw"]) for r in changed["size"] if r["nodes"])
    assert changed["rates"] == {"B200": 3.0, "MI355X": build_up["usd_per_gpu_hour"]} != made_up["usd_per_gpu_hour"]
    assert check(sheets(tmp_path / "calc" / "changed.xlsx"), changed, build_up) >= 24
    # the Fleet and Buy, rent or API sheets recalculate whole: every number not marked as a value is the CLI's
    marked = values_marked(tmp_path / "calc" / "changed.xlsx")
    assert {"Nodes", "Utilisation"} <= marked["Fleet"] and "Nodes" in marked["Buy, rent or API"]
    assert "$ per month" not in marked["Fleet"] | marked["Buy, rent or API"]
    assert {"PUE", "Facility power [kW]", "IT power [kW]"}.isdisjoint(marked["Fleet"])
    assert check_unmarked(sheets(tmp_path / "calc" / "as_made.xlsx"), marked, as_made) >= 25
    assert check_unmarked(sheets(tmp_path / "calc" / "changed.xlsx"), marked, changed) >= 25


def test_an_unpriced_build_up_leaves_its_hardware_at_the_preset_and_odd_names_make_valid_defined_names(sample_con):
    """A chosen on-prem profile without a server price does not price its hardware: the rate cell is the preset's
    number, not the empty build-up; a profile named with any printable text still gets a valid defined name."""
    import io as _io
    import re

    from model.core.cost_profiles import cost_profile, profiles_to_text
    from model.core.view import View
    from model.present.assumptions import assumptions_of
    from model.present.report_sections import report_parts
    from model.present.tables import tables
    from model.present.view_answer import answer_of_view
    from model.present.workbook import workbook_xlsx
    from model.present.workbook_cells import plan_of

    name = '=B200 "quote" #2 é'
    profile = cost_profile(name=name, hardware="B200", onprem={"kw_per_gpu": 1.5})
    view = View(spec_decoding=("mtp",), by=("hardware",), priced_by=(name,), profiles=profiles_to_text([profile]))
    answer = answer_of_view(sample_con, view, report_parts(view))
    data = workbook_xlsx("t", datetime.now(), {}, assumptions_of(answer), plan_of(answer, tables(answer)))
    book = load_workbook(_io.BytesIO(data))
    rows = {r[0]: r[1] for r in book["Assumptions"].iter_rows(min_row=HEADER_ROW + 1, values_only=True)}
    assert rows["$/GPU-hour, B200"] == 1.95                  # the preset: the build-up has no price
    assert rows[f"'{name}: Server price per node [$]"] is None   # the label is text, formula-neutralised
    assert all(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", n) for n in book.defined_names)
    parts = next(book[t] for t in book.sheetnames if t.startswith("Parts"))
    assert parts["B5"].value is None and str(parts["C5"].value).startswith("=IF(onprem__B200__quote___2___")
