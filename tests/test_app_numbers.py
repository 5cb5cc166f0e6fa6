"""Number boxes under AppTest (issue 28): the SLA's success rate is typed in percent and 1 % or less is asked about
before it applies; the TCO builder's utilisation box refuses 150 % quoting it; a demand read by the one rule."""

from __future__ import annotations

import pytest

from tests.kit import open_page


@pytest.fixture
def db(sample_db, monkeypatch):
    monkeypatch.setenv("COSTFRONTIER_DB", str(sample_db))
    return sample_db


def _said(at) -> list[str]:
    return [w.value.replace("\\", "") for w in at.warning] + [e.value.replace("\\", "") for e in at.error]


def test_a_success_rate_of_one_percent_or_less_is_asked_about(db):
    at = open_page("views/ramps.py", {"wl": "GLM-5.2|20000|1000"})
    at.text_input(key="sla_ok").input("0.99").run()
    assert not at.exception
    assert "sla" not in at.query_params                     # held, not applied
    assert any("Not applied yet: success rate: 0.99 % is 1 % or less" in w and "Did you mean 99 %?" in w
               for w in _said(at)), _said(at)
    at.button(key="confirm::sidebar:sla_ok").click().run()
    assert at.query_params["sla"] == "success=0.0099"
    at.text_input(key="sla_ok").input("99,5").run()          # percent, with a decimal comma: 99.5 %
    assert at.query_params["sla"] == "success=0.995"
    at.text_input(key="sla_ok").input("abc").run()
    assert at.query_params["sla"] == "success=0.995"
    assert any("Success rate at least [%]: 'abc' not applied: not a number" in w for w in _said(at)), _said(at)


def test_the_utilisation_box_takes_percent_and_refuses_150_quoting_it(db):
    at = open_page("views/tco_builder.py", {"spec": "mtp", "by": "hardware", "hw": "B200"})
    assert at.selectbox(key="tco_hw").value == "B200"        # the only hardware in view
    at.text_input(key="tco_server_usd::B200").input("300000")
    at.text_input(key="tco_utilization::B200").input("150")
    next(b for b in at.button if b.label == "Add to this view and price with it").click().run()
    assert not at.exception and "prof" not in at.query_params
    assert any("Utilisation [% of hours billable]: '150' not applied" in e and "at most 100 %" in e
               for e in _said(at)), _said(at)
    at.text_input(key="tco_utilization::B200").input("70 %")
    next(b for b in at.button if b.label == "Add to this view and price with it").click().run()
    (profile,) = at.session_state["_view"].cost_profiles()
    assert profile.onprem.utilization == pytest.approx(0.7) and profile.hardware == "B200"
    assert any("B200 is now priced by it on every page" in w for w in _said(at)), _said(at)


def test_a_demand_is_read_by_the_rule_and_a_huge_one_is_held(db):
    at = open_page("views/fleet.py", {"wl": "GLM-5.2|20000|1000", "sla": "ttft_p95=5"})
    at.text_input(key="rps").input("1,480").run()
    assert "rps" not in at.query_params
    assert any("'1,480' not applied" in w and "ambiguous" in w for w in _said(at)), _said(at)
    at.text_input(key="rps").input("10").run()
    assert at.query_params["rps"] == "10"
    at.text_input(key="rps").input("1e4").run()              # 10,000 req/s: thousands of nodes, asked first
    assert at.query_params["rps"] == "10"
    assert any("Not applied yet: this demand needs at least" in w for w in _said(at)), _said(at)
    at.button(key="confirm::rps").click().run()
    assert at.query_params["rps"] == "10000"


def test_the_gpu_mix_pages_peak_demand_asks_about_a_slip_as_the_fleet_page_does(db):
    # the field's help says a demand needing more than 1,000 nodes is asked about; the GPU mix page's box did not ask
    at = open_page("views/gpu_mix.py", {"wl": "GLM-5|8192|1024", "x": "50", "rmix": "1024:256:0.7,8192:1024:0.3"})
    at.text_input(key="rps").input("10").run()
    assert at.query_params["rps"] == "10"
    at.text_input(key="rps").input("1e5").run()
    assert at.query_params["rps"] == "10"
    assert any("Not applied yet: this demand needs at least" in w for w in _said(at)), _said(at)
    at.button(key="confirm::rps").click().run()
    assert at.query_params["rps"] == "100000"


def test_an_api_price_and_the_nodes_kept_up_are_read_by_the_rule(db):
    from model.data.api_prices import prices_frame
    from tests.conftest import reading

    link = {"wl": "GLM-5|8192|1024", "hw": "MI355X", "spec": "mtp", "by": "hardware", "x": "50", "tpm": "2e9",
            "rent": "MI355X:2.1", "od": "1"}
    at = open_page("views/buy_rent_or_api.py", link)
    at.text_input(key="odmin").input("2,5").run()            # not a whole number of nodes
    assert "odmin" not in at.query_params
    assert any("Nodes kept up on demand: '2,5' not applied: not a whole number" in w for w in _said(at)), _said(at)
    at.text_input(key="odmin").input("3").run()
    assert at.query_params["odmin"] == "3"
    typed = {"Model": "GLM-5 typed", "Input [$/M]": "1,40", "Cached input [$/M]": "0,26", "Output [$/M]": "4.4",
             "Source (where you read it)": "typed by hand"}
    for box in [t for t in at.text_input if t.label in typed]:
        box.input(typed[box.label])
    next(b for b in at.button if b.label == "Save price").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    with reading(db) as con:
        saved = prices_frame(con).set_index("model").loc["GLM-5 typed"]
    assert (saved["usd_per_m_input"], saved["usd_per_m_cached_input"], saved["usd_per_m_output"]) == (1.4, 0.26, 4.4)
