"""Capacity under an SLA: SLA parsing and masks, ramp knees, blended basis, tokens per dollar, ramp figure, CLI.

Published oracles (Wafer, "GLM5.2 on AMD MI355X at 2626 tok/s/node at over 2x lower cost than
Blackwell", bundled as data/samples/wafer_glm52_mxfp4_ramp.csv):
  - knee at TTFT p95 <= 5 s: 2.4 req/s and 2,626 tok/s/node on 8x MI355X;
  - at TTFT p95 <= 1.1 s: 2.0 req/s and 1,944 tok/s/node;
  - MI355X 2,626 vs B200 3,192 tok/s/node = 82 % of B200's node throughput, so any MI355X price
    below 82 % of B200's wins on tokens per dollar; at 2.75x cheaper per GPU about 2.3x better.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from model.core.capacity import (
    BLENDED_FORMULA,
    CAPACITY_BASES,
    KNEE_RULES,
    add_blended_throughput,
    compare_systems,
    knee,
    ramp_points,
)
from model.core.cost import usd_per_mtok
from model.core.sla import SLA, SLA_KEYS, TTFT_PERCENTILES, sla_failures, sla_mask, split_by_sla
from model.data.store import load_points
from model.present.ramp_figures import BREAK_COLOUR, RAMP_X_TITLE, TTFT_Y_TITLE, ramp_figure
from tests.kit import cli, cli_json

MI355X = "MI355X · sglang · mxfp4 · mtp"


@pytest.fixture
def sample_points(sample_con):
    return load_points(sample_con)


def _ramp(rates, ttft_p95, tput_node, hardware="MI355X", gpus=8, **extra):
    n = len(rates)
    frame = pd.DataFrame({
        "hardware": hardware, "framework": "sglang", "precision": "fp8", "spec_decoding": "none", "gpus": gpus,
        "request_rate_rps": rates, "ttft_p95_s": ttft_p95,
        "output_tokens_per_second": tput_node, "output_tokens_per_second_per_gpu": np.asarray(tput_node) / gpus,
        "interactivity": [np.nan] * n,
    })
    return frame.assign(**extra)


# ------------------------------------------------------------------------------------------ SLA


def test_sla_text_round_trip_and_cli_parts():
    sla = SLA.from_text("ttft_p95=5,tpot=50")
    assert (sla.ttft_percentile, sla.ttft_max_s, sla.tpot_max_ms) == ("p95", 5.0, 50.0)
    assert sla.to_text() == "ttft_p95=5,tpot=50"
    assert SLA.from_text(sla.to_text()) == sla
    # repeated --sla flags arrive as a list; "99%" is a fraction
    both = SLA.from_text(["ttft_p99=2.5", "success=99%", "interactivity=20,e2e=30"])
    assert both == SLA(ttft_percentile="p99", ttft_max_s=2.5, success_min=0.99, interactivity_min=20, e2e_max_s=30)
    assert SLA.from_text(both.to_text()) == both
    assert SLA.from_text("") == SLA() and SLA().is_empty and SLA().to_text() == ""
    assert SLA.from_text("ttft_p95=5").describe() == "TTFT p95 <= 5 s"
    assert len(SLA_KEYS) == len(TTFT_PERCENTILES) + 4


@pytest.mark.parametrize("text, message", [
    ("ttft=5", "name a percentile"),
    ("ttft_p42=5", "unknown SLA key"),
    ("latency=3", "unknown SLA key"),
    ("ttft_p95", "KEY=VALUE"),
    ("tpot=fast", "not a number"),
    ("ttft_p50=1,ttft_p95=5", "one percentile"),
    ("tpot=50%", "percentage"),
    ("success=1.5", "less than or equal"),
    ("tpot=-1", "greater than 0"),
])
def test_sla_text_refuses_bad_limits(text, message):
    with pytest.raises(ValueError, match=message):
        SLA.from_text(text)


def test_sla_percentile_checked_against_tuple():
    with pytest.raises(ValueError, match="unknown TTFT percentile"):
        SLA(ttft_percentile="p75", ttft_max_s=1)
    with pytest.raises(ValueError):
        SLA(ttft_max_s=float("inf"))


def test_sla_mask_missing_field_fails_and_says_why():
    rows = pd.DataFrame({"ttft_p95_s": [1.0, 5.0, 6.1, np.nan], "success_rate": [1.0, 0.98, 1.0, 1.0]})
    sla = SLA.from_text("ttft_p95=5,success=0.99")
    assert sla_mask(rows, sla).tolist() == [True, False, False, False]  # 5.0 <= 5 passes TTFT; 0.98 fails success
    assert sla_failures(rows, sla).tolist() == ["", "success_rate 0.98 < 0.99", "ttft_p95_s 6.1 > 5",
                                                "ttft_p95_s missing"]
    # a column the frame does not have at all: every row fails that limit
    assert not sla_mask(rows, SLA.from_text("tpot=50")).any()
    assert sla_failures(rows, SLA.from_text("tpot=50")).eq("tpot_median_ms missing").all()
    assert sla_mask(rows, None).all() and sla_mask(rows, SLA()).all()
    kept, dropped = split_by_sla(rows, sla)
    assert len(kept) == 1 and dropped["sla_failure"].tolist()[-1] == "ttft_p95_s missing"


# ---------------------------------------------------------------------------------------- knees


def test_knee_published_wafer_ttft_5s(sample_points):
    # published (Wafer GLM-5.2 post): knee at TTFT <= 5 s is 2.4 req/s, 2,626 tok/s/node on 8x MI355X
    out = knee(sample_points, SLA.from_text("ttft_p95=5"), {"MI355X": 1.48, "B200": 1.95}).set_index("series")
    row = out.loc[MI355X]
    assert row["request_rate"] == 2.4
    assert row["tokens_per_second_per_node"] == pytest.approx(2626)
    assert row["tokens_per_second_per_gpu"] == pytest.approx(2626 / 8)
    assert row["basis"] == "output"  # the ramp counts generated tokens; nothing converted
    assert row["usd_per_mtok"] == pytest.approx(usd_per_mtok(1.48, 2626 / 8))
    assert row["usd_per_mtok"] == pytest.approx(1.48 / (3600 * 328.25 / 1e6))
    # B200's single published row has no TTFT: it cannot be shown to meet a TTFT limit
    b200 = out[out["hardware"] == "B200"].iloc[0]
    assert math.isnan(b200["request_rate"]) and b200["first_failure"] == "ttft_p95_s missing"


def test_knee_published_wafer_ttft_1_1s(sample_points):
    # published (Wafer GLM-5.2 post): at TTFT p95 <= 1.1 s the knee is 2.0 req/s, 1,944 tok/s/node
    sla = SLA.from_text("ttft_p95=1.1")
    for rule in KNEE_RULES:  # both definitions agree on the sample
        row = knee(sample_points, sla, {"MI355X": 1.48}, rule=rule).set_index("series").loc[MI355X]
        assert row["request_rate"] == 2.0
        assert row["tokens_per_second_per_node"] == pytest.approx(1944)
        assert row["basis"] == "output"
        assert row["first_failing_rate"] == 2.25 and row["first_failure"] == "ttft_p95_s 1.23 > 1.1"
        assert row["ttft_s"] == 1.05 and row["status"] == "ok"


def test_knee_by_hardware_and_explicit_basis_is_not_converted(sample_points):
    out = knee(sample_points, SLA.from_text("ttft_p95=5"), {"MI355X": 1.48}, basis="total",
               keys=("hardware",)).set_index("series")
    # the ramp has no total-token throughput: the number is missing, not converted from output
    assert out.loc["MI355X", "request_rate"] == 2.4
    assert math.isnan(out.loc["MI355X", "tokens_per_second_per_gpu"]) and out.loc["MI355X", "basis"] == "total"
    assert math.isnan(out.loc["MI355X", "usd_per_mtok"])


def test_knee_rules_differ_on_a_non_monotone_ramp():
    ramp = _ramp([1, 2, 3, 4], [1.0, 6.0, 4.0, 9.0], [100, 200, 300, 400])
    sla = SLA.from_text("ttft_p95=5")
    first = knee(ramp, sla).iloc[0]
    anywhere = knee(ramp, sla, rule="highest_pass").iloc[0]
    assert first["request_rate"] == 1 and first["tokens_per_second_per_node"] == 100
    assert anywhere["request_rate"] == 3 and anywhere["tokens_per_second_per_node"] == 300
    assert first["highest_passing_rate"] == 3 and first["first_failing_rate"] == 2
    with pytest.raises(ValueError, match="unknown knee rule"):
        knee(ramp, sla, rule="median")
    with pytest.raises(ValueError, match="unknown token basis"):
        knee(ramp, sla, basis="tokens")
    assert set(CAPACITY_BASES) >= {"auto", "total", "output", "input", "blended"}


def test_knee_edge_cases():
    sla = SLA.from_text("ttft_p95=5")
    # every rate fails: no knee, and the reason of the first failure
    none = knee(_ramp([1, 2], [7.0, 8.0], [100, 200]), sla).iloc[0]
    assert math.isnan(none["request_rate"]) and none["status"] == "no measured rate meets the SLA"
    # repeated runs at one rate: the rate passes only if every run does; the knee is the lower throughput
    rep = knee(_ramp([1, 2, 2, 3], [1, 2, 3, 6], [100, 210, 190, 300]), sla).iloc[0]
    assert rep["request_rate"] == 2 and rep["tokens_per_second_per_node"] == 190 and rep["rates_measured"] == 3
    # no SLA at all: the knee is the highest rate measured, flagged as possibly below capacity
    peak = knee(_ramp([1, 2], [1, 2], [100, 200]), None).iloc[0]
    assert peak["request_rate"] == 2 and peak["status"].startswith("ok: no measured rate breaks")
    # nodes of 4 GPUs: per-node throughput = per-GPU x 4
    four = knee(_ramp([1], [1], [400], gpus=4), sla, gpus_per_node=4).iloc[0]
    assert four["tokens_per_second_per_gpu"] == 100 and four["tokens_per_second_per_node"] == 400
    # hardware without a rate stays unpriced
    assert math.isnan(knee(_ramp([1], [1], [400]), sla, {}).iloc[0]["usd_per_mtok"])
    assert knee(_ramp([1], [1], [400]).iloc[0:0], sla).empty


def test_ramp_points_keep_only_ramps(sample_points):
    ramp = ramp_points(sample_points, keys=("hardware",), sla=SLA.from_text("ttft_p95=1.1"))
    assert len(ramp) == 7  # the six MI355X rates and B200's peak; concurrency sweeps and single points are not ramps
    assert ramp["interactivity"].isna().all() and ramp["request_rate_rps"].notna().all()
    mi = ramp[ramp["series"] == "MI355X"]
    assert mi["request_rate_rps"].tolist() == [0.5, 1.0, 1.5, 2.0, 2.25, 2.4]
    assert mi["meets_sla"].tolist() == [True, True, True, True, False, False]
    assert (mi["basis"] == "output").all()


# -------------------------------------------------------------------------------- blended basis


def test_blended_hand_checked():
    rows = pd.DataFrame({
        "isl": [20000, 1000, np.nan, 1000, 1000],
        "osl": [1000, 1000, 1000, 1000, 1000],
        "prefix_cache_hit_rate": [0.6, 0.5, 0.5, np.nan, np.nan],
        "output_tokens_per_second_per_gpu": [328.25, np.nan, 300.0, 100.0, 100.0],
        "total_tokens_per_second_per_gpu": [np.nan, 1000.0, np.nan, np.nan, np.nan],
    })
    out = add_blended_throughput(rows, w_input=0.25, w_cached=0.1)
    # Wafer workload: 1000 + 0.25*20000*0.4 + 0.1*20000*0.6 = 1000 + 2000 + 1200 = 4200 weighted tok/request
    assert out["blended_tokens_per_second_per_gpu"][0] == pytest.approx(328.25 * 4200 / 1000)  # 1378.65
    assert out["blended_from"][0] == "output"
    # from total: 1000 tok/s/GPU / (1000+1000) = 0.5 req/s; weighted 1000 + 0.25*500 + 0.1*500 = 1175
    assert out["blended_tokens_per_second_per_gpu"][1] == pytest.approx(0.5 * 1175)
    assert out["blended_from"][1] == "total"
    # no ISL: never guessed; no hit rate with different weights: unknown
    assert math.isnan(out["blended_tokens_per_second_per_gpu"][2]) and pd.isna(out["blended_from"][2])
    assert math.isnan(out["blended_tokens_per_second_per_gpu"][3])
    # equal weights: the hit rate does not matter: 100 * (1000 + 0.5*1000) / 1000
    same = add_blended_throughput(rows, w_input=0.5, w_cached=0.5)
    assert same["blended_tokens_per_second_per_gpu"][4] == pytest.approx(150.0)
    # weights 1 and 1: blended = total tokens per request, i.e. the total basis
    ones = add_blended_throughput(rows, 1.0, 1.0)
    assert ones["blended_tokens_per_second_per_gpu"][1] == pytest.approx(1000.0)
    with pytest.raises(ValueError, match="w_input"):
        add_blended_throughput(rows, -0.1, 0.0)
    assert "w_input" in BLENDED_FORMULA and "\n" not in BLENDED_FORMULA


def test_knee_on_blended_basis(sample_points):
    row = knee(sample_points, SLA.from_text("ttft_p95=5"), {"MI355X": 1.48}, basis="blended", keys=("hardware",),
               w_input=0.25, w_cached=0.1).set_index("series").loc["MI355X"]
    assert row["basis"] == "blended" and row["tokens_per_second_per_gpu"] == pytest.approx(1378.65)
    with pytest.raises(ValueError, match="w_input and w_cached"):
        knee(sample_points, None, basis="blended")


# ---------------------------------------------------------------------------- tokens per dollar


def test_compare_reproduces_published_claim(sample_points):
    # published (Wafer GLM-5.2 post): MI355X 2,626 vs B200 3,192 tok/s/node = 82 %; 2.75x cheaper per GPU
    # gives about 2.3x the tokens per dollar (2626/3192*2.75 = 2.26)
    peaks = knee(sample_points, None, keys=("hardware",))
    out = compare_systems(peaks, {"B200": 2.75, "MI355X": 1.00}, baseline="B200").iloc[0]
    assert out["series"] == "MI355X" and out["baseline"] == "B200"
    assert out["throughput_ratio"] == pytest.approx(2626 / 3192) and round(out["throughput_ratio"], 2) == 0.82
    assert out["price_ratio_gpu"] == pytest.approx(1 / 2.75) and out["price_ratio_node"] == pytest.approx(1 / 2.75)
    assert out["tokens_per_usd_ratio"] == pytest.approx(2626 / 3192 * 2.75) and round(out["tokens_per_usd_ratio"], 2) == 2.26
    assert out["break_even_price_ratio"] == pytest.approx(0.8227, abs=1e-4)
    assert out["break_even_usd_per_gpu_hour"] == pytest.approx(2.75 * 2626 / 3192)
    assert "2,626 / 3,192" in out["arithmetic"] and "= 2.26x" in out["arithmetic"]
    # any MI355X price below 82 % of B200's wins; above it loses
    b200 = 1.95
    for share, wins in ((0.82, True), (0.83, False)):
        ratio = compare_systems(peaks, {"B200": b200, "MI355X": share * b200}, baseline="B200")["tokens_per_usd_ratio"][0]
        assert (ratio > 1) == wins


def test_compare_per_node_prices_and_refusals():
    rows = pd.DataFrame({"series": ["A", "B"], "hardware": ["H100", "B200"], "tokens_per_second_per_gpu": [100.0, 300.0],
                         "gpus_per_node": [4, 8], "basis": ["output", "output"]})
    out = compare_systems(rows, {"H100": 1.0, "B200": 2.0}, baseline="B").iloc[0]
    assert out["throughput_ratio"] == pytest.approx(400 / 2400)          # per node
    assert out["price_ratio_node"] == pytest.approx(4.0 / 16.0)          # $4 vs $16 per node-hour
    assert out["tokens_per_usd_ratio"] == pytest.approx((400 / 4) / (2400 / 16))
    assert out["break_even_usd_per_gpu_hour"] == pytest.approx(2.0 * 100 / 300)  # equal tok/$ at that rate
    with pytest.raises(ValueError, match="different token bases"):
        compare_systems(rows.assign(basis=["output", "total"]), {"H100": 1.0, "B200": 2.0})
    with pytest.raises(ValueError, match="baseline"):
        compare_systems(rows, {"H100": 1.0, "B200": 2.0}, baseline="MI300X")
    unpriced = compare_systems(rows, {"B200": 2.0}, baseline="B").iloc[0]
    assert "no $/GPU-hour for H100" in unpriced["arithmetic"]


# ----------------------------------------------------------------------------------- ramp figure


def test_ramp_figure_traces_and_axes(sample_points):
    sla = SLA.from_text("ttft_p95=1.1")
    ramp = ramp_points(sample_points, keys=("hardware",), sla=sla)
    fig = ramp_figure(ramp, sla, knee(sample_points, sla, keys=("hardware",)))
    names = {t.name: t for t in fig.data}
    assert fig.layout.xaxis.title.text == RAMP_X_TITLE == "Request rate [req/s]"
    assert fig.layout.yaxis.title.text == "Throughput [output tok/s/node]"
    assert fig.layout.yaxis2.title.text == TTFT_Y_TITLE == "TTFT [s]"
    assert list(names["MI355X"].x) == [0.5, 1.0, 1.5, 2.0]
    broken = names["MI355X breaks SLA"]
    assert list(broken.x) == [2.25, 2.4] and broken.marker.symbol == "x-open" and broken.marker.color == BREAK_COLOUR
    assert names["MI355X TTFT p95"].yaxis == "y2" and names["MI355X TTFT p50"].yaxis == "y2"
    line = names["SLA: TTFT p95 <= 1.1 s"]
    assert line.yaxis == "y2" and set(line.y) == {1.1}
    star = names["MI355X knee"]
    assert list(star.x) == [2.0] and list(star.y) == [1944.0] and star.marker.symbol == "star"
    assert "B200 knee" not in names  # no B200 rate meets a TTFT limit (no TTFT published)


def test_ramp_figure_from_raw_points_without_sla(sample_points):
    fig = ramp_figure(sample_points)
    assert not any(t.name.endswith("breaks SLA") for t in fig.data)
    assert not any(t.name.startswith("SLA:") for t in fig.data)


# ------------------------------------------------------------------------------------------ CLI


def test_cli_capacity_published_knees(sample_con, db_path):
    sample_con.close()
    # published (Wafer GLM-5.2 post): 2.4 req/s and 2,626 tok/s/node at TTFT <= 5 s; 2.0 and 1,944 at <= 1.1 s
    for limit, rate, tput in (("5", 2.4, 2626), ("1.1", 2.0, 1944)):
        out = cli_json(None, "--db", str(db_path), "capacity", "--sla", f"ttft_p95={limit}", "--where",
                    "hardware=MI355X", "--by", "hardware", "--json")
        assert out["sla"] == f"ttft_p95={limit}"
        (row,) = out["rows"]
        assert {"series", "request_rate", "tokens_per_second_per_node", "tokens_per_second_per_gpu", "usd_per_mtok",
                "basis"} <= set(row)
        assert (row["series"], row["request_rate"], row["tokens_per_second_per_node"]) == ("MI355X", rate, tput)
        assert row["tokens_per_second_per_gpu"] == pytest.approx(tput / 8) and row["basis"] == "output"
        assert row["usd_per_mtok"] == pytest.approx(usd_per_mtok(1.48, tput / 8))  # 2025-08 owning_hyperscaler


def test_cli_capacity_text_rate_and_errors(sample_con, db_path):
    sample_con.close()
    out = cli_json(None, "--db", str(db_path), "capacity", "--sla", "ttft_p95=5", "--sla", "success=0.99",
                "--rate", "mi355x=2.0", "--json")
    rows = {r["series"]: r for r in out["rows"]}
    assert rows[MI355X]["usd_per_gpu_hour"] == 2.0 and out["sla"] == "ttft_p95=5,success=0.99"
    assert rows["B200 · sglang"]["request_rate"] is None
    code, text, _ = cli(db_path, "capacity", "--sla", "ttft_p95=5")
    assert code == 0
    assert "TTFT p95 <= 5 s" in text and "2626" in text
    code, _, err = cli(db_path, "capacity", "--sla", "ttft=5")
    assert code == 2
    assert "name a percentile" in err
    # blended without weights: the view's own (0.25 uncached, 0.025 cached), as on the Ramps page. The Wafer
    # knee at 5 s (328.25 output tok/s/GPU, ISL 20000, OSL 1000, 60 % prefix hits):
    # 328.25 x (1000 + 0.25 x 20000 x 0.4 + 0.025 x 20000 x 0.6) / 1000 = 328.25 x 3.3
    out = cli_json(None, "--db", str(db_path), "capacity", "--sla", "ttft_p95=5", "--basis", "blended", "--json")
    row = {r["series"]: r for r in out["rows"]}[MI355X]
    assert row["basis"] == "blended" and row["tokens_per_second_per_gpu"] == pytest.approx(328.25 * 3.3)
    code, _, err = cli(db_path, "capacity", "--basis", "blended", "--w-input", "-1")
    assert code == 2
    assert "--w-input" in err


def test_cli_compare_published_claim(sample_con, db_path):
    sample_con.close()
    out = cli_json(None, "--db", str(db_path), "compare", "--by", "hardware", "--rate", "B200=2.75",
                "--rate", "MI355X=1", "--baseline", "b200", "--json")
    (row,) = out["rows"]
    assert row["series"] == "MI355X" and row["baseline"] == "B200"
    assert row["throughput_ratio"] == pytest.approx(0.8227, abs=1e-4)
    assert row["tokens_per_usd_ratio"] == pytest.approx(2.26, abs=0.005)
