"""One answer per view: the report, ``iso``, ``size`` and the answer object agree, because they are one.

The proposal a sales engineer hands over must carry what they built (a cost profile, a demand) with the
same numbers the CLI prints for the same options. Hand-checked values below come from the bundled
samples (InferenceX GLM-5 FP8, 2026-05-20) and the on-prem build-up formula in model/core/tco.py.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from model.cli.options import view_of_link
from model.core.view import View
from model.data.inputs import load_inputs, with_workload
from model.data.store import connect
from model.present.fmt import usd
from model.present.view_answer import answer_of_view, build_answer, fit_of_inputs, reading
from tests.kit import cli, cli_json

PROFILE = "B200 on-prem quote"
BUILD = ["tco", "--hardware", "B200", "--server-usd", "400000", "--kw-per-gpu", "1.6", "--pue", "1.3",
         "--usd-per-kwh", "0.08", "--colo-usd-per-kw-month", "184", "--years", "5", "--utilization", "0.8",
         "--name", PROFILE, "--save"]
MTP = ["--where", "spec_decoding=mtp", "--where", "model=GLM-5", "--where", "isl=8192", "--where", "osl=1024"]


class _Text(HTMLParser):
    def __init__(self):
        super().__init__()
        self.text: list[str] = []
        self.links: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag == "a":
            self.links.append(dict(attrs).get("href", ""))

    def handle_data(self, data):
        self.text.append(data)


@pytest.fixture
def db(sample_db):
    assert cli(sample_db, *BUILD).code == 0
    return sample_db


def test_report_carries_the_profile_and_the_fleet_with_the_clis_numbers(db, tmp_path):
    out = tmp_path / "proposal.html"
    assert cli(db, "report", "--profile", PROFILE, "--x", "50", "--demand-rps", "12", *MTP, "--out", out).code == 0
    iso = cli_json(db, "iso", "--profile", PROFILE, "--at", "50", *MTP)
    size = cli_json(db, "size", "--profile", PROFILE, "--demand-rps", "12", "--interactivity", "50", *MTP)
    parser = _Text()
    parser.feed(out.read_text(encoding="utf-8"))
    text = " ".join(" ".join(parser.text).split())

    # the profile by name, its effective and full-use rates and its parts
    b200 = next(r for r in iso["rate_sources"] if r["hardware"] == "B200")
    assert b200["source"] == "cost profile" and f"'{PROFILE}'" in b200["detail"]
    assert f"Cost profile: {PROFILE}" in text and b200["detail"] in text
    for part in ("Capital [$/GPU-hour]", "Power [$/GPU-hour]", "Facility [$/GPU-hour]", "Operations [$/GPU-hour]"):
        assert part in text
    assert "Server price per node [$]" in text and "400,000" in text
    # B200's $/M at 50 tok/s/user: the report shows what iso prints
    row = next(r for r in iso["rows"] if r["hardware"] == "B200")
    assert usd(row["usd_per_mtok"]) in text
    # ... and it is the build-up's effective rate: $/M = rate / (3600 × tok/s/GPU / 1e6)
    assert row["usd_per_mtok"] == pytest.approx(b200["usd_per_gpu_hour"] / (3600 * row["tokens_per_second_per_gpu"] / 1e6))
    # the fleet: size's nodes, GPUs and $/month, and the full-use rate said in the same sentence
    fleet = next(r for r in size["rows"] if r["hardware"] == "B200" and r["nodes"])
    sentence = next(s for s in size["sentences"] if s.startswith(fleet["series"]))
    assert f"{fleet['nodes']:,.0f} nodes" in sentence and f", {fleet['gpus']:,.0f} GPUs" in sentence
    if fleet["nodes_low"] != fleet["nodes_high"]:          # the capacity's range moves the node count
        assert f"({fleet['nodes_low']:,.0f} to {fleet['nodes_high']:,.0f} within its capacity's range)" in sentence
    assert f"${fleet['usd_per_month']:,.0f} a month" in sentence and "full-use rate" in sentence
    assert sentence in text
    table = out.read_text(encoding="utf-8").split('<table id="extra-fleet">')[1].split("</table>")[0]
    assert re.search(rf"<td class=num data-figure=\"Fleet \| {re.escape(fleet['series'])} \| \$ per month\">"
                     rf"\${fleet['usd_per_month']:,.0f}</td>", table)      # the table rounds as the sentence
    # the first page: the recommendation, the cost at the target, the fleet and its monthly cost
    first = text.split("The answer")[0]
    assert "cheapest at" in first and "Fleet for 12 req/s at peak" in first
    # its link reopens the same view, profile and demand included
    link = next(a for a in parser.links if "?" in a)
    state, notices = view_of_link(link)
    assert notices == [] and state.priced_by == (PROFILE,) and state.demand_rps == 12 and state.interactivity_needed == 50
    assert [p.name for p in state.cost_profiles()] == [PROFILE]


def test_the_size_and_iso_of_a_link_equal_the_options_they_came_from(db):
    iso = cli_json(db, "iso", "--profile", PROFILE, "--at", "50", "--x", "50", *MTP)
    link = "http://cf.example/?" + "&".join(f"{k}={v}" for k, v in iso["view"].items())
    again = cli_json(db, "iso", "--link", link)
    assert again["rows"] == iso["rows"] and again["rate_sources"] == iso["rate_sources"]


def test_an_unknown_profile_is_an_error_naming_it(db, tmp_path):
    out = tmp_path / "r.html"
    for command in (["report", "--out", str(out)], ["iso"], ["size", "--demand-rps", "3"]):
        code, _, err = cli(db, *command, "--profile", "no such profile")
        assert code == 2
        assert "no stored cost profile 'no such profile'" in err and PROFILE in err
    assert not out.exists()


def test_one_interactivity_you_need_everywhere(sample_db):
    """The view's interactivity prices the headline, the break-even and the fleet; unset, the middle target."""
    con = connect(sample_db, read_only=True)
    try:
        answer = answer_of_view(con, View(spec_decoding=("mtp",), by=("hardware",), interactivity_needed=55.0,
                                          demand_rps=10.0), ("recommendation", "fleet"))
        # a peak is a demand: the recommendation weighs owning (and the API) at its volume first, then the series
        rec = answer.recommendation
        assert answer.interactivity_needed == 55.0 and rec.headline.startswith("At 10 req/s at peak, ")
        assert rec.lines[1].startswith("Per million total tokens at 55.0 tok/s/user")
        assert answer.cost.break_even["text"].startswith("At 55.0 tok/s/user") and answer.fleet.x == 55.0
        default = answer_of_view(con, View(spec_decoding=("mtp",), by=("hardware",)), ("cost",))
        targets = default.cost.analysis.targets
        assert default.interactivity_needed == targets[len(targets) // 2]
    finally:
        con.close()


def test_every_rate_says_where_it_comes_from(sample_db):
    con = connect(sample_db, read_only=True)
    try:
        answer = answer_of_view(con, View(rates=(("B200", 1.6),)), ("rates",))
        rates = answer.rates.set_index("hardware")
        assert rates.loc["B200", "source"] == "set in this view"
        assert rates.loc["B200", "detail"].endswith("preset $1.95/GPU-hour")
        # the samples ingest the price set file: MI355X is priced by it, and it is named
        assert rates.loc["MI355X", "source"] == "ingested price set"
        assert "tco_presets_usd_per_gpu_hr.csv" in rates.loc["MI355X", "detail"]
    finally:
        con.close()


def test_options_beside_a_link_change_its_view_or_are_named_as_ignored(db):
    link = "http://cf.example/?spec=mtp&by=hardware&at=20,40"
    out = cli_json(db, "iso", "--link", link, "--at", "50", "--where", "tp=8")
    assert sorted({r["interactivity"] for r in out["rows"]}) == [50.0]          # --at applies on top of the link
    assert "link: --link gives the view: --where is ignored (set it in the link, or leave --link out)" in out["notes"]


@pytest.mark.parametrize("method", ["linear", "monotone"])
def test_a_profiles_tornado_starts_from_the_iso_tables_cost_at_x(db, method):
    """The sensitivity's base $/M is the $/M the iso table shows at the interactivity you need (it was once
    read off a throughput interpolated on its own: $0.57/M beside the table's $0.59/M)."""
    from model.data.profiles import load_profiles

    con = connect(db, read_only=True)
    try:
        from model.core.cost_profiles import profiles_to_text

        state = View(spec_decoding=("mtp",), by=("hardware",), interactivity_needed=50.0, method=method,
                          profiles=profiles_to_text(load_profiles(con)), priced_by=(PROFILE,))
        answer = answer_of_view(con, state, ("profiles",))
        (pa,) = answer.profiles
        shown = answer.cost.at_x.set_index("series").loc[pa.series, "usd_per_mtok"]
        assert pa.tornado_unit == "usd_per_mtok" and pa.tornado_base == pytest.approx(shown, rel=1e-12)
    finally:
        con.close()


def test_one_fit_answers_every_rate_of_a_view_whose_series_are_per_hardware(sample_db):
    """The dashboard keeps one frontier fit per frontier key (ui.data.frontier_key) and hands it to the answer of
    every view with that key: an answer built on another rate's fit gives the numbers of one fitted alone, and
    holds no connection (it is read after the store is closed)."""
    with connect(sample_db, read_only=True) as con:
        state = with_workload(con, View(rates=(("B200", 3.1),), interactivity_needed=50.0))
        repriced_view = state.replace(rates=(("B200", 6.2),))
        inputs = load_inputs(con, reading(state))
        assert reading(repriced_view) == reading(state)                  # a rate reads nothing new
        alone = answer_of_view(con, repriced_view, ("recommendation",))
    fit = fit_of_inputs(state, inputs)
    first, second = (build_answer(state, inputs, ("recommendation",), given={"fit": fit}) for _ in range(2))
    assert second.cost.analysis is not first.cost.analysis
    assert second.recommendation.headline == first.recommendation.headline
    repriced = build_answer(repriced_view, inputs, ("recommendation",), given={"fit": fit})   # no SQL: closed
    assert repriced.cost.analysis.frontier["tokens_per_second_per_gpu"].equals(
        first.cost.analysis.frontier["tokens_per_second_per_gpu"])
    assert repriced.recommendation.headline == alone.recommendation.headline and repriced.cost.iso.equals(alone.cost.iso)
    assert repriced.crossed.analysis.crossovers.equals(alone.crossed.analysis.crossovers)
    assert repriced.cost.iso_error.equals(alone.cost.iso_error)
    # twice the B200 rate, twice every B200 $/M (rate × 10⁶ / (3600 × tok/s/GPU))
    b200 = first.cost.iso[first.cost.iso["series"].str.startswith("B200")]["usd_per_mtok"].to_numpy()
    again = repriced.cost.iso[repriced.cost.iso["series"].str.startswith("B200")]["usd_per_mtok"].to_numpy()
    assert len(b200) and again == pytest.approx(2 * b200, rel=1e-12, nan_ok=True)
