"""The bill by tenant before it exists (issue 52): the planned fleet's $ a month split by a trace's tenant column or a
typed table, as OpenCost proposes (prompt tokens × input $/M + completion tokens × output $/M), adding up to the
fleet's $ a month to the cent."""

from __future__ import annotations

import random

import pytest

from model.core.chargeback import TenantError, cents_adding_up, parse_tenants, split_cost
from tests.kit import cli, cli_json

GLM5 = ("--where", "model=GLM-5", "--where", "isl=8192", "--where", "osl=1024", "--x", "30")


def _trace(path, tenants=("acme", "beta", "gamma")):
    """Three minutes of requests, each tenant its own lengths: acme 8k/1k, beta 2k/500, gamma 512/2k."""
    lengths = {"acme": (8192, 1024), "beta": (2000, 500), "gamma": (512, 2048)}
    lines = ["timestamp,input_tokens,output_tokens,tenant"]
    for k in range(90):
        who = tenants[k % len(tenants)]
        lines.append(f"{k * 2},{lengths[who][0]},{lengths[who][1]},{who}")
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_traces_tenants_split_the_planned_fleet_to_the_cent(sample_db, tmp_path):
    trace = _trace(tmp_path / "trace.csv")
    got = cli_json(sample_db, "size", "--trace", trace, "--tenants", trace, *GLM5)
    split = got["chargeback"]
    cheapest = min((r for r in got["rows"] if r["nodes"]), key=lambda r: r["usd_per_month"])
    assert split["series"] == cheapest["series"] and split["usd_per_month"] == cheapest["usd_per_month"]
    cents = [round(t["usd_per_month"] * 100) for t in split["tenants"]]
    assert sum(cents) == round(cheapest["usd_per_month"] * 100)            # to the cent
    # each tenant: its tokens a month (its share of the fleet's) × the one price per token kind, to the cent
    tokens = sum(t["tokens"] for t in split["tenants"])
    assert tokens == pytest.approx(cheapest["tokens_per_month"])
    for t in split["tenants"]:
        exact = (t["input_tokens"] * split["usd_per_m_input"] + t["output_tokens"] * split["usd_per_m_output"]) / 1e6
        assert t["usd_per_month"] == pytest.approx(exact, abs=0.01)
        assert t["usd_per_mtok"] == pytest.approx(t["usd_per_month"] / t["tokens"] * 1e6)
    # the shares are the trace's: acme sent 30 × 9,216 tokens of 30 × (9,216 + 2,500 + 2,560)
    acme = next(t for t in split["tenants"] if t["tenant"] == "acme")
    assert acme["tokens"] / tokens == pytest.approx(9216 / (9216 + 2500 + 2560))
    assert split["usd_per_m_input"] == pytest.approx(0.25 * split["usd_per_m_output"])
    # the text prints the same, and says it adds up
    done = cli(sample_db, "size", "--trace", trace, "--tenants", trace, *GLM5)
    assert f"the tenants' $ a month add up to the fleet's: ${cheapest['usd_per_month']:,.2f}" in done.out


def test_a_typed_table_gives_the_same_split_as_the_trace(sample_db, tmp_path):
    trace = _trace(tmp_path / "trace.csv")
    typed = "acme:245760:30720,beta:60000:15000,gamma:15360:61440"     # the trace's sums, typed
    by_trace = cli_json(sample_db, "size", "--trace", trace, "--tenants", trace, *GLM5)["chargeback"]
    by_table = cli_json(sample_db, "size", "--trace", trace, "--tenants", typed, *GLM5)["chargeback"]
    assert by_table["tenants"] == by_trace["tenants"]


def test_cents_add_up_whatever_the_amounts():
    rng = random.Random(52)
    for _ in range(200):
        weights = [rng.random() ** 3 for _ in range(rng.randint(1, 41))]
        total = rng.uniform(0, 1e7)
        amounts = [w / sum(weights) * total for w in weights]
        cents = cents_adding_up(amounts, total)
        assert round(sum(c * 100 for c in cents)) == round(total * 100)
        assert all(abs(c - a) < 0.01 + 1e-9 for c, a in zip(cents, amounts))


def test_the_split_reconciles_with_opencosts_formula_at_its_fallback_multiplier():
    """OpenCost's fallback splits by a fixed multiplier (an output token 2.5 input tokens): w_input 0.4."""
    rows, prices = split_cost(parse_tenants("a:3e6:1e6,b:1e6:3e6"), 100.0, 8e6, w_input=0.4, w_cached=0.4)
    assert prices["usd_per_m_output"] == pytest.approx(2.5 * prices["usd_per_m_input"])
    assert sum(r["usd_per_month"] for r in rows) == pytest.approx(100.0)
    assert rows[0]["usd_per_month"] == pytest.approx((3 * prices["usd_per_m_input"] + prices["usd_per_m_output"]), abs=0.01)


@pytest.mark.parametrize("bad, words", [("acme:9e8", "NAME:INPUT:OUTPUT"), ("acme:x:1", "not a number"),
                                        ("acme:1:1,ACME:2:2", "named once"), ("a:1:1:5", "part of its input"),
                                        ("a:-1:1", "from 0 to 1e21"), ("a:0:0", "no tokens")])
def test_a_bad_tenant_table_is_refused_in_words(bad, words):
    with pytest.raises(TenantError, match=words):
        parse_tenants(bad)


def test_a_trace_without_a_tenant_column_is_refused(sample_db, tmp_path):
    trace = tmp_path / "plain.csv"
    trace.write_text("timestamp,input_tokens,output_tokens\n0,100,10\n1,100,10\n")
    done = cli(sample_db, "size", "--trace", trace, "--tenants", trace, *GLM5)
    assert done.code == 2 and "no column tenant or user or workload or namespace" in done.err
