"""Repeat runs, --as-of and the history by run date (issue 21, items 2 and 3).

The fixture (tests/fixtures/history/) is one workload measured on three run dates plus one undated file:
B200 TP8 at concurrency 4/16/64 on 2026-01-10, 02-10 and 03-10 (the March run a regression), MI355X TP4 at
4/16/64 on 01-10 and at 4/16 on 02-10, and one undated B200 row at concurrency 4 (60 tok/s/user, 500 tok/s/GPU).
Expected values are worked by hand from those numbers (B200 $1.95, MI355X $1.48 per GPU-hour).
"""

from __future__ import annotations

from datetime import date, timedelta

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from model.core.history import history
from model.core.repeats import as_of_rows, choose_repeats, repeat_spread, runs_in_view
from model.core.view import View
from model.data.ingest import ingest_file
from model.data.presets import load_presets
from model.data.store import connect, load_points
from model.present.view_answer import answer_of_view
from tests.conftest import FIXTURES
from tests.kit import cli, cli_json, report_of_view

HISTORY = FIXTURES / "history"
TPUT = "total_tokens_per_second_per_gpu"


@pytest.fixture
def history_db(tmp_path):
    path = tmp_path / "history.duckdb"
    con = connect(path)
    for name in ("runs_2026-01-10.csv", "runs_2026-02-10.csv", "runs_2026-03-10.csv", "runs_undated.csv"):
        ingest_file(con, HISTORY / name)
    con.close()
    return path


@pytest.fixture
def rows(history_db):
    con = connect(history_db, read_only=True)
    yield load_points(con)
    con.close()


def _row(frame, hardware, concurrency):
    return frame[(frame["hardware"] == hardware) & (frame["concurrency"] == concurrency)]


# ------------------------------------------------------------------ repeats

def test_repeats_of_one_config_give_the_stated_spread(rows):
    spread = repeat_spread(rows, TPUT)
    b16 = _row(spread, "B200", 16).iloc[0]
    assert (b16["repeats"], b16["runs"]) == (3, 3)
    assert (b16["throughput_min"], b16["throughput_max"], b16["throughput_median"]) == (680, 760, 700)
    assert b16["spread_pct"] == pytest.approx(80 / 700 * 100)
    assert (b16["interactivity_min"], b16["interactivity_max"]) == (34, 36)
    b4 = _row(spread, "B200", 4).iloc[0]      # three dated runs and the undated one
    assert (b4["repeats"], b4["throughput_min"], b4["throughput_max"]) == (4, 280, 500)
    # MI355X at concurrency 64 ran once: no spread to show
    assert _row(spread, "MI355X", 64).empty
    assert len(spread) == 5


def test_pooled_keeps_every_row(rows):
    assert choose_repeats(rows, "pooled") is rows


def test_latest_picks_the_latest_run_of_each_config(rows):
    latest = choose_repeats(rows, "latest")
    assert len(latest) == 6
    got = {(r.hardware, r.concurrency): (str(r.run_date)[:10], r.total_tokens_per_second_per_gpu)
           for r in latest.itertuples()}
    assert got == {("B200", 4): ("2026-03-10", 280), ("B200", 16): ("2026-03-10", 680),
                   ("B200", 64): ("2026-03-10", 1100), ("MI355X", 4): ("2026-02-10", 370),
                   ("MI355X", 16): ("2026-02-10", 850), ("MI355X", 64): ("2026-01-10", 1500)}


def test_median_is_the_median_of_each_measure(rows):
    median = choose_repeats(rows, "median")
    assert len(median) == 6
    b4 = _row(median, "B200", 4).iloc[0]         # 300, 330, 280, 500 -> 315; 50, 52, 49, 60 -> 51
    assert (b4[TPUT], b4["interactivity"], b4["repeats"]) == (315, 51, 4)
    assert b4["source_file"] == "median of 4 runs"
    m16 = _row(median, "MI355X", 16).iloc[0]    # 800, 850 -> 825; 30, 31 -> 30.5
    assert (m16[TPUT], m16["interactivity"]) == (825, 30.5)
    m64 = _row(median, "MI355X", 64).iloc[0]    # measured once: as measured
    assert (m64[TPUT], m64["source_file"]) == (1500, "runs_2026-01-10.csv")


def test_each_repeats_choice_reaches_the_frontier(history_db):
    con = connect(history_db, read_only=True)
    try:
        def b200_at_40(repeats):
            state = View(workload="all", by=("hardware",), targets=(40.0,), repeats=repeats, method="linear")
            iso = answer_of_view(con, state, ("cost",)).cost.iso
            return float(iso.loc[iso["series"] == "B200", "usd_per_mtok"].iloc[0])
        # pooled: frontier knots (36, 760) and the undated (60, 500) -> linear in $/M between them
        pooled = 1.95e6 / 3600 / 760 + (40 - 36) / 24 * (1.95e6 / 3600 / 500 - 1.95e6 / 3600 / 760)
        # latest (March): (34, 680) and (49, 280)
        latest = 1.95e6 / 3600 / 680 + (40 - 34) / 15 * (1.95e6 / 3600 / 280 - 1.95e6 / 3600 / 680)
        # median: (35, 700) and (51, 315)
        median = 1.95e6 / 3600 / 700 + (40 - 35) / 16 * (1.95e6 / 3600 / 315 - 1.95e6 / 3600 / 700)
        assert b200_at_40("pooled") == pytest.approx(pooled)
        assert b200_at_40("latest") == pytest.approx(latest)
        assert b200_at_40("median") == pytest.approx(median)
    finally:
        con.close()


def test_frontier_table_carries_the_spread(history_db):
    con = connect(history_db, read_only=True)
    try:
        answer = answer_of_view(con, View(workload="all", by=("hardware",), hardware=("B200",)), ("frontier_table",))
        table = answer.frontier_table
        row = table[table["concurrency"] == 16].iloc[0]
        assert (row["repeats"], row["tput_min"], row["tput_max"]) == (3, 680, 760)
        assert row["spread_pct"] == pytest.approx(80 / 700 * 100)
    finally:
        con.close()


# ------------------------------------------------------------------ as of

def test_as_of_keeps_the_rows_on_or_before_and_names_the_undated(rows):
    kept, undated = as_of_rows(rows, date(2026, 2, 10))
    assert undated == 1
    assert len(kept) == 11
    assert sorted(kept["source_file"].unique()) == ["runs_2026-01-10.csv", "runs_2026-02-10.csv"]
    runs = runs_in_view(rows, date(2026, 2, 9))
    assert len(runs.rows) == 6
    assert runs.notes == ["as of 2026-02-09: 6 of 15 rows; 8 run later left out; "
                          "1 row states no run date and is left out (never given one)"]


@st.composite
def dated_rows(draw):
    n = draw(st.integers(1, 30))
    days = draw(st.lists(st.one_of(st.none(), st.integers(0, 60)), min_size=n, max_size=n))
    start = date(2026, 1, 1)
    return pd.DataFrame({
        "hardware": "B200",
        "run_date": pd.to_datetime([start + timedelta(days=d) if d is not None else None for d in days]),
        "source_id": np.arange(n), "interactivity": np.linspace(10, 50, n), TPUT: np.linspace(900, 100, n),
    })


@settings(max_examples=60, deadline=None)
@given(frame=dated_rows(), day=st.integers(-5, 65))
def test_as_of_keeps_exactly_the_rows_on_or_before(frame, day):
    as_of = date(2026, 1, 1) + timedelta(days=day)
    kept, undated = as_of_rows(frame, as_of)
    dates = frame["run_date"]
    assert undated == int(dates.isna().sum())
    expected = frame.index[dates.notna() & (dates <= pd.Timestamp(as_of))]
    assert list(kept.index) == list(expected)


@st.composite
def runs(draw):
    """Two series, each measured at up to 4 concurrencies on a few run dates, with noise."""
    records = []
    for hw in ("B200", "MI355X"):
        for day in sorted(draw(st.sets(st.integers(0, 40), min_size=1, max_size=5))):
            for conc in draw(st.sets(st.sampled_from([4, 16, 64, 256]), min_size=1, max_size=4)):
                x = 200 / conc ** 0.5 * draw(st.floats(0.7, 1.3))
                y = 150 * conc ** 0.5 * draw(st.floats(0.7, 1.3))
                records.append({"hardware": hw, "concurrency": float(conc), "interactivity": x, TPUT: y,
                                "run_date": pd.Timestamp(date(2026, 1, 1) + timedelta(days=day)),
                                "source_id": day, "source_file": f"run_{day}.csv"})
    return pd.DataFrame(records)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frame=runs(), x=st.floats(15, 60), repeats=st.sampled_from(["pooled", "latest", "median"]))
def test_best_so_far_never_rises(frame, x, repeats):
    scenario = View(by=("hardware",))
    table, _ = history(frame, scenario, x, load_presets(), repeats=repeats)
    for _, one in table.groupby("series"):
        best = one["best_usd_per_mtok"].to_numpy(dtype=float)
        as_of = one["as_of_usd_per_mtok"].to_numpy(dtype=float)
        known = best[~np.isnan(best)]
        assert np.all(np.diff(known) <= 1e-12)
        # the best so far is the lowest as-of value up to that date; a date whose own as-of frontier no longer
        # reaches x (a new point dominated the one that reached it) keeps the earlier best
        running = np.minimum.accumulate(np.where(np.isnan(as_of), np.inf, as_of))
        running[np.isinf(running)] = np.nan
        assert np.array_equal(np.isnan(best), np.isnan(running))
        assert np.allclose(best[~np.isnan(best)], running[~np.isnan(best)])


def test_history_by_hand(rows):
    table, notes = history(rows, View(by=("hardware",), method="linear"), 40.0, load_presets())
    b200 = table[table["series"] == "B200"]
    assert list(b200["run_date"]) == ["2026-01-10", "2026-02-10", "2026-03-10"]
    usd = lambda rate, tput: rate * 1e6 / 3600 / tput   # noqa: E731
    jan = usd(1.95, 700) + (40 - 35) / 15 * (usd(1.95, 300) - usd(1.95, 700))   # (35, 700)-(50, 300)
    feb = usd(1.95, 760) + (40 - 36) / 16 * (usd(1.95, 330) - usd(1.95, 760))   # (36, 760)-(52, 330)
    mar = usd(1.95, 680) + (40 - 34) / 15 * (usd(1.95, 280) - usd(1.95, 680))   # (34, 680)-(49, 280)
    assert b200["usd_per_mtok"].to_numpy() == pytest.approx([jan, feb, mar])
    # pooled as of March: the March points are all dominated, so February's frontier stays
    assert b200["as_of_usd_per_mtok"].to_numpy() == pytest.approx([jan, feb, feb])
    assert b200["best_usd_per_mtok"].to_numpy() == pytest.approx([jan, feb, feb])
    assert list(b200["best_from"]) == ["2026-01-10 · runs_2026-01-10.csv", "2026-02-10 · runs_2026-02-10.csv",
                                       "2026-02-10 · runs_2026-02-10.csv"]
    assert list(b200["source"]) == ["runs_2026-01-10.csv", "runs_2026-02-10.csv", "runs_2026-03-10.csv"]
    assert notes == ["1 of 15 rows states no run date: left out of the history (never given one)"]


# ------------------------------------------------------------------ links and the CLI

def test_link_round_trip_and_bad_values_dropped():
    state = View(repeats="latest", as_of=date(2026, 2, 10), history=True)
    query = state.to_query()
    assert {k: query[k] for k in ("rep", "asof", "hist")} == {"rep": "latest", "asof": "2026-02-10", "hist": "1"}
    assert View.from_query(query)[0] == state
    back, notices = View.from_query({"rep": "best", "asof": "2026-13-01"})
    assert back == View()
    assert len(notices) == 2 and "rep='best'" in notices[0] and "not a date" in notices[1]


def test_history_cli_json(history_db):
    payload = cli_json(history_db, "history", "--at", "40", "--by", "hardware")
    rows = payload["rows"]
    assert [(r["series"], r["run_date"]) for r in rows] == [
        ("B200", "2026-01-10"), ("B200", "2026-02-10"), ("B200", "2026-03-10"),
        ("MI355X", "2026-01-10"), ("MI355X", "2026-02-10")]
    assert {"series", "run_date", "usd_per_mtok", "best_usd_per_mtok", "source"} <= set(rows[0])
    assert "1 of 15 rows states no run date: left out of the history (never given one)" in payload["notes"]


def test_as_of_and_repeats_on_query_commands(history_db):
    payload = cli_json(history_db, "frontier", "--by", "hardware", "--as-of", "2026-01-31")
    assert {r["run_date"][:10] for r in payload["rows"]} == {"2026-01-10"}
    assert payload["view"]["asof"] == "2026-01-31"
    assert cli_json(history_db, "iso", "--by", "hardware", "--at", "40", "--repeats", "latest")["view"]["rep"] == "latest"
    code, _, err = cli(history_db, "iso", "--as-of", "2026-02-30")
    assert code == 2
    assert "not a date" in err


def test_report_names_the_choices_and_adds_the_history(history_db):

    con = connect(history_db, read_only=True)
    try:
        state = View(workload="all", by=("hardware",), targets=(40.0,), repeats="latest",
                          as_of=date(2026, 2, 28), history=True)
        report = report_of_view(con, state)
        items = dict(zip(report.assumptions["Item"], report.assumptions["Value"]))
        assert items["Repeat runs"].startswith("latest run")
        assert items["Run dates"].startswith("rows run on or before 2026-02-28")
        history_rows = report.tables["History by run date"]
        assert list(history_rows["Run date"]) == ["2026-01-10", "2026-02-10", "2026-01-10", "2026-02-10"]
        assert "History by run date" in report.html
        plain = report_of_view(con, state.replace(history=False))
        assert "History by run date" not in plain.tables
    finally:
        con.close()
