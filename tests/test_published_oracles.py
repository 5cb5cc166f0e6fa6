"""The published InferenceX GLM-5 FP8 numbers, reproduced from the bundled sample.

ORACLES: every expected value here is a published number, transcribed in
data/samples/ from SemiAnalysis' InferenceX blog "AMD MI355X GLM-5 Inference:
Up to 40% Cheaper per Million Tokens than B200 on SGLang FP8" (run of 2026-05-20),
priced with the SemiAnalysis AI Cloud TCO Model 2025-08 owning_hyperscaler tier
(B200 $1.95, MI355X $1.48 per GPU-hour). Nothing below is computed by our code
and then asserted against itself.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from model.core.analysis import analyse
from model.core.cost import resolve_rates, usd_per_mtok
from model.core.view import View
from model.data.presets import load_presets
from model.data.store import load_points
from tests.conftest import ROOT

SAMPLE = ROOT / "data" / "samples"
ISO = pd.read_csv(SAMPLE / "inferencex_glm5_fp8_iso_tables.csv")


@pytest.fixture
def glm5(sample_con):
    return load_points(sample_con, {"isl": [8192], "osl": [1024]})


def test_default_rates_are_the_ones_the_blog_used():
    rates = resolve_rates(["B200", "MI355X"], load_presets())
    assert rates == {"B200": 1.95, "MI355X": 1.48}


def test_every_published_row_cost_within_one_cent(glm5):
    assert len(glm5) == 29
    rates = resolve_rates(["B200", "MI355X"], load_presets())
    ours = usd_per_mtok(glm5["hardware"].map(rates), glm5["total_tokens_per_second_per_gpu"])
    published = glm5["published_usd_per_mtok"].to_numpy()
    errors = np.abs(ours - published)
    assert np.all(errors <= 0.01), glm5.loc[errors > 0.01, ["hardware", "concurrency", "published_usd_per_mtok"]]


@pytest.mark.parametrize("spec", ["mtp", "none"])
def test_iso_tables_reproduced_with_linear_method(glm5, spec):
    table = ISO[ISO["spec_decode"] == spec]
    scenario = View(by=("hardware",), method="linear", targets=tuple(table["tok_s_user"]), baseline="MI355X")
    result = analyse(glm5[glm5["spec_decoding"] == spec], scenario, load_presets())
    iso = result.iso.set_index(["series", "interactivity"])
    for row in table.itertuples():
        b200 = iso.loc[("B200", float(row.tok_s_user))]
        mi355x = iso.loc[("MI355X", float(row.tok_s_user))]
        assert b200["usd_per_mtok"] == pytest.approx(row.b200_usd_per_m, abs=0.015)
        assert mi355x["usd_per_mtok"] == pytest.approx(row.mi355x_usd_per_m, abs=0.015)
        assert b200["ratio_to_baseline"] == pytest.approx(row.b200_over_mi355x, abs=0.04)


def test_mi355x_mtp_frontier_is_the_lower_envelope_of_tp4_and_tp8(glm5):
    # published: "For MI355X with MTP the frontier is the lower envelope of its TP=4 and TP=8 recipes"
    result = analyse(glm5[glm5["spec_decoding"] == "mtp"], View(by=("hardware",)), load_presets())
    mi = result.frontier[result.frontier["series"] == "MI355X"]
    assert set(mi["tp"]) == {4, 8}
    assert mi["interactivity"].max() == pytest.approx(90.43)   # the TP=8, conc 4 point


def test_mtp_b200_becomes_cheaper_again_near_90(glm5):
    # published finding: with MTP, B200 overtakes MI355X again around 90 tok/s/user (ratio 0.98 at 90)
    result = analyse(glm5[glm5["spec_decoding"] == "mtp"], View(by=("hardware",)), load_presets())
    cross = result.crossovers
    assert len(cross) == 1
    row = cross.iloc[0]
    assert 85 <= row["interactivity"] <= 90
    assert row["cheaper_below"] == "MI355X" and row["cheaper_above"] == "B200"
    # cost at the crossing equals both curves' value there
    iso = analyse(glm5[glm5["spec_decoding"] == "mtp"],
                  View(by=("hardware",), targets=(float(row["interactivity"]),)), load_presets()).iso
    assert iso["usd_per_mtok"].to_numpy() == pytest.approx([row["usd_per_mtok"]] * 2, rel=1e-9)
