"""The ramp part of a view's answer, and every surface that prints it (issue 27: one view, one answer).

The Ramps page used to compute its knees from the rows *before* the view's as-of and repeats, while Fleet, size
and the report read the answer *after* them; ``capacity`` and ``compare`` parsed the options a second way. Now
all of them read :attr:`model.present.parts.Answer.ramps` (:mod:`model.present.ramp_answer`).

Published oracles (Wafer, GLM-5.2 MXFP4 on 8x MI355X, bundled as data/samples/wafer_glm52_mxfp4_ramp.csv):
TTFT p95 <= 1.1 s -> knee at 2.0 req/s and 1,944 tok/s/node (243 tok/s/GPU, its line 5); MI355X at 2,626 vs
B200's 3,192 tok/s/node and 2.75x cheaper per GPU -> about 2.26x the tokens per dollar.
The on-prem build-up is the worked example of tests/test_tco.py (2.7630 $/GPU-hour effective at 70 % use).
"""

from __future__ import annotations

import math

import pandas as pd
import pytest

from model.cli.options import view_of_link
from model.core.view import View
from model.data.store import connect
from model.present.ramp_answer import ramp_answer
from model.present.view_answer import answer_of_view
from tests.kit import cli, cli_json

MI355X = "MI355X · sglang · mxfp4 · mtp"
B200 = "B200 · sglang"
WAFER = "wl=GLM-5.2|20000|1000&sla=ttft_p95=1.1"
#: the issue's link: no sample row states a run date on or before 2000-01-01 (the Wafer rows state none at all)
AS_OF = WAFER + "&asof=2000-01-01"
BASE = "http://localhost:8501"
GLM5 = "GLM-5|8192|1024"
#: the worked on-prem example of tests/test_tco.py, as a profile of MI355X
ONPREM_INPUTS = dict(server_usd=300_000, gpus_per_node=8, network_pct=15, install_usd=0, years=5, rate_pct=10,
                     kw_per_gpu=1.37, pue=1.3, usd_per_kwh=0.08, colo_usd_per_kw_month=184, maintenance_pct=3,
                     utilization=0.7)
ONPREM = ["tco", "--hardware", "MI355X", "--name", "MI355X on-prem 5y", "--save",
          *(part for k, v in ONPREM_INPUTS.items() for part in (f"--{k.replace('_', '-')}", str(v)))]
ONPREM_RATE = 2.763063      # $/GPU-hour effective (1.93414 at full use / 0.7), tests/test_tco.py check_worked


def _report(db, tmp_path, link: str) -> tuple[dict, str, pd.DataFrame | None]:
    """The report of ``link``: its --json, its HTML, and its Fleet table (None when it has none)."""
    html = tmp_path / "report.html"
    out = cli_json(db, "report", "--link", link, "--out", str(html))
    zipped = tmp_path / "report.zip"
    assert cli(db, "report", "--link", link, "--out", zipped).code == 0
    import zipfile

    with zipfile.ZipFile(zipped) as z:
        fleet = pd.read_csv(z.open("fleet.csv")) if "fleet.csv" in z.namelist() else None
    return out, html.read_text(encoding="utf-8"), fleet


# ------------------------------------------------------------------------------------- every surface agrees


def test_the_as_of_view_has_no_knees_on_capacity_compare_size_and_the_report(sample_db, tmp_path):
    link = f"{BASE}/Ramps?{AS_OF}&rps=10"
    capacity = cli_json(sample_db, "capacity", "--link", link)
    assert capacity["rows"] == [] and capacity["view"]["asof"] == "2000-01-01"
    assert "as of 2000-01-01: 0 of 9 rows; 9 rows state no run date and are left out (never given one)" \
        in capacity["notes"]
    assert "no load ramps (rows with a request rate and no interactivity) in this view" in capacity["notes"]
    assert cli_json(sample_db, "compare", "--link", link)["rows"] == []
    size = cli_json(sample_db, "size", "--link", link)
    assert size["rows"] == [] and "no load ramps or sweeps in this view to size a fleet from" in size["notes"]
    report, html, fleet = _report(sample_db, tmp_path, link)
    assert "Fleet" not in report["tables"] and fleet is None
    assert "no load ramps or sweeps in this view to size a fleet from" in html
    # the same options without --link: the same (empty) answer
    options = cli_json(sample_db, "capacity", "--where", "model=GLM-5.2", "--where", "isl=20000",
                    "--where", "osl=1000", "--sla", "ttft_p95=1.1", "--as-of", "2000-01-01")
    assert options["rows"] == [] and options["view"] == {k: v for k, v in capacity["view"].items() if k != "rps"}


def test_without_as_of_the_surfaces_share_the_published_knee(sample_db, tmp_path):
    link = f"{BASE}/Ramps?{WAFER}&rps=10"
    knees = {r["series"]: r for r in cli_json(sample_db, "capacity", "--link", link)["rows"]}
    assert set(knees) == {MI355X, B200}
    mi = knees[MI355X]       # published: 2.0 req/s, 1,944 tok/s/node
    assert (mi["request_rate"], mi["tokens_per_second_per_node"], mi["tokens_per_second_per_gpu"]) == (2.0, 1944, 243)
    assert mi["usd_per_gpu_hour"] == 1.48 and mi["source_line"] == 5
    assert knees[B200]["request_rate"] is None and knees[B200]["first_failure"] == "ttft_p95_s missing"
    size = {r["series"]: r for r in cli_json(sample_db, "size", "--link", link)["rows"]}
    assert size[MI355X]["per_node_rps"] == 2.0 and size[MI355X]["nodes"] == 5      # ceil(10 / 2.0)
    _, _, fleet = _report(sample_db, tmp_path, link)
    row = fleet.set_index("Series").loc[MI355X]
    assert row["Per node [req/s]"] == 2.0 and row["Nodes"] == 5


def test_the_ramp_part_reads_the_rows_after_as_of_and_repeats(sample_db):
    con = connect(sample_db)
    try:
        state, notices = view_of_link(f"{BASE}/Ramps?{AS_OF}")
        assert notices == [] and state.as_of.isoformat() == "2000-01-01"
        answer = answer_of_view(con, state, ("ramps",))
        assert answer.ramps.empty and answer.ramps.knees.empty
        # the rows before as-of hold both ramps: what the Ramps page used to show (2 knees)
        before = ramp_answer(answer.inputs.loaded, answer.view, answer.rows.usd_per_gpu_hour)
        assert sorted(before.knees["series"]) == [B200, MI355X]
    finally:
        con.close()


# ------------------------------------------------------------------------------------------ cost profiles


def test_capacity_prices_knees_by_a_stored_cost_profile(sample_db):
    saved = cli_json(sample_db, *ONPREM)["rows"][0]
    assert saved["saved"] and saved["usd_per_gpu_hour"] == pytest.approx(ONPREM_RATE, abs=1e-6)
    where = ("--where", "model=GLM-5.2", "--sla", "ttft_p95=1.1")
    plain = {r["series"]: r for r in cli_json(sample_db, "capacity", *where)["rows"]}
    assert plain[MI355X]["usd_per_gpu_hour"] == 1.48          # the 2025-08 owning_hyperscaler preset
    for argv in (where, ("--link", f"{BASE}/Ramps?{WAFER}")):
        out = cli_json(sample_db, "capacity", *argv, "--profile", "MI355X on-prem 5y")
        mi = {r["series"]: r for r in out["rows"]}[MI355X]
        # $/M by hand: rate / (tok/s/GPU x 3600) x 1e6, tok/s/GPU = the published knee's 1,944 tok/s/node / 8
        assert mi["tokens_per_second_per_gpu"] == 243
        assert mi["usd_per_gpu_hour"] == pytest.approx(ONPREM_RATE, abs=1e-6)
        assert mi["usd_per_mtok"] == pytest.approx(mi["usd_per_gpu_hour"] / (243 * 3600) * 1e6, rel=1e-12)
        assert round(mi["usd_per_mtok"], 4) == 3.1585
        assert out["usd_per_gpu_hour"]["MI355X"] == pytest.approx(ONPREM_RATE, abs=1e-6)
        sources = {r["hardware"]: r for r in out["rate_sources"]}
        assert sources["MI355X"]["source"] == "cost profile" and sources["MI355X"]["profile"] == "MI355X on-prem 5y"
        assert any("priced by cost profile 'MI355X on-prem 5y'" in n for n in out["notes"])
    # compare at the peaks (the link's peak=1): the price ratio is the profile's rate over B200's preset
    compared = cli_json(sample_db, "compare", "--link", f"{BASE}/Ramps?{WAFER}&peak=1&cmpb=B200",
                     "--profile", "MI355X on-prem 5y")
    (row,) = compared["rows"]
    assert compared["base"] == B200 and row["series"] == MI355X
    assert row["price_ratio_gpu"] == pytest.approx(ONPREM_RATE / 1.95, abs=1e-6)
    assert row["tokens_per_usd_ratio"] == pytest.approx(2626 / 3192 * 1.95 / ONPREM_RATE, abs=1e-6)


def test_the_ramps_page_priced_by_a_profile_in_its_link_shows_what_capacity_prints(sample_db, monkeypatch):
    from urllib.parse import urlencode

    from model.core.cost_profiles import CostProfile, profiles_to_text
    from model.core.tco import onprem_inputs
    from tests.test_app import open_page

    profile = CostProfile(name="MI355X on-prem 5y", hardware="MI355X", onprem=onprem_inputs(**ONPREM_INPUTS))
    query = {"wl": "GLM-5.2|20000|1000", "sla": "ttft_p95=1.1", "prof": profiles_to_text([profile]),
             "use": profile.name}
    printed = {r["series"]: r for r in cli_json(sample_db, "capacity", "--link",
                                              f"{BASE}/Ramps?{urlencode(query)}")["rows"]}
    assert printed[MI355X]["usd_per_mtok"] == pytest.approx(ONPREM_RATE / (243 * 3600) * 1e6, abs=1e-6)
    monkeypatch.setenv("COSTFRONTIER_DB", str(sample_db))
    at = open_page("views/ramps.py", query)
    assert not at.exception
    shown = at.dataframe[0].value.set_index("Series")
    assert list(shown.index) == sorted(printed)
    mi = shown.loc[MI355X]
    assert (mi["Request rate [req/s]"], mi["Throughput [tok/s/node]"]) == ("2", "1,944.0")
    assert (mi["Rate [$/GPU-hour]"], mi["Cost [$/M tokens]"]) == ("$2.76/h", "$3.16/M")


# -------------------------------------------------------------------------------------- the part itself


@pytest.fixture
def wafer(sample_db):
    con = connect(sample_db)
    try:
        yield lambda **view: answer_of_view(con, View(workload="GLM-5.2|20000|1000", **view), ("ramps",)).ramps
    finally:
        con.close()


def test_comparison_follows_the_view(wafer):
    # published claim: 2,626 vs 3,192 tok/s/node at 2.75x cheaper per GPU -> 2.26x the tokens per dollar
    part = wafer(compare_peaks=True, rates=(("B200", 4.07),), compare_base="b200")     # a hardware names its series
    c = part.comparison
    assert c.peaks and c.base == B200 and c.chosen == (B200, MI355X) and c.message == ""
    (row,) = c.table.to_dict("records")
    assert row["series"] == MI355X and round(row["tokens_per_usd_ratio"], 2) == 2.26
    assert row["break_even_usd_per_gpu_hour"] == pytest.approx(4.07 * 2626 / 3192)
    # a base not among the systems: the first, and a note says so
    other = wafer(compare_peaks=True, compare_base="H100")
    assert other.comparison.base == B200
    assert "compare base 'H100' is not among the systems compared; against B200 · sglang" in other.notes
    # under the SLA only MI355X has a knee: nothing to compare, and why
    under = wafer(sla="ttft_p95=1.1").comparison
    assert under.table.empty and under.left_out == (B200,) and under.systems == (MI355X,)
    assert under.message == "Fewer than two systems have a throughput to compare under this SLA; try comparing peaks."


def test_accuracy_table_is_of_the_models_in_view_at_the_views_tolerance(wafer, sample_db):
    strict = wafer(eval_tolerance=0.01).evals.set_index("eval")
    # GPQA-Diamond: fp8 0.9217, mxfp4 0.9026: a drop of 0.0191 > 0.01 (the combined stderr is 0.0396)
    assert strict.loc["GPQA-Diamond", "drop"] == pytest.approx(0.0191, abs=1e-9)
    assert strict["flagged"].tolist() == [True, False, False]
    assert not wafer(eval_tolerance=0.05).evals["flagged"].any()
    con = connect(sample_db)
    try:    # a view of GLM-5 (no evaluation rows) has no accuracy table
        assert answer_of_view(con, View(workload=GLM5), ("ramps",)).ramps.evals.empty
    finally:
        con.close()


def test_an_answer_holds_the_parts_asked_for_and_refuses_the_others(sample_db):
    """A part is built when asked for, with the columns its step declares (the projection follows the parts); a
    part not asked for is refused when read, naming it, never computed on the side."""
    from model.present.parts import PartNotAsked
    from model.present.view_answer import reading

    con = connect(sample_db)
    try:
        state = View(workload="GLM-5.2|20000|1000")
        assert "request_rate_rps" not in reading(state, ("cost",)).columns
        assert "request_rate_rps" in reading(state, ("ramps",)).columns
        costs = answer_of_view(con, state, ("cost",))
        assert "ramps" not in costs.ran
        with pytest.raises(PartNotAsked, match="'ramps' part was not asked for"):
            _ = costs.ramps.knees
        ramps = answer_of_view(con, state, ("ramps",)).ramps
        assert not ramps.knees.empty and ramps.knees.equals(answer_of_view(con, state, None).ramps.knees)
    finally:
        con.close()


def test_knees_unpriced_without_a_rate_say_so(wafer):
    part = wafer(price_set="no-such-set")
    assert part.missing_rates == ["B200", "MI355X"]
    assert all(math.isnan(v) for v in part.knees["usd_per_mtok"])
    assert "no $/GPU-hour for B200, MI355X: its knee is unpriced until a rate is set" in part.notes
