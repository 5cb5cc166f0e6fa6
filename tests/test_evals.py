"""Accuracy beside cost: the evals table and regression flags.

Oracle: data/samples/wafer_glm52_evals.csv (Wafer, "GLM5.2 on AMD MI355X at 2626 tok/s/node at over
2x lower cost than Blackwell"): official FP8 vs MXFP4 GSM8K 0.965±0.013 vs 0.955±0.014,
GPQA-Diamond 0.9217±0.027 vs 0.9026±0.029, tau2 macro 0.819 vs 0.834 (no standard errors).
"""

from __future__ import annotations

import math

import pandas as pd
import pytest

from model.data.evals import EVAL_COLUMNS, flag_regressions, load_evals


def test_load_evals_from_the_store(sample_con):
    evals = load_evals(sample_con)
    assert tuple(evals.columns) == EVAL_COLUMNS and len(evals) == 6
    gsm = evals[evals["eval"] == "GSM8K"].set_index("precision")
    assert gsm.loc["fp8", "score"] == 0.965 and gsm.loc["mxfp4", "stderr"] == 0.014
    only = load_evals(sample_con, model="GLM-5.2", precision=["mxfp4"])
    assert len(only) == 3 and set(only["precision"]) == {"mxfp4"}
    # values are parameters, not SQL
    assert load_evals(sample_con, model="x' OR '1'='1").empty


def test_flags_at_half_a_point_tolerance(sample_con):
    flags = flag_regressions(load_evals(sample_con), "fp8", tolerance=0.005).set_index("eval")
    # published scores: GSM8K drops 0.010, GPQA-Diamond 0.0191; tau2 improves by 0.015
    assert flags.loc["GSM8K", "drop"] == pytest.approx(0.010)
    assert flags.loc["GPQA-Diamond", "drop"] == pytest.approx(0.0191)
    assert flags.loc["tau2 macro", "drop"] == pytest.approx(-0.015)
    assert flags.loc["GSM8K", "combined_stderr"] == pytest.approx(math.hypot(0.013, 0.014))
    assert flags["flagged"].to_dict() == {"GPQA-Diamond": True, "GSM8K": True, "tau2 macro": False}
    assert flags.loc["GSM8K", "reason"] == "drop 0.0100 > tolerance 0.005"
    assert math.isnan(flags.loc["tau2 macro", "combined_stderr"])


def test_no_flags_at_five_points(sample_con):
    flags = flag_regressions(load_evals(sample_con), tolerance=0.05)
    # both drops are below 0.05 and within their combined standard errors (0.019, 0.040)
    assert not flags["flagged"].any() and flags["reason"].eq("").all()
    assert (flags["model"].unique().tolist(), flags["precision"].unique().tolist(), len(flags)) == (["GLM-5.2"], ["mxfp4"], 3)
    assert flags.set_index("eval").loc["GSM8K", "drop"] == pytest.approx(0.010)


def test_stderr_flags_a_drop_inside_the_tolerance():
    evals = pd.DataFrame({
        "model": "M", "eval": "E", "setting": None, "precision": ["fp8", "fp4"],
        "score": [0.90, 0.87], "stderr": [0.01, 0.01],
    })
    flags = flag_regressions(evals, tolerance=0.05).iloc[0]
    assert flags["flagged"] and flags["reason"] == f"drop 0.0300 > combined stderr {math.hypot(0.01, 0.01):.4f}"


def test_refusals():
    evals = pd.DataFrame({"model": "M", "eval": "E", "setting": None, "precision": ["fp4"], "score": [0.9],
                          "stderr": [None]})
    with pytest.raises(ValueError, match="reference precision 'fp8'"):
        flag_regressions(evals)
    with pytest.raises(ValueError, match="tolerance"):
        flag_regressions(evals, "fp4", tolerance=-0.01)
    assert flag_regressions(evals.iloc[0:0]).empty


def test_a_drop_equal_to_the_tolerance_is_not_flagged(sample_con):
    # published scores (Wafer GLM-5.2 evals sample): GSM8K fp8 0.965 vs mxfp4 0.955, a drop of exactly
    # one point; 0.965 - 0.955 is 0.010000000000000009 in floating point and must not beat a 0.01 tolerance
    flags = flag_regressions(load_evals(sample_con), "fp8", tolerance=0.01).set_index("eval")
    assert flags.loc["GSM8K", "drop"] == 0.01
    assert "tolerance" not in flags.loc["GSM8K", "reason"]
