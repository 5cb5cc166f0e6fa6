"""Disaggregated (prefill/decode) rows: stored per role, imported whole, normalised by an explicit choice.

Fixture ``inferencex_api_disagg.json`` (an InferenceX ``/api/v1/benchmarks`` array, see SOURCES.md):

- lines 1-2: H200 SGLang TP8, aggregated: total 1200 and 500 tok/s/GPU at 40 and 90 tok/s/user;
- line 3: GB200 4P/32D, 8k/1k: input 64,800 tok/s per prefill GPU (259,200 tok/s over 4), output 900
  per decode GPU (28,800 over 32), total 8,000 per GPU of both roles (288,000 over 36); 30 tok/s/user;
- line 4: GB200 8P/8D (the agg_bmk row): 9,412.6 / 1,176.575 / 5,294.5875; 42.0168 tok/s/user;
- line 5: GB200 4P/8D: 18,000 per prefill GPU (72,000) + 1,000 per decode GPU (8,000) = 80,000 tok/s,
  but total 5,500 x 12 = 66,000: 21 % apart (a role count the rates were not divided by); 25 tok/s/user.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest

from model.core.analysis import analyse, prepare
from model.core.frontier import DISAGG_MODES, disagg_throughput, fit_frontiers, series_labels
from model.core.view import View
from model.data.ingest import ingest_file
from model.data.presets import load_presets
from model.data.store import connect, list_sources, load_points
from tests.conftest import ROOT
from tests.kit import cli, cli_json

FIXTURE = ROOT / "tests/fixtures/formats/inferencex_api_disagg.json"


@pytest.fixture
def rows(tmp_path) -> pd.DataFrame:
    con = connect(tmp_path / "d.duckdb")
    result = ingest_file(con, FIXTURE)
    assert result.rows_added == 5
    # the role-derived totals of line 5 disagree with its stated total: a warning naming it, not a refusal
    assert any("line 5" in w and "21%" in w for w in result.warnings), result.warnings
    assert "3 disaggregated rows: input tok/s per prefill GPU" in list_sources(con).iloc[0]["notes"]
    points = load_points(con, full=True).sort_values("source_line").reset_index(drop=True)
    con.close()
    return points


def test_every_row_imports_with_its_role_gpus_and_stated_rates(rows):
    worked = rows.iloc[2]
    assert (worked["gpus_prefill"], worked["gpus_decode"], worked["gpus"]) == (4, 32, 36)
    # stated, each with its denominator
    assert worked["input_tokens_per_second_per_prefill_gpu"] == 64800.0     # > the all-GPU total 8,000
    assert worked["output_tokens_per_second_per_decode_gpu"] == 900.0
    assert worked["total_tokens_per_second_per_gpu"] == 8000.0
    # derived: system = role rate x role GPUs; per GPU of both roles = system / 36
    assert worked["input_tokens_per_second"] == pytest.approx(259200.0)    # 64,800 x 4
    assert worked["output_tokens_per_second"] == pytest.approx(28800.0)    # 900 x 32
    assert worked["input_tokens_per_second_per_gpu"] == pytest.approx(7200.0)   # 259,200 / 36
    assert worked["output_tokens_per_second_per_gpu"] == pytest.approx(800.0)   # 28,800 / 36
    aggregated = rows.iloc[0]
    assert pd.isna(aggregated["input_tokens_per_second_per_prefill_gpu"])
    assert aggregated["input_tokens_per_second_per_gpu"] == 600.0 and aggregated["gpus"] == 8


def test_total_basis_frontier_is_inferencex_tput_per_gpu(rows):
    frontier = fit_frontiers(rows, ("hardware",), "total")
    got = {s: list(zip(f["interactivity"], f["tokens_per_second_per_gpu"])) for s, f in frontier.groupby("series")}
    # line 5 (25 tok/s/user, 5,500) is dominated by line 3 (30, 8,000)
    assert got == {"GB200 · disagg": [(30.0, 8000.0), (42.0168, 5294.5875)],
                   "H200": [(40.0, 1200.0), (90.0, 500.0)]}


@pytest.mark.parametrize("basis, mode, expected", [
    # per-role: the stated rate per GPU of its own role
    ("input", "per-role", [600.0, 250.0, 64800.0, 9412.6, 18000.0]),
    ("output", "per-role", [600.0, 250.0, 900.0, 1176.575, 1000.0]),
    # share, line 3: 8,000 x 259,200 / 288,000 = 7,200 (measured: 259,200 + 28,800 = 288,000 exactly);
    # line 4: 5,294.5875 x 75,300.8 / 84,713.4 = 4,706.3; line 5: measured 80,000 vs 66,000 disagree,
    # so ISL/(ISL+OSL) = 8192/9216 = 8/9: 5,500 x 8/9 = 4,888.89 (output 5,500 / 9 = 611.11)
    ("input", "share", [600.0, 250.0, 7200.0, 4706.3, 5500.0 * 8 / 9]),
    ("output", "share", [600.0, 250.0, 800.0, 588.2875, 5500.0 / 9]),
    ("total", "per-role", [1200.0, 500.0, 8000.0, 5294.5875, 5500.0]),
    ("total", "share", [1200.0, 500.0, 8000.0, 5294.5875, 5500.0]),
])
def test_each_disagg_mode_gives_the_readme_arithmetic(rows, basis, mode, expected):
    assert disagg_throughput(rows, basis, mode).tolist() == pytest.approx(expected, rel=1e-9)


def test_unknown_mode_is_refused(rows):
    assert DISAGG_MODES == ("per-role", "share")
    with pytest.raises(ValueError, match="unknown disaggregation mode 'decode-only'"):
        disagg_throughput(rows, "input", "decode-only")
    with pytest.raises(ValueError):
        View(disagg="decode-only")


def test_analysis_prices_the_chosen_normalisation_and_says_so(rows):
    rate = (("GB200", 3.0), ("H200", 2.0))
    share = analyse(rows, View(by=("hardware",), basis="output", disagg="share", rates=rate), load_presets(), crossovers="none")
    per_role = analyse(rows, View(by=("hardware",), basis="output", rates=rate), load_presets(), crossovers="none")
    assert any("3 disaggregated rows" in n and "token share" in n for n in share.notes)
    assert any("per decode GPU, as stated" in n for n in per_role.notes)
    gb200 = share.frontier[share.frontier["series"] == "GB200 · disagg"]
    # share frontier: (30, 800) and (42.0168, 588.2875); $/M = 3 / (3600 x 800 / 1e6) = 1.041667
    assert gb200["tokens_per_second_per_gpu"].tolist() == pytest.approx([800.0, 588.2875])
    assert gb200["usd_per_mtok"].iloc[0] == pytest.approx(3.0 / (3600 * 800.0 / 1e6))
    assert prepare(rows, basis="input", disagg="share")[0]["input_tokens_per_second_per_gpu"].iloc[2] == 7200.0


def test_cli_and_link_carry_the_choice(rows, tmp_path):
    db = tmp_path / "cli.duckdb"
    assert cli(db, "ingest", FIXTURE).code == 0
    out = cli_json(db, "frontier", "--by", "hardware", "--basis", "input", "--disagg", "share",
                   "--rate", "GB200=3", "--rate", "H200=2")
    assert any("token share" in n for n in out.get("notes", [])), out.get("notes")
    # the two workloads (ISL 1024, 8192) are split; the disaggregated frontier says its role GPUs
    gb200 = sorted((p["tokens_per_second_per_gpu"], p["gpus_prefill"], p["gpus_decode"]) for p in out["rows"]
                   if p["series"] == "GB200 · ISL 8192 · disagg")
    assert gb200 == [(pytest.approx(4706.3), 8, 8), (pytest.approx(7200.0), 4, 32)]
    assert View(disagg="share").to_query() == {"dis": "share"}
    state, notices = View.from_query({"dis": "share"})
    assert state.disagg == "share" and not notices
    assert "dis='x'" in View.from_query({"dis": "x"})[1][0]


def test_labels_mark_disaggregated_series(rows):
    assert series_labels(rows, ("hardware",)).tolist() == ["H200", "H200", *["GB200 · disagg"] * 3]
    assert series_labels(rows, ("hardware", "disaggregated")).tolist() == ["H200 · agg"] * 2 + ["GB200 · disagg"] * 3
    mixed = rows.assign(hardware="B200")
    assert set(series_labels(mixed, ("hardware",))) == {"B200 · incl. disagg"}


def test_older_agg_writer_disaggregated_row(tmp_path):
    """InferenceX's older ``utils/process_result.py`` branch (``tp``, ``mtp``, ``disagg`` with
    ``num_prefill_gpu``/``num_decode_gpu`` from PREFILL_GPUS/DECODE_GPUS, no ``prefill_tp``): tput_per_gpu =
    total / TP (all 16 GPUs), output / 12 decode GPUs, (total - output) / 4 prefill GPUs. System: total
    32,000, output 16,000, input 16,000 tok/s: 2,000 per GPU, 1,333.33 per decode GPU, 4,000 per prefill GPU."""
    row = {"hw": "gb200", "tp": 16, "ep": 16, "dp_attention": "true", "conc": 128, "model": "deepseek-ai/DeepSeek-R1",
           "framework": "dynamo-trt", "precision": "fp4", "isl": 1024, "osl": 1024, "tput_per_gpu": 2000.0,
           "output_tput_per_gpu": 16000.0 / 12, "input_tput_per_gpu": 4000.0, "disagg": True,
           "num_prefill_gpu": 4, "num_decode_gpu": 12, "mtp": "on", "median_tpot": 0.02, "median_intvty": 50.0}
    path = tmp_path / "agg_dsr1_gb200_disagg.json"
    path.write_text(json.dumps(row))
    con = connect(tmp_path / "o.duckdb")
    result = ingest_file(con, path)
    stored = load_points(con).iloc[0]
    con.close()
    assert result.format == "inferencex_agg" and not result.warnings
    assert (stored["gpus"], stored["gpus_prefill"], stored["gpus_decode"]) == (16, 4, 12)
    assert stored["input_tokens_per_second_per_prefill_gpu"] == 4000.0              # 2x the all-GPU total
    assert stored["input_tokens_per_second_per_gpu"] == pytest.approx(1000.0)       # 16,000 / 16
    assert stored["output_tokens_per_second_per_gpu"] == pytest.approx(1000.0)      # 16,000 / 16


def test_canonical_csv_disaggregated_rates_are_per_role(tmp_path):
    """A CSV row that is disaggregated with both role counts reads input/output tok/s/GPU per GPU of its role."""
    path = tmp_path / "disagg.csv"
    path.write_text("hardware,disaggregated,gpus,gpus_prefill,gpus_decode,tput_per_gpu,input_tput_per_gpu,"
                    "output_tput_per_gpu,tok_s_user\n"
                    "B200,true,36,4,32,8000,64800,900,30\n"
                    "B200,false,8,,,1200,600,600,40\n")
    con = connect(tmp_path / "c.duckdb")
    ingest_file(con, path)
    rows = load_points(con).sort_values("source_line").reset_index(drop=True)
    con.close()
    assert rows.loc[0, "input_tokens_per_second_per_prefill_gpu"] == 64800.0
    assert rows.loc[0, "input_tokens_per_second_per_gpu"] == pytest.approx(7200.0)   # 64,800 x 4 / 36
    assert rows.loc[0, "output_tokens_per_second"] == pytest.approx(28800.0)         # 900 x 32
    assert rows.loc[1, "input_tokens_per_second_per_gpu"] == 600.0
    assert pd.isna(rows.loc[1, "input_tokens_per_second_per_prefill_gpu"])


def test_a_frontier_cached_under_another_mode_is_never_reused(rows):
    """The dashboard's frontier cache is keyed by every field that changes the fit (View.frontier_key), the
    disaggregation mode among them: the share mode's view gets the share mode's fit."""
    from model.core.analysis import frontiers_for

    assert View(basis="input", disagg="share").frontier_key() != View(basis="input").frontier_key()
    fitted = frontiers_for(rows, ("hardware",), "input", disagg="share")
    got = analyse(rows, View(by=("hardware",), basis="input", disagg="share",
                                 rates=(("GB200", 3.0), ("H200", 2.0))), load_presets(), frontier=fitted, crossovers="none")
    gb200 = got.frontier[got.frontier["series"] == "GB200 · disagg"]
    assert sorted(gb200["tokens_per_second_per_gpu"]) == pytest.approx([4706.3, 7200.0])   # share, not 9,412.6
