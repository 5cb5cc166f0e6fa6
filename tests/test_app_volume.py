"""The Buy, rent or API page under AppTest (issue 20): the worked example from a link, then a user's inputs.

Oracle (the issue's worked example): MI355X at $1.48/GPU-hour, 911.7 tok/s/GPU at 54.6 tok/s/user, one 8-GPU
node $8,643 a month; API GLM-5.2 $1.733/M; owning beats the API above 4.99 B tokens a month.
"""

from __future__ import annotations

import re

from tests.test_app import app  # noqa: F401  (the fixture)

PAGE = "views/buy_rent_or_api.py"
LINK = {"wl": "GLM-5|8192|1024", "hw": "MI355X", "spec": "mtp", "by": "hardware", "x": "50"}


def _text(at) -> str:
    parts = [e.value for e in (*at.success, *at.markdown, *at.info, *at.caption)]
    return re.sub(r"\\(.)", r"\1", "\n".join(str(p) for p in parts))


def test_page_answers_the_worked_example_and_follows_the_inputs(app):  # noqa: F811
    at = app(PAGE, query={**LINK, "tpm": "2e9"})
    assert not at.exception, at.exception
    text = _text(at)
    assert "API GLM-5.2 (Z.ai) is cheapest: $3,467 a month" in text
    assert "owned MI355X costs less than API GLM-5.2 (Z.ai) above 4.99 B tokens a month" in text
    table = at.dataframe[0].value
    owned = table[table["Option"] == "owned MI355X"].iloc[0]
    assert owned["$ per month"] == "$8,643" and owned["Effective [$/M tokens]"] == "$4.32/M"
    # the user raises the volume past the break-even and types custom API prices
    at.text_input(key="tpm").input("6e9").run()
    assert "owned MI355X is cheapest" in _text(at)
    at.text_input(key="api_in").input("1")
    at.text_input(key="api_cached").input("0,1")     # a decimal comma: 0.1
    at.text_input(key="api_out").input("2.0")
    at.button[0].click().run()   # the custom prices' form button ("Use these prices")
    assert not at.exception, at.exception
    text = _text(at)
    per_m = (8192 * 1.0 + 1024 * 2.0) / 9216
    assert f"owned MI355X costs less than API custom prices above {8643.2 / per_m / 1e3:.2f} B tokens a month" in text
    assert at.selectbox(key="api_pick").value == "custom prices"
    assert at.query_params["apiusd"] == "1,0.1,2" and at.query_params["tpm"] == "6e9"


def test_bad_link_values_are_dropped_with_a_notice(app):  # noqa: F811
    at = app(PAGE, query={**LINK, "tpm": "2e9", "apiusd": "1,x,2", "lens": "cheap", "rent": "MI355X:-2"})
    assert not at.exception, at.exception
    warnings = " ".join(w.value for w in at.warning) + " ".join(at.link_warnings)
    assert "apiusd" in warnings and "lens" in warnings and "rent" in warnings
    assert "is cheapest" in _text(at)


def test_a_peak_and_a_volume_with_a_shape_hold_together_on_both_pages(app):  # noqa: F811
    """Issue 31: a peak set on Fleet and a volume with a business-hours shape on this page are one demand; the
    shape's on-demand fleet follows the curve (the Wafer MI355X knee, 2.4 req/s a node at TTFT p95 <= 5 s)."""
    link = {"wl": "GLM-5.2|20000|1000", "hw": "MI355X", "prec": "mxfp4", "by": "hardware", "sla": "ttft_p95=5",
            "rps": "6"}
    at = app("views/fleet.py", query=link)
    assert not at.exception, at.exception
    at.text_input(key="tpm").input("3e9").run()
    at.selectbox(key="shape").set_value("business-hours").run()
    assert not at.exception, at.exception
    text = _text(at)
    assert "Peak 6 req/s (typed) sizes the fleet bought for the peak; 3 B output tokens a month (typed)" in text
    assert "Not applied" not in " ".join(w.value for w in at.warning)
    assert at.query_params["rps"] == "6" and at.query_params["tpm"] == "3e9"
    assert at.query_params["shape"] == "business-hours"
    at.switch_page(PAGE).run()
    assert not at.exception, at.exception
    assert "Peak set on the Fleet page: 6 req/s" in _text(at)
    assert at.selectbox(key="shape").value == "business-hours"
