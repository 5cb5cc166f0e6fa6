"""Fleet sizing both ways, energy per token and the sensitivity of an on-prem rate (issue 13).

Oracle: the bundled Wafer ramp (data/samples/wafer_glm52_mxfp4_ramp.csv, from Wafer, "GLM5.2 on AMD
MI355X at 2626 tok/s/node at over 2x lower cost than Blackwell"): one 8x MI355X node holds TTFT p95
<= 5 s up to 2.4 req/s (the post's knee rule), so 10 req/s needs ceil(10 / 2.4) = 5 nodes = 40 GPUs,
and at $1.48/GPU-hour (the SemiAnalysis MI355X owning_hyperscaler rate the InferenceX tables use)
40 × 1.48 × 730 = $43,216 a month.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from model.core.cost_profiles import CostProfile
from model.core.fleet import (
    demand,
    node_capacity,
    pricing_options,
    size_fleet,
    size_for_budget,
    size_for_demand,
    tokens_per_second_at,
)
from model.core.sensitivity import break_even, energy_per_token, tornado
from model.core.sla import SLA
from model.core.tco import TcoInputError, build_up, onprem_inputs
from model.data.store import load_points
from tests.kit import cli, cli_json

WAFER = "MI355X · sglang · mxfp4 · mtp"
#: the CLI splits series of a selection that mixes workloads by the workload keys that vary
WAFER_SPLIT = WAFER + " · GLM-5.2 · ISL 20000 · OSL 1000"
WORKED = dict(server_usd=300_000, gpus_per_node=8, network_pct=15, years=5, rate_pct=10, kw_per_gpu=1.37, pue=1.3,
              usd_per_kwh=0.08, colo_usd_per_kw_month=184, maintenance_pct=3, utilization=0.7)


@pytest.fixture
def points(sample_con) -> pd.DataFrame:
    return load_points(sample_con)


def wafer_capacity(points: pd.DataFrame) -> pd.DataFrame:
    capacity = node_capacity(points, SLA.from_text("ttft_p95=5"))
    return capacity[(capacity["series"] == WAFER) & (capacity["method"] == "ramp knee")]


def test_wafer_ramp_sizing_by_function(points):
    capacity = wafer_capacity(points)
    (row,) = capacity.to_dict("records")
    assert row["per_node_rps"] == 2.4 and row["tokens_per_second_per_node"] == 2626
    assert "wafer_glm52_mxfp4_ramp.csv line 7" in row["capacity_from"]
    assert "TTFT p95 2.22 s" in row["capacity_from"]
    (sized,) = size_for_demand(capacity, demand(requests_per_second=10), {"MI355X": 1.48}, {"MI355X": 2.65},
                               rack_kw=40).to_dict("records")
    assert (sized["nodes"], sized["gpus"]) == (5, 40)
    assert sized["usd_per_month"] == pytest.approx(43_216, abs=1e-6)
    assert sized["usd_per_year"] == pytest.approx(40 * 1.48 * 8760)
    assert sized["kw"] == pytest.approx(106.0) and sized["racks"] == 3  # 40 × 2.65 kW = 106 kW in 40 kW racks


def test_wafer_ramp_sizing_by_cli(sample_db):
    payload = cli_json(sample_db, "size", "--demand-rps", "10", "--sla", "ttft_p95=5", "--rate", "MI355X=1.48")
    rows = [r for r in payload["rows"] if r["series"] == WAFER_SPLIT and r["method"] == "ramp knee"]
    (row,) = rows
    assert (row["per_node_rps"], row["nodes"], row["gpus"]) == (2.4, 5, 40)
    assert row["usd_per_month"] == pytest.approx(43_216, abs=1e-6)
    assert row["pricing"].startswith("set in this view") and "wafer_glm52_mxfp4_ramp.csv line 7" in row["capacity_from"]
    # the B200 peak row has no TTFT, so it cannot meet the SLA: said, not sized
    b200 = [r for r in payload["rows"] if r["hardware"] == "B200" and r["method"] == "ramp knee"]
    assert b200 and b200[0]["nodes"] is None and "no capacity" in b200[0]["note"]


def test_cli_sizes_with_a_stored_profile(sample_db):
    assert cli(sample_db, "tco", "--hardware", "MI355X", "--usd-per-gpu-hour", "1.48",
               "--name", "MI355X preset", "--save").code == 0
    rows = cli_json(sample_db, "size", "--demand-rps", "10", "--sla", "ttft_p95=5",
                    "--profile", "MI355X preset", "--where", "hardware=MI355X")["rows"]
    (row,) = [r for r in rows if r["series"] == WAFER_SPLIT and r["method"] == "ramp knee"]
    assert row["pricing"] == "cost profile 'MI355X preset' at $1.48/GPU-hour"
    assert row["usd_per_month"] == pytest.approx(43_216)


def test_headroom_and_spares_round_up_without_floating_noise(points):
    capacity = wafer_capacity(points)
    # 10 × 1.2 / 2.4 = 5 exactly in decimals but 5.000000000000001 in binary: still 5 nodes
    (row,) = size_for_demand(capacity, demand(requests_per_second=10, headroom=1.2)).to_dict("records")
    assert row["nodes_needed"] == pytest.approx(5.0) and row["nodes"] == 5
    (row,) = size_for_demand(capacity, demand(requests_per_second=10, headroom=1.2, spares=1)).to_dict("records")
    assert row["nodes"] == 6 and row["gpus"] == 48


def test_tokens_per_day_with_a_peak_factor(points):
    capacity = wafer_capacity(points)
    # 20,000 in + 1,000 out = 21,000 total tokens per request; 10 req/s at peak = 5 req/s on average at 2x
    need = demand(tokens_per_day=5 * 86_400 * 21_000, peak_to_average=2)
    (row,) = size_for_demand(capacity, need, {"MI355X": 1.48}).to_dict("records")
    assert row["demand_rps"] == pytest.approx(10.0) and row["nodes"] == 5
    need = demand(tokens_per_day=10 * 86_400 * 1_000, token_basis="output")
    (row,) = size_for_demand(capacity, need).to_dict("records")
    assert row["demand_rps"] == pytest.approx(10.0) and row["nodes"] == 5


def test_demand_is_validated():
    # a peak and a volume go together (the peak sizes the fleet, the volume prices it); a volume is given one way
    assert demand(requests_per_second=1, tokens_per_day=10).requests_per_second == 1
    with pytest.raises(TcoInputError, match="one of them"):
        demand(tokens_per_month=1, tokens_per_day=10)
    with pytest.raises(TcoInputError, match="give a peak"):
        demand(headroom=1.2)
    with pytest.raises(TcoInputError, match="headroom"):
        demand(requests_per_second=1, headroom=0.5)


@settings(max_examples=80, deadline=None)
@given(rps=st.floats(0.01, 1000), headroom=st.floats(1, 3), spares=st.integers(0, 3))
def test_the_fleet_covers_demand_with_no_node_to_spare(points_once, rps, headroom, spares):
    (row,) = size_for_demand(points_once, demand(requests_per_second=rps, headroom=headroom,
                                                 spares=spares)).to_dict("records")
    working = row["nodes"] - spares
    assert working * 2.4 >= rps * headroom * (1 - 1e-9)
    assert (working - 1) * 2.4 < rps * headroom


@pytest.fixture(scope="module")
def points_once(samples_template) -> pd.DataFrame:
    from model.data.store import connect

    con = connect(samples_template, read_only=True)
    try:
        return wafer_capacity(load_points(con))
    finally:
        con.close()


def test_sweep_capacity_is_the_best_point_meeting_the_interactivity_target(points):
    """InferenceX B200 no-spec sweep (ISL 8192 / OSL 1024): the best point at >= 20 tok/s/user is
    933.7 total tok/s/GPU at 27.47 tok/s/user, concurrency 32 on 8 GPUs (source line 20)."""
    capacity = node_capacity(points, None, interactivity_min=20)
    (row,) = capacity[capacity["series"] == "B200 · sglang · fp8 · no spec"].to_dict("records")
    assert row["method"] == "frontier point" and row["basis"] == "total"
    assert row["tokens_per_second_per_gpu"] == 933.7 and row["interactivity"] == 27.47
    assert row["per_node_rps"] == pytest.approx(933.7 * 8 / (8192 + 1024))
    assert row["users_per_node"] == 32
    assert "line 20" in row["capacity_from"]
    budget = size_for_budget(capacity[capacity["series"] == "B200 · sglang · fp8 · no spec"],
                             budget_usd_per_month=1e6, usd_per_gpu_hour={"B200": 1.95})
    (b,) = budget.to_dict("records")
    nodes = math.floor(1e6 / (1.95 * 730 * 8))  # 87 nodes
    assert (b["limit"], b["nodes"], b["gpus"]) == ("money", nodes, nodes * 8)
    assert b["users"] == nodes * 32 and b["tokens_per_second"] == pytest.approx(nodes * 933.7 * 8)
    assert b["tokens_per_month"] == pytest.approx(nodes * 933.7 * 8 * 730 * 3600)


def test_a_node_holds_whole_instances_of_the_measured_configuration(sample_db):
    """Issue 50: 4 GPUs per node on a point measured on 8 GPUs (TP8) made a node of 4 GPUs carry half the instance's
    req/s as if TP8 ran on 4. Nodes hold whole instances: an 8-GPU instance spans two 4-GPU nodes (bought in twos,
    said); a 12-GPU node holds one (4 GPUs idle, paid for); MI355X's 4-GPU instances fill a 12-GPU node three times."""
    from model.core.node_capacity import instances

    assert instances(8, 8) == (1.0, 1, "") and instances(4, 8) == (2.0, 1, "a node of 8 GPUs holds 2 instances of "
                                                                         "the measured 4 GPUs")
    assert instances(8, 12)[:2] == (1.0, 1) and "(4 GPUs idle)" in instances(8, 12)[2]
    assert instances(8, 4)[:2] == (0.5, 2) and instances(24, 8)[:2] == (1 / 3, 3)
    link = "http://localhost:8501/Fleet?wl=GLM-5|8192|1024&x=50&rps=10"

    def sized(gpn):
        out = cli_json(sample_db, "size", "--link", f"{link}&gpn={gpn}")
        return {r["series"]: r for r in out["rows"]}, " ".join(out["capacity_from"])

    eight, _ = sized(8)
    four, said = sized(4)
    b200, mi = "B200 · sglang · fp8 · mtp", "MI355X · sglang · fp8 · mtp"     # measured on 8 and on 4 GPUs
    assert (eight[b200]["nodes"], four[b200]["nodes"]) == (13, 26) and four[b200]["nodes"] % 2 == 0
    assert four[b200]["gpus"] == eight[b200]["gpus"] == 104
    assert "an instance of the measured 8 GPUs spans 2 nodes of 4 GPUs: nodes are bought 2 at a time" in said
    twelve, said = sized(12)
    assert twelve[b200]["nodes"] == 13 and twelve[b200]["gpus"] == 156         # one instance a node, 4 GPUs idle
    assert twelve[b200]["per_node_rps"] == pytest.approx(eight[b200]["per_node_rps"])
    assert twelve[mi]["per_node_rps"] == pytest.approx(3 / 2 * eight[mi]["per_node_rps"])     # three 4-GPU instances
    assert "a node of 12 GPUs holds 1 instance of the measured 8 GPUs (4 GPUs idle)" in said


def test_budget_power_and_money_the_smaller_binds(points):
    capacity = wafer_capacity(points)
    (row,) = size_for_budget(capacity, budget_mw=1, usd_per_gpu_hour={"MI355X": 1.48},
                             kw_per_gpu={"MI355X": 2.65}).to_dict("records")
    assert row["limit"] == "power" and row["nodes"] == 47  # floor(1000 kW / 2.65 kW / 8) = floor(47.17)
    assert row["requests_per_second"] == pytest.approx(47 * 2.4) and row["kw"] == pytest.approx(376 * 2.65)
    (row,) = size_for_budget(capacity, budget_mw=1, budget_usd_per_month=100_000, usd_per_gpu_hour={"MI355X": 1.48},
                             kw_per_gpu={"MI355X": 2.65}, pue=1.3).to_dict("records")
    assert row["limit"] == "money" and row["nodes"] == 11  # floor(100,000 / (1.48 × 730 × 8)) = floor(11.57)
    assert row["facility_kw"] == pytest.approx(88 * 2.65 * 1.3)
    with pytest.raises(TcoInputError, match="power budget"):
        size_for_budget(capacity)


def test_budget_cli(sample_db):
    rows = cli_json(sample_db, "size", "--budget-mw", "1", "--sla", "ttft_p95=5", "--where", "hardware=MI355X")["rows"]
    (row,) = [r for r in rows if r["series"] == WAFER_SPLIT and r["method"] == "ramp knee"]
    # 2025-08 preset: MI355X all-in 2.65 kW/GPU, $1.48/GPU-hour
    assert (row["nodes"], row["gpus"]) == (47, 376) and row["usd_per_month"] == pytest.approx(376 * 1.48 * 730)


def test_energy_per_token_from_measured_power_or_the_preset():
    frame = pd.DataFrame({"hardware": ["B200", "B200", "H100"], "tokens_per_second_per_gpu": [1000.0, 500.0, 10.0],
                          "power_per_gpu_w": [800.0, np.nan, np.nan]})
    out = energy_per_token(frame, {"B200": 2.17}, pue=1.5)
    assert list(out["power_from"].fillna("none")) == ["measured power_per_gpu_w", "all-in kW preset", "none"]
    assert out.loc[0, "joules_per_token"] == pytest.approx(0.8 * 1.5 * 1000 / 1000)  # 1.2 J/token
    assert out.loc[1, "joules_per_token"] == pytest.approx(2.17 * 1.5 * 1000 / 500)
    assert out.loc[1, "tokens_per_second_per_mw"] == pytest.approx(500 / (2.17 * 1.5 / 1000))
    assert math.isnan(out.loc[2, "joules_per_token"])


def test_tornado_moves_each_input_twenty_percent():
    inputs = onprem_inputs(**WORKED)
    table = tornado(inputs, tokens_per_second_per_gpu=1000.0)
    assert list(table["spread"]) == sorted(table["spread"], reverse=True)
    server = table.set_index("input").loc["server_usd"]
    assert (server["low_value"], server["high_value"]) == (240_000, 360_000)
    assert server["usd_per_gpu_hour_low"] == pytest.approx(
        build_up(inputs.model_copy(update={"server_usd": 240_000})).usd_per_gpu_hour)
    assert server["usd_per_mtok_base"] == pytest.approx(2.763063 / 3.6, abs=1e-6)  # $/h ÷ (3600 × 1000 / 1e6)
    clipped = tornado(inputs.model_copy(update={"utilization": 0.9, "pue": 1.1})).set_index("input")
    assert clipped.loc["utilization", "high_value"] == 1.0 and "clipped" in clipped.loc["utilization", "note"]
    assert clipped.loc["pue", "low_value"] == 1.0
    with pytest.raises(TcoInputError, match="server price"):
        tornado(onprem_inputs(kw_per_gpu=1.0))


def test_break_even_against_a_cloud_rate():
    inputs = onprem_inputs(**WORKED)
    server = break_even(inputs, 2.90, "server_usd")
    assert build_up(inputs.model_copy(update={"server_usd": server.value})).usd_per_gpu_hour == pytest.approx(2.90)
    kwh = break_even(inputs, 2.90, "usd_per_kwh")
    assert build_up(inputs.model_copy(update={"usd_per_kwh": kwh.value})).usd_per_gpu_hour == pytest.approx(2.90)
    assert math.isnan(break_even(inputs, 0.30).value) and "free server" in break_even(inputs, 0.30).note
    included = onprem_inputs(**{**WORKED, "colo_includes_power": True})
    assert "includes power" in break_even(included, 2.9, "usd_per_kwh").note


def test_a_fleet_is_priced_by_each_profile_of_its_hardware_for_every_hour(points):
    """The sizing the Fleet page and `size` show (pricing_options, then size_fleet): one row per profile of the
    series' hardware, another hardware's profile unused."""
    capacity = wafer_capacity(points)
    onprem = CostProfile(name="MI355X on-prem", hardware="MI355X",
                         onprem=onprem_inputs(**{**WORKED, "kw_per_gpu": 2.65}))
    cloud = CostProfile(name="MI355X cloud", hardware="MI355X", usd_per_gpu_hour=2.10)
    other = CostProfile(name="B200 cloud", hardware="B200", usd_per_gpu_hour=2.90)
    options = pricing_options(sorted(set(capacity["hardware"])), {}, {}, [onprem, cloud, other])
    sized = size_fleet(capacity, options, demand(requests_per_second=10)).set_index("pricing")
    assert list(sized.index) == ["profile MI355X on-prem", "profile MI355X cloud"]
    assert (sized["gpus"] == 40).all()
    # a fleet pays for every hour: the on-prem full-use rate, not the rate ÷ utilisation
    assert sized.loc["profile MI355X on-prem", "usd_per_month"] == pytest.approx(40 * onprem.paid_rate() * 730)
    assert sized.loc["profile MI355X cloud", "usd_per_month"] == pytest.approx(40 * 2.10 * 730)


def test_tokens_per_second_at_interpolates_inside_the_frontier_only():
    frontier = pd.DataFrame({"series": ["a"] * 3, "interactivity": [10.0, 20.0, 40.0],
                             "tokens_per_second_per_gpu": [1000.0, 800.0, 400.0]})
    assert tokens_per_second_at(frontier, "a", 30.0) == pytest.approx(600.0)
    assert math.isnan(tokens_per_second_at(frontier, "a", 50.0))
