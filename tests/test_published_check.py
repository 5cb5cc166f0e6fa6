"""Published tables checked, not trusted (issue 21, item 4): every published $/M recomputed from its own numbers."""

from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from model.core.published import check_iso, check_rows, half_unit, printed_decimals
from model.data.ingest import ingest_file
from model.data.published import published_checks
from tests.kit import cli


def usd(rate, tput):
    return rate * 1e6 / 3600 / tput


def test_printed_digits():
    assert printed_decimals([0.3, 0.22, 1.1]) == 2            # "0.30" is stored as 0.3 beside 0.22
    assert half_unit([417.0, 650.1]) == pytest.approx(0.05)
    assert half_unit([1.95]) == pytest.approx(0.005)


def test_bundled_tables(sample_con):
    verdicts, checks = published_checks(sample_con)
    rows = verdicts.set_index("file_name")
    blog = rows.loc["inferencex_glm5_fp8_2026-05-20.csv"]
    assert (blog["checked"], blog["flagged"]) == (29, 0)
    iso = rows.loc["inferencex_glm5_fp8_iso_tables.csv"]
    # 20 $/M cells and 10 ratios; MI355X with MTP at 18 tok/s/user is below its rows' reach (18.05): not checked
    assert (iso["checked"], iso["flagged"], iso["not_checked"]) == (29, 2, 1)
    flagged = checks[checks["agrees"] == False].reset_index(drop=True)  # noqa: E712
    assert list(zip(flagged["hardware"], flagged["spec_decoding"], flagged["interactivity"], flagged["published"])) \
        == [("MI355X", "mtp", 35.0, 0.34), ("MI355X", "mtp", 90.0, 1.10)]
    # at 35: between the TP4 conc-16 point (35.82, 1208.1) and conc-32 (24.83, 1707.4), linear in $/M at $1.48
    a, b = usd(1.48, 1707.4), usd(1.48, 1208.1)
    assert flagged.loc[0, "recomputed"] == pytest.approx(a + (35 - 24.83) / (35.82 - 24.83) * (b - a))
    # at 90: between TP4 conc 4 (76.80, 625.5) and TP8 conc 4 (90.43, 373.4)
    a, b = usd(1.48, 625.5), usd(1.48, 373.4)
    assert flagged.loc[1, "recomputed"] == pytest.approx(a + (90 - 76.80) / (90.43 - 76.80) * (b - a))
    assert "published $1.1/M, recomputed $1.087/M" in iso["verdict"]


def _table(tmp_path, text):
    path = tmp_path / "iso.csv"
    path.write_text(text)
    return path


def test_a_table_stating_its_throughput_and_rate(con, tmp_path):
    # 2.00 $/GPU-hour at 500 tok/s/GPU is $1.111/M: 1.11 agrees; 1.13 is off by more than its rounding
    ingest_file(con, _table(tmp_path, "tok_s_user,h100_usd_per_m,h100_tput_per_gpu,h100_usd_per_gpu_hr,"
                                      "b200_usd_per_m,h100_over_b200\n"
                                      "20,1.11,500,2.00,0.55,2.02\n"
                                      "30,1.13,500,2.00,0.60,1.60\n"))
    verdicts, checks = published_checks(con)
    cells = checks[(checks["check"] == "cell") & (checks["hardware"] == "H100")].set_index("interactivity")
    assert bool(cells.loc[20.0, "agrees"]) and not bool(cells.loc[30.0, "agrees"])
    assert cells.loc[30.0, "recomputed"] == pytest.approx(usd(2.0, 500))
    assert "as the table states, at $2/GPU-hour (stated)" in cells.loc[30.0, "detail"]
    ratios = checks[checks["check"] == "ratio"].set_index("interactivity")
    assert bool(ratios.loc[20.0, "agrees"])                 # 1.11 / 0.55 = 2.018
    assert not bool(ratios.loc[30.0, "agrees"])             # 1.13 / 0.60 = 1.883, printed 1.60
    assert verdicts.iloc[0]["flagged"] == 2


@settings(max_examples=60, deadline=None)
@given(rate=st.floats(0.5, 9.99), tputs=st.lists(st.floats(20, 5000), min_size=1, max_size=8))
def test_rounded_honestly_is_never_flagged(rate, tputs):
    """Rows printed by rounding exact values (rate to cents, throughput to 0.1, $/M to cents) all agree."""
    rate = round(rate, 2)
    rows = pd.DataFrame({"source_id": 1, "source_line": range(2, 2 + len(tputs)), "hardware": "H100",
                         "total_tokens_per_second_per_gpu": [round(t, 1) for t in tputs]})
    exact = [usd(rate, t) for t in tputs]      # computed from the unrounded throughput
    rows["published_usd_per_mtok"] = [round(v, 2) for v in exact]
    rows = rows[rows["published_usd_per_mtok"] > 0]
    # the column's digits: two (pad so at least one value shows them)
    rows = pd.concat([rows, pd.DataFrame({"source_id": [1], "source_line": [99], "hardware": ["H100"],
                                          "total_tokens_per_second_per_gpu": [1000.1],
                                          "published_usd_per_mtok": [round(usd(rate, 1000.1), 2) + 0.0]})])
    checks = check_rows(rows, {"H100": rate})
    assert checks["agrees"].all(), checks[~checks["agrees"]]


def test_iso_cells_without_rows_are_not_checked():
    cells = pd.DataFrame({"source_id": [3], "source_line": [2], "spec_decoding": [None], "interactivity": [20.0],
                          "metric": ["usd_per_mtok"], "hardware": ["H100"], "hardware_b": [None], "value": [0.5]})
    checks = check_iso(cells, pd.DataFrame(columns=["hardware", "spec_decoding", "model", "isl", "osl"]),
                       {"H100": 2.0})
    assert checks.iloc[0]["agrees"] is None and "not checked" in checks.iloc[0]["detail"]


def test_sources_prints_the_verdicts(sample_db):
    code, out, _ = cli(sample_db, "sources")
    assert code == 0
    assert "#1 inferencex_glm5_fp8_2026-05-20.csv: all 29 checked values agree" in out
    assert "inferencex_glm5_fp8_iso_tables.csv: 2 of 29 checked values disagree beyond rounding: line 4 MI355X at " \
           "35 tok/s/user: published $0.34/M, recomputed $0.333/M" in out


def test_data_page_shows_the_verdict_per_table(sample_db, monkeypatch):
    from tests.test_app import open_page

    monkeypatch.setenv("COSTFRONTIER_DB", str(sample_db))
    at = open_page("views/data.py")
    assert not at.exception
    tables = [d.value for d in at.dataframe if "Verdict" in d.value.columns]
    assert len(tables) == 1
    verdict = dict(zip(tables[0].iloc[:, 1], tables[0]["Verdict"]))
    assert verdict["inferencex_glm5_fp8_iso_tables.csv"].startswith("2 of 29 checked values disagree beyond rounding")
    assert any("2 flagged values, with both numbers" in e.label for e in at.expander)
