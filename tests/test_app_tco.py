"""The TCO builder and Fleet pages under AppTest: an on-prem profile built on the page prices every
page exactly as the CLI prices the same rate, and the fleet size on the page equals `costfrontier size`."""

from __future__ import annotations

import os
import re

import pytest

from tests.kit import cli, cli_json, open_page


@pytest.fixture
def db(sample_db, monkeypatch):
    monkeypatch.setenv("COSTFRONTIER_DB", str(sample_db))
    return sample_db


def _submit(at, label: str):
    return next(b for b in at.button if b.label == label).click().run()


def test_an_onprem_profile_prices_every_page(db, capsys):
    at = open_page("views/tco_builder.py", {"spec": "mtp", "by": "hardware", "at": "50"})
    # the worked example, on B200: $300,000 per 8-GPU node, 15 % network, 5 years at 10 %,
    # 1.37 kW/GPU, PUE 1.3, $0.08/kWh, colocation $184/kW-month, 3 % maintenance, 70 % utilisation
    at.selectbox(key="tco_hw").set_value("B200").run()   # its own fields (keyed per GPU)
    at.text_input(key="tco_name").input("B200 on-prem 5y")
    for key, value in (("server_usd", 300000.0), ("network_pct", 15.0), ("years", 5.0), ("rate_pct", 10.0),
                       ("kw_per_gpu", 1.37), ("pue", 1.3), ("usd_per_kwh", 0.08), ("colo_usd_per_kw_month", 184.0),
                       ("maintenance_pct", 3.0), ("utilization", 70.0)):
        at.text_input(key=f"tco_{key}::B200").input(f"{value:g}")
    _submit(at, "Add to this view and price with it")
    assert not at.exception and not at.error, [e.value for e in at.error]
    cli = cli_json(os.environ["COSTFRONTIER_DB"], "tco", "--hardware", "B200", "--server-usd", "300000", "--gpus-per-node", "8",
               "--network-pct", "15", "--install-usd", "0", "--years", "5", "--rate-pct", "10", "--kw-per-gpu",
               "1.37", "--pue", "1.3", "--usd-per-kwh", "0.08", "--colo-usd-per-kw-month", "184",
               "--maintenance-pct", "3", "--utilization", "0.7")
    rate = cli["rows"][0]["usd_per_gpu_hour"]
    assert rate == pytest.approx(2.7630, abs=1e-4)        # the hand calculation
    assert at.query_params["use"] == "B200 on-prem 5y" and at.query_params["prof"].startswith("p1.")
    assert any("B200: cost profile 'B200 on-prem 5y' $2.76/GPU-hour" in c.value.replace("\\", "")
               for c in at.sidebar.caption)
    at.switch_page("views/matched_interactivity.py").run()
    assert not at.exception
    iso = cli_json(os.environ["COSTFRONTIER_DB"], "iso", "--by", "hardware", "--where", "spec_decoding=mtp", "--where", "model=GLM-5",
               "--rate", f"B200={rate!r}", "--at", "50")
    shown = at.table[0].value
    for row in iso["rows"]:
        assert shown.loc[row["series"], "50.0 tok/s/user"].startswith(f"${row['usd_per_mtok']:.2f}/M"), row
    # the CLI prices by the saved profile the same way
    cli_json(os.environ["COSTFRONTIER_DB"], "tco", "--hardware", "B200", "--server-usd", "300000", "--network-pct", "15", "--years", "5",
         "--rate-pct", "10", "--kw-per-gpu", "1.37", "--pue", "1.3", "--usd-per-kwh", "0.08",
         "--colo-usd-per-kw-month", "184", "--maintenance-pct", "3", "--utilization", "0.7",
         "--name", "B200 on-prem 5y", "--save")
    by_profile = cli_json(os.environ["COSTFRONTIER_DB"], "iso", "--by", "hardware", "--where", "spec_decoding=mtp", "--where", "model=GLM-5",
                      "--profile", "B200 on-prem 5y", "--at", "50")
    assert [r["usd_per_mtok"] for r in by_profile["rows"]] == pytest.approx([r["usd_per_mtok"] for r in iso["rows"]])


def test_two_profiles_of_one_gpu_side_by_side(db):
    at = open_page("views/tco_builder.py", {"spec": "mtp", "by": "hardware"})
    for name, rate in (("B200 cloud", 2.9), ("B200 reserved", 1.6)):
        at.selectbox(key="quote_hw").set_value("B200")
        at.text_input(key="quote_name").input(name)
        at.text_input(key="quote_rate").input(f"{rate:g}")
        _submit(at, "Add")
    assert at.query_params["use"] == "B200 cloud||B200 reserved"
    at.switch_page("views/matched_interactivity.py").run()
    assert not at.exception
    series = list(at.table[0].value.index)
    assert series == ["B200 cloud", "B200 reserved", "MI355X"]
    shown = at.table[0].value
    first = shown.columns[0]
    cloud, reserved = (float(shown.loc[s, first].split("/")[0].lstrip("$")) for s in ("B200 cloud", "B200 reserved"))
    # same throughput, cost linear in the rate (each shown to the cent: the ratio holds within that rounding)
    assert cloud / reserved == pytest.approx(2.9 / 1.6, abs=2.9 / 1.6 * 0.005 / reserved + 0.005 / reserved)


def test_bad_build_up_input_is_refused_on_the_page(db):
    at = open_page("views/tco_builder.py")
    at.selectbox(key="tco_hw").set_value("H200").run()
    at.text_input(key="tco_server_usd::H200").input("300000")
    at.text_input(key="tco_pue::H200").input("0.5")
    _submit(at, "Add to this view and price with it")
    assert not at.exception
    assert any("pue" in e.value.lower() for e in at.error)
    assert "prof" not in at.query_params


def test_fleet_page_equals_the_cli(db, capsys):
    # published (Wafer GLM-5.2 on MI355X): TTFT p95 <= 5 s gives 2.4 req/s per node, so 10 req/s needs 5 nodes,
    # 40 GPUs, $43,216 a month at $1.48/GPU-hour (the example)
    at = open_page("views/fleet.py", {"wl": "GLM-5.2|20000|1000", "sla": "ttft_p95=5", "rps": "10"})
    assert not at.exception
    table = at.dataframe[0].value.set_index("Series")
    mi = table.loc["MI355X · sglang · mxfp4 · mtp"]
    cli = cli_json(os.environ["COSTFRONTIER_DB"], "size", "--demand-rps", "10", "--sla", "ttft_p95=5", "--where", "model=GLM-5.2")
    row = next(r for r in cli["rows"] if r["series"] == "MI355X · sglang · mxfp4 · mtp" and r["nodes"])
    assert (row["nodes"], row["gpus"], round(row["usd_per_month"])) == (5, 40, 43216)
    assert (mi["Nodes"], mi["GPUs"], mi["$ per month"]) == ("5", "40", "$43,216")
    # the budget direction: $43,216 a month buys those 40 GPUs
    at.radio(key="fleet_way").set_value("a budget").run()
    at.text_input(key="bud").input("43216").run()
    mi = at.dataframe[0].value.set_index("Series").loc["MI355X · sglang · mxfp4 · mtp"]
    assert mi["GPUs"] == "40" and at.query_params["bud"] == "43216"


def test_kw_per_gpu_per_hardware_and_facility_power_on_the_page_the_cli_and_the_report(db, tmp_path):
    """Issue 50: "kW per GPU" is each hardware's (``kwg=MI355X:2.2`` moves MI355X's IT power alone; B200 keeps its
    price set's 2.17 kW), the old ``kwg=1.4`` is every hardware's and says so, and with ``pue=1.3`` the page, the CLI's
    table, the report and its workbook show the facility power (IT x PUE) beside the IT power."""
    from openpyxl import load_workbook

    link = "http://localhost:8501/Fleet?wl=GLM-5|8192|1024&x=50&rps=10&pue=1.3&kwg=MI355X:2.2"
    store = os.environ["COSTFRONTIER_DB"]
    rows = {r["series"]: r for r in cli_json(store, "size", "--link", link)["rows"] if r["nodes"]}
    mi, b200 = rows["MI355X · sglang · fp8 · mtp"], rows["B200 · sglang · fp8 · mtp"]
    assert (mi["kw_per_gpu"], mi["kw"], mi["kw_from"]) == (2.2, pytest.approx(104 * 2.2), "view")
    assert (b200["kw_per_gpu"], b200["kw_from"]) == (pytest.approx(2.17), "preset")     # the price set's
    assert mi["facility_kw"] == pytest.approx(1.3 * 104 * 2.2) and b200["facility_kw"] == pytest.approx(1.3 * b200["kw"])
    every = cli_json(store, "size", "--link", link.replace("kwg=MI355X:2.2", "kwg=1.4"))
    assert {r["kw_per_gpu"] for r in every["rows"] if r["nodes"]} == {1.4}
    assert "kW per GPU 1.4 (all-in IT) applies to every hardware without its own: B200, MI355X" in every["notes"]
    code, table, _ = cli(store, "size", "--link", link)
    assert code == 0
    assert "facility_kw" in table and "297.44" in table and "297 kW facility at PUE 1.3" in table
    page = open_page("views/fleet.py", {"wl": "GLM-5|8192|1024", "x": "50", "rps": "10", "pue": "1.3",
                                        "kwg": "MI355X:2.2"})
    assert not page.exception
    shown = page.dataframe[0].value.set_index("Series")
    assert shown.loc["MI355X · sglang · fp8 · mtp", "Facility power [kW]"] == "297.4"
    assert page.text_input(key="kwg::MI355X").value == "2.2" and page.text_input(key="kwg::B200").value == ""
    assert cli(store, "report", "--link", link, "--out", tmp_path / "r.html").code == 0
    assert "Facility power [kW]" in (tmp_path / "r.html").read_text(encoding="utf-8")
    assert cli(store, "report", "--link", link, "--out", tmp_path / "r.xlsx").code == 0
    sheet = load_workbook(tmp_path / "r.xlsx")["Fleet"]
    headers = [c.value for c in sheet[4]]
    mi_row = next(r for r in sheet.iter_rows(min_row=5) if r[0].value == "MI355X · sglang · fp8 · mtp")
    facility = mi_row[headers.index("Facility power [kW]")]
    assert str(facility.value).startswith(f"={sheet.cell(4, headers.index('IT power [kW]') + 1).column_letter}")
    assert mi_row[headers.index("PUE")].value == "=fleet_pue"
    assert mi_row[headers.index("kW per GPU (all-in IT)")].value == "=kwg_MI355X"


def test_a_profile_named_with_commas_and_signs_is_applied_and_said_once(db):
    # issue 17: "H200, quote #2" was refused by the link's name rule while the page said it prices H200
    name = 'B200, quote #2 $ % @ "é" || x'
    at = open_page("views/tco_builder.py", {"spec": "mtp", "by": "hardware"})
    at.selectbox(key="quote_hw").set_value("B200")
    at.text_input(key="quote_name").input(name)
    at.text_input(key="quote_rate").input("2.5")
    _submit(at, "Add")
    assert not at.exception
    warnings = [w.value for w in at.warning]
    assert not any("not applied" in w.lower() for w in warnings), warnings
    assert sum("B200 is now priced by it" in w for w in warnings) == 1
    assert at.query_params["use"] == "B200%2C quote #2 $ %25 @ \"é\" %7C%7C x"
    assert at.session_state["_view"].priced_by == (name,)
    at.switch_page("views/matched_interactivity.py").run()   # the link's B200 rate is the profile's
    assert not at.exception
    assert any(f"cost profile '{name}' $2.50/GPU-hour" in re.sub(r"\\(.)", r"\1", c.value) for c in at.caption)


def test_a_link_with_profiles_nested_150000_deep_opens_with_a_notice(db):
    import base64
    import zlib

    value = "p1." + base64.urlsafe_b64encode(zlib.compress(b"[" * 150_000, 9)).decode("ascii").rstrip("=")
    at = open_page("views/tco_builder.py", {"prof": value, "x": "abc"})
    assert not at.exception
    assert any("nested deeper" in w for w in at.link_warnings), at.link_warnings
    assert any("x='abc'\\: not a number" in w for w in at.link_warnings), at.link_warnings
