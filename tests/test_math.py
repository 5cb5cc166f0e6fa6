"""The math: frontier (fast vs naive oracle, properties), cost, interpolation, crossovers."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from model.core.cost import usd_per_mtok
from model.core.crossings import crossovers
from model.core.frontier import fit_frontiers, pareto_mask, pareto_mask_naive
from model.core.iso import CLAMP_TOLERANCE, cost_curves, evaluate, iso_table
from tests import strategies as S


def _frame(pairs, hardware="B200"):
    return pd.DataFrame({
        "hardware": hardware, "framework": "sglang", "precision": "fp8", "spec_decoding": "none",
        "interactivity": [p[0] for p in pairs], "total_tokens_per_second_per_gpu": [p[1] for p in pairs],
    })


# ----------------------------------------------------------------------------- frontier

@settings(max_examples=300, deadline=None)
@given(S.coarse_points)
def test_frontier_agrees_with_naive_oracle(pairs):
    x, y = np.array(pairs).T
    assert np.array_equal(pareto_mask(x, y), pareto_mask_naive(x, y)) or \
        _same_point_sets(x, y, pareto_mask(x, y), pareto_mask_naive(x, y))


def _same_point_sets(x, y, a, b):
    # with exact duplicates, which copy is kept may differ; the set of (x, y) must not
    return set(zip(x[a], y[a])) == set(zip(x[b], y[b]))


@settings(max_examples=200, deadline=None)
@given(S.points, st.randoms())
def test_frontier_ignores_row_order(pairs, rnd):
    shuffled = list(pairs)
    rnd.shuffle(shuffled)
    x, y = np.array(pairs).T
    xs, ys = np.array(shuffled).T
    assert set(zip(x[pareto_mask(x, y)], y[pareto_mask(x, y)])) == \
        set(zip(xs[pareto_mask(xs, ys)], ys[pareto_mask(xs, ys)]))


@settings(max_examples=200, deadline=None)
@given(S.points, st.data())
def test_frontier_ignores_added_dominated_points(pairs, data):
    x, y = np.array(pairs).T
    before = set(zip(x[pareto_mask(x, y)], y[pareto_mask(x, y)]))
    # a point strictly dominated by an existing point changes nothing
    i = data.draw(st.integers(0, len(pairs) - 1))
    shrink = data.draw(st.floats(0.1, 0.99))
    x2, y2 = np.r_[x, x[i] * shrink], np.r_[y, y[i] * shrink]
    after = set(zip(x2[pareto_mask(x2, y2)], y2[pareto_mask(x2, y2)]))
    assert before == after


def test_frontier_groups_do_not_leak():
    x = np.array([1.0, 2.0, 1.0, 2.0])
    y = np.array([10.0, 5.0, 1.0, 0.5])   # group 1 is far below group 0
    mask = pareto_mask(x, y, np.array([0, 0, 1, 1]))
    assert mask.tolist() == [True, True, True, True]


def test_fit_frontiers_keeps_the_config_of_each_point():
    frame = _frame([(10, 100), (20, 60), (15, 50)]).assign(tp=[8, 4, 2], concurrency=[64, 8, 16])
    frontier = fit_frontiers(frame)
    assert frontier["interactivity"].tolist() == [10, 20]
    assert frontier["tp"].tolist() == [8, 4] and frontier["concurrency"].tolist() == [64, 8]


# ----------------------------------------------------------------------------- cost

def test_cost_formula_by_hand():
    # $2/GPU-h at 1000 tok/s/GPU: 3.6 M tok per GPU-hour -> 2 / 3.6 = $0.5556/M
    assert usd_per_mtok(2.0, 1000.0) == pytest.approx(2 / 3.6)


@given(S.rate, S.throughput, st.floats(0.1, 10))
def test_cost_is_linear_in_rate_and_inverse_in_throughput(rate, tps, k):
    base = usd_per_mtok(rate, tps)
    assert usd_per_mtok(rate * k, tps) == pytest.approx(base * k, rel=1e-12)
    assert usd_per_mtok(rate, tps * k) == pytest.approx(base / k, rel=1e-12)


def test_cost_of_zero_throughput_is_nan_not_zero():
    assert np.isnan(usd_per_mtok(2.0, 0.0))


# ----------------------------------------------------------------------------- interpolation

def _curves(pairs, rate=2.0, hardware="B200"):
    frontier = fit_frontiers(_frame(pairs, hardware))
    return cost_curves(frontier, {hardware: rate})


@pytest.mark.parametrize("method", ["linear", "monotone"])
@settings(max_examples=100, deadline=None)
@given(pairs=S.points)
def test_interpolation_passes_through_frontier_points(method, pairs):
    (curve,) = _curves(pairs).values()
    values, status = evaluate(curve, curve.x, method)
    assert np.allclose(values, curve.usd_per_mtok, rtol=1e-9)
    assert set(status) == {"measured"}


@pytest.mark.parametrize("method", ["linear", "monotone"])
@settings(max_examples=100, deadline=None)
@given(pairs=S.points)
def test_interpolated_cost_is_monotone(method, pairs):
    (curve,) = _curves(pairs).values()
    grid = np.linspace(curve.x_min, curve.x_max, 200)
    values, _ = evaluate(curve, grid, method)
    # a frontier's throughput falls as interactivity rises, so cost can only rise
    assert np.all(np.diff(values) >= -1e-9 * np.abs(values[:-1]))


def test_linear_interpolation_by_hand():
    # frontier (10, 1000) and (20, 500) at $3.6/GPU-h: $1/M and $2/M; halfway -> $1.5/M
    (curve,) = _curves([(10, 1000), (20, 500)], rate=3.6).values()
    values, status = evaluate(curve, [15], "linear")
    assert values[0] == pytest.approx(1.5) and status[0] == "interpolated"


def test_no_extrapolation_but_clamp_within_one_percent():
    (curve,) = _curves([(10, 1000), (20, 500)], rate=3.6).values()
    inside_tolerance = 20 * (1 + CLAMP_TOLERANCE) - 1e-9
    values, status = evaluate(curve, [inside_tolerance, 20.3, 9.95, 9.8], "linear")
    assert status.tolist() == ["clamped", "unreachable", "clamped", "unreachable"]
    assert values[0] == pytest.approx(2.0) and values[2] == pytest.approx(1.0)
    assert np.isnan(values[1]) and np.isnan(values[3])


def test_iso_table_ratio_against_baseline():
    curves = {**_curves([(10, 1000), (20, 500)], 3.6, "B200"), **_curves([(10, 2000), (20, 1000)], 3.6, "MI355X")}
    table = iso_table(curves, [15], baseline=next(k for k in curves if k.startswith("MI355X")))
    ratios = dict(zip(table["hardware"], table["ratio_to_baseline"]))
    assert ratios["B200"] == pytest.approx(2.0) and ratios["MI355X"] == pytest.approx(1.0)


# ----------------------------------------------------------------------------- crossovers

def test_crossover_of_two_lines_is_exact():
    # at $3.6/GPU-h, cost = 1000 / (tok/s/GPU) $/M.
    # A: $1/M at x=10 -> $3/M at x=30; B: $1.5/M -> $2.5/M. A - B goes -0.5 -> +0.5: cross at x=20, $2/M.
    a = _curves([(10, 1000), (30, 1000 / 3)], rate=3.6, hardware="B200")
    b = _curves([(10, 1000 / 1.5), (30, 400)], rate=3.6, hardware="MI355X")
    cross = crossovers({**a, **b}, "linear")
    assert len(cross) == 1
    assert cross.iloc[0]["interactivity"] == pytest.approx(20.0, abs=1e-12)
    assert cross.iloc[0]["usd_per_mtok"] == pytest.approx(2.0)
    assert cross.iloc[0]["cheaper_below"].startswith("B200")


def test_monotone_crossover_is_a_root_of_the_interpolants():
    a = _curves([(10, 1000), (20, 700), (30, 1000 / 3)], rate=3.6, hardware="B200")
    b = _curves([(10, 500), (20, 480), (30, 460)], rate=3.6, hardware="MI355X")
    curves = {**a, **b}
    cross = crossovers(curves, "monotone")
    assert len(cross) == 1
    x = cross.iloc[0]["interactivity"]
    va = evaluate(next(iter(a.values())), [x], "monotone")[0][0]
    vb = evaluate(next(iter(b.values())), [x], "monotone")[0][0]
    assert va == pytest.approx(vb, rel=1e-7)


def test_crossovers_only_inside_the_common_range():
    a = _curves([(10, 1000), (20, 400)], rate=3.6, hardware="B200")
    b = _curves([(25, 500), (40, 100)], rate=3.6, hardware="MI355X")
    assert crossovers({**a, **b}).empty


def test_crossovers_respect_comparison_groups():
    a = _curves([(10, 1000), (30, 1000 / 3)], rate=3.6, hardware="B200")
    b = _curves([(10, 1000 / 1.5), (30, 400)], rate=3.6, hardware="MI355X")
    curves = {**a, **b}
    assert len(crossovers(curves)) == 1
    groups = {name: i for i, name in enumerate(curves)}   # different workloads: never compared
    assert crossovers(curves, groups=groups).empty


def test_no_rate_for_any_hardware_means_no_curves_not_a_crash():
    frontier = fit_frontiers(_frame([(10, 1000), (20, 500)], "H20"))
    assert cost_curves(frontier, {}) == {}


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), S.coarse_x, S.coarse_y), min_size=1, max_size=80))
def test_frontier_sort_orders_as_lexsort(rows):
    # oracle: np.lexsort((-y, -x, g)), exact ties included (every pass is stable)
    from model.core.frontier import _lexsort3
    g, x, y = (np.array(c) for c in zip(*rows))
    fast, slow = _lexsort3(g.astype(np.int64), x, y), np.lexsort((-y, -x, g))
    assert np.array_equal(fast, slow)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), S.coarse_x, S.coarse_y), min_size=1, max_size=80))
def test_the_prefilter_keeps_the_naive_oracles_points_and_duplicates(rows):
    # the prefilter (forced on for these small inputs) drops only dominated points: per group, the mask is the
    # O(n^2) oracle's, the first of exact duplicates kept
    from model.core import frontier
    g, x, y = (np.array(c) for c in zip(*rows))
    x, y = x.astype(float), y.astype(float)
    old = frontier.PREFILTER_MIN
    frontier.PREFILTER_MIN = 1
    try:
        mask = pareto_mask(x, y, g)
    finally:
        frontier.PREFILTER_MIN = old
    expected = np.zeros(len(x), dtype=bool)
    for code in np.unique(g):
        rows_of = np.flatnonzero(g == code)
        expected[rows_of] = pareto_mask_naive(x[rows_of], y[rows_of])
    assert np.array_equal(mask, expected)


def test_the_prefilter_changes_no_frontier_at_scale():
    # 200,000 points in 300 groups, 5,000 exact duplicates: the same mask with and without the prefilter,
    # and the prefilter drops most points before the sort
    from model.core import frontier
    rng = np.random.default_rng(3)
    n = 200_000
    g = rng.integers(0, 300, n)
    x = np.round(rng.lognormal(3, 1, n), 2)
    y = np.round(2000 / (1 + x / (20 + g % 7)) * rng.lognormal(0, 0.1, n), 1)
    dup = rng.integers(0, n, 5_000)
    g, x, y = np.r_[g, g[dup]], np.r_[x, x[dup]], np.r_[y, y[dup]]
    beaten = frontier._beaten_from_above(x, y, g)
    assert beaten.mean() > 0.8
    with_filter = pareto_mask(x, y, g)
    old = frontier.PREFILTER_MIN
    frontier.PREFILTER_MIN = 10 ** 9
    try:
        without = pareto_mask(x, y, g)
    finally:
        frontier.PREFILTER_MIN = old
    assert np.array_equal(with_filter, without)
    assert not (with_filter & beaten).any() and 1_000 < with_filter.sum() < 20_000
