"""What sessions of one server share (issue 19): a view's figures and tables are built once per view and data
version, for every session, and show the numbers the answer (and the CLI) computes; the Data page's
published-table check reads the store once per version and prices any view's rates from that.

Two AppTest sessions in one process share Streamlit's caches, as two browser sessions of one server do.
"""

from __future__ import annotations

import json

import plotly.io
import pytest

from model.cli.options import view_of_link
from model.data.published import priced_checks, published_checks, published_plan
from model.present import figures
from model.present.view_answer import answer_of_view
from tests.conftest import reading
from tests.kit import cli_json, open_page, rate_box

LINK = {"r": "B200:3.1,MI355X:1.6", "at": "20,40,60"}
FRONTIER, HISTORY, DATA = "views/frontier.py", "views/history.py", "views/data.py"


@pytest.fixture
def samples(sample_db, monkeypatch):
    monkeypatch.setenv("COSTFRONTIER_DB", str(sample_db))
    return sample_db


def _spec(at) -> dict:
    return json.loads(at.get("plotly_chart")[0].proto.spec)


def _answer(db, query: dict):
    """The answer the CLI gives for the link carrying ``query``."""
    state, _ = view_of_link("http://x/?" + "&".join(f"{k}={v}" for k, v in query.items()))
    with reading(db) as con:
        answer = answer_of_view(con, state, ("cloud", "frontier_table", "history"))
        answer.frontier_table, answer.history.table       # noqa: B018  (computed while the store is open)
        return answer


def _frontier_traces(spec: dict) -> dict[str, list[float]]:
    """Each series' frontier trace on the chart: its y values (plain or typed arrays)."""
    out = {}
    for trace in spec["data"]:
        if trace.get("meta", {}).get("kind") == "frontier":
            y = trace["y"]
            if isinstance(y, dict):      # plotly's typed array: base64 of little-endian float64
                import base64

                import numpy as np

                y = np.frombuffer(base64.b64decode(y["bdata"]), dtype=y.get("dtype", "f8")).tolist()
            out[trace["meta"]["series"]] = list(y)
    return out


def test_two_sessions_get_one_frontier_figure_equal_to_a_fresh_build(samples):
    query = {**LINK, "y": "cost"}
    first = open_page(FRONTIER, query)
    second = open_page(FRONTIER, query)
    assert not first.exception and not second.exception
    assert first.get("plotly_chart")[0].proto.spec == second.get("plotly_chart")[0].proto.spec
    answer = _answer(samples, query)
    fresh = figures.frontier_figure(answer.cloud.points, answer.frontier_table, "cost", False)
    assert _spec(second) == json.loads(plotly.io.to_json(fresh, validate=False))
    # the frontier table both sessions show is the one the answer computes, formatted once
    shown = second.dataframe[0].value          # the page's one table
    assert first.dataframe[0].value.equals(shown) and len(shown) == len(answer.frontier_table)
    assert list(shown["Series"]) == list(answer.frontier_table["series"])


def test_a_rate_change_reprices_the_cost_axis_and_leaves_the_other_session_alone(samples):
    query = {**LINK, "y": "cost"}
    one = open_page(FRONTIER, query)
    other = open_page(FRONTIER, query)
    before = _frontier_traces(_spec(other))
    b200 = next(name for name in before if name.startswith("B200"))
    rate_box(one, "B200").input("6.2").run()
    after = _frontier_traces(_spec(one))
    # $/M = rate × 10⁶ / (3600 × tok/s/GPU): twice the rate, twice every B200 cost; MI355X's unchanged
    assert after[b200] == pytest.approx([2 * v for v in before[b200]], rel=1e-12)
    for name in before:
        if not name.startswith("B200"):
            assert after[name] == before[name]
    # ... and what the CLI prints for that link
    rows = cli_json(samples, "frontier", "--link", "http://x/?r=B200:6.2,MI355X:1.6&at=20,40,60")["rows"]
    cli = sorted(r["usd_per_mtok"] for r in rows if r["series"] == b200)
    assert sorted(after[b200]) == pytest.approx(cli, rel=1e-12)
    # the other session, still at $3.1, redraws the figure it had
    other.run()
    assert _frontier_traces(_spec(other)) == before


def test_the_shared_figure_is_never_changed_by_drawing_it(samples):
    """st.plotly_chart converts a figure with ``to_dict`` (a deep copy): the shared object reads the same on every
    rerun of every session."""
    query = {**LINK, "opt": "1"}
    at = open_page(FRONTIER, query)
    spec = at.get("plotly_chart")[0].proto.spec
    for _ in range(2):          # reruns draw the same shared object again
        at.run()
        assert at.get("plotly_chart")[0].proto.spec == spec


def test_two_sessions_get_one_history_figure_equal_to_a_fresh_build(samples):
    first = open_page(HISTORY, LINK)
    second = open_page(HISTORY, LINK)
    assert not first.exception and not second.exception
    answer = _answer(samples, LINK)
    if answer.interactivity_needed is None or answer.history.table.empty:
        pytest.skip("the samples hold no dated runs")
    fresh = figures.history_figure(answer.history.table, answer.interactivity_needed)
    assert _spec(first) == _spec(second) == json.loads(plotly.io.to_json(fresh, validate=False))
    assert first.table[0].value.equals(second.table[0].value)


def test_the_published_check_is_planned_once_and_priced_at_any_rates(samples):
    with reading(samples) as con:
        plan = published_plan(con)
        for overrides in ({}, {"B200": 3.1, "MI355X": 1.6}, {"B200": 2.0}):
            direct = published_checks(con, overrides=overrides)
            priced = priced_checks(plan, overrides=overrides)
            assert direct[0].equals(priced[0]) and direct[1].equals(priced[1])
    # the rates change what is recomputed: $/M of a row = rate × 10⁶ / (3600 × its tok/s/GPU)
    rows = priced_checks(plan, overrides={"B200": 3.1})[1]
    row = rows[(rows["check"] == "row") & (rows["hardware"] == "B200")].iloc[0]
    tput = float(row["detail"].split(" tok/s/GPU")[0])
    assert row["recomputed"] == pytest.approx(3.1 * 1e6 / (3600 * tput), rel=1e-12)


def _verdicts(at) -> list[str]:
    tables = [d.value for d in at.dataframe if "Verdict" in d.value.columns]
    assert len(tables) == 1
    return list(tables[0]["Verdict"])


def test_the_data_page_shows_the_check_at_the_links_rates_after_another_view_planned_it(samples):
    default = open_page(DATA)                       # plans the check for this data version
    linked = open_page(DATA, LINK)                  # prices the plan at the link's rates
    assert not default.exception and not linked.exception
    with reading(samples) as con:
        expected = published_checks(con, overrides={"B200": 3.1, "MI355X": 1.6})[0]
        at_preset = published_checks(con)[0]
    assert _verdicts(linked) == list(expected["verdict"])
    assert _verdicts(default) == list(at_preset["verdict"])
    assert list(expected["verdict"]) != list(at_preset["verdict"])   # the rates matter to the check

