"""The lower envelope of the cost curves and the vectorised pairwise crossovers (issue 12).

Hand-checked examples; hypothesis properties (the envelope is the minimum of every curve
wherever it is evaluated); and an oracle: the per-pair loop ``model.core.crossings.crossovers`` was
before the sweep (``tests/crossover_oracle.py``) must find the same crossings.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from model.core.analysis import ALL_PAIRS_LIMIT, analyse
from model.core.crossings import crossovers
from model.core.envelope import Envelope, lower_envelope
from model.core.iso import CostCurve, PackedCurves, cost_within
from model.core.view import View
from model.data.presets import load_presets
from tests import strategies as S
from tests.crossover_oracle import crossovers_per_pair_loop


def envelope_usd_per_mtok(envelope: Envelope, curves: dict[str, CostCurve], targets, method: str = "linear",
                          group: object = None) -> np.ndarray:
    """$/M of the envelope of ``group`` at each target interactivity [tok/s/user]; NaN where no series reaches
    (the envelope read back, for these tests; the product reads its segments and changes).

    Where two segments meet (at a change), the cheaper of the two is taken.
    """
    x = np.atleast_1d(np.asarray(targets, dtype=float))
    out = np.full(x.shape, np.nan)
    segments = envelope.segments
    mine = segments[segments["group"].isna()] if group is None else segments[segments["group"] == group]
    for series, lo, hi in zip(mine["series"], mine["min_interactivity"], mine["max_interactivity"]):
        inside = (x >= lo) & (x <= hi)
        if inside.any():
            out[inside] = np.fmin(out[inside], cost_within(curves[series], x[inside], method))
    return out



def _curve(name: str, points) -> CostCurve:
    """A cost curve straight from (interactivity, $/M) points; duplicates of x keep the cheapest."""
    frame = pd.DataFrame(points, columns=["x", "c"]).sort_values(["x", "c"]).drop_duplicates("x")
    x, cost = frame["x"].to_numpy(float), frame["c"].to_numpy(float)
    return CostCurve(name, x, cost, 1e6 / cost / 3600, np.ones(len(x)), ("H100",) * len(x))


def _curves(sets) -> dict[str, CostCurve]:
    return {f"s{i}": _curve(f"s{i}", points) for i, points in enumerate(sets)}


# ----------------------------------------------------------------------------- hand-checked

def test_envelope_of_three_lines_where_the_flat_one_wins_in_the_middle():
    # A rises 1 -> 5 $/M, B falls 5 -> 1, C stays at 2.5, all over 1..3 tok/s/user.
    # A = 2.5 at x = 1.75, B = 2.5 at x = 2.25: A, then C, then B. D (3 $/M over 3..4) takes over where B ends.
    curves = _curves([[(1, 1), (3, 5)], [(1, 5), (3, 1)], [(1, 2.5), (3, 2.5)], [(3, 3), (4, 3)]])
    env = lower_envelope(curves)
    assert env.segments["series"].tolist() == ["s0", "s2", "s1", "s3"]
    assert env.segments["min_interactivity"].to_numpy() == pytest.approx([1, 1.75, 2.25, 3])
    assert env.segments["max_interactivity"].to_numpy() == pytest.approx([1.75, 2.25, 3, 4])
    changes = env.changes
    assert changes["interactivity"].to_numpy() == pytest.approx([1.75, 2.25, 3])
    assert list(zip(changes["from_series"], changes["to_series"], changes["kind"])) == \
        [("s0", "s2", "crossover"), ("s2", "s1", "crossover"), ("s1", "s3", "reach")]
    # at a reach change the $/M is the new cheapest series' (B ends at $1, D begins at $3)
    assert changes["usd_per_mtok"].to_numpy() == pytest.approx([2.5, 2.5, 3])


def test_crossing_exactly_on_a_breakpoint_is_found_there():
    # A: $1 at 10, $2 at 20, $3 at 30; B: $3 at 10 -> $1 at 30, so $2 at 20: they meet exactly on A's
    # breakpoint. A is cheaper below 20. (The shipped per-pair loop reported x = 30 and named B.)
    curves = _curves([[(10, 1), (20, 2), (30, 3)], [(10, 3), (30, 1)]])
    cross = crossovers(curves)
    assert len(cross) == 1
    row = cross.iloc[0]
    assert (row["interactivity"], row["usd_per_mtok"]) == (20.0, 2.0)
    assert (row["cheaper_below"], row["cheaper_above"]) == ("s0", "s1")
    assert crossovers_per_pair_loop(curves).equals(cross)


def test_a_single_point_series_cheaper_there_splits_the_envelope():
    curves = _curves([[(1, 2), (3, 2)], [(2, 1)]])
    env = lower_envelope(curves)
    assert list(zip(env.segments["series"], env.segments["min_interactivity"], env.segments["max_interactivity"])) \
        == [("s0", 1, 2), ("s1", 2, 2), ("s0", 2, 3)]
    assert set(env.changes["kind"]) == {"reach"}


ONE_ULP_ABOVE_1 = float(np.nextafter(1.0, 2.0))      # 1.0000000000000002


def _assert_envelope_is_the_minimum(curves, x, method="linear"):
    env = lower_envelope(curves, method)
    truth = np.nanmin(np.vstack([cost_within(c, x, method) for c in curves.values()]), axis=0)
    np.testing.assert_allclose(envelope_usd_per_mtok(env, curves, x, method), truth, rtol=1e-9)
    return env


@pytest.mark.parametrize("method", ["linear", "monotone"])
def test_a_curve_falling_within_one_ulp_keeps_its_point_on_the_envelope(method):
    # s1 falls from $3 to $1 between 1 and the next float: it crosses s0 ($2 -> $1 over 1..2) between
    # two neighbouring floats, so the root rounds onto 1 + ulp and s1's piece there has no width.
    # It was dropped, and the envelope read s0's $1.9999999999999998 at 1 + ulp, where s1 costs $1.
    curves = _curves([[(1.0, 2.0), (2.0, 1.0)], [(1.0, 3.0), (ONE_ULP_ABOVE_1, 1.0)]])
    env = _assert_envelope_is_the_minimum(curves, np.array([1.0, ONE_ULP_ABOVE_1, 1.5, 2.0]), method)
    # s1 is cheapest at its last point only: a zero-width segment between s0's two
    assert list(zip(env.segments["series"], env.segments["min_interactivity"], env.segments["max_interactivity"])) \
        == [("s0", 1.0, ONE_ULP_ABOVE_1), ("s1", ONE_ULP_ABOVE_1, ONE_ULP_ABOVE_1), ("s0", ONE_ULP_ABOVE_1, 2.0)]
    # s0 and s1 cost the same at no float: the cheapest jumps to s1 there (a step), then s1's frontier ends
    changes = env.changes
    assert list(zip(changes["from_series"], changes["to_series"], changes["kind"])) == \
        [("s0", "s1", "step"), ("s1", "s0", "reach")]
    assert changes["interactivity"].tolist() == [ONE_ULP_ABOVE_1] * 2
    assert changes["usd_per_mtok"].to_numpy() == pytest.approx([1.0, 2.0], rel=1e-9)


@pytest.mark.parametrize("method", ["linear", "monotone"])
def test_a_crossing_between_two_neighbouring_floats_is_a_step_not_a_crossover(method):
    # as above, but s1 goes on at $1 to x = 2: the cheapest changes once, from s0 to s1, at 1 + ulp, where
    # s0 costs $1.9999999999999998 and s1 $1. It was called a crossover, yet the two do not cost the same there.
    curves = _curves([[(1.0, 2.0), (2.0, 1.0)], [(1.0, 3.0), (2.0, 1.0), (ONE_ULP_ABOVE_1, 1.0)]])
    env = _assert_envelope_is_the_minimum(curves, np.array([1.0, ONE_ULP_ABOVE_1, 1.5, 2.0]), method)
    assert list(zip(env.changes["from_series"], env.changes["to_series"], env.changes["kind"])) \
        == [("s0", "s1", "step")]
    change = env.changes.iloc[0]
    assert change["interactivity"] == ONE_ULP_ABOVE_1 and change["usd_per_mtok"] == pytest.approx(1.0, rel=1e-9)


def test_envelope_is_per_comparison_group():
    curves = _curves([[(1, 1), (3, 1)], [(1, 2), (3, 2)]])
    env = lower_envelope(curves, groups={"s0": "w1", "s1": "w2"})
    assert sorted(zip(env.segments["group"], env.segments["series"])) == [("w1", "s0"), ("w2", "s1")]
    assert env.changes.empty


def test_selected_pairs_only():
    curves = _curves([[(1, 1), (3, 3)], [(1, 3), (3, 1)], [(1, 2.5), (3, 2.4)]])
    every = crossovers(curves)
    assert set(zip(every["series_a"], every["series_b"])) == {("s0", "s1"), ("s0", "s2"), ("s1", "s2")}
    only = crossovers(curves, pairs=[("s2", "s0")])          # either order; reported in name order
    assert only.equals(every[(every["series_a"] == "s0") & (every["series_b"] == "s2")].reset_index(drop=True))


# ----------------------------------------------------------------------------- properties

def _groups(curves, data) -> dict[str, int] | None:
    if not data.draw(st.booleans()):
        return None
    return {name: data.draw(st.integers(0, 1)) for name in curves}


@pytest.mark.parametrize("method", ["linear", "monotone"])
@settings(max_examples=60, deadline=None)
@given(sets=S.curve_sets, data=st.data())
def test_envelope_is_the_minimum_of_every_curve(method, sets, data):
    curves = _curves(sets)
    groups = _groups(curves, data)
    env = lower_envelope(curves, method, groups)
    randoms = np.array(data.draw(st.lists(st.floats(0.5, 110), min_size=1, max_size=30)))
    for group in set((groups or {None: None}).values()):
        members = [c for name, c in curves.items() if (groups or {}).get(name) == group]
        breakpoints = np.concatenate([c.x for c in members])
        for x in (breakpoints, randoms):
            values = np.vstack([cost_within(c, x, method) for c in members])
            truth = np.where(np.isnan(values).all(axis=0), np.nan, np.nanmin(np.where(np.isnan(values), np.inf,
                                                                                          values), axis=0))
            got = envelope_usd_per_mtok(env, curves, x, method, group)
            np.testing.assert_allclose(got, truth, rtol=1e-9)
    # where the cheapest changes by a crossing, both series cost the same there
    for row in env.changes[env.changes["kind"] == "crossover"].itertuples():
        a = cost_within(curves[row.from_series], np.array([row.interactivity]), method)[0]
        b = cost_within(curves[row.to_series], np.array([row.interactivity]), method)[0]
        assert a == pytest.approx(b, rel=1e-7) and b == pytest.approx(row.usd_per_mtok, rel=1e-7)


@pytest.mark.parametrize("method", ["linear", "monotone"])
@settings(max_examples=40, deadline=None)
@given(sets=S.curve_sets, data=st.data())
def test_the_curves_packed_once_give_what_packing_them_again_gives(method, sets, data):
    # the crossings step hands the envelope and the crossovers the range's packing (issue 48); one of other curves,
    # or of the other method, is not used
    curves = _curves(sets)
    groups = _groups(curves, data)
    packed = PackedCurves(curves, method)
    pd.testing.assert_frame_equal(lower_envelope(curves, method, groups, packed).segments,
                                  lower_envelope(curves, method, groups).segments)
    pd.testing.assert_frame_equal(crossovers(curves, method, groups, packed=packed), crossovers(curves, method, groups))
    other = PackedCurves(dict(list(curves.items())[:1]), "linear" if method == "monotone" else "monotone")
    pd.testing.assert_frame_equal(crossovers(curves, method, groups, packed=other), crossovers(curves, method, groups))


@settings(max_examples=60, deadline=None)
@given(sets=S.curve_sets, data=st.data())
def test_linear_crossovers_equal_the_per_pair_loop(sets, data):
    curves = _curves(sets)
    groups = _groups(curves, data)
    new = crossovers(curves, "linear", groups)
    old = crossovers_per_pair_loop(curves, "linear", groups)
    assert len(new) == len(old)
    if len(new):
        for column in ("series_a", "series_b", "cheaper_below", "cheaper_above"):
            assert new[column].tolist() == old[column].tolist()
        for column in ("interactivity", "usd_per_mtok"):
            np.testing.assert_allclose(new[column].astype(float), old[column].astype(float), rtol=1e-9)


@settings(max_examples=60, deadline=None)
@given(a=S.fine_curve, b=S.fine_curve)
def test_monotone_crossovers_are_roots_and_include_the_per_pair_loops(a, b):
    # The loop looked for a sign change between neighbouring breakpoints only, so it missed two
    # crossings inside one interval; the sweep also cuts where the gap is stationary. Every crossing
    # it finds is a root, and every crossing the loop found strictly inside the common range is among them
    # (where the curves are nearly tangent the root is ill-conditioned: both land within 1e-4 of the range).
    curves = _curves([a, b])
    new = crossovers(curves, "monotone")
    for row in new.itertuples():
        x = np.array([row.interactivity])
        assert cost_within(curves["s0"], x, "monotone")[0] == pytest.approx(cost_within(curves["s1"], x, "monotone")[0],
                                                                        rel=1e-7)
    lo = max(c.x_min for c in curves.values())
    hi = min(c.x_max for c in curves.values())
    def gap(v: float) -> float:
        x = np.array([v])
        return float(cost_within(curves["s0"], x, "monotone")[0] - cost_within(curves["s1"], x, "monotone")[0])

    for row in crossovers_per_pair_loop(curves, "monotone").itertuples():
        h = 1e-3 * (hi - lo)
        if lo + 1e-6 < row.interactivity < hi - 1e-6:
            if gap(max(lo, row.interactivity - h)) * gap(min(hi, row.interactivity + h)) >= 0:
                continue   # the loop's sign test took a tangent touch (same sign either side) for a crossing
            near = new[np.isclose(new["interactivity"].astype(float), row.interactivity, rtol=0, atol=1e-4 * (hi - lo))]
            # which side is cheaper is read off the curves themselves: the loop could name the wrong one
            # when an interval held two crossings (its sign test saw only the interval's ends)
            below = "s0" if gap(max(lo, row.interactivity - h)) < 0 else "s1"
            assert len(near) == 1 and near.iloc[0]["cheaper_below"] == below


# ----------------------------------------------------------------------------- analyse(crossovers=...)

def _sweep_points(n_series: int) -> pd.DataFrame:
    """n_series B200 'frameworks' in one workload, each a line of 3 points, steeper as the index grows."""
    rows = []
    for i in range(n_series):
        for x, tput in ((10, 1000 + 50 * i), (20, 600 + 10 * i), (30, 300 - 5 * i)):
            rows.append({"hardware": "B200", "framework": f"fw{i:02d}", "precision": "fp8", "spec_decoding": "none",
                         "model": "m", "isl": 1024, "osl": 1024, "interactivity": float(x),
                         "total_tokens_per_second_per_gpu": float(tput)})
    return pd.DataFrame(rows)


def test_analyse_computes_only_what_is_asked():
    points = _sweep_points(3)
    scenario = View(by=("hardware", "framework", "model"))
    none = analyse(points, scenario, load_presets(), crossovers="none")
    assert none.envelope is None and none.crossovers.empty and none.crossover_pairs == "none"
    assert not none.iso.empty
    env = analyse(points, scenario, load_presets(), crossovers="envelope")
    assert env.envelope is not None and not env.envelope.segments.empty and env.crossovers.empty
    every = analyse(points, scenario, load_presets(), crossovers="auto")       # 3 series <= ALL_PAIRS_LIMIT: every pair
    assert every.crossover_pairs == "all"
    assert every.crossovers.equals(analyse(points, scenario, load_presets(), crossovers="all").crossovers)
    with pytest.raises(ValueError, match="crossovers must be one of"):
        analyse(points, scenario, load_presets(), crossovers="some")


def test_many_series_cross_the_baseline_or_the_selection_only():
    points = _sweep_points(ALL_PAIRS_LIMIT + 2)
    names = sorted(analyse(points, View(by=("hardware", "framework")), load_presets(), crossovers="none").curves)
    base = View(by=("hardware", "framework"), baseline=names[0])
    result = analyse(points, base, load_presets(), crossovers="auto")
    assert result.crossover_pairs == "baseline"
    pairs = set(zip(result.crossovers["series_a"], result.crossovers["series_b"]))
    assert pairs and all(names[0] in pair for pair in pairs)
    chosen = analyse(points, base, load_presets(), crossovers="auto", selected=(names[3], names[5]))
    assert chosen.crossover_pairs == "selected"
    assert set(zip(chosen.crossovers["series_a"], chosen.crossovers["series_b"])) == {(names[3], names[5])}
    alone = analyse(points, View(by=("hardware", "framework")), load_presets(), crossovers="auto")
    assert alone.crossovers.empty and alone.envelope is not None
    assert any("envelope" in note for note in alone.notes)
