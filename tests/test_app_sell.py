"""The Sell and Chargeback pages and the $/M cap on Matched interactivity under AppTest (issue 52): each page shows
the CLI's answer for the same view, and a typed input moves it and the link."""

from __future__ import annotations

import re

import pytest

from tests.kit import cli_json
from tests.test_app import app  # noqa: F401  (the fixture)

LINK = {"wl": "GLM-5|8192|1024", "x": "30", "api": "GLM-5.2", "fee": "0.3"}
GLM5 = ("--where", "model=GLM-5", "--where", "isl=8192", "--where", "osl=1024", "--x", "30")


def _text(at) -> str:
    parts = [e.value for e in (*at.success, *at.markdown, *at.info, *at.caption, *at.warning)]
    return re.sub(r"\\(.)", r"\1", "\n".join(str(p) for p in parts))


def test_the_sell_page_shows_the_clis_figures_and_follows_a_typed_utilisation(app, sample_db):  # noqa: F811
    at = app("views/sell.py", query=LINK)
    assert not at.exception, at.exception
    sell = cli_json(sample_db, "sell", *GLM5, "--api", "GLM-5.2", "--licence-fee", "0.3")
    assert sell["headline"] in _text(at)
    table = at.dataframe[0].value
    for r in sell["rows"]:
        shown = table[(table["Series"] == r["series"]) & (table["Paid as"] == r["option"])].iloc[0]
        assert shown["Profit per GPU-hour"].startswith(f"${r['profit_per_gpu_hour']:,.2f} (")
        assert shown["Break-even utilisation"].startswith(f"{r['break_even_utilisation'] * 100:.1f}% (")
    at.text_input(key="util").input("0.8").run()
    assert not at.exception, at.exception and at.query_params["util"] == "0.8"
    moved = cli_json(sample_db, "sell", *GLM5, "--api", "GLM-5.2", "--licence-fee", "0.3", "--utilisation", "0.8")
    assert moved["headline"] in _text(at)
    # 80 (a percent typed in a share field) is refused in words, and the view keeps 0.8
    at.text_input(key="util").input("80").run()
    said = re.sub(r"\\(.)", r"\1", " ".join(e.value for e in at.warning))
    assert "'80' not applied: utilisation is a share of hours in (0, 1], e.g. 0.6 for 60 %" in said
    assert at.query_params["util"] == "0.8"


def test_the_cap_on_matched_interactivity_is_solves_answer(app, sample_db):  # noqa: F811
    at = app("views/matched_interactivity.py", query={"wl": "GLM-5|8192|1024", "cap": "0.5"})
    assert not at.exception, at.exception
    solve = cli_json(sample_db, "solve", "--where", "model=GLM-5", "--where", "isl=8192", "--where", "osl=1024",
                     "--max-usd-per-mtok", "0.5")
    assert solve["cap_text"] in _text(at)


def test_the_chargeback_page_splits_the_fleet_to_the_cent(app, sample_db):  # noqa: F811
    at = app("views/chargeback.py", query={"wl": "GLM-5|8192|1024", "x": "30", "tpm": "2e9",
                                           "ten": "acme:9e8:1e8,beta:3e8:2e8:1e8"})
    assert not at.exception, at.exception
    split = cli_json(sample_db, "size", *GLM5, "--volume", "2e9", "--tenants", "acme:9e8:1e8,beta:3e8:2e8:1e8")
    split = split["chargeback"]
    text = _text(at)
    assert split["text"] in text and f"add up to the fleet's: ${split['usd_per_month']:,.2f}" in text
    table = at.dataframe[0].value
    assert list(table["Tenant"]) == [t["tenant"] for t in split["tenants"]]


@pytest.mark.parametrize("page", ["views/sell.py", "views/chargeback.py"])
def test_the_pages_open_on_a_view_without_their_inputs(app, page):  # noqa: F811
    at = app(page, query={"wl": "GLM-5|8192|1024"})
    assert not at.exception, at.exception
