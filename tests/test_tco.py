"""On-prem build-up, cost profiles, their share-link text and their table in DuckDB (issue 13).

Hand calculation (the issue's worked example, arithmetic written out): a $300,000 8-GPU server with
15 % network and storage, 5 years at 10 %/year, 1.37 kW/GPU, PUE 1.3, $0.08/kWh, colocation
$184/kW-month, maintenance 3 %/year of capital, 70 % utilisation:

    capital per GPU = 300,000 × 1.15 / 8                 = 43,125 $
    CRF(10 %, 5 y)  = 0.1 × 1.1^5 / (1.1^5 − 1)          = 0.263797 /year
    capital         = 43,125 × 0.263797 / 8,760          = 1.29866 $/GPU-hour
    power           = 1.37 × 1.3 × 0.08                  = 0.14248
    facility        = 1.37 × 184 / 730                   = 0.34531
    operations      = 43,125 × 0.03 / 8,760              = 0.14769
    total           = 1.9341 at full use; ÷ 0.7          = 2.7630 $/GPU-hour
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from model.core.analysis import analyse
from model.core.cost_profiles import (
    CostProfile,
    breakdown_frame,
    cost_profile,
    price_with_profiles,
    profile_rates,
    profiles_frame,
    profiles_from_frame,
    profiles_from_text,
    profiles_to_text,
    relabel_by_profile,
)
from model.core.sensitivity import break_even
from model.core.tco import OnPremInputs, TcoInputError, build_up, capital_recovery_factor, onprem_inputs
from model.core.view import View
from model.data.presets import load_presets, onprem_defaults, reference_values
from model.data.profiles import load_profiles, profiles_table, save_profiles
from model.data.store import connect, load_points
from tests.kit import cli, cli_json

WORKED = dict(server_usd=300_000, gpus_per_node=8, network_pct=15, install_usd=0, years=5, rate_pct=10,
              kw_per_gpu=1.37, pue=1.3, usd_per_kwh=0.08, colo_usd_per_kw_month=184, maintenance_pct=3,
              utilization=0.7)
WORKED_ARGS = ["tco", "--hardware", "H200", "--server-usd", "300000", "--gpus-per-node", "8", "--network-pct", "15",
               "--install-usd", "0", "--years", "5", "--rate-pct", "10", "--kw-per-gpu", "1.37", "--pue", "1.3",
               "--usd-per-kwh", "0.08", "--colo-usd-per-kw-month", "184", "--maintenance-pct", "3",
               "--utilization", "0.7"]


def check_worked(row: dict) -> None:
    """The hand calculation in the module docstring, to its last printed digit (the issue truncates:
    facility 0.3453151 is printed 0.34531, the effective total 2.763063 is printed 2.7630)."""
    assert row["capital_per_gpu"] == 43_125
    assert row["crf"] == pytest.approx(0.263797, abs=5e-7)
    assert row["capital"] == pytest.approx(1.29866, abs=1e-5)
    assert row["power"] == pytest.approx(0.14248, abs=1e-5)
    assert row["facility"] == pytest.approx(0.34531, abs=1e-5)
    assert row["operations"] == pytest.approx(0.14769, abs=1e-5)
    assert row["usd_per_gpu_hour_full_use"] == pytest.approx(1.9341, abs=1e-4)
    assert row["usd_per_gpu_hour"] == pytest.approx(2.7630, abs=1e-4)


def test_worked_example_by_function():
    check_worked(build_up(onprem_inputs(**WORKED)).to_dict())


def test_worked_example_by_cli_json(db_path):
    payload = cli_json(db_path, *WORKED_ARGS, "--name", "H200 on-prem 5y", "--save")
    (row,) = payload["rows"]
    check_worked(row)
    assert row["name"] == "H200 on-prem 5y" and row["saved"] is True and row["defaults"] == {}
    # saved: the stored profile prices at the same rate, with provenance and a timestamp
    con = connect(db_path)
    try:
        (profile,) = load_profiles(con)
        table = profiles_table(con)
    finally:
        con.close()
    assert profile.rate() == row["usd_per_gpu_hour"]
    assert table.loc[0, "saved_by"] == "cli" and pd.notna(table.loc[0, "saved_at"])


def test_cli_fills_left_out_inputs_from_cited_defaults(db_path):
    (row,) = cli_json(db_path, "tco", "--hardware", "mi355x", "--server-usd", "250000")["rows"]
    ref = reference_values().set_index("key")
    assert row["hardware"] == "MI355X"
    assert row["defaults"]["pue"]["value"] == ref.loc["pue", "value"] == 1.56
    assert row["defaults"]["colo_usd_per_kw_month"]["value"] == 184.06
    assert "CBRE" in row["defaults"]["colo_usd_per_kw_month"]["source"]
    # newest price set's all-in kW per GPU for MI355X in the bundled presets (2026-07: 2.09)
    assert row["defaults"]["kw_per_gpu"]["value"] == 2.09
    assert row["power"] == pytest.approx(2.09 * 1.56 * 0.0806)


def test_cli_without_a_server_price_leaves_the_profile_unpriced(db_path):
    (row,) = cli_json(db_path, "tco", "--hardware", "B200")["rows"]
    assert row["usd_per_gpu_hour"] is None and row["capital"] is None
    assert row["power"] == pytest.approx(1.71 * 1.56 * 0.0806)  # B200 2026-07 preset: 1.71 kW/GPU
    assert any("no server price" in n for n in row["notes"])


def test_cli_refuses_bad_input_with_the_field_named(db_path):
    code, _, err = cli(db_path, *WORKED_ARGS[:-2], "--utilization", "70")
    assert code == 2
    assert "utilization" in err and "0.7 for 70 %" in err


def test_crf_matches_the_formula_and_zero_rate_is_straight_line():
    assert capital_recovery_factor(0.10, 5) == pytest.approx(0.1 * 1.1**5 / (1.1**5 - 1), rel=1e-15)
    assert capital_recovery_factor(0.0, 4) == 0.25
    flat = build_up(onprem_inputs(**{**WORKED, "rate_pct": 0}))
    assert flat.capital == pytest.approx(43_125 / 5 / 8760, rel=1e-15)
    assert capital_recovery_factor(1e-9, 5) == pytest.approx(0.2, rel=1e-6)  # continuous at r -> 0


@settings(max_examples=60, deadline=None)
@given(utilization=st.floats(0.01, 0.5), server=st.floats(1e4, 1e6), years=st.floats(1, 10),
       rate=st.floats(0, 30))
def test_doubling_utilisation_halves_the_capital_share(utilization, server, years, rate):
    inputs = onprem_inputs(**{**WORKED, "utilization": utilization, "server_usd": server, "years": years,
                              "rate_pct": rate})
    low, high = build_up(inputs), build_up(inputs.model_copy(update={"utilization": 2 * utilization}))
    assert high.capital / high.utilization == pytest.approx(low.capital / low.utilization / 2, rel=1e-12)
    assert high.usd_per_gpu_hour == pytest.approx(low.usd_per_gpu_hour / 2, rel=1e-12)
    assert high.parts() == low.parts()  # the parts are per GPU-hour at full use


@settings(max_examples=60, deadline=None)
@given(rate=st.floats(0, 50), years=st.floats(0.5, 30))
def test_crf_is_at_least_straight_line_and_grows_with_the_rate(rate, years):
    crf = capital_recovery_factor(rate / 100, years)
    assert crf >= 1 / years * (1 - 1e-12)
    assert capital_recovery_factor((rate + 1) / 100, years) > crf


@settings(max_examples=60, deadline=None)
@given(target=st.floats(0.5, 20), kwh=st.floats(0, 0.5))
def test_break_even_server_price_reproduces_the_target_rate(target, kwh):
    inputs = onprem_inputs(**{**WORKED, "usd_per_kwh": kwh})
    result = break_even(inputs, target, "server_usd")
    if math.isfinite(result.value) and result.value > 0:
        priced = build_up(inputs.model_copy(update={"server_usd": result.value}))
        assert priced.usd_per_gpu_hour == pytest.approx(target, rel=1e-9)
    else:
        free = build_up(inputs.model_copy(update={"server_usd": 1e-9}))
        assert free.usd_per_gpu_hour > target * (1 - 1e-9)


def test_colocation_including_power_drops_the_power_line():
    b = build_up(onprem_inputs(**{**WORKED, "colo_includes_power": True}))
    assert b.power == 0.0 and any("includes power" in n for n in b.notes)
    assert b.facility == pytest.approx(1.37 * 184 / 730)


def test_rack_space_licences_and_staff():
    inputs = onprem_inputs(**{**WORKED, "colo_usd_per_kw_month": 0, "rack_usd_per_month": 2920, "nodes_per_rack": 4,
                              "licence_usd_per_gpu_year": 876, "staff_usd_per_year": 876_000, "fleet_gpus": 100})
    b = build_up(inputs)
    assert b.facility == pytest.approx(2920 / (4 * 8) / 730)  # 0.125 $/GPU-hour
    assert b.operations == pytest.approx((43_125 * 0.03 + 876 + 8760) / 8760)


@pytest.mark.parametrize("values,words", [
    ({"kw_per_gpu": -1}, "kw_per_gpu (all-in IT power per GPU [kW]): must be greater than 0 (got -1)"),
    ({"utilization": 70}, "is a fraction of hours in (0, 1], e.g. 0.7 for 70 %"),
    ({"network_usd": 1000}, "network_pct or as network_usd, not both"),
    ({"staff_usd_per_year": 1e5}, "needs fleet_gpus"),
    ({"rack_usd_per_month": 100, "colo_usd_per_kw_month": 0}, "needs nodes_per_rack"),
    ({"pue": 0.9}, "pue (power usage effectiveness"),
    ({"years": float("nan")}, "must be a finite number"),
])
def test_bad_inputs_are_refused_with_the_field_and_value(values, words):
    with pytest.raises(TcoInputError) as err:
        onprem_inputs(**{**WORKED, **values})
    assert words in str(err.value)


def b200_like_preset(presets: pd.DataFrame) -> CostProfile:
    """An on-prem B200 profile whose parts sum to the preset's $1.95 (server price solved by break-even)."""
    inputs = onprem_inputs(**{**WORKED, "kw_per_gpu": 2.17})
    server = break_even(inputs, 1.95, "server_usd").value
    return CostProfile(name="B200 on-prem", hardware="B200",
                       onprem=inputs.model_copy(update={"server_usd": server}))


def test_a_profile_summing_to_the_preset_prices_every_series_as_the_preset(sample_con):
    """$1.95 B200 and $1.48 MI355X are the presets the InferenceX tables use (2025-08 owning_hyperscaler)."""
    presets = load_presets()
    points = load_points(sample_con)
    onprem = b200_like_preset(presets)
    profiles = [onprem, CostProfile(name="MI355X preset", hardware="MI355X", usd_per_gpu_hour=1.48)]
    assert onprem.rate() == pytest.approx(1.95, rel=1e-12)
    priced, rates, _ = price_with_profiles(points, {}, profiles, [p.name for p in profiles])   # the view's path
    assert rates == pytest.approx({"B200": 1.95, "MI355X": 1.48}, rel=1e-12)
    by_preset = analyse(points, View(), presets)
    by_profile = analyse(priced, View(rates=tuple(rates.items())), presets)
    assert not by_preset.frontier.empty and by_preset.frontier["usd_per_mtok"].notna().all()
    np.testing.assert_allclose(by_profile.frontier["usd_per_mtok"], by_preset.frontier["usd_per_mtok"], rtol=1e-12)
    value_columns = [c for c in by_preset.iso.columns if pd.api.types.is_float_dtype(by_preset.iso[c])]
    np.testing.assert_allclose(by_profile.iso[value_columns].to_numpy(float),
                               by_preset.iso[value_columns].to_numpy(float), rtol=1e-12)
    assert by_profile.iso["series"].tolist() == by_preset.iso["series"].tolist()


def test_one_hardware_priced_two_ways_side_by_side(sample_con):
    points = load_points(sample_con)
    profiles = [CostProfile(name="B200 rented", hardware="B200", usd_per_gpu_hour=2.90),
                CostProfile(name="B200 owned", hardware="B200", usd_per_gpu_hour=1.45)]
    relabelled, rates = relabel_by_profile(points, profiles, ["B200 rented", "B200 owned"])
    assert rates == {"B200 rented": 2.90, "B200 owned": 1.45}
    priced, overrides, _ = price_with_profiles(points, {}, profiles, ["B200 rented", "B200 owned"])  # the view's path
    assert overrides == rates and priced["cost_profile"].notna().sum() == len(relabelled)
    assert set(relabelled["base_hardware"]) == {"B200"}
    result = analyse(relabelled, View(rates=tuple(rates.items())), load_presets())
    front = result.frontier
    rented = front[front["hardware"] == "B200 rented"]["usd_per_mtok"].to_numpy()
    owned = front[front["hardware"] == "B200 owned"]["usd_per_mtok"].to_numpy()
    assert len(rented) == len(owned) > 0
    np.testing.assert_allclose(rented / owned, 2.0, rtol=1e-12)


def test_profile_rates_skip_unpriced_and_refuse_duplicate_names():
    priced = CostProfile(name="H200 on-prem", hardware="h200", onprem=onprem_inputs(**WORKED))
    unpriced = CostProfile(name="B200 quote pending", hardware="B200", onprem=onprem_inputs(kw_per_gpu=2.17))
    assert profile_rates([priced, unpriced]) == {"H200 on-prem": pytest.approx(2.76306, abs=5e-6)}
    assert unpriced.rate() is None and unpriced.paid_rate() is None
    assert priced.paid_rate() == pytest.approx(1.93414, abs=5e-6)
    with pytest.raises(TcoInputError, match="named 'H200 on-prem'"):
        profile_rates([priced, priced])
    with pytest.raises(TcoInputError, match="cost profile 'x': .*not both"):
        cost_profile(name="x", hardware="B200", usd_per_gpu_hour=1.0, onprem=onprem_inputs(**WORKED))
    with pytest.raises(TcoInputError, match=r"hardware \(GPU \(canonical name\)\): is empty"):
        cost_profile(name="x", hardware=" ", usd_per_gpu_hour=1.0)


onprem_strategy = st.builds(
    OnPremInputs, server_usd=st.one_of(st.none(), st.floats(1000, 1e7)), gpus_per_node=st.integers(1, 16),
    network_pct=st.floats(0, 50), years=st.floats(1, 10), rate_pct=st.floats(0, 20), kw_per_gpu=st.floats(0.1, 5),
    pue=st.floats(1, 2.5), usd_per_kwh=st.floats(0, 1), colo_usd_per_kw_month=st.floats(0, 500),
    maintenance_pct=st.floats(0, 10), utilization=st.floats(0.05, 1))
profile_strategy = st.one_of(
    st.builds(CostProfile, name=st.text("abc XYZ-09/é", min_size=1, max_size=20).filter(str.strip),
              hardware=st.sampled_from(["B200", "H200", "MI355X"]), onprem=onprem_strategy,
              source=st.text("ab c", max_size=10)),
    st.builds(CostProfile, name=st.text("abcd", min_size=1, max_size=20).filter(str.strip),
              hardware=st.sampled_from(["B200", "H200"]), usd_per_gpu_hour=st.floats(0.01, 100)))


@settings(max_examples=80, deadline=None)
@given(st.lists(profile_strategy, max_size=4, unique_by=lambda p: p.name))
def test_share_link_text_round_trips(profiles):
    text = profiles_to_text(profiles)
    assert profiles_from_text(text) == profiles
    assert text == "" or (text.startswith("p1.") and all(c.isalnum() or c in "-_." for c in text))


@settings(max_examples=40, deadline=None)
@given(st.lists(profile_strategy, min_size=1, max_size=4, unique_by=lambda p: p.name))
def test_editable_table_round_trips(profiles):
    assert profiles_from_frame(profiles_frame(profiles)) == profiles


def test_share_link_is_compact_and_refuses_damage():
    profiles = [CostProfile(name="H200 on-prem 5y", hardware="H200", onprem=onprem_inputs(**WORKED)),
                CostProfile(name="H200 cloud", hardware="H200", usd_per_gpu_hour=2.9)]
    text = profiles_to_text(profiles)
    assert len(text) < 250
    assert profiles_from_text("") == []
    for bad in (text[:-5], "p1.@@@", "x" + text, "p1." + "A" * 40):
        with pytest.raises(TcoInputError, match="share link"):
            profiles_from_text(bad)


def test_table_rows_with_bad_values_name_row_and_field():
    frame = profiles_frame([CostProfile(name="H200 on-prem", hardware="H200", onprem=onprem_inputs(**WORKED))])
    frame.loc[0, "pue"] = 0.5
    with pytest.raises(TcoInputError, match=r"row 1 \(H200 on-prem\).*pue"):
        profiles_from_frame(frame)
    empty_row = pd.concat([frame.iloc[0:0], pd.DataFrame([{"name": None}])], ignore_index=True)
    assert profiles_from_frame(empty_row) == []


def test_profiles_in_the_database(db_path):
    con = connect(db_path)
    try:
        assert load_profiles(con) == [] and profiles_table(con).empty  # table not created yet
        a = CostProfile(name="H200 on-prem 5y", hardware="H200", onprem=onprem_inputs(**WORKED), source="quote #12")
        b = CostProfile(name="H200 cloud", hardware="H200", usd_per_gpu_hour=2.9, source="cloud list price")
        assert save_profiles(con, [a, b], saved_by="dashboard") == 2
        assert load_profiles(con) == [b, a]  # by name
        table = profiles_table(con)
        assert table.set_index("name").loc["H200 on-prem 5y", "usd_per_gpu_hour"] == pytest.approx(2.76306, abs=5e-6)
        assert set(table["source"]) == {"quote #12", "cloud list price"} and set(table["saved_by"]) == {"dashboard"}
        # a failing save changes nothing (duplicate names in one call)
        with pytest.raises(TcoInputError):
            save_profiles(con, [b.model_copy(update={"usd_per_gpu_hour": 9.0}), b])
        assert load_profiles(con) == [b, a] and profiles_table(con).equals(table)
    finally:
        con.close()
    # visible to the next process that opens the file
    con = connect(db_path, read_only=True)
    try:
        assert load_profiles(con) == [b, a]
    finally:
        con.close()


def test_reference_table_cites_every_value():
    ref = reference_values()
    assert ref["source"].notna().all()
    published = ref[ref["value"].notna() & ~ref["source"].str.contains("assumption")]
    assert published["url"].str.startswith("https://").all()
    values = dict(zip(published["key"], published["value"]))
    assert values == {"node_max_kw": 14.3, "usd_per_kwh": 0.0806, "colo_usd_per_kw_month": 184.06, "pue": 1.56}
    servers = ref[ref["key"] == "server_usd"]
    assert servers["value"].isna().all()  # no reliable public server price: left empty
    assert onprem_defaults("B200")["server_usd"][0] is None


def test_breakdown_frame_for_the_stacked_bar():
    profiles = [CostProfile(name="H200 on-prem 5y", hardware="H200", onprem=onprem_inputs(**WORKED)),
                CostProfile(name="H200 cloud", hardware="H200", usd_per_gpu_hour=2.9)]
    frame = breakdown_frame(profiles).set_index("profile")
    check_worked({**frame.loc["H200 on-prem 5y"].to_dict(), "capital_per_gpu": 43_125, "crf": 0.263797})
    assert frame.loc["H200 cloud", "usd_per_gpu_hour"] == 2.9 and math.isnan(frame.loc["H200 cloud", "capital"])


def test_each_onprem_input_has_one_label_used_by_the_form_the_report_and_the_cli():
    """ONPREM_LABELS is the one declaration: every OnPremInputs field, in order, its whole-number fields named in
    ONPREM_COUNTS, and each `costfrontier tco` option's help starts with the field's label."""
    import typing

    from model.cli.parsers import parser
    from model.core.onprem_labels import ONPREM_COUNTS, ONPREM_LABELS, onprem_label
    from model.core.tco import OnPremInputs

    assert tuple(ONPREM_LABELS) == tuple(OnPremInputs.model_fields)
    ints = {name for name, f in OnPremInputs.model_fields.items() if int in (f.annotation, *typing.get_args(f.annotation))}
    assert set(ONPREM_COUNTS) == ints == {"gpus_per_node", "nodes_per_rack", "fleet_gpus"}
    tco = parser()._subparsers._group_actions[0].choices["tco"]
    helps = {a.dest: a.help for a in tco._actions}
    for name, label in ONPREM_LABELS.items():
        assert helps[name].replace("%%", "%").startswith(label), (name, helps[name])
    assert tco.parse_args(["--gpus-per-node", "4", "--pue", "1.3"]).gpus_per_node == 4
    assert onprem_label("utilization", percent=True) == "Utilisation [% of hours billable]"


def test_one_rate_bound_for_every_way_a_rate_comes_in(tmp_path, con):
    """MAX_USD_PER_GPU_HOUR and MIN_USD_PER_GPU_HOUR are the one range: a typed or linked rate (View), a cost
    profile, a rates file and resolve_rates all take $1000/GPU-hour and $0.0001 and refuse a cent more or
    anything less ($0.00005, $0), NaN or infinity."""
    from model.core.cost import MAX_USD_PER_GPU_HOUR, RateError, resolve_rates, usable_rate
    from model.core.view import View
    from model.data.ingest import IngestError, ingest_file

    assert MAX_USD_PER_GPU_HOUR == 1000.0
    assert [usable_rate(v) for v in (1000.0, 0.01, 1e-4, 1000.01, 5e-5, 5e-324, 0.0, -1.0, math.nan, math.inf)] == \
        [True, True, True, False, False, False, False, False, False, False]
    presets = load_presets()
    assert resolve_rates(["B200"], presets, overrides={"B200": 1000.0}) == {"B200": 1000.0}
    for bad in (1000.01, 5e-5, 0.0):
        with pytest.raises(RateError, match=r"must be in \[0\.0001, 1000\]"):
            resolve_rates(["B200"], presets, overrides={"B200": bad})
        with pytest.raises(ValueError, match=r"must be in \[0\.0001, 1000\]"):
            View(rates=(("B200", bad),))
        with pytest.raises(TcoInputError):
            cost_profile(name="x", hardware="B200", usd_per_gpu_hour=bad)
    assert cost_profile(name="x", hardware="B200", usd_per_gpu_hour=1000.0).rate() == 1000.0
    path = tmp_path / "rates.csv"
    path.write_text("gpu,usd_per_gpu_hr,as_of,tier\nB200,1000,2026-01,custom\nH200,1000.01,2026-01,custom\n")
    with pytest.raises(IngestError, match=r"line 3.*must be in \[0\.0001, 1000\] \(got 1000\.01\)"):
        ingest_file(con, path)
    path.write_text("gpu,usd_per_gpu_hr,as_of,tier\nB200,1000,2026-01,custom\n")
    assert ingest_file(con, path).rows_added == 1
