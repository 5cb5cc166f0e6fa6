"""The inverse question (issue 52): the highest interactivity under a $/M cap, and the cheapest measured fleet
meeting a rate, its SLA and a budget, on the bundled samples."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.kit import cli, cli_json

GLM5 = ("--where", "model=GLM-5", "--where", "isl=8192", "--where", "osl=1024")


def _bisect(xs, ys, cap: float) -> float:
    """Where the linear curve through (xs, ys) last reaches ``cap`` from below, by plain bisection."""
    inside = [i for i in range(len(xs) - 1) if ys[i] <= cap < ys[i + 1]]
    a, b = xs[inside[-1]], xs[inside[-1] + 1]
    for _ in range(200):
        m = (a + b) / 2
        a, b = (m, b) if np.interp(m, xs, ys) <= cap else (a, m)
    return a


def test_solve_under_a_cap_is_where_each_curve_crosses_it(sample_db):
    """Each series' answer is where its $/M curve (the frontier points' $/M, linear between them, read from
    ``frontier --json``) crosses $0.50, found again here by bisection; its range lies around it."""
    got = cli_json(sample_db, "solve", "--max-usd-per-mtok", "0.5", "--method", "linear", *GLM5)
    points = cli_json(sample_db, "frontier", *GLM5)["rows"]
    assert len(got["under_cap"]) == 4
    for row in got["under_cap"]:
        mine = sorted((p["interactivity"], p["usd_per_mtok"]) for p in points if p["series"] == row["series"])
        xs, ys = [p[0] for p in mine], [p[1] for p in mine]
        assert row["status"] == "crossing"
        assert row["interactivity"] == pytest.approx(_bisect(xs, ys, 0.5), abs=1e-5)
        assert row["usd_per_mtok"] == pytest.approx(0.5, abs=1e-6)
        assert row["interactivity_low"] < row["interactivity"] < row["interactivity_high"]
    best = max(got["under_cap"], key=lambda r: r["interactivity"])
    assert got["overall"]["series"] == best["series"] == "MI355X · sglang · fp8 · mtp"
    assert "The highest interactivity at or under $0.50/M" in got["cap_text"]


def test_the_range_under_a_cap_is_where_the_bands_ends_reach_it(sample_con):
    from model.core.iso import cost_within
    from model.core.view import View
    from model.present.view_answer import answer_of_view

    answer = answer_of_view(sample_con, View(workload="GLM-5|8192|1024", max_usd_per_mtok=0.5), ("solve",))
    cost, solve = answer.cost, answer.solve
    for row in solve.by_series.to_dict("records"):
        curve = cost.analysis.curves[row["series"]]
        assert float(cost_within(curve, np.array([row["interactivity"]]), cost.method)[0]) == pytest.approx(0.5)
        low, high = (cost.uncertainty.band(curve, np.array([row[k]])) for k in ("interactivity_low",
                                                                                  "interactivity_high"))
        assert low[1][0] == pytest.approx(0.5, abs=1e-6)     # the band's high end reaches the cap at the low end
        assert high[0][0] == pytest.approx(0.5, abs=1e-6)    # its low end at the high end


def test_a_cap_no_measured_configuration_meets_says_so(sample_db):
    got = cli_json(sample_db, "solve", "--max-usd-per-mtok", "0.01", *GLM5)
    assert got["overall"] is None and {r["status"] for r in got["under_cap"]} == {"none"}
    assert got["cap_text"].startswith("No measured configuration meets $0.010/M")
    done = cli(sample_db, "solve", *GLM5)
    assert done.code == 2 and "solve needs a $/M cap" in done.err


def test_the_cheapest_measured_fleet_under_an_slo_and_a_budget(sample_db):
    """12 req/s within TPOT 50 ms under $80,000 a month: MI355X with MTP, 9 nodes at its best measured point
    meeting TPOT 50 ms (per node: tok/s/GPU × 8 ÷ 9,216 tokens a request); B200 needs $102,492. With TTFT p95 2 s too,
    none of the GLM-5 rows (which state no TTFT) can say they meet it."""
    got = cli_json(sample_db, "solve", "--peak-rps", "12", "--sla", "tpot=50", "--budget-usd-month", "80000", *GLM5)
    fleet = got["cheapest_fleet"]
    first = fleet[0]
    assert (first["series"], first["nodes"], first["meets_budget"]) == ("MI355X · sglang · fp8 · mtp", 9, True)
    assert first["nodes"] == math.ceil(12 / first["per_node_rps"])
    assert first["usd_per_month"] == pytest.approx(9 * 8 * 1.48 * 730)
    assert [r["meets_budget"] for r in fleet[1:]] == [False] * 3
    assert "The cheapest measured configuration" in got["fleet_text"] and "9 nodes" in got["fleet_text"]
    none = cli_json(sample_db, "solve", "--peak-rps", "12", "--sla", "ttft_p95=2", "--sla", "tpot=50",
                    "--budget-usd-month", "80000", *GLM5)
    assert none["fleet_text"].startswith("No measured configuration meets 12 req/s")
