"""The one link rule (model.core.links), as the report and the Share box write it."""

from __future__ import annotations

from model.core.view import View
from model.present.report import view_link


def test_the_one_link_rule_is_the_reports_and_the_share_boxs(monkeypatch):
    """model.core.links.view_url is the address every surface writes: the report's view_link gives the same
    link for the default page, and a page's URL path goes after the base."""
    from model.core.links import view_url

    state = View(interactivity_needed=50.0, rates=(("B200", 2.5),))
    monkeypatch.delenv("COSTFRONTIER_PUBLIC_URL", raising=False)
    assert view_url(state.to_query()) == view_link(state) == "http://localhost:8501/?r=B200:2.5&x=50"
    assert view_url(state.to_query(), "Frontier", "https://cf.example/team") == \
        "https://cf.example/team/Frontier?r=B200:2.5&x=50"
    monkeypatch.setenv("COSTFRONTIER_PUBLIC_URL", "https://costs.example.com/team")
    assert view_url({}, "Data") == "https://costs.example.com/team/Data"
