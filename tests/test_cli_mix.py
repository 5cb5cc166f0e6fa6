"""``costfrontier mix`` (issue 43): the cheapest mix of GPU types for a request mix, text and ``--json``.

The bundled samples hold one GLM-5 workload (8192/1024, B200 and MI355X), so they cannot show two buckets each
cheapest on its own hardware; ``tests/fixtures/mix/two_workloads_synthetic.csv`` is SYNTHETIC (made up for this
test, no benchmark): two workloads (1024/256 and 8192/1024) on H100 and H200, each series a point at 64 tok/s/user
and one at 32. At 50 tok/s/user one node (8 GPUs) carries, on total tokens:

- 1024/256: 12,800 tok/s/GPU × 8 / 1,280 tokens = 80 req/s on either;
- 8192/1024: H100 9,216 × 8 / 9,216 = 8 req/s; H200 27,648 × 8 / 9,216 = 24 req/s.

At $2 and $3 a GPU-hour a node costs 8 × 2 × 730 = $11,680 (H100) and $17,520 (H200) a month.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlencode

import pytest

from tests.kit import cli, cli_json

SYNTHETIC = Path(__file__).resolve().parent / "fixtures" / "mix" / "two_workloads_synthetic.csv"
VIEW = ["--interactivity", "50", "--rate", "H100=2", "--rate", "H200=3"]
H100_NODE, H200_NODE = 8 * 2 * 730, 8 * 3 * 730


@pytest.fixture
def synthetic_db(tmp_path) -> Path:
    db = tmp_path / "mix.duckdb"
    assert cli(db, "ingest", SYNTHETIC).code == 0
    return db


def _json(db, *argv) -> dict:
    return cli_json(db, "mix", *argv)


def test_each_type_serves_the_bucket_it_is_cheapest_for(synthetic_db):
    """160 req/s, 90 % short: 144 short and 16 long req/s. H100 alone: 144/80 + 16/8 = 3.8 → 4 nodes, $46,720;
    H200 alone: 144/80 + 16/24 = 2.47 → 3 nodes, $52,560. 2 H100 carry the short (1.8 nodes) and 1.6 long req/s
    (the other 0.2 nodes × 8), 1 H200 the other 14.4 long (0.6 of a node): $23,360 + $17,520 = $40,880, $5,840
    (12.5 %) less than H100 alone. 1 H100 + 2 H200 ($46,720) and 3 H100 + 1 H200 ($52,560) cost more."""
    out = _json(synthetic_db, "--mix", "1024:256:0.9,8192:1024:0.1", "--peak-rps", "160", *VIEW)
    assert out["status"] == "optimal" and out["status_text"] == "optimal (HiGHS, proven cheapest)"
    assert {r["type"]: r["nodes"] for r in out["fleet"]} == {"H100": 2, "H200": 1}
    assert out["usd_per_month"] == pytest.approx(2 * H100_NODE + H200_NODE) == 40_880
    assert {r["type"]: r["usd_per_month"] for r in out["single"]} == pytest.approx({"H100": 46_720, "H200": 52_560})
    assert out["best_single"] == "H100" and out["saving_usd_per_month"] == pytest.approx(5_840)
    assert out["saving_pct"] == pytest.approx(0.125) and out["mix_pays"]
    served = {(r["label"], r["type"]): r["peak_rps"] for r in out["assignment"]}
    assert served == pytest.approx({("1024/256", "H100"): 144, ("8192/1024", "H100"): 1.6,
                                    ("8192/1024", "H200"): 14.4})
    # the capacities are the measured points, and say so
    caps = {(m["label"], m["type"]): m["per_node_rps"] for m in out["matches"]}
    assert caps == pytest.approx({("1024/256", "H100"): 80, ("1024/256", "H200"): 80, ("8192/1024", "H100"): 8,
                                  ("8192/1024", "H200"): 24})
    assert all(m["factor"] == 1 and "(measured)" in m["note"] for m in out["matches"])
    # flat demand: mean = peak; H200 carries 14.4 of its 24 req/s
    assert {r["type"]: r["utilization"] for r in out["fleet"]} == pytest.approx({"H100": 1.0, "H200": 0.6})
    tokens = 160 * (0.9 * 1_280 + 0.1 * 9_216) * 730 * 3600
    assert out["tokens_per_month"] == pytest.approx(tokens)
    assert out["effective_usd_per_mtok"] == pytest.approx(40_880 / (tokens / 1e6))
    assert out["view"]["rmix"] == "1024:256:0.9,8192:1024:0.1" and out["where"] == {"model": ["SYN-1"]}
    assert any("routed to any GPU type" in n for n in out["notes"])
    # the crossover along the mix: all short is H100 alone (2 nodes), 10 % long is where the mix starts to pay
    rows = {round(r["long_share"], 2): r for r in out["crossover"]["rows"]}
    assert rows[0.0]["mix_usd_per_month"] == rows[0.0]["best_single_usd_per_month"] == 2 * H100_NODE
    assert rows[0.1]["saving_usd_per_month"] == pytest.approx(5_840)
    assert out["crossover"]["text"].startswith("a mix starts to pay at 10% long requests (H100 alone below)")

    code, text, _ = cli(synthetic_db, "mix", "--mix", "1024:256:0.9,8192:1024:0.1", "--peak-rps", "160", *VIEW)
    assert code == 0
    assert ("A mix of 2 H100 + 1 H200 nodes costs $40,880 a month: $5,840 (12.5%) less than the best single type, "
            "H100 alone ($46,720).") in text
    assert "solver: optimal (HiGHS, proven cheapest)" in text and "crossover along the mix: a mix starts" in text


def test_a_type_that_dominates_is_the_answer_alone(synthetic_db):
    """At $1.50 an H200 node ($8,760) is cheaper than an H100 ($11,680) and carries as much or more of each bucket:
    H200 alone, 144/80 + 16/24 = 2.47 → 3 nodes, $26,280; filling with H100 cannot help (2 H200 + 1 H100 is
    $29,200)."""
    out = _json(synthetic_db, "--mix", "1024:256:0.9,8192:1024:0.1", "--peak-rps", "160",
                "--interactivity", "50", "--rate", "H100=2", "--rate", "H200=1.5")
    assert {r["type"]: r["nodes"] for r in out["fleet"]} == {"H200": 3}
    assert out["usd_per_month"] == pytest.approx(3 * 8 * 1.5 * 730) and not out["mix_pays"]
    assert out["saving_usd_per_month"] == 0 and out["best_single"] == "H200"
    assert out["verdict"] == "No mix beats H200 alone: 3 H200 nodes, $26,280 a month."


def test_a_trace_bucket_no_hardware_measured_is_named_and_the_rest_is_covered(synthetic_db, tmp_path):
    """600 requests over 10 minutes (1 req/s in each 5-minute window): 480 of 8,000 + 1,000 tokens and 120 of
    100,000 + 500. The long-context bucket (ISL ≥ 16,384) is ×12.2 from the nearest measured 8192/1024: not
    measured. The other, 0.8 req/s at 8192/1024, takes one H100 node (0.1 of it) for $11,680."""
    trace = tmp_path / "agents.csv"
    rows = ["timestamp,input_tokens,output_tokens"]
    rows += [f"{i},{100_000 if i % 5 == 0 else 8_000},{500 if i % 5 == 0 else 1_000}" for i in range(600)]
    trace.write_text("\n".join(rows))
    out = _json(synthetic_db, "--trace", str(trace), *VIEW)
    assert out["request_mix"]["source"] == "trace agents.csv: 600 requests"
    assert out["request_mix"]["isl_edges"] == [1024, 4096, 16384] and out["request_mix"]["osl_edges"] == [256, 1024]
    assert out["view"]["rmix"] == "8000:1000:0.8,100000:500:0.2"
    missing = [b for b in out["buckets"] if not b["measured"]]
    assert [(b["label"], b["isl"], b["osl"], b["share"]) for b in missing] == [
        ("ISL ≥16,384 · OSL 256–1,023", 100_000, 500, pytest.approx(0.2))]
    assert "nearest measured 8192/1024 is ×12.2 away (more than ×2)" in missing[0]["note"]
    assert any("ISL ≥16,384 · OSL 256–1,023 (20.0% of requests); the fleet covers the rest, 80.0% of requests" in n
               for n in out["notes"])
    assert out["covered_share"] == pytest.approx(0.8)
    assert {r["type"]: r["nodes"] for r in out["fleet"]} == {"H100": 1} and out["usd_per_month"] == H100_NODE
    assert "for the 80.0% of requests measured" in out["verdict"]
    (served,) = [b for b in out["buckets"] if b["measured"]]
    assert served["peak_rps"] == pytest.approx(0.8) and "ISL ×0.977, OSL ×0.977 of the measured" in served["note"]


def test_limits_that_cannot_be_met_say_how_much_they_carry(synthetic_db):
    """One node of each: H200 takes the 16 long req/s (0.67 of a node) and 80 × 0.33 short, H100 80 short; in
    fractions of a node they carry at most θ = 160 / (144 + 16 × 80 / 24) = 81.1 % of the peak."""
    out = _json(synthetic_db, "--mix", "1024:256:0.9,8192:1024:0.1", "--peak-rps", "160", *VIEW,
                "--max-nodes", "H100=1", "--max-nodes", "h200=1")
    assert out["status"] == "infeasible" and out["fleet"] == [] and out["usd_per_month"] is None
    assert f"at most {160 / (144 + 16 * 80 / 24):.1%} of the peak" in out["status_text"]
    assert out["verdict"].startswith("No mix serves this demand: infeasible:")
    # a limit that leaves room: H200 at most 1 node still gives the $40,880 mix
    out = _json(synthetic_db, "--mix", "1024:256:0.9,8192:1024:0.1", "--peak-rps", "160", *VIEW,
                "--max-nodes", "H200=1")
    assert out["usd_per_month"] == 40_880 and "limits: H200 at most 1 node" in out["notes"]


def test_one_bucket_on_the_samples_sizes_each_type_as_size_does(sample_db):
    """GLM-5 8192/1024 at 40 tok/s/user, 10 req/s at peak, 80 % of them measured (8 req/s): each type alone is the
    fleet ``size`` buys for 8 req/s, and a mix fills MI355X's last part-used node with B200s. 500/100 is ×16.4
    from the one measured workload: named, not measured."""
    sized = {r["hardware"]: r for r in cli_json(sample_db, "size", "--peak-rps", "8", "--interactivity", "40")["rows"]
             if r["series"].endswith("mtp · GLM-5 · ISL 8192 · OSL 1024")}
    out = _json(sample_db, "--mix", "8192:1024:0.8,500:100:0.2", "--peak-rps", "10", "--interactivity", "40")
    alone = {r["type"]: r for r in out["single"]}
    for hw in ("B200", "MI355X"):
        assert alone[hw]["nodes"] == sized[hw]["nodes"]
        assert alone[hw]["usd_per_month"] == pytest.approx(sized[hw]["usd_per_month"])
    assert (alone["B200"]["nodes"], alone["MI355X"]["nodes"]) == (10, 11)
    # 3 B200 nodes carry 3 × their req/s, the rest fills 7 MI355X nodes: cheaper than 11 MI355X by the difference
    b200, mi355x = sized["B200"], sized["MI355X"]
    rest = (8 - 3 * b200["per_node_rps"]) / mi355x["per_node_rps"]
    assert 6 < rest <= 7
    assert {r["type"]: r["nodes"] for r in out["fleet"]} == {"B200": 3, "MI355X": 7}
    assert out["usd_per_month"] == pytest.approx(3 * 8 * 1.95 * 730 + 7 * 8 * 1.48 * 730)
    assert out["saving_usd_per_month"] == pytest.approx(mi355x["usd_per_month"] - out["usd_per_month"])
    assert [b["label"] for b in out["buckets"] if not b["measured"]] == ["500/100"]
    assert out["covered_share"] == pytest.approx(0.8)
    assert out["crossover"]["text"] == "one measured bucket: no crossover along the mix"


def test_the_views_link_gives_the_same_answer(synthetic_db):
    out = _json(synthetic_db, "--mix", "1024:256:0.9,8192:1024:0.1", "--peak-rps", "160", *VIEW)
    again = _json(synthetic_db, "--link", f"http://dashboard/?{urlencode(out['view'])}")
    for key in ("fleet", "usd_per_month", "single", "assignment", "effective_usd_per_mtok", "view"):
        assert again[key] == out[key], key
    # issue 50: --json prints the view's share link (docs/numbers/mix.md says so): the GPU mix page of this view,
    # its mix and demand in it, and it gives the same answer
    assert "/GPU_mix?" in out["link"] and "rmix=1024:256:0.9,8192:1024:0.1" in out["link"] and "rps=160" in out["link"]
    linked = _json(synthetic_db, "--link", out["link"])
    for key in ("fleet", "usd_per_month", "single", "assignment", "effective_usd_per_mtok", "view", "link"):
        assert linked[key] == out[key], key


@pytest.mark.parametrize("argv, words", [
    (["--peak-rps", "10"], "mix needs a request mix: --mix ISL:OSL:SHARE,..."),
    (["--mix", "8192:1024:1"], "mix needs a demand"),
    (["--mix", "1024:256:70,8192:1024:30", "--peak-rps", "1"], "--mix: '1024:256:70': share '70' must be a fraction"),
    (["--mix", "8192:1024:1", "--peak-rps", "1", "--max-nodes", "H300=2"], "mix: max nodes: no type 'H300'"),
    (["--mix", "8192:1024:1", "--peak-rps", "1", "--isl-edges", "1000"], "--isl-edges and --osl-edges bucket a"),
    (["--trace", "no-such.csv", "--peak-rps", "1"], "--trace: no trace file 'no-such.csv'"),
    (["--mix", "8192:1024:1", "--peak-rps", "1", "--where", "model=GLM-5", "--where", "model=GLM-5.2"],
     "mix: a mix compares the workloads of one model"),
])
def test_a_mix_that_cannot_be_answered_is_a_usage_error(sample_db, argv, words):
    code, _, err = cli(sample_db, "mix", *argv)
    assert code == 2
    assert err.startswith(f"error: {words}") and "Traceback" not in err, err


def test_a_mix_nothing_measured_says_so_and_too_large_a_mix_names_the_gpu(sample_db):
    """``--mix 1:1:1``: nothing measured near 1/1 tokens: its reason, then no pandas ``Empty DataFrame`` text; a
    demand of 1e9 req/s is too large to mix from, said naming the GPU (MI355X), never "type 2"."""
    code, out, err = cli(sample_db, "mix", "--mix", "1:1:1", "--demand-rps", "10")
    assert code == 0 and "No answer: no priced type has measured any bucket of this mix" in out
    assert "Empty DataFrame" not in out and "Columns:" not in out and "Index: []" not in out, out
    assert "each type alone:\n(none: no type was sized)" in out
    assert out.rstrip().endswith("crossover along the mix: none: nothing was solved")
    code, out, err = cli(sample_db, "mix", "--mix", "1024:256:0.7,8192:1024:0.3", "--demand-rps", "1e9")
    assert code == 2 and err.startswith("error: MI355X would need 286,069,035 nodes for the whole demand"), err
    assert "type 2" not in err
