"""The interpolation band (issue 47): leave-one-out on the frontier's own points, the calibrated band it implies,
the crossings it leaves undecided, and what the CLI, the pages and the report say of it. How often the band holds on
real data is tests/test_calibration.py."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from model.core.crossings import crossovers
from model.core.iso import CostCurve, cost_curves, cost_within, iso_table
from model.core.leave_one_out import leave_one_out, leave_one_out_methods
from model.core.uncertainty import (
    LEVEL,
    MIN_OWN,
    MIN_SCORES,
    band_of,
    calibration_of_curves,
    conformal_quantile,
    iso_with_error,
    jackknife,
    mark_crossovers,
    no_calibration,
    scale,
    scores_of,
    uncertainty,
)
from tests.kit import cli, cli_json


def _curve(name: str, x, cost, rate: float = 2.0, hardware: str = "B200") -> CostCurve:
    x, cost = np.asarray(x, dtype=float), np.asarray(cost, dtype=float)
    tps = rate * 1e6 / (3600 * cost)
    return CostCurve(name, x, cost, tps, np.full(len(x), rate), (hardware,) * len(x))


knots = st.lists(st.floats(1, 200, allow_nan=False), min_size=3, max_size=12, unique=True).map(sorted)


def _wiggly_store(n_series: int = 4, points: int = 7, seed: int = 3) -> dict[str, CostCurve]:
    """Curves with enough interior points between them for a store's band (n_series × (points − 2) ≥ 9)."""
    rng = np.random.default_rng(seed)
    out = {}
    for i in range(n_series):
        x = np.sort(rng.uniform(5, 120, points))
        out[f"s{i}"] = _curve(f"s{i}", x, 0.1 + x / 100 * (1 + 0.15 * rng.standard_normal(points)).clip(0.5))
    return out


# ----------------------------------------------------------------------------- leave-one-out

@settings(max_examples=200, deadline=None)
@given(knots, st.floats(0.05, 5), st.floats(0.0, 0.2))
def test_linear_leave_one_out_of_an_exactly_linear_curve_is_zero(x, intercept, slope):
    x = np.array(x)
    assume(np.diff(x).min() > 1e-6)
    loo = leave_one_out({"a": _curve("a", x, intercept + slope * x)}, "linear")
    assert len(loo) == len(x) - 2
    np.testing.assert_allclose(loo["usd_error"], 0, atol=1e-12)
    np.testing.assert_allclose(loo["tps_error"], 0, atol=1e-12)


@settings(max_examples=200, deadline=None)
@given(knots, st.floats(100, 5000), st.floats(0.0, 20))
def test_monotone_leave_one_out_of_throughput_linear_in_interactivity_is_zero(x, t0, drop):
    """monotone is a PCHIP through tokens per $ (tok/s/GPU for one hardware), which reproduces a straight line."""
    x = np.array(x)
    assume(np.diff(x).min() > 1e-3)
    tps = t0 + drop * (x.max() - x)                   # falls with interactivity, as a frontier does
    cost = 2.0 * 1e6 / (3600 * tps)
    loo = leave_one_out({"a": _curve("a", x, cost)}, "monotone")
    np.testing.assert_allclose(loo["usd_error"], 0, atol=1e-9)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(knots, st.lists(st.floats(0.1, 10), min_size=12, max_size=12)), min_size=1, max_size=4))
def test_monotone_leave_one_out_equals_refitting_scipy_without_the_point(data):
    from scipy.interpolate import PchipInterpolator

    curves = {}
    for n, (x, costs) in enumerate(data):
        x = np.array(x)
        assume(np.diff(x).min() > 1e-3)
        curves[f"s{n}"] = _curve(f"s{n}", x, np.array(costs[:len(x)]))
    loo = leave_one_out(curves, "monotone")
    assert len(loo) == sum(len(c.x) - 2 for c in curves.values())
    for row in loo.itertuples(index=False):
        c = curves[row.series]
        keep = c.x != row.interactivity
        expected = 1e6 / PchipInterpolator(c.x[keep], 1e6 / c.usd_per_mtok[keep])(row.interactivity)
        assert row.predicted_usd_per_mtok == pytest.approx(float(expected), rel=1e-9)


def test_leave_one_out_by_hand():
    # x 10, 20, 40: the middle predicted on the chord from (10, 1.0) to (40, 2.5) is 1.5; measured 1.2
    loo = leave_one_out({"a": _curve("a", [10, 20, 40], [1.0, 1.2, 2.5])}, "linear")
    row = loo.iloc[0]
    assert (row["left"], row["right"], row["gap"]) == (10, 40, 30)
    assert (row["left_usd_per_mtok"], row["right_usd_per_mtok"]) == (1.0, 2.5)
    assert row["predicted_usd_per_mtok"] == pytest.approx(1.5)
    assert row["usd_error"] == pytest.approx(1.5 / 1.2 - 1)
    assert row["tps_error"] == pytest.approx(1.2 / 1.5 - 1)       # at a fixed rate, the reciprocal


def test_every_method_from_one_pricing_is_each_method_alone(sample_db):
    from model.core.analysis import frontiers_for
    from model.core.iso import METHODS
    from model.data.store import connect, load_points

    con = connect(sample_db, read_only=True)
    frontier = frontiers_for(load_points(con), ("hardware",), "total")
    con.close()
    together = leave_one_out_methods(frontier)
    assert list(together) == list(METHODS) and not together["linear"].empty
    unit = {h: 1.0 for h in frontier["hardware"].dropna().unique()}
    for method in METHODS:   # oracle: each method's leave-one-out on curves priced for it alone
        pd.testing.assert_frame_equal(together[method], leave_one_out(cost_curves(frontier, unit), method))
    # the relative errors of a one-hardware frontier do not depend on its rate
    dear = leave_one_out_methods(frontier, METHODS, {h: 3.7 for h in unit})
    np.testing.assert_allclose(dear["monotone"]["usd_error"], together["monotone"]["usd_error"], rtol=1e-12)


# ----------------------------------------------------------------------------- scores and the quantile

def test_the_score_by_hand():
    # a point at x = 20 between 10 ($1.0/M) and 40 ($2.5/M), measured $1.2/M: linear says 1.5, monotone 1.2745...
    curves = {"a": _curve("a", [10, 20, 40], [1.0, 1.2, 2.5])}
    loo = {m: leave_one_out(curves, m) for m in ("linear", "monotone")}
    frame = scores_of(loo, "linear").iloc[0]
    g = math.sqrt(4 * 10 * 20 / 30 ** 2) * (math.log(2.5 / 1.0) + 30 / 20)
    assert frame["scale"] == pytest.approx(g)
    other = frame["other"]
    assert other == pytest.approx(loo["monotone"]["predicted_usd_per_mtok"].iloc[0])
    assert not (min(1.5, other) <= 1.2 <= max(1.5, other))       # the truth lies outside both predictions
    assert frame["score"] == pytest.approx(abs(math.log(1.2 / 1.5)) / g)


def test_a_truth_between_the_two_methods_scores_zero():
    # measured $1.4/M between linear's 1.5 and a monotone prediction below it
    curves = {"a": _curve("a", [10, 20, 40], [1.0, 1.4, 2.5])}
    loo = {m: leave_one_out(curves, m) for m in ("linear", "monotone")}
    p, o = loo["linear"]["predicted_usd_per_mtok"].iloc[0], loo["monotone"]["predicted_usd_per_mtok"].iloc[0]
    assert min(p, o) <= 1.4 <= max(p, o)
    assert scores_of(loo, "linear")["score"].iloc[0] == 0


def test_the_conformal_quantile_is_the_ceil_n_plus_1_level_th_smallest():
    scores = np.arange(1, 21, dtype=float)            # 20 scores: the ceil(21 x 0.9) = 19th smallest
    assert conformal_quantile(scores) == 19
    assert math.isnan(conformal_quantile(np.arange(1, MIN_SCORES)))      # 8 scores: too few for 9 in 10
    assert conformal_quantile(np.arange(1, MIN_SCORES + 1)) == MIN_SCORES
    assert MIN_SCORES == 9 and LEVEL == 0.9


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(0, 50, allow_nan=False), min_size=2, max_size=40))
def test_the_jackknife_is_the_quantile_without_each_point(scores):
    # oracle: drop each score, take the conformal quantile of the rest, and ask whether the score lies within it
    s = np.array(scores)
    q, inside = jackknife(s)
    for i in range(len(s)):
        rest = conformal_quantile(np.delete(s, i))
        if math.isnan(rest):
            assert math.isnan(q[i]) and not inside[i]
        else:
            assert q[i] == rest and inside[i] == (s[i] <= rest)


# ----------------------------------------------------------------------------- the band

@settings(max_examples=200, deadline=None)
@given(knots, st.lists(st.floats(0.01, 50), min_size=12, max_size=12), st.floats(0.0, 20),
       st.sampled_from(["linear", "monotone"]))
def test_a_band_is_never_below_zero_exact_at_a_knot_and_covers_both_methods(x, costs, q, method):
    x = np.array(x)
    assume(np.diff(x).min() > 1e-3)
    curve = _curve("a", x, np.sort(np.array(costs[:len(x)])))
    low, high = band_of(curve, x, method, q)
    # exact to the curve's own evaluation at its knots (a PCHIP over costs 2,800x apart rounds there at 1.2e-12)
    np.testing.assert_allclose(low, curve.usd_per_mtok, rtol=1e-10)
    np.testing.assert_allclose(high, curve.usd_per_mtok, rtol=1e-10)
    mid = (x[:-1] + x[1:]) / 2
    low, high = band_of(curve, mid, method, q)
    value = cost_within(curve, mid, method)
    other = cost_within(curve, mid, "monotone" if method == "linear" else "linear")
    assert np.all(low > 0)
    assert np.all((low <= value * (1 + 1e-12)) & (value <= high * (1 + 1e-12)))
    assert np.all((low <= other * (1 + 1e-12)) & (other <= high * (1 + 1e-12)))
    outside = band_of(curve, [x[0] * 0.9, x[-1] * 1.1], method, q)
    assert np.isnan(outside[0]).all() and np.isnan(outside[1]).all()


def test_the_band_by_hand():
    # linear between knots 20 ($1.3/M) and 30 ($1.4/M), at 25: g = 1 x (ln(1.4/1.3) + 10/25); with q = 0.5 the band
    # is 1.35 x e^(±0.5 g), widened to the monotone value where that lies outside
    curve = _curve("a", [10, 20, 30, 40, 60], [1.0, 1.3, 1.4, 2.0, 2.2])
    low, high = band_of(curve, [25.0], "linear", 0.5)
    w = 0.5 * (math.log(1.4 / 1.3) + 10 / 25)
    other = float(cost_within(curve, np.array([25.0]), "monotone")[0])
    assert low[0] == pytest.approx(min(1.35 * math.exp(-w), other))
    assert high[0] == pytest.approx(max(1.35 * math.exp(w), other))
    assert scale(25, 20, 30, 1.3, 1.4) == pytest.approx(math.log(1.4 / 1.3) + 10 / 25)


def test_a_wider_gap_or_a_steeper_price_gives_a_wider_band():
    flat = _curve("a", [10, 20, 30], [1.0, 1.1, 1.2])
    steep = _curve("b", [10, 20, 30], [1.0, 2.0, 4.0])
    wide = _curve("c", [10, 30, 50], [1.0, 1.1, 1.2])
    width = {c.series: np.subtract(*band_of(c, [c.x[0] + (c.x[1] - c.x[0]) / 2], "linear", 1.0)[::-1])[0]
             / cost_within(c, np.array([c.x[0] + (c.x[1] - c.x[0]) / 2]), "linear")[0] for c in (flat, steep, wide)}
    assert width["b"] > width["a"] and width["c"] > width["a"]


def test_kinds_own_store_and_none():
    store = _wiggly_store()
    calibration = calibration_of_curves(store)
    assert calibration.points >= MIN_SCORES and np.isfinite(calibration.quantile["linear"])
    dense = _curve("dense", np.linspace(10, 100, MIN_OWN + 2), np.linspace(1, 3, MIN_OWN + 2) ** 1.3)
    short = _curve("short", [10, 25, 40], [1.0, 1.5, 1.8])
    u = uncertainty({"dense": dense, "short": short}, "linear", calibration)
    assert (u.kind("dense"), u.kind("short")) == ("own", "store")
    assert u.quantile("short") == calibration.quantile["linear"]
    bare = uncertainty({"short": short}, "linear", no_calibration())
    assert bare.kind("short") == "none"
    iso = iso_with_error(iso_table({"short": short}, [10, 30, 41]), {"short": short}, bare)
    assert iso["usd_per_mtok_error"].iloc[0] == 0 and iso["error_from"].iloc[0] == "measured"
    assert np.isnan(iso["usd_per_mtok_low"].iloc[1]) and iso["error_from"].iloc[1] == "none"
    assert np.isnan(iso["usd_per_mtok_low"].iloc[2]) and iso["error_from"].iloc[2] == ""   # past the end


def test_iso_error_is_the_band_at_the_target():
    curve = _curve("a", [10, 20, 30, 40, 60], [1.0, 1.3, 1.4, 2.0, 2.2])
    calibration = calibration_of_curves(_wiggly_store())
    u = uncertainty({"a": curve}, "linear", calibration)
    iso = iso_with_error(iso_table({"a": curve}, [20, 25, 50]), {"a": curve}, u)
    assert list(iso["error_from"]) == ["measured", "store", "store"]
    low, high = band_of(curve, [25, 50], "linear", calibration.quantile["linear"])
    np.testing.assert_allclose(iso["usd_per_mtok_low"].iloc[1:], low)
    np.testing.assert_allclose(iso["usd_per_mtok_high"].iloc[1:], high)
    v = iso["usd_per_mtok"].iloc[1:].to_numpy()
    np.testing.assert_allclose(iso["usd_per_mtok_error"].iloc[1:], np.fmax(1 - low / v, high / v - 1))


def test_a_store_with_fewer_than_nine_points_to_test_has_no_band_and_says_so(db_path):
    from model.core.view import View
    from model.data.ingest import ingest_file
    from model.data.store import connect
    from model.present.view_answer import answer_of_view

    csv = db_path.parent / "two.csv"
    rows = ["hardware,framework,precision,model,isl,osl,tp,concurrency,interactivity,total_tokens_per_second_per_gpu"]
    for hw in ("B200", "H100"):
        for i, (x, t) in enumerate(((10, 3000), (30, 2000), (60, 900))):
            rows.append(f"{hw},sglang,fp8,M,1024,1024,8,{2 ** i},{x},{t}")
    csv.write_text("\n".join(rows) + "\n")
    con = connect(db_path)
    ingest_file(con, csv)
    answer = answer_of_view(con, View(by=("hardware",), rates=(("B200", 2.0), ("H100", 1.5)), targets=(20.0,),
                                      interactivity_needed=20.0), ("cost", "recommendation"))
    con.close()
    assert answer.cost.uncertainty.calibration.points == 2
    assert set(answer.cost.at_x["error_from"]) == {"none"}
    rec = answer.recommendation
    assert rec.settled is None and rec.winner is None                     # ranked, but no winner named
    assert set(rec.contenders) == {"B200", "H100"} and "no series is named cheapest" in rec.headline
    assert any("needs at least 9" in n for n in rec.notes)
    assert all("± ?" in c.text for c in rec.series)


# ----------------------------------------------------------------------------- crossovers within uncertainty

def test_a_crossing_inside_both_bands_is_marked_and_a_clear_one_is_not():
    x = [10, 20, 30, 40, 50, 60, 70]
    wiggly = _curve("wiggly", x, [1.0, 1.1, 1.0, 1.1, 1.0, 1.1, 1.0])
    flat = _curve("flat", [10, 70], [1.04, 1.06])
    steep = _curve("steep", [10, 70], [0.2, 3.0])
    curves = {"wiggly": wiggly, "flat": flat, "steep": steep}
    u = uncertainty(curves, "linear", calibration_of_curves(_wiggly_store()))
    found = crossovers(curves, "linear")
    marked = mark_crossovers(found, curves, u, "linear")
    near = marked[(marked["series_a"] == "flat") & (marked["series_b"] == "wiggly")]
    assert len(near) >= 2 and near["within_uncertainty"].all()
    # flat's range mid-way reaches past wiggly's values on both sides
    low, high = u.band(flat, [40])
    assert low[0] < 1.0 and high[0] > 1.1
    # steep is 0.8 $/M away from wiggly at x = 10 and 2.0 at x = 70, both measured there (exact)
    clear = marked[(marked["series_a"] == "steep") & (marked["series_b"] == "wiggly")]
    assert len(clear) == 1 and not clear["within_uncertainty"].any()
    row = clear.iloc[0]
    assert row["interactivity_low"] <= row["interactivity"] <= row["interactivity_high"]


def _side_samples(ca, cb, lo, hi, n=64):
    return np.unique(np.r_[np.linspace(lo, hi, n), ca.x[(ca.x >= lo) & (ca.x <= hi)], cb.x[(cb.x >= lo) & (cb.x <= hi)]])


def _side_unresolved(curves, errors, a, b, lo, hi, method, n=64) -> bool:
    """The oracle of the batched marking (every side of every pair sampled and priced at once), one side at a time,
    one curve at a time: the two curves' ranges overlap everywhere on [lo, hi] (both known)."""
    if not hi > lo:
        return False
    ca, cb = curves[a], curves[b]
    x = _side_samples(ca, cb, lo, hi, n)
    va, vb = cost_within(ca, x, method), cost_within(cb, x, method)
    (la, ha), (lb, hb) = errors.band(ca, x), errors.band(cb, x)
    ok = np.isfinite(va) & np.isfinite(vb)
    if not ok.any() or not (np.isfinite(la[ok]).all() and np.isfinite(lb[ok]).all()):
        return False
    tol = 1e-9 * np.fmax(va[ok], vb[ok])
    return bool(np.all((la[ok] <= hb[ok] + tol) & (lb[ok] <= ha[ok] + tol)))


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10 ** 6), st.sampled_from(["linear", "monotone"]))
def test_every_side_at_once_is_each_side_alone(seed, method):
    # oracle: _side_unresolved one side at a time; the batched samples must be each side's own, and the marks agree
    from model.core.iso import PackedCurves
    from model.core.uncertainty import _grids

    rng = np.random.default_rng(seed)
    curves = {}
    for name in "abcd":
        x = np.sort(rng.choice(np.arange(5, 120), rng.integers(2, 12), replace=False)).astype(float)
        curves[name] = _curve(name, x, 1 + 0.1 * rng.standard_normal(len(x)).cumsum() ** 2 + x / 200)
    u = uncertainty(curves, method, calibration_of_curves(_wiggly_store(seed=seed % 97)))
    found = crossovers(curves, method)
    names = sorted(curves)
    sides = []
    for (a, b), rows in found.groupby(["series_a", "series_b"]):
        lo, hi = max(curves[a].x_min, curves[b].x_min), min(curves[a].x_max, curves[b].x_max)
        bounds = np.r_[lo, np.sort(rows["interactivity"].to_numpy(dtype=float)), hi]
        sides += [(a, b, s, e) for s, e in zip(bounds[:-1], bounds[1:]) if e > s]
    if sides:
        side, x = _grids(PackedCurves(curves, "linear"), np.array([names.index(s[0]) for s in sides]),
                         np.array([names.index(s[1]) for s in sides]), np.array([s[2] for s in sides]),
                         np.array([s[3] for s in sides]))
        for k, (a, b, s, e) in enumerate(sides):
            assert np.array_equal(x[side == k], _side_samples(curves[a], curves[b], s, e))
    marked = mark_crossovers(found, curves, u, method)
    for row in marked.to_dict("records"):
        a, b, at = row["series_a"], row["series_b"], row["interactivity"]
        xs = np.sort(found[(found["series_a"] == a) & (found["series_b"] == b)]["interactivity"].to_numpy(dtype=float))
        lo, hi = max(curves[a].x_min, curves[b].x_min), min(curves[a].x_max, curves[b].x_max)
        k = int(np.searchsorted(xs, at))
        bounds = np.r_[lo, xs, hi]
        assert row["within_uncertainty"] == (_side_unresolved(curves, u, a, b, bounds[k], bounds[k + 1], method)
                                             or _side_unresolved(curves, u, a, b, bounds[k + 1], bounds[k + 2], method))
        if np.isfinite(row["interactivity_low"]):
            assert lo <= row["interactivity_low"] <= at <= row["interactivity_high"] <= hi


def test_without_a_band_nothing_is_marked():
    a, b = _curve("a", [10, 40], [1.0, 2.0]), _curve("b", [10, 40], [2.0, 1.0])
    curves = {"a": a, "b": b}
    marked = mark_crossovers(crossovers(curves, "linear"), curves, uncertainty(curves, "linear", no_calibration()),
                             "linear")
    assert len(marked) == 1 and not marked["within_uncertainty"].iloc[0]
    assert np.isnan(marked["interactivity_low"].iloc[0])


# ----------------------------------------------------------------------------- the CLI, on the bundled data

#: the MTP series, linear (the default, "auto", picks monotone on this data)
MTP = ("--by", "hardware", "--where", "model=GLM-5", "--where", "spec_decoding=mtp", "--method", "linear")


def test_iso_json_carries_each_cells_range_by_hand(sample_db):
    """Every interpolated cell's range is band_of at the store's quantile, which is the conformal quantile of the
    scores of every frontier of the store (the bundled samples: four series, both spec-decoding settings)."""
    from model.core.uncertainty import store_calibration
    from model.data.store import connect, load_points

    con = connect(sample_db, read_only=True)
    calibration = store_calibration(load_points(con))
    con.close()
    frontier = pd.DataFrame(cli_json(sample_db, "frontier", *MTP)["rows"])
    b200 = frontier[frontier["series"] == "B200"].sort_values("interactivity")
    x = b200["interactivity"].to_numpy()
    target = (x[2] + x[3]) / 2
    out = cli_json(sample_db, "iso", *MTP, "--at", f"{float(x[2])!r},{float(target)!r}")
    rows = {(r["series"], r["interactivity"]): r for r in out["rows"]}
    measured = rows[("B200", float(x[2]))]
    assert measured["usd_per_mtok_error"] == 0 and measured["error_from"] == "measured"
    assert measured["usd_per_mtok_low"] == measured["usd_per_mtok_high"] == measured["usd_per_mtok"]
    cost = b200["usd_per_mtok"].to_numpy()
    curve = _curve("B200", x, cost, 1.95)
    low, high = band_of(curve, [target], "linear", calibration.quantile["linear"])
    cell = rows[("B200", target)]
    assert (cell["usd_per_mtok_low"], cell["usd_per_mtok_high"]) == (pytest.approx(low[0]), pytest.approx(high[0]))
    assert cell["error_from"] == "store" and 0 < cell["usd_per_mtok_low"] < cell["usd_per_mtok"]
    info = out["interpolation_error"]
    assert info["level"] == 0.9 and info["calibration"]["points"] == 20 and info["calibration"]["frontiers"] == 4
    table = {(r["method"], r["kind"]): r for r in info["calibration"]["table"]}
    assert table[("linear", "store")]["points"] == 20 and table[("linear", "store")]["share_inside"] == 0.9
    # the rate of a one-hardware series changes no range's relative width
    dearer = cli_json(sample_db, "iso", *MTP, "--at", f"{float(target)!r}", "--rate", "B200=3.9")
    row = dearer["rows"][0]
    assert row["usd_per_mtok_low"] / row["usd_per_mtok"] == pytest.approx(cell["usd_per_mtok_low"] / cell["usd_per_mtok"])


def test_the_capacity_band_of_a_frontier_point_does_not_depend_on_other_hardware(sample_db):
    """Issue 47: owned MI355X's capacity band at 50 tok/s/user is the same with B200 in view and without."""
    link = "http://x/Buy_rent_or_API?wl=GLM-5|8192|1024&spec=mtp&x=50&tpm=5e9"
    both = cli_json(sample_db, "volume", "--link", link, "--by", "hardware")
    alone = cli_json(sample_db, "volume", "--link", link, "--by", "hardware", "--where", "hardware=MI355X")
    mine = [o for o in both["options"] if o["option"].startswith("owned MI355X")]
    only = [o for o in alone["options"] if o["option"].startswith("owned MI355X")]
    assert mine and only
    for key in ("capacity_down", "capacity_up", "nodes_low", "nodes_high", "usd_per_month_low", "usd_per_month_high"):
        assert mine[0][key] == pytest.approx(only[0][key]), key
    assert 0 < mine[0]["capacity_up"] < 1


def test_crossover_json_and_text_say_within_uncertainty(sample_db):
    out = cli_json(sample_db, "crossover", *MTP)
    assert all(isinstance(r["within_uncertainty"], bool) for r in out["rows"])
    assert {"series_a", "series_b", "interactivity", "cheaper_below", "cheaper_above", "interactivity_low",
            "interactivity_high"} <= set(out["rows"][0])
    assert "interpolation_error" in out
    done = cli(sample_db, "crossover", *MTP)
    assert done.code == 0
    marked = [n for n, r in enumerate(out["rows"], 1) if r["within_uncertainty"]]
    for n in marked:
        assert f"crossing {n} (" in done.out and "is within uncertainty" in done.out
    assert ("within uncertainty (" in done.out) == bool(marked)



def test_a_crossings_interval_ends_where_a_dense_grid_finds_the_bands_part(sample_db):
    """The interval around each crossing (where the two bands overlap) ends where 400,001 evenly spaced samples of
    the two bands find them part, to 0.01 tok/s/user: the sampled ends are moved to the zero of the overlap's margin
    (the samples alone put them up to a grid step inside: 27.51 and 86.43 where the bands part at 27.38 and 86.75)."""
    from model.core.uncertainty import _overlap_of, valued_band
    from model.core.view import View
    from model.data.store import connect
    from model.present.view_answer import answer_of_view

    con = connect(sample_db, read_only=True)
    try:
        answer = answer_of_view(con, View.from_query({"spec": "mtp", "by": "hardware", "r": "B200:1.6"})[0],
                                ("crossings", "pricing"))
    finally:
        con.close()
    analysis, errors = answer.crossings.analysis, answer.pricing.uncertainty
    rows = answer.crossings.marked
    assert len(rows) == 3 and rows["within_uncertainty"].all()
    a, b = analysis.curves["B200"], analysis.curves["MI355X"]
    x = np.linspace(max(a.x_min, b.x_min), min(a.x_max, b.x_max), 400_001)
    method = analysis.scenario.method      # the oracle: each curve's band alone, at every sample
    ok, _, within, _ = _overlap_of(*valued_band(a, x, method, errors.quantile("B200")),
                                   *valued_band(b, x, method, errors.quantile("MI355X")))
    inside = np.flatnonzero(ok & within)
    assert (np.diff(inside) == 1).all()                   # one run of overlap holds all three crossings
    assert rows["interactivity_low"].to_numpy() == pytest.approx(x[inside[0]], abs=0.01)
    assert rows["interactivity_high"].to_numpy() == pytest.approx(x[inside[-1]], abs=0.01)

# ----------------------------------------------------------------------------- the pages (AppTest)

@pytest.fixture
def page(tmp_path, monkeypatch):
    from tests.kit import open_page
    from tests.test_app import _db

    def make(name: str, query: dict):
        monkeypatch.setenv("COSTFRONTIER_DB", str(_db(tmp_path, True)))
        at = open_page(name, query)
        assert not at.exception, at.exception
        return at

    return make


def test_cost_page_shows_the_band_and_the_range_of_the_cli(page):
    import json
    import os

    from model.present import fmt

    at = page("views/matched_interactivity.py", {"spec": "mtp", "by": "hardware", "at": "24,30,90", "method": "linear"})
    table = at.table[0].value
    expected = cli_json(os.environ["COSTFRONTIER_DB"], "iso", *MTP, "--at", "24,30,90")
    for row in expected["rows"]:
        cell = table.loc[row["series"], fmt.interactivity(row["interactivity"])]
        if row["status"] in ("measured", "interpolated"):
            assert cell == fmt.usd_band(row["usd_per_mtok"], row["usd_per_mtok_low"], row["usd_per_mtok_high"],
                                        row["error_from"])
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    bands = [t for t in spec["data"] if t.get("meta", {}).get("kind") == "band"]
    assert {t["meta"]["series"] for t in bands} == {"B200", "MI355X"}
    captions = " ".join(c.value for c in at.caption).replace("\\", "")
    figures = expected["interpolation_error"]["by_method"]
    assert f"off by {fmt.percent(figures['linear']['usd_median'], 1)} at the median point" in captions
    assert "the range held for 18 of 20 (90.0%) under linear" in captions.replace("90%", "90.0%") or \
        "the range held for 18 of 20 (90%) under linear" in captions
    shown = at.dataframe[-1].value
    assert [int(v) for v in shown["Points left out"]] == [20, 20]
    assert [int(v) for v in shown["Inside the band"]] == [18, 18]


def test_crossovers_page_marks_a_crossing_within_uncertainty(page):
    import json
    import os

    at = page("views/crossovers.py", {"spec": "mtp", "by": "hardware", "method": "linear"})
    rows = cli_json(os.environ["COSTFRONTIER_DB"], "crossover", *MTP)["rows"]
    text = "\n".join(m.value for m in at.markdown).replace("\\", "")
    for n, row in enumerate(rows, 1):
        assert (f"crossing {n} (" in text) == row["within_uncertainty"]
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    marks = next(t for t in spec["data"] if t.get("meta", {}).get("kind") == "crossovers")
    assert [c.endswith("(within uncertainty)") for c in marks["customdata"]] == [r["within_uncertainty"] for r in rows]


# ----------------------------------------------------------------------------- the report

def test_report_shows_each_range_and_marks_crossings_like_the_cli(sample_db, tmp_path):
    from model.present import fmt
    from tests.test_report import parse

    view = [*MTP, "--rate", "B200=1.60", "--at", "20,24.5,35,55,77,90"]
    out = tmp_path / "report.html"
    assert cli(sample_db, "report", *view, "--out", str(out)).code == 0
    html = out.read_text(encoding="utf-8")
    tables = parse(html).tables
    iso = cli_json(sample_db, "iso", *view)
    shown = {(r["Interactivity [tok/s/user]"], r["Series"]): r for r in tables["iso"]}
    interpolated = 0
    for row in iso["rows"]:
        cell = shown[(f"{row['interactivity']:.1f}", row["series"])]["Range (9 in 10)"]
        if row["status"] not in ("measured", "interpolated"):
            assert cell == "—"
        elif row["error_from"] == "measured":
            assert cell == "exact (measured)"
        else:
            interpolated += 1
            assert cell == fmt.band(row["usd_per_mtok"], row["usd_per_mtok_low"], row["usd_per_mtok_high"])
            assert cell.endswith(" %")
    assert interpolated >= 6
    cross = cli_json(sample_db, "crossover", *view)
    rows = sorted(cross["rows"], key=lambda r: r["interactivity"])
    assert [r["Within uncertainty"].startswith("yes") for r in tables["crossovers"]] == \
        [r["within_uncertainty"] for r in rows]
    linear = cross["interpolation_error"]["by_method"]["linear"]
    assert f"off by {fmt.percent(linear['usd_median'], 1)} at the median point" in html
    assert "How often the range held" in html


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 10 ** 6), st.sampled_from(["linear", "monotone"]))
def test_every_cell_at_once_is_each_curve_alone(seed, method):
    """The iso table's ranges, read for every cell at once over the packed curves, are band_of's, one curve at a
    time (the oracle), at knots, between them and past the ends."""
    rng = np.random.default_rng(seed)
    curves = {}
    for name in "abcde":
        x = np.sort(rng.choice(np.arange(5, 120), rng.integers(1, 9), replace=False)).astype(float)
        curves[name] = _curve(name, x, np.sort(0.2 + rng.random(len(x)) * 3))
    u = uncertainty(curves, method, calibration_of_curves(_wiggly_store(seed=seed % 89)))
    targets = np.unique(np.r_[rng.uniform(1, 130, 6), curves["a"].x[:2]])
    iso = iso_with_error(iso_table(curves, targets, method), curves, u)
    for row in iso.to_dict("records"):
        if row["status"] not in ("measured", "interpolated"):
            assert np.isnan(row["usd_per_mtok_low"]) and row["error_from"] == ""
            continue
        low, high = u.band(curves[row["series"]], [row["interactivity"]])
        assert row["usd_per_mtok_low"] == pytest.approx(low[0], rel=1e-9)
        assert row["usd_per_mtok_high"] == pytest.approx(high[0], rel=1e-9)
