"""The answer built once, in named steps (issue 39): the steps a part needs run, and no other; a demand stated any of
its four ways is one demand for every part and command; the fleet settings are the view's; the CLI's rate notes read
the data version the view reads."""

from __future__ import annotations

import pytest

from model.core.notes import Note
from model.core.view import View
from model.data.store import connect
from model.present.parts import PartNotAsked
from model.present.report_sections import report_parts
from model.present.view_answer import PARTS, STEPS, answer_of_view, reading, steps_for
from tests.kit import cli, cli_json

GLM5 = {"workload": "GLM-5|8192|1024", "spec_decoding": ("mtp",), "by": ("hardware",)}
TRACE = "t1;demo.csv;24000;3000;4,6,2"     # 12 requests over three minutes (the trace field's example)


def test_the_steps_a_part_needs_run_in_order_and_no_other(sample_db):
    with connect(sample_db, read_only=True) as con:
        view = View(**GLM5)
        iso = answer_of_view(con, view, ("cost",))
        assert iso.ran == ("points", "rows", "fit", "pricing", "cost")
        for part in ("history", "ramps", "fleet", "volume", "cloud", "goodput_caps", "recommendation"):
            with pytest.raises(PartNotAsked, match=part):
                len(getattr(iso, part))
        # the recommendation of a view without a demand reads the curves and crossings, not a fleet
        rec = answer_of_view(con, view, ("recommendation",))
        assert rec.ran == ("points", "rows", "fit", "pricing", "cost", "crossings", "crossed", "recommendation")
        # with a demand it sizes the fleet and prices the volume, and reads the capacity's columns for them
        demand = view.replace(tokens_per_month=2e9)
        assert steps_for(demand, ("recommendation",)) == ("points", "rows", "fit", "pricing", "cost", "rates",
                                                           "crossings", "crossed", "capacity", "fleet", "volume",
                                                           "recommendation")
        assert "request_rate_rps" in reading(demand, ("recommendation",)).columns
        assert "request_rate_rps" not in reading(view, ("recommendation",)).columns
        # every part: every step, in the order STEPS declares
        everything = answer_of_view(con, demand, None)
        assert everything.ran == tuple(s.name for s in STEPS) and set(PARTS) == set(everything.ran)
    # the report asks for what it renders: the history only when the view asks for it
    assert "history" not in report_parts(view) and "history" in report_parts(view.replace(history=True))


#: the same demand, stated four ways: a volume a month, a volume a day, a peak, a request trace
DEMANDS = {"a month": {"tokens_per_month": 2e9}, "a day": {"tokens_per_day": 2e9 * 24 / 730},
           "a peak": {"demand_rps": 0.5}, "a trace": {"trace": TRACE}}


@pytest.mark.parametrize("how", DEMANDS)
def test_a_demand_stated_any_way_is_one_demand_for_every_part(sample_db, how):
    view = View(**GLM5, **DEMANDS[how])
    assert view.has_demand and not view.has_budget
    with connect(sample_db, read_only=True) as con:
        answer = answer_of_view(con, view, ("recommendation", "fleet", "volume"))
    assert answer.fleet is not None and answer.fleet.kind == "demand"
    assert answer.volume is not None and not answer.volume.rows.empty
    rec = answer.recommendation
    assert rec.demand == answer.fleet.need and rec.options                 # the recommendation weighs the options
    assert rec.options[0].name == answer.volume.rows["option"].iloc[0]    # ... the volume comparison's cheapest first
    args = [f"--{k.replace('_', '-')}" for k in DEMANDS[how]]
    value = str(next(iter(DEMANDS[how].values())))
    where = ("--where", "model=GLM-5", "--where", "isl=8192", "--where", "osl=1024", "--where",
             "spec_decoding=mtp", "--by", "hardware")
    if how == "a trace":      # the CLI reads a trace from its file; a link carries the view's
        link = f"http://x/?{'&'.join(f'{k}={v}' for k, v in view.to_query().items())}"
        size, volume = (cli_json(sample_db, command, "--link", link) for command in ("size", "volume"))
    else:
        size, volume = (cli_json(sample_db, command, *where, *args, value) for command in ("size", "volume"))
    assert size["demand"] == answer.fleet.need
    assert [r["nodes"] for r in size["rows"]] == answer.fleet.sized["nodes"].tolist()
    assert volume["cheapest"] == answer.volume.cheapest and volume["interactivity_needed"] == rec.x


def test_no_demand_is_no_demand_for_any_part(sample_db):
    view = View(**GLM5)
    assert not view.has_demand and not view.has_budget
    with connect(sample_db, read_only=True) as con:
        answer = answer_of_view(con, view, ("recommendation", "fleet", "volume"))
    assert answer.fleet is None and answer.volume is None and answer.recommendation.options == ()
    assert cli(sample_db, "volume", "--where", "model=GLM-5").code == 2


def test_the_fleet_settings_are_the_views_in_its_link_and_the_reports_assumptions(sample_db):
    out = cli_json(sample_db, "size", "--where", "model=GLM-5", "--where", "spec_decoding=mtp", "--by", "hardware",
                   "--peak-rps", "5", "--pue", "1.4", "--rack-kw", "40", "--gpus-per-node", "4")
    assert {"pue": "1.4", "rack": "40", "gpn": "4"}.items() <= out["view"].items()
    assert "/Fleet?" in out["link"] and "pue=1.4" in out["link"]
    again = cli_json(sample_db, "size", "--link", out["link"])          # the link is the view: the same fleet
    assert again["rows"] == out["rows"]
    # facility kW is IT kW x PUE, racks count 40 kW each
    for row in out["rows"]:
        assert row["facility_kw"] == pytest.approx(row["kw"] * 1.4) and row["racks"] == -(-row["kw"] // 40)
    view = View.from_query(out["view"])[0]
    with connect(sample_db, read_only=True) as con:
        from model.present.assumptions import assumptions_of

        table = assumptions_of(answer_of_view(con, view, report_parts(view)))
    said = dict(zip(table["Item"], table["Value"]))
    assert said["Fleet: PUE"] == "1.4" and said["Fleet: IT power per rack [kW]"] == "40"
    assert said["Fleet: GPUs per node"] == "4"


def test_the_clis_rate_notes_compare_against_the_presets_of_the_data_version_read(sample_db, tmp_path):
    """A rate typed 6x its preset is unusual against the preset of the data version the view reads: after a later
    price set lowers the preset, --data-version of the older version still compares with the older preset."""
    later = tmp_path / "tco_later.csv"
    later.write_text("gpu,tier,usd_per_gpu_hr,as_of\nB200,owning_hyperscaler,0.5,2025-08\n", encoding="utf-8")
    before = cli_json(sample_db, "versions")["versions"][-1]["version"]
    assert cli(sample_db, "ingest", str(later)).code == 0
    typed = ("--where", "model=GLM-5", "--by", "hardware", "--rate", "B200=3")
    now = cli_json(sample_db, "iso", *typed)["notes"]
    then = cli_json(sample_db, "iso", *typed, "--data-version", str(before))["notes"]
    assert any(n.startswith("unusual") and "B200" in n for n in now), now      # 3 against the new 0.5: 6x
    assert not any(n.startswith("unusual") for n in then), then                # 3 against 1.95: within 5x


def test_notes_carry_their_kind():
    note = Note("link", "link: ignored unknown link parameter 'q'")
    assert note == "link: ignored unknown link parameter 'q'" and note.kind == "link"
    with pytest.raises(ValueError, match="unknown note kind"):
        Note("gossip", "x")
