"""End to end (issue 28, numbers as people type them): Debian's Chromium against the shared samples server.

A rate typed as ``1,61`` is $1.61 (never $161), and the page's $/M equals ``costfrontier iso`` on the page's link;
``1,480`` and ``abc`` are refused with a notice quoting them; a rate 90× its preset (MI355X's $1.48, InferenceX
2025-08) is held until confirmed; 0.7 in the TCO builder's utilisation % box is questioned, not saved as 0.7 %;
2e12 tokens a month is a volume (the verdict equals ``costfrontier volume``) and -1 is refused quoting it; a demand
that needs more than 1,000 nodes is held until confirmed, with the node count the CLI gives.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from model.core.view import View
from model.present.figures import usd
from tests.test_e2e import CHROMIUM, _cli, _main, _open, _query, _settle, _shows, edit_rate_cell

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian's chromium (apt-get install chromium)"),
]

VIEW = "wl=GLM-5|8192|1024&spec=mtp&by=hardware&x=40"
CLI_VIEW = ("--by", "hardware", "--where", "spec_decoding=mtp", "--where", "model=GLM-5", "--at", "40")


def _words(text: str) -> str:
    return " ".join(text.replace("\\", "").split())


def _alerts(page) -> list[str]:
    return [_words(t) for t in page.locator("[data-testid=stAlert]").all_inner_texts()]


def _until(page, check, what: str, timeout_s: float = 20):
    deadline = time.time() + timeout_s
    while True:
        found = check()
        if found or time.time() > deadline:
            assert found, (what, _alerts(page), _main(page)[:1500])
            return found
        page.wait_for_timeout(250)


def _type(page, box, text: str) -> None:
    box.fill(text)
    box.press("Enter")
    page.wait_for_timeout(800)
    _settle(page)


def _alert(page, *words: str) -> str:
    return _until(page, lambda: next((a for a in _alerts(page) if all(w in a for w in words)), None), words)


def test_rates_typed_in_the_sidebar(server, browser):
    base, db = server
    page = _open(browser, f"{base}/Matched_interactivity?{VIEW}")
    b200 = page.get_by_role("textbox", name="B200 exact [$/GPU-hour]")
    _type(page, b200, "1,48")                                 # the slip: $1.48, never $148
    page.wait_for_function("() => decodeURIComponent(location.search).includes('r=B200:1.48')", timeout=15_000)
    assert "$1.48" in page.locator("[data-testid=stSidebar] [data-testid=stSlider]").filter(has_text="B200")\
        .inner_text()
    _type(page, b200, "")                                     # empty: back to the preset
    page.wait_for_function("() => !location.search.includes('r=')", timeout=15_000)
    box = page.get_by_role("textbox", name="MI355X exact [$/GPU-hour]")
    _type(page, box, "1,61")                                  # a decimal comma: $1.61, never $161
    page.wait_for_function("() => location.search.includes('r=MI355X')", timeout=15_000)
    assert "r=MI355X:1.61" in _query(page)
    assert box.input_value() == "1.61"
    cli = _cli(db, "iso", "--link", page.url)
    assert cli["usd_per_gpu_hour"]["MI355X"] == 1.61
    _shows(page, *(usd(r["usd_per_mtok"]) for r in cli["rows"]))   # the page's $/M are the CLI's
    at_40 = {r["series"]: r["usd_per_mtok"] for r in cli["rows"] if r["interactivity"] == 40}
    typed = _cli(db, "iso", *CLI_VIEW, "--rate", "MI355X=1.61")["rows"]
    assert at_40 == {r["series"]: r["usd_per_mtok"] for r in typed} and len(at_40) == 2

    for typed, words in (("1,480", "is ambiguous"), ("abc", "not a number"), ("1000.01", "at most $1,000/GPU-hour"),
                         ("0", "at least $0.0001")):
        _type(page, box, typed)
        _alert(page, f"'{typed}' not applied", words)             # the refusal quotes what was typed and the limit
        assert "r=MI355X:1.61" in _query(page)

    _type(page, box, "133.2")                                  # 90x the preset: asked, not applied
    asked = _alert(page, "Not applied yet", "90× its preset ($1.48)", "'133.2'")
    assert "MI355X at $133.20/GPU-hour" in asked
    assert "r=MI355X:1.61" in _query(page)
    page.locator("[data-testid=stSidebar]").get_by_role("button", name="Apply 133.2").click()
    page.wait_for_function("() => decodeURIComponent(location.search).includes('MI355X:133.2')", timeout=15_000)
    _settle(page)
    assert not page.locator("[data-testid=stException]").count()
    page.close()


def _link_view(page) -> View:
    return View.from_query(parse_qs(urlsplit(page.url).query, keep_blank_values=True))[0]


def test_the_tco_builder_starts_from_the_hardware_in_view_and_questions_a_fraction(server, browser):
    base, db = server
    page = _open(browser, f"{base}/TCO_builder?{VIEW}")
    cheapest = min(_cli(db, "iso", *CLI_VIEW)["rows"], key=lambda r: r["usd_per_mtok"])["series"]
    form = page.locator("[data-testid=stForm]").filter(has_text="Server price per node")
    named = form.get_by_role("textbox", name="Profile name").get_attribute("placeholder")
    assert cheapest == "MI355X" and named == "MI355X on-prem 5y"      # the form is the cheapest series' hardware
    form.get_by_role("textbox", name="Profile name").fill("MI355X on-prem")
    form.get_by_role("textbox", name="Server price per node [$]").fill("300,000.00")
    util = form.get_by_role("textbox", name="Utilisation [% of hours billable]")
    util.fill("150")
    form.get_by_role("button", name="Add to this view and price with it").click()
    _alert(page, "'150' not applied", "at most 100 %")
    assert "prof=" not in page.url

    util.fill("0,7")
    power = form.get_by_role("textbox", name="All-in power per node [kW] (instead of per GPU)")
    power.fill("12")                                           # a quote's node kW: 1.5 kW per GPU on 8 GPUs
    form.get_by_role("button", name="Add to this view and price with it").click()
    _alert(page, "Not saved yet", "0.7 % is 1 % or less", "Did you mean 70 %?")
    assert "prof=" not in page.url
    page.get_by_role("button", name="Save with 70 %").click()
    page.wait_for_function("() => location.search.includes('use=')", timeout=20_000)
    _settle(page)
    state = _link_view(page)
    (profile,) = state.cost_profiles()
    assert profile.hardware == "MI355X" and profile.onprem.utilization == pytest.approx(0.7)
    assert profile.onprem.kw_per_gpu == pytest.approx(1.5) and profile.onprem.server_usd == 300000
    _alert(page, "MI355X is now priced by it on every page")
    cli = _cli(db, "iso", "--link", page.url)
    assert cli["usd_per_gpu_hour"]["MI355X"] == pytest.approx(profile.rate())
    page.close()


def test_a_profile_priced_rate_is_read_only_and_the_notice_is_true(server, browser):
    base, _ = server
    page = _open(browser, f"{base}/TCO_builder?{VIEW}&hw=MI355X")
    page.get_by_text("A quoted rate (cloud, reserved, neocloud)").click()
    page.wait_for_timeout(500)
    form = page.locator("[data-testid=stForm]").filter(has_text="$/GPU-hour")
    form.locator("[data-testid=stSelectbox]").click()
    page.keyboard.type("H200")
    page.keyboard.press("Enter")
    form.get_by_role("textbox", name="$/GPU-hour").fill("2,10")
    form.get_by_role("button", name="Add").click()
    page.wait_for_function("() => location.search.includes('use=')", timeout=20_000)
    _settle(page)
    said = _alert(page, "Cost profile 'H200 quote' added at $2.10/GPU-hour")
    assert "no series in view runs on H200" in said and "now priced by it" not in said
    page.close()


def test_a_rate_cell_a_profile_prices_is_not_edited(server, browser):
    from model.core.cost_profiles import CostProfile, profiles_to_text

    base, _ = server
    profile = profiles_to_text([CostProfile(name="B200 quote", hardware="B200", usd_per_gpu_hour=2.0)])
    page = _open(browser, f"{base}/TCO_rates?spec=mtp&prof={profile}&use=B200 quote")
    grid = page.locator("[data-testid=stDataFrame]").first
    words = ("'9' not applied", "B200 is priced by the cost profile 'B200 quote'")
    said = edit_rate_cell(page, grid, "9", lambda s: _until(
        page, lambda: next((a for a in _alerts(page) if all(w in a for w in words)), None), words, timeout_s=s),
        timeouts_s=(10, 10, 20))
    assert "TCO builder" in said
    assert "&r=" not in _query(page) and "use=B200" in _query(page)
    page.close()


def test_volume_and_demand_as_typed(server, browser):
    base, db = server
    page = _open(browser, f"{base}/Buy_rent_or_API?{VIEW}&hw=MI355X&apiusd=1.4,0.26,4.4")
    volume = page.get_by_role("textbox", name="Volume [tokens per month]")
    _type(page, volume, "-1")
    _alert(page, "'-1' not applied", "at least 1 and at most 1e18 tokens a month")
    assert "tpm=" not in page.url
    _type(page, volume, "2,000,000,000,000")                  # a provider's volume, 2e12
    page.wait_for_function("() => location.search.includes('tpm=2e12')", timeout=15_000)
    _settle(page)
    verdict = _until(page, lambda: next((a for a in _alerts(page) if "is cheapest" in a), None), "the verdict")
    assert verdict == _cli(db, "volume", "--link", page.url)["verdict"]
    assert verdict.startswith("At 2,000.00 B total tokens a month")
    page.close()

    page = _open(browser, f"{base}/Fleet?{VIEW}")
    rps = page.get_by_role("textbox", name="Peak demand [req/s]")
    _type(page, rps, "100000")
    asked = _alert(page, "Not applied yet", "this demand needs at least", "fleets of more than 1,000 nodes")
    assert "rps=" not in page.url
    size = _cli(db, "size", *CLI_VIEW[:-2], "--interactivity", "40", "--demand-rps", "100000")
    smallest = min(r["nodes"] for r in size["rows"] if r["nodes"])
    assert f"at least {smallest:,} nodes" in asked, (asked, smallest)
    page.get_by_role("button", name="Apply 100000").click()
    page.wait_for_function("() => location.search.includes('rps=100000')", timeout=15_000)
    _settle(page)
    assert re.search(r"[\d,]+ nodes", _main(page))
    page.close()


def test_a_fleet_sized_at_a_customers_pue_opens_from_its_link_as_sized(server, browser):
    """``size --pue 1.4 --rack-kw 40 --gpus-per-node 4 --json`` prints a link; opened on Fleet, the page shows the
    same nodes, GPUs, kW and $/month (the fleet settings are the view's: issue 39), with the settings in its boxes."""
    base, db = server
    size = _cli(db, "size", *CLI_VIEW[:-2], "--interactivity", "40", "--peak-rps", "5", "--pue", "1.4", "--rack-kw",
                "40", "--gpus-per-node", "4")
    link = urlsplit(size["link"])
    assert link.path == "/Fleet" and {"pue": ["1.4"], "rack": ["40"], "gpn": ["4"]}.items() <= \
        parse_qs(link.query).items()
    page = _open(browser, f"{base}/Fleet?{link.query}")
    _shows(page, *size["sentences"])                          # nodes, GPUs, kW and $/month as sized, per series
    page.get_by_text("How the fleet is sized").click()
    _settle(page)
    assert page.get_by_role("textbox", name="PUE").input_value() == "1.4"
    assert page.get_by_role("textbox", name="IT power per rack [kW]").input_value() == "40"
    page.close()
