"""The cheapest mix of GPU types (model.core.mix, model.core.mix_solve; issue 43).

Oracle: an exhaustive search over whole nodes per type (every count up to the count that serves the whole demand
alone), each count checked by a linear program for whether the shares can be split; its cheapest feasible cost
must equal the integer program's in every seeded random case. Hand-computed cases say their arithmetic.
"""

from __future__ import annotations

import itertools
import math
import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

from model.core.mix import MATCH_FACTOR, MixLimits, cheapest_mix, distance_factor, long_buckets, match_buckets
from model.core.mix_solve import single_type, solve_mix
from model.core.request_mix import MixError, mix_of_requests, mix_of_rows, parse_edges, parse_mix
from model.core.tco import HOURS_PER_MONTH
from model.core.trace import Requests
from model.data.trace_files import mix_of_trace, trace_and_mix

# ------------------------------------------------------------------------------------------ the oracle

def _shares_fit(cap, r, working, headroom) -> bool:
    """Can every bucket be split over the types so each type's peak load fits its working nodes? (an LP)"""
    n_t, n_b = cap.shape
    a_eq = np.zeros((n_b, n_t * n_b))
    for b in range(n_b):
        a_eq[b, np.arange(n_t) * n_b + b] = 1.0
    a_ub = np.zeros((n_t, n_t * n_b))
    for t in range(n_t):
        a_ub[t, t * n_b:(t + 1) * n_b] = np.where(cap[t] > 0, r * headroom / np.where(cap[t] > 0, cap[t], 1), 0)
    bounds = [(0, 1 if cap[t, b] > 0 else 0) for t in range(n_t) for b in range(n_b)]
    done = linprog(np.zeros(n_t * n_b), A_ub=a_ub, b_ub=np.array(working, float) + 1e-9, A_eq=a_eq,
                   b_eq=np.ones(n_b), bounds=bounds, method="highs")
    return done.status == 0


def brute_force(cap, r, c, headroom=1.0, spares=0, max_nodes=None) -> float:
    """The cheapest whole nodes per type, by trying every count (cheapest first) until one can carry the load."""
    n_t = cap.shape[0]
    most = [math.ceil(round(sum(r[b] * headroom / cap[t, b] for b in range(len(r)) if cap[t, b] > 0), 9))
            for t in range(n_t)]
    options = []
    for working in itertools.product(*(range(m + 1) for m in most)):
        nodes = [w + spares if w else 0 for w in working]
        if max_nodes is not None and any(n > m for n, m in zip(nodes, max_nodes)):
            continue
        options.append((float(np.dot(c, nodes)), working))
    for cost, working in sorted(options):
        if _shares_fit(cap, r, working, headroom):
            return cost
    return math.nan


def _case(seed: int):
    rng = np.random.default_rng(seed)
    n_t, n_b = int(rng.integers(2, 4)), int(rng.integers(2, 5))
    cap = rng.uniform(0.5, 12, size=(n_t, n_b)).round(2)
    cap[rng.random((n_t, n_b)) < 0.2] = 0.0            # some types cannot serve some buckets
    for b in range(n_b):                                  # ... but every bucket has one that can
        if not (cap[:, b] > 0).any():
            cap[rng.integers(n_t), b] = rng.uniform(0.5, 12)
    r = rng.uniform(0.5, 15, size=n_b).round(2)
    c = rng.uniform(5_000, 40_000, size=n_t).round(0)
    headroom = float(rng.choice([1.0, 1.2]))
    spares = int(rng.choice([0, 0, 1]))
    return cap, r, c, headroom, spares


@pytest.mark.parametrize("seed", range(40))
def test_the_program_finds_the_exhaustive_searchs_cheapest(seed):
    cap, r, c, headroom, spares = _case(seed)
    solved = solve_mix(cap, r, c, headroom=headroom, spares=spares)
    assert solved.status == "optimal"
    assert solved.usd_per_month == pytest.approx(brute_force(cap, r, c, headroom, spares), rel=1e-9)
    # the nodes it reports carry the load it assigns, counted as fleet sizing counts them
    load = (solved.shares * np.where(cap > 0, r * headroom / np.where(cap > 0, cap, 1), 0)).sum(axis=1)
    assert all(w >= v - 1e-9 for w, v in zip(solved.working, load))
    assert np.allclose(solved.shares.sum(axis=0), 1.0)


@pytest.mark.parametrize("seed", range(40, 52))
def test_with_nodes_available_the_program_still_matches_the_search(seed):
    cap, r, c, headroom, spares = _case(seed)
    alone = [single_type(cap, r, c, t, headroom=headroom, spares=spares).nodes[t] for t in range(len(c))]
    max_nodes = [max(1, math.ceil(n * 0.6)) for n in alone]      # no type alone has enough nodes
    solved = solve_mix(cap, r, c, headroom=headroom, spares=spares, max_nodes=max_nodes)
    expected = brute_force(cap, r, c, headroom, spares, max_nodes)
    if math.isnan(expected):
        assert solved.status == "infeasible" and solved.text.startswith("infeasible: the limits given")
    else:
        assert solved.status == "optimal" and solved.usd_per_month == pytest.approx(expected, rel=1e-9)
        assert all(n <= m for n, m in zip(solved.nodes, max_nodes))


# ------------------------------------------------------------------------------------------ hand-computed

def test_two_types_each_cheapest_for_one_bucket():
    """A: $10,000 a node, 10 req/s of short requests or 1 of long; B: $12,000, 5 short or 3 long.
    40 short and 6 long req/s: A alone needs 40/10 + 6/1 = 10 nodes ($100,000), B alone 40/5 + 6/3 = 10
    ($120,000); A for the short (4 nodes, $40,000) and B for the long (2 nodes, $24,000) is $64,000: $36,000 less
    than A alone. A req/s of short costs $1,000 on A and $2,400 on B, of long $10,000 on A and $4,000 on B, so no
    split is cheaper."""
    cap, r, c = np.array([[10.0, 1.0], [5.0, 3.0]]), np.array([40.0, 6.0]), np.array([10_000.0, 12_000.0])
    solved = solve_mix(cap, r, c)
    assert solved.nodes == (4, 2) and solved.usd_per_month == 64_000
    assert np.allclose(solved.shares, [[1, 0], [0, 1]])
    assert [single_type(cap, r, c, t).usd_per_month for t in (0, 1)] == [100_000, 120_000]
    answer = cheapest_mix(parse_mix("1000:200:40%,8000:1000:6%,64000:200:54%"), _offers(cap, c), peak_rps=100,
                          mean_rps=50)
    # the third bucket (54 % of requests) is not measured: the fleet covers the other 46 %
    assert answer.usd_per_month == 64_000 and answer.mix_pays and answer.best_single == "A"
    assert answer.saving_usd_per_month == 36_000 and answer.saving_pct == pytest.approx(0.36)
    assert dict(zip(answer.fleet["type"], answer.fleet["nodes"])) == {"A": 4, "B": 2}
    assert answer.covered_share == pytest.approx(0.46)
    assert "$36,000 (36.0%) less than the best single type, A alone ($100,000)" in answer.verdict
    assert "for the 46.0% of requests measured" in answer.verdict
    assert any("64000/200 (54.0% of requests); the fleet covers the rest, 46.0% of requests" in n for n in answer.notes)
    (missing,) = answer.buckets[~answer.buckets["measured"]].to_dict("records")
    assert missing["label"] == "64000/200" and "×8 away (more than ×2)" in missing["note"]
    # utilisation: the mean is half the peak; A carries 20 req/s on average on 4 nodes of 10
    util = dict(zip(answer.fleet["type"], answer.fleet["utilization"]))
    assert util == pytest.approx({"A": 20 / 40, "B": 3 / 6})
    # effective $/M: 20 req/s × 1,200 tokens + 3 req/s × 9,000 tokens, a month of 730 h
    tokens = (20 * 1_200 + 3 * 9_000) * 730 * 3600
    assert answer.effective_usd_per_mtok == pytest.approx(64_000 / (tokens / 1e6))


def test_one_type_that_dominates_is_the_answer_and_says_so():
    """A is cheaper per req/s on both buckets (short $1,000 vs $2,400, long $5,000 vs $6,000): the mix is A alone,
    40/10 + 6/2 = 7 nodes, $70,000."""
    cap, c = np.array([[10.0, 2.0], [5.0, 2.0]]), np.array([10_000.0, 12_000.0])
    answer = cheapest_mix(parse_mix("1000:200:0.4,8000:1000:0.06,1000:1000:0.54"), _offers(cap, c), peak_rps=100,
                          mean_rps=100)
    assert answer.usd_per_month == 70_000 and not answer.mix_pays and answer.saving_usd_per_month == 0
    assert list(answer.fleet["type"]) == ["A"] and list(answer.fleet["nodes"]) == [7]
    assert answer.verdict.startswith("No mix beats A alone: 7 A nodes, $70,000 a month")


def test_spares_and_headroom_are_bought_per_type_used():
    """With 20 % headroom and one spare a type: short on A is 40 × 1.2 / 10 = 4.8 nodes, long on B 6 × 1.2 / 3 = 2.4:
    5 + 1 A and 3 + 1 B, $60,000 + $48,000 = $108,000. Cheaper: a 6th working A node takes the other 1.2 nodes' worth,
    1 long req/s (1.2 / 1.2 × 1), leaving 5 long req/s to B, 5 × 1.2 / 3 = 2 nodes: 6 + 1 A and 2 + 1 B, $70,000 +
    $36,000 = $106,000."""
    cap, r, c = np.array([[10.0, 1.0], [5.0, 3.0]]), np.array([40.0, 6.0]), np.array([10_000.0, 12_000.0])
    solved = solve_mix(cap, r, c, headroom=1.2, spares=1)
    assert solved.nodes == (7, 3) and solved.working == (6, 2) and solved.usd_per_month == 106_000
    assert solved.shares[0] == pytest.approx([1, 1 / 6]) and solved.shares[1] == pytest.approx([0, 5 / 6])


def test_limits_are_met_or_the_answer_says_why_not():
    cap, r, c = np.array([[10.0, 1.0], [5.0, 3.0]]), np.array([40.0, 6.0]), np.array([10_000.0, 12_000.0])
    # B limited to 1 node (3 req/s of long): the other 3 long req/s go to A (3 nodes), short on A (4): 7 A + 1 B
    solved = solve_mix(cap, r, c, max_nodes=[math.inf, 1])
    assert solved.nodes == (7, 1) and solved.usd_per_month == 82_000
    # 2 nodes of each carry at most 20 + 10 short req/s ... the LP says how much of the peak fits
    stuck = solve_mix(cap, r, c, max_nodes=[2, 2])
    assert stuck.status == "infeasible" and stuck.usd_per_month != stuck.usd_per_month
    assert 0 < stuck.carried_at_most < 1 and f"{stuck.carried_at_most:.1%}" in stuck.text
    # a facility power budget: 8 kW a node (IT), PUE 1.25: 50 kW allows 5 nodes; the fewest that carry the
    # load are 4 A (short) + 2 B (long)
    power = solve_mix(cap, r, c, kw_per_node=[8.0, 8.0], pue=1.25, budget_kw=50.0)
    assert power.status == "infeasible"
    answer = cheapest_mix(parse_mix("1000:200:0.4,8000:1000:0.6"), _offers(cap, c), peak_rps=10, mean_rps=10,
                          limits=MixLimits(max_nodes={"b": 1}))
    # 4 short req/s, 6 long: B (1 node) carries 3 long, A the rest: 4/10 + 3/1 = 3.4 → 4 nodes
    assert dict(zip(answer.fleet["type"], answer.fleet["nodes"])) == {"A": 4, "B": 1}
    assert "limits: b at most 1 node" in answer.notes
    with pytest.raises(MixError, match="no type 'C'"):
        cheapest_mix(parse_mix("1000:200:1"), _offers(cap, c), peak_rps=1, mean_rps=1,
                     limits=MixLimits(max_nodes={"C": 1}))


def test_singles_that_tie_are_named():
    cap, c = np.array([[10.0, 1.0], [10.0, 1.0]]), np.array([10_000.0, 10_000.0])
    answer = cheapest_mix(parse_mix("1000:200:0.5,8000:1000:0.5"), _offers(cap, c), peak_rps=20, mean_rps=20)
    assert answer.ties == ("B",) and answer.best_single == "A" and "(as much as B alone)" in answer.verdict


# ------------------------------------------------------------------------------------------ the request mix

def test_a_typed_mix_is_read_and_slips_are_refused():
    mix = parse_mix(" 1024:256:0.7, 8192:1024:30% ")
    assert [(b.isl, b.osl, b.share) for b in mix.buckets] == [(1024, 256, 0.7), (8192, 1024, 0.3)]
    assert parse_mix(mix.to_text()) == mix
    for text, words in (("1024:256:70,8192:1024:30", "a percentage needs its % sign"),
                        ("1024:256:0.7", "the shares sum to 0.7, not 1"),
                        ("1024:256:0,7", "is not ISL:OSL:SHARE"),
                        ("1024:256:0.5,1024:256:0.5", "bucket 1024/256 is given twice"),
                        ("1k:256:1", "ISL '1k' is not a whole number"),
                        ("", "no buckets")):
        with pytest.raises(MixError, match=words):
            parse_mix(text)


def test_a_trace_is_bucketed_by_its_stated_edges():
    rows = ["timestamp,input_tokens,output_tokens"]
    rows += [f"{i},{500 + i % 3},100" for i in range(6)]          # ISL < 1,024, OSL < 256
    rows += [f"{i},8000,{600 + 100 * (i % 2)}" for i in range(6, 10)]   # ISL 4,096–16,383, OSL 256–1,023
    mix = mix_of_trace("\n".join(rows), "t.csv")
    assert [(b.label, b.isl, b.osl, b.requests, b.share) for b in mix.buckets] == [
        ("ISL <1,024 · OSL <256", 501, 100, 6, 0.6), ("ISL 4,096–16,383 · OSL 256–1,023", 8000, 650, 4, 0.4)]
    assert mix.source == "trace t.csv: 10 requests" and mix.isl_edges == (1024, 4096, 16384)
    wide = mix_of_requests(Requests("r", np.zeros(2), np.array([10, 20000.0]), np.array([5.0, 5.0])), (100,), ())
    assert [b.label for b in wide.buckets] == ["ISL <100 · OSL any", "ISL ≥100 · OSL any"]


@settings(max_examples=6, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 40_000), st.integers(0, 3_000)), min_size=1, max_size=60),
       st.lists(st.integers(1, 30_000), min_size=1, max_size=4, unique=True),
       st.lists(st.integers(1, 2_000), max_size=3, unique=True))
def test_a_trace_file_is_bucketed_streaming_as_its_requests_are_in_memory(tmp_path_factory, requests, isl, osl):
    """Oracle: the streamed bucketing of a trace file (DuckDB, :func:`trace_and_mix`, what the GPU mix page and
    ``mix --trace`` read) gives the buckets :func:`mix_of_requests` gives the same requests held in memory (numpy)."""
    path = tmp_path_factory.mktemp("trace") / "t.csv"
    path.write_text("timestamp,input_tokens,output_tokens\n" + "\n".join(f"{k},{i},{o}" for k, (i, o)
                                                                          in enumerate(requests)))
    edges = tuple(sorted(isl)), tuple(sorted(osl))
    streamed = trace_and_mix(path, "t.csv", *edges)[1]
    held = mix_of_requests(Requests("t.csv", np.arange(len(requests), dtype=float),
                                    np.array([i for i, _ in requests], dtype=float),
                                    np.array([o for _, o in requests], dtype=float)), *edges)
    assert streamed == held


def test_a_mix_typed_as_a_table_and_edges_typed_as_text():
    """The GPU mix page's table (ISL, OSL, share: a fraction or a percentage) and its edge boxes."""
    rows = [{"isl": 1024.0, "osl": 256, "share": "70%"}, {"isl": 8192, "osl": 1024, "share": "0.3"},
            {"isl": None, "osl": None, "share": ""}]
    assert mix_of_rows(rows).to_text() == "1024:256:0.7,8192:1024:0.3"
    for bad, words in (([{"isl": 1024, "osl": None, "share": "1"}], "row 1: no OSL"),
                       ([{"isl": 1, "osl": 1, "share": "0,5"}, {"isl": 2, "osl": 2, "share": "0.5"}],
                        "row 1: share '0,5': write a decimal point"),
                       ([{"isl": 1, "osl": 1, "share": "70"}], "a percentage needs its % sign"),
                       ([{"isl": 1, "osl": 1, "share": "0.5"}], "the shares sum to 0.5, not 1")):
        with pytest.raises(MixError, match=re.escape(words)):
            mix_of_rows(bad)
    assert parse_edges(" 1024, 4096,16_384", "ISL") == (1024, 4096, 16384)
    for text, words in (("1024,abc", "ISL edges '1024,abc': whole token counts"), ("4096,1024", "increasing"),
                        ("", "no ISL edges")):
        with pytest.raises(MixError, match=re.escape(words)):
            parse_edges(text, "ISL")


def test_buckets_match_the_nearest_measured_workload_within_the_factor():
    assert distance_factor(1000, 200, 2000, 100) == 2.0 and distance_factor(1, 0, 1, 1) != distance_factor(1, 0, 1, 1)
    offers = _offers(np.array([[10.0, 1.0], [5.0, 3.0]]), np.array([1.0, 1.0]))
    matched = match_buckets(parse_mix("1500:150:0.5,20000:1000:0.5"), offers)
    first = matched[(matched["type"] == "A") & (matched["bucket"] == 0)].iloc[0]
    assert first["measured_isl"] == 1000 and first["factor"] == pytest.approx(1.5)
    assert "ISL ×1.5, OSL ×0.75 of the measured" in first["note"]
    second = matched[matched["bucket"] == 1]
    assert second["per_node_rps"].isna().all() and np.allclose(second["factor"], 2.5)
    assert (second["note"] == "nearest measured 8000/1000 is ×2.5 away (more than ×2)").all()
    assert MATCH_FACTOR == 2.0


def test_long_buckets_are_longer_than_the_median_request():
    assert list(long_buckets(parse_mix("1000:200:0.9,8000:1000:0.1"))) == [False, True]
    assert list(long_buckets(parse_mix("1000:200:0.5,8000:1000:0.5"))) == [False, True]
    assert list(long_buckets(parse_mix("1000:200:0.2,8000:1000:0.3,30000:1000:0.5"))) == [False, False, True]


# ------------------------------------------------------------------------------------------ properties

def _offers(cap: np.ndarray, usd_per_node_month: np.ndarray, sizes=((1000, 200), (8000, 1000))) -> pd.DataFrame:
    rows = []
    for t, cost in enumerate(usd_per_node_month):
        name = "ABCDEFG"[t]
        for b, (isl, osl) in enumerate(sizes[:cap.shape[1]]):
            rows.append({"type": name, "hardware": name, "series": f"{name} {isl}/{osl}", "isl": isl, "osl": osl,
                         "per_node_rps": cap[t, b] if cap[t, b] > 0 else math.nan, "capacity_from": "a point",
                         "gpus_per_node": 8, "usd_per_gpu_hour": cost / 8 / HOURS_PER_MONTH, "kw_per_gpu": 1.0,
                         "pue": 1.0, "pricing": "rate"})
    return pd.DataFrame(rows)


_SIZES = ((1000, 200), (4000, 500), (16000, 1000))
_cases = st.tuples(st.integers(2, 3), st.integers(2, 3), st.integers(0, 10_000))


def _random(n_t, n_b, seed):
    rng = np.random.default_rng(seed)
    cap = rng.uniform(0.5, 12, size=(n_t, n_b)).round(2)
    c = rng.uniform(5_000, 40_000, size=n_t).round(0)
    shares = (0.01 / n_b + 0.99 * rng.dirichlet(np.ones(n_b))).round(3)   # every bucket holds a share (not 0.000)
    shares[-1] = 1 - shares[:-1].sum()
    text = ",".join(f"{i}:{o}:{s:.3f}" for (i, o), s in zip(_SIZES, shares))
    return cap, c, parse_mix(text)


@settings(max_examples=25, deadline=None)
@given(_cases, st.floats(0.1, 20))
def test_scaling_every_price_scales_the_cost(case, factor):
    cap, c, mix = _random(*case)
    base = cheapest_mix(mix, _offers(cap, c, _SIZES), peak_rps=30, mean_rps=20, sweep=False)
    scaled = cheapest_mix(mix, _offers(cap, c * factor, _SIZES), peak_rps=30, mean_rps=20, sweep=False)
    assert scaled.usd_per_month == pytest.approx(base.usd_per_month * factor, rel=1e-6)


@settings(max_examples=25, deadline=None)
@given(_cases)
def test_a_type_with_no_capacity_is_never_chosen(case):
    cap, c, mix = _random(*case)
    cap = np.vstack([cap, np.zeros(cap.shape[1])])
    answer = cheapest_mix(mix, _offers(cap, np.append(c, 1.0), _SIZES), peak_rps=30, mean_rps=20, sweep=False)
    ghost = "ABCDEFG"[cap.shape[0] - 1]
    assert ghost not in set(answer.fleet["type"]) and ghost not in set(answer.assignment["type"])


@settings(max_examples=25, deadline=None)
@given(_cases, st.randoms(use_true_random=False))
def test_row_and_bucket_order_do_not_change_the_answer(case, shuffle):
    cap, c, mix = _random(*case)
    offers = _offers(cap, c, _SIZES)
    base = cheapest_mix(mix, offers, peak_rps=30, mean_rps=20, sweep=False)
    rows = list(offers.index)
    shuffle.shuffle(rows)
    buckets = list(mix.buckets)
    shuffle.shuffle(buckets)
    other = cheapest_mix(type(mix)(tuple(buckets)), offers.loc[rows], peak_rps=30, mean_rps=20, sweep=False)
    assert other.usd_per_month == base.usd_per_month
    pd.testing.assert_frame_equal(other.fleet, base.fleet)


def test_the_crossover_says_where_a_mix_starts_to_pay():
    """A: $10,000 a node, 10 short or 1 long req/s; B: $12,000, 5 short or 3 long; 20 req/s in all.
    No long requests: A alone, 2 nodes. At 5 % long (1 long req/s): A alone 19/10 + 1 = 2.9 → 3 nodes ($30,000),
    the mix 2 A + 1 B ($32,000) is dearer: B's node would carry 1 long req/s. At 10 % (2 long): A alone 1.8 + 2 →
    4 nodes ($40,000); 2 A (18 short) + 1 B (2 long) = $32,000: the mix starts to pay."""
    cap, c = np.array([[10.0, 1.0], [5.0, 3.0]]), np.array([10_000.0, 12_000.0])
    answer = cheapest_mix(parse_mix("1000:200:0.5,8000:1000:0.5"), _offers(cap, c), peak_rps=20, mean_rps=20)
    rows = answer.crossover.set_index("long_share")
    assert rows.loc[0.0, "mix_usd_per_month"] == 20_000 and rows.loc[0.0, "saving_usd_per_month"] == 0
    assert rows.loc[0.05, "best_single_usd_per_month"] == 30_000 and rows.loc[0.05, "saving_usd_per_month"] == 0
    assert rows.loc[0.1, "mix_usd_per_month"] == 32_000 and rows.loc[0.1, "saving_usd_per_month"] == 8_000
    assert answer.crossover_text.startswith("a mix starts to pay at 10% long requests (A alone below)")
    assert "long = 8000/1000, 50% of the measured requests now" in answer.crossover_text
