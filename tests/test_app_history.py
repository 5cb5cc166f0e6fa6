"""The History page and the repeats' spread under AppTest, on a store with several run dates (issue 21)."""

from __future__ import annotations

import pandas as pd
import pytest

from model.data.ingest import ingest_file
from model.data.store import connect
from model.present.fmt import for_people
from tests.conftest import FIXTURES
from tests.kit import cli_json, open_page

HISTORY = FIXTURES / "history"
COLUMNS = ["series", "run_date", "usd_per_mtok", "status", "best_usd_per_mtok", "best_from", "source"]


@pytest.fixture
def history_db(tmp_path, monkeypatch):
    path = tmp_path / "history.duckdb"
    con = connect(path)
    for name in ("runs_2026-01-10.csv", "runs_2026-02-10.csv", "runs_2026-03-10.csv", "runs_undated.csv"):
        ingest_file(con, HISTORY / name)
    con.close()
    monkeypatch.setenv("COSTFRONTIER_DB", str(path))
    return path


def test_history_page_table_equals_the_cli(history_db):
    at = open_page("views/history.py", {"wl": "all", "by": "hardware", "x": "40", "rep": "latest"})
    assert not at.exception
    shown = at.table[0].value.reset_index()
    rows = cli_json(history_db, "history", "--at", "40", "--by", "hardware", "--repeats", "latest")["rows"]
    cli = for_people(pd.DataFrame(rows)[COLUMNS]).reset_index(drop=True)
    pd.testing.assert_frame_equal(shown, cli)
    assert len(shown) == 5 and list(shown["Series"]) == ["B200"] * 3 + ["MI355X"] * 2
    warnings = " ".join(w.value for w in at.warning)
    assert "1 of 15 rows states no run date" in warnings
    assert len(at.get("plotly_chart")) == 1


def test_frontier_page_shows_the_spread_of_repeats(history_db):
    at = open_page("views/frontier.py", {"wl": "all", "by": "hardware", "hw": "B200"})
    assert not at.exception
    table = at.dataframe[0].value
    row = table[table["Concurrency"] == "16"].iloc[0] if "Concurrency" in table else None
    assert row is not None
    assert (row["Repeats' min [tok/s/GPU]"], row["Repeats' max [tok/s/GPU]"]) == ("680", "760")
    assert row["Spread [%]"] == "11.43"
    # choosing the latest run in the sidebar rebuilds the frontier from the March run only
    at.radio(key="rep").set_value("latest").run()
    table = at.dataframe[0].value
    assert set(table["Source file"]) == {"runs_2026-03-10.csv"}


def test_with_as_of_the_overviews_counts_are_the_rows_its_headline_priced(history_db):
    """The Overview's "Rows in view", "Hardware in view" and "Latest run" count the rows after the view's as-of (and
    repeats): the rows its headline priced, never the rows before as-of."""
    from model.core.view import View
    from model.present.view_answer import answer_of_view

    query = {"wl": "all", "by": "hardware", "x": "40", "asof": "2026-02-15"}
    at = open_page("views/overview.py", query)
    assert not at.exception, at.exception
    shown = {m.label: m.value for m in at.metric}
    with connect(history_db, read_only=True) as con:
        answer = answer_of_view(con, View.from_query(query)[0], ("recommendation", "overview"))
        every = answer_of_view(con, View.from_query({**query, "asof": ""})[0], ("overview",))
    priced = answer.rows.rows                      # what the headline was priced from
    assert answer.overview.rows == len(priced) < every.overview.rows   # as-of left rows out
    assert shown["Rows in view"] == f"{len(priced):,}"
    assert shown["Hardware in view"] == str(priced["hardware"].nunique())
    assert shown["Latest run"] == "2026-02-10"     # not the March run the as-of leaves out
    assert at.subheader[0].value.startswith(answer.recommendation.headline.split(",")[0].replace(".", "\\."))


def test_a_link_naming_an_interactivity_where_no_series_has_a_curve_opens_the_page(sample_db, monkeypatch):
    """/History?basis=blended&x=40 on the samples: no series has a cost curve on that basis, and the page fell over
    reading their range for the interactivity box; the box now offers the field's declared range."""
    monkeypatch.setenv("COSTFRONTIER_DB", str(sample_db))
    at = open_page("views/history.py", {"basis": "blended", "x": "40"})
    assert not at.exception
    box = at.number_input(key="x")
    assert box.value == 40.0 and box.min == 0.01
