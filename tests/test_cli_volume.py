"""``costfrontier volume`` (issue 20) on the bundled samples: the issue's worked example is the oracle.

Bundled GLM-5 FP8 MTP 8k/1k, 50 tok/s/user needed, MI355X at the 2025-08 owning_hyperscaler preset
($1.48/GPU-hour): one node $8,643.20 a month, 19.17 B tokens a month at most; API GLM-5.2 $1.7333/M;
owning beats the API above 4.99 B tokens a month; at 2 B a month owning costs $4.32/M.
"""

from __future__ import annotations

import pytest

from tests.kit import cli, cli_json

WORKED = ["volume", "--tokens-per-month", "2e9", "--interactivity", "50", "--where", "model=GLM-5", "--where",
          "isl=8192", "--where", "osl=1024", "--where", "spec_decoding=mtp", "--where", "hardware=MI355X",
          "--by", "hardware"]


def test_worked_example_from_the_command_line(sample_db):
    out = cli_json(sample_db, *WORKED, "--rent", "MI355X=2.10")
    options = {o["option"]: o for o in out["options"]}
    owned, api = options["owned MI355X"], options["API GLM-5.2 (Z.ai)"]
    assert owned["usd_per_month"] == pytest.approx(8 * 1.48 * 730)
    assert owned["nodes"] == 1 and owned["utilization"] == pytest.approx(2e9 / (911.7 * 8 * 3600 * 730))
    assert round(owned["effective_usd_per_mtok"], 2) == 4.32
    assert api["effective_usd_per_mtok"] == pytest.approx(8 / 9 * 1.40 + 1 / 9 * 4.40) and api["nodes"] is None
    assert out["cheapest"] == "API GLM-5.2 (Z.ai)"
    assert "closest priced model by name" in out["api"]["matched"]      # GLM-5 rows, GLM-5.2 price: said
    evens = {(b["cheaper"], b["than"]): b for b in out["break_evens"]}
    owned_vs_api = evens[("owned MI355X", "API GLM-5.2 (Z.ai)")]
    assert owned_vs_api["above_tokens_per_month"] == pytest.approx(8643.2 / (8 / 9 * 1.40 + 1 / 9 * 4.40) * 1e6)
    assert "above 4.99 B tokens a month" in owned_vs_api["text"]
    rented = options["rented MI355X, reserved"]
    assert rented["usd_per_month"] == pytest.approx(8 * 2.10 * 730)
    assert evens[("owned MI355X", "rented MI355X, reserved")]["intervals"] == [[0.0, None]]
    assert out["verdict"].startswith("At 2.00 B total tokens a month (full cost), API GLM-5.2 (Z.ai) is cheapest")


def test_custom_prices_cache_hits_on_demand_and_the_link(sample_db):
    out = cli_json(sample_db, *WORKED, "--api-usd", "1,0.1,2", "--cache-hit", "0.5",
                   "--rent", "MI355X=1.2", "--on-demand", "--min-nodes", "2", "--peak-to-average", "3")
    options = {o["option"]: o for o in out["options"]}
    assert options["API custom prices"]["effective_usd_per_mtok"] == pytest.approx(
        (8192 * 0.5 * 1 + 8192 * 0.5 * 0.1 + 1024 * 2) / 9216)
    on_demand = options["rented MI355X, on demand (at least 2 nodes kept up)"]
    assert on_demand["nodes"] == 2 and on_demand["usd_per_month"] == pytest.approx(2 * 8 * 1.2 * 730)
    assert out["view"]["od"] == "1" and out["view"]["apiusd"] == "1,0.1,2" and out["view"]["pta"] == "3"
    link = "http://localhost:8501/Buy_rent_or_API?" + "&".join(f"{k}={v}" for k, v in out["view"].items())
    again = cli_json(sample_db, "volume", "--link", link)
    assert again["options"] == out["options"] and again["break_evens"] == out["break_evens"]


def test_marginal_lens_and_bad_input_are_named(sample_db):
    out = cli_json(sample_db, *WORKED, "--lens", "marginal")
    owned = next(o for o in out["options"] if o["kind"] == "owned")
    assert "no build-up to split" in owned["detail"] and out["lens"] == "marginal"
    assert "marginal lens" in out["verdict"]
    for bad, words in ((["--api-usd", "1,2"], "--api-usd"), (["--cache-hit", "2"], "cache-hit"),
                       (["--rent", "MI355X=abc"], "--rent"), (["--tokens-per-month", "-5"], "tokens")):
        code, _, err = cli(sample_db, *WORKED, *bad)
        assert code == 2
        assert words in err and "Traceback" not in err, err
    code, _, err = cli(sample_db, "volume", "--where", "model=GLM-5")
    assert code == 2
    assert "--tokens-per-month" in err
    out = cli_json(sample_db, *WORKED, "--api", "Nope-1")
    assert out["api"] is None and any("no stored API price for 'Nope-1'" in n for n in out["notes"])


def test_report_of_the_view_has_the_same_section(sample_db, tmp_path):
    out = cli_json(sample_db, *WORKED)
    html = tmp_path / "r.html"
    assert cli(sample_db, "report", "--link",
               "http://localhost:8501/Buy_rent_or_API?" + "&".join(f"{k}={v}" for k, v in out["view"].items()),
               "--out", html).code == 0
    import html as h

    text = h.unescape(html.read_text())
    section = text[text.index("id=volume-section"):]
    assert out["verdict"] in section
    assert all(b["text"] in section for b in out["break_evens"])
    assert "owned MI355X costs less than API GLM-5.2 (Z.ai) above 4.99 B tokens a month" in section
