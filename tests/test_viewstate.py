"""The share link's state: ViewState -> query string -> ViewState is the identity; bad values become notices."""

from __future__ import annotations

from model.viewstate import ViewState, parse_query


def test_round_trip_of_a_non_default_view():
    state = ViewState(workload="GLM-5|8192|1024", hardware=("B200", "MI355X"), spec_decoding=("mtp",),
                      by=("hardware",), basis="blended", method="monotone", price_set="2026-07",
                      rates=(("MI355X", 1.2), ("B200", 1.6)), targets=(55.0, 24.0), baseline="MI355X",
                      headline_x=40.0, frontier_y="cost", optimal_only=True, sla="ttft_p95=2,tpot=50",
                      w_input=0.3, w_cached=0.03, compare=("a · x", "b · y"), compare_peaks=True)
    query = state.to_query()
    again, notices = parse_query(query)
    assert notices == [] and again == state
    # normalised: rates and targets sorted, so equal views give equal links
    assert query["r"] == "B200:1.6,MI355X:1.2" and query["at"] == "24,55"


def test_defaults_make_an_empty_query():
    assert ViewState().to_query() == {}


def test_each_bad_value_is_dropped_with_its_own_notice_and_the_rest_kept():
    state, notices = parse_query({"r": "B200:-1", "by": "colour", "at": "24", "zz": "1", "sla": "tpot=fast"})
    assert state.targets == (24.0,) and state.rates == () and state.by == ViewState().by
    assert len(notices) == 4
    assert any("unknown link parameter 'zz'" in n for n in notices)
    assert any("by=" in n and "cannot group by colour" in n for n in notices)
