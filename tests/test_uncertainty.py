"""Interpolation error (issue 21, first item): leave-one-out on the frontier's own points, the band, the crossings
it leaves undecided."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from model.core.crossings import crossovers
from model.core.iso import CostCurve, cost_curves, cost_within, iso_table
from model.core.uncertainty import (
    MIN_INTERIOR,
    QUANTILE,
    band_coefficients,
    iso_with_error,
    leave_one_out,
    leave_one_out_frontier,
    mark_crossovers,
    relative_band,
    uncertainty,
)
from tests.kit import cli_json


def _curve(name: str, x, cost, rate: float = 2.0, hardware: str = "B200") -> CostCurve:
    x, cost = np.asarray(x, dtype=float), np.asarray(cost, dtype=float)
    tps = rate * 1e6 / (3600 * cost)
    return CostCurve(name, x, cost, tps, np.full(len(x), rate), (hardware,) * len(x))


knots = st.lists(st.floats(1, 200, allow_nan=False), min_size=3, max_size=12, unique=True).map(sorted)


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
    u = uncertainty({"a": _curve("a", x, intercept + slope * x)}, "linear")
    assert u.by_method.set_index("method").loc["linear", "usd_p90"] == pytest.approx(0, abs=1e-12)


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
    assert row["predicted_usd_per_mtok"] == pytest.approx(1.5)
    assert row["usd_error"] == pytest.approx(1.5 / 1.2 - 1)
    assert row["tps_error"] == pytest.approx(1.2 / 1.5 - 1)       # at a fixed rate, the reciprocal
    assert row["scale"] == pytest.approx(10 * 20 / 20 ** 2)
    assert row["coefficient"] == pytest.approx((1.5 / 1.2 - 1) / 0.5)


def test_leave_one_out_of_a_one_hardware_frontier_does_not_depend_on_the_rate():
    frontier = pd.DataFrame({"series": "B200", "hardware": "B200", "interactivity": [10.0, 20, 35, 50, 80],
                             "tokens_per_second_per_gpu": [2000.0, 1700, 1100, 800, 300]})
    for method in ("linear", "monotone"):
        unit = leave_one_out_frontier(frontier, method)
        priced = leave_one_out(cost_curves(frontier, {"B200": 3.7}), method)
        np.testing.assert_allclose(unit["usd_error"], priced["usd_error"], rtol=1e-12)


def test_every_method_from_one_pricing_is_each_method_alone(sample_db):
    from model.core.analysis import frontiers_for
    from model.core.iso import METHODS
    from model.core.uncertainty import leave_one_out_methods
    from model.data.store import connect, load_points

    con = connect(sample_db, read_only=True)
    frontier = frontiers_for(load_points(con), ("hardware",), "total")
    con.close()
    together = leave_one_out_methods(frontier)
    assert list(together) == list(METHODS) and not together["linear"].empty
    unit = {h: 1.0 for h in frontier["hardware"].dropna().unique()}   # as leave_one_out_frontier prices it
    for method in METHODS:   # oracle: each method's leave-one-out on curves priced for it alone
        alone = leave_one_out(cost_curves(frontier, unit), method)
        pd.testing.assert_frame_equal(together[method], alone)
        pd.testing.assert_frame_equal(leave_one_out_frontier(frontier, method), alone)
    rates = {"B200": 2.0, "H100": 1.5, "H200": 1.8, "MI355X": 1.6}
    pd.testing.assert_frame_equal(leave_one_out_methods(frontier, ("monotone",), rates)["monotone"],
                                  leave_one_out(cost_curves(frontier, rates), "monotone"))


# ----------------------------------------------------------------------------- the band

@settings(max_examples=200, deadline=None)
@given(knots, st.floats(0.01, 5))
def test_band_is_zero_at_measured_points_and_grows_with_the_spacing(x, k):
    x = np.array(x)
    assume(np.diff(x).min() > 1e-6)
    curve = _curve("a", x, np.linspace(1, 2, len(x)))
    assert np.all(relative_band(curve, k, x) == 0)
    mid = (x[:-1] + x[1:]) / 2
    width = np.diff(x)
    band = relative_band(curve, k, mid)
    np.testing.assert_allclose(band, k * (width / 2) ** 2 / mid ** 2, rtol=1e-12)   # quadratic in the spacing
    assert np.all(np.isnan(relative_band(curve, k, [x[0] * 0.9, x[-1] * 1.1])))


@settings(max_examples=150, deadline=None)
@given(st.floats(2, 50), st.floats(0.5, 8), st.floats(0.05, 3), st.floats(1e-4, 0.05), st.floats(5, 200))
def test_band_widens_with_knot_spacing_on_the_same_curve(x0, h, a, g, s):
    """The same smooth cost curve measured every h and every 2h: at the dense grid's mid-points the sparse grid's
    band is wider (its k comes from its own, wider, leave-one-out gaps)."""
    def cost(x):
        return a + g * x * x + a * np.exp(x / s) / 10

    dense = x0 + h * np.arange(9)
    sparse = dense[::2]
    bands = {}
    for name, x in (("dense", dense), ("sparse", sparse)):
        curve = _curve(name, x, cost(x))
        u = uncertainty({name: curve}, "linear")
        assert u.source(name) == "own"
        bands[name] = u.band(curve, (dense[:-1] + dense[1:]) / 2)
    assert np.all(bands["sparse"] > bands["dense"])


def test_few_interior_points_borrow_the_view_or_give_no_band():
    wiggle = _curve("wiggly", [10, 20, 30, 40, 50], [1.0, 1.3, 1.4, 2.0, 2.2])
    short = _curve("short", [10, 25, 40], [1.0, 1.5, 1.8])               # one interior point
    bands = band_coefficients(leave_one_out({"wiggly": wiggle, "short": short}, "linear"), ["wiggly", "short"])
    b = bands.set_index("series")
    assert b.loc["wiggly", "source"] == "own" and b.loc["wiggly", "interior_points"] == MIN_INTERIOR
    loo = leave_one_out({"wiggly": wiggle, "short": short}, "linear")
    assert b.loc["short", "source"] == "view"
    assert b.loc["short", "coefficient"] == pytest.approx(np.quantile(loo["coefficient"], QUANTILE))
    alone = uncertainty({"short": short}, "linear")
    assert alone.source("short") == "none"
    iso = iso_with_error(iso_table({"short": short}, [10, 30, 41]), {"short": short}, alone)
    assert iso["usd_per_mtok_error"].iloc[0] == 0 and iso["error_from"].iloc[0] == "measured"
    assert np.isnan(iso["usd_per_mtok_error"].iloc[1]) and iso["error_from"].iloc[1] == "none"
    assert np.isnan(iso["usd_per_mtok_error"].iloc[2])                  # past the end: no value, no band


def test_iso_error_is_the_band_at_the_target():
    curve = _curve("a", [10, 20, 30, 40, 60], [1.0, 1.3, 1.4, 2.0, 2.2])
    u = uncertainty({"a": curve}, "linear")
    iso = iso_with_error(iso_table({"a": curve}, [20, 25, 50]), {"a": curve}, u)
    k = u.coefficient("a")
    assert list(iso["error_from"]) == ["measured", "own", "own"]
    np.testing.assert_allclose(iso["usd_per_mtok_error"], [0, k * 5 * 5 / 25 ** 2, k * 10 * 10 / 50 ** 2])


# ----------------------------------------------------------------------------- crossovers within uncertainty

def test_a_crossing_inside_both_bands_is_marked_and_a_clear_one_is_not():
    x = [10, 20, 30, 40, 50, 60, 70]
    wiggly = _curve("wiggly", x, [1.0, 1.1, 1.0, 1.1, 1.0, 1.1, 1.0])      # 9 % leave-one-out misses: wide band
    flat = _curve("flat", [10, 70], [1.04, 1.06])                          # borrows the view's band
    steep = _curve("steep", [10, 70], [0.2, 3.0])
    curves = {"wiggly": wiggly, "flat": flat, "steep": steep}
    u = uncertainty(curves, "linear")
    found = crossovers(curves, "linear")
    marked = mark_crossovers(found, curves, u, "linear")
    near = marked[(marked["series_a"] == "flat") & (marked["series_b"] == "wiggly")]
    assert len(near) >= 2 and near["within_uncertainty"].all()
    # flat and wiggly never differ by more than 0.06 $/M; flat's band mid-way is far wider than that
    assert u.band(flat, [40])[0] * 1.05 > 0.06
    # steep is 0.8 $/M away from wiggly at x = 10 and 2.0 at x = 70, both measured there (± 0)
    clear = marked[(marked["series_a"] == "steep") & (marked["series_b"] == "wiggly")]
    assert len(clear) == 1 and not clear["within_uncertainty"].any()


def _side_unresolved(curves, errors, a, b, lo, hi, method, n=64) -> bool:
    """The oracle of the batched marking (``_sides_unresolved``), one side at a time: the gap between a and b
    stays within the sum of their bands everywhere on [lo, hi] (both bands known)."""
    if not hi > lo:
        return False
    ca, cb = curves[a], curves[b]
    x = np.unique(np.r_[np.linspace(lo, hi, n), ca.x[(ca.x >= lo) & (ca.x <= hi)], cb.x[(cb.x >= lo) & (cb.x <= hi)]])
    va, vb = cost_within(ca, x, method), cost_within(cb, x, method)
    ba, bb = errors.band(ca, x) * va, errors.band(cb, x) * vb
    ok = np.isfinite(va) & np.isfinite(vb)
    if not ok.any() or not (np.isfinite(ba[ok]).all() and np.isfinite(bb[ok]).all()):
        return False
    gap = np.abs(va[ok] - vb[ok])
    return bool(np.all(gap <= (ba[ok] + bb[ok]) * (1 + 1e-9) + 1e-12 * np.maximum(va[ok], vb[ok])))


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10 ** 6), st.sampled_from(["linear", "monotone"]))
def test_every_side_at_once_is_each_side_alone(seed, method):
    # oracle: _side_unresolved one side at a time; the batched pass must agree side by side, and the marks with it
    from model.core.uncertainty import _sides_unresolved

    rng = np.random.default_rng(seed)
    curves = {}
    for name in "abcd":
        x = np.sort(rng.choice(np.arange(5, 120), rng.integers(2, 12), replace=False)).astype(float)
        curves[name] = _curve(name, x, 1 + 0.1 * rng.standard_normal(len(x)).cumsum() ** 2 + x / 200)
    u = uncertainty(curves, method)
    found = crossovers(curves, method)
    for (a, b), rows in found.groupby(["series_a", "series_b"]):
        lo, hi = max(curves[a].x_min, curves[b].x_min), min(curves[a].x_max, curves[b].x_max)
        bounds = np.r_[lo, np.sort(rows["interactivity"].to_numpy(dtype=float)), hi, hi]   # and an empty side
        alone = [_side_unresolved(curves, u, a, b, s, e, method) for s, e in zip(bounds[:-1], bounds[1:])]
        assert list(_sides_unresolved(curves, u, a, b, bounds, method)) == alone
    marked = mark_crossovers(found, curves, u, method)
    for row in marked.to_dict("records"):
        a, b, at = row["series_a"], row["series_b"], row["interactivity"]
        xs = np.sort(found[(found["series_a"] == a) & (found["series_b"] == b)]["interactivity"].to_numpy(dtype=float))
        lo, hi = max(curves[a].x_min, curves[b].x_min), min(curves[a].x_max, curves[b].x_max)
        k = int(np.searchsorted(xs, at))
        bounds = np.r_[lo, xs, hi]
        assert row["within_uncertainty"] == (_side_unresolved(curves, u, a, b, bounds[k], bounds[k + 1], method)
                                             or _side_unresolved(curves, u, a, b, bounds[k + 1], bounds[k + 2], method))


def test_without_a_band_nothing_is_marked():
    a, b = _curve("a", [10, 40], [1.0, 2.0]), _curve("b", [10, 40], [2.0, 1.0])
    curves = {"a": a, "b": b}
    marked = mark_crossovers(crossovers(curves, "linear"), curves, uncertainty(curves, "linear"), "linear")
    assert len(marked) == 1 and not marked["within_uncertainty"].iloc[0]


# ----------------------------------------------------------------------------- the CLI, on the bundled data

#: the MTP series, linear as checked by hand below (the default, "auto", picks monotone on this data)
MTP = ("--by", "hardware", "--where", "model=GLM-5", "--where", "spec_decoding=mtp", "--method", "linear")


def test_iso_json_carries_the_error_and_the_pooled_figures(sample_db, capsys):
    db = ("--db", str(sample_db))
    frontier = pd.DataFrame(cli_json(None, *db, "frontier", *MTP, "--json")["rows"])
    b200 = frontier[frontier["series"] == "B200"].sort_values("interactivity")
    x = b200["interactivity"].to_numpy()
    # the linear leave-one-out by hand: each interior point on the chord of its neighbours
    loo = {}
    for name, part in frontier.groupby("series"):
        px, pc = part.sort_values("interactivity")[["interactivity", "usd_per_mtok"]].to_numpy().T
        chord = pc[:-2] + (px[1:-1] - px[:-2]) / (px[2:] - px[:-2]) * (pc[2:] - pc[:-2])
        loo[name] = (chord / pc[1:-1] - 1, (px[1:-1] - px[:-2]) * (px[2:] - px[1:-1]) / px[1:-1] ** 2)
    errors = np.abs(np.concatenate([e for e, _ in loo.values()]))
    target = (x[2] + x[3]) / 2
    out = cli_json(None, *db, "iso", *MTP, "--at", f"{float(x[2])!r},{float(target)!r}", "--json")
    figures = out["interpolation_error"]["by_method"]["linear"]
    assert figures["points"] == len(errors)
    assert figures["usd_median"] == pytest.approx(np.median(errors))
    assert figures["usd_p90"] == pytest.approx(np.quantile(errors, 0.9))
    signed = np.concatenate([e for e, _ in loo.values()])
    assert figures["tps_median"] == pytest.approx(np.median(np.abs(1 / (1 + signed) - 1)))
    assert set(out["interpolation_error"]["by_method"]) == {"linear", "monotone"}
    rows = {(r["series"], r["interactivity"]): r for r in out["rows"]}
    measured = rows[("B200", float(x[2]))]
    assert measured["usd_per_mtok_error"] == 0 and measured["error_from"] == "measured"
    k = np.quantile(np.abs(loo["B200"][0]) / loo["B200"][1], 0.9)
    expected = k * (target - x[2]) * (x[3] - target) / target ** 2
    assert rows[("B200", target)]["usd_per_mtok_error"] == pytest.approx(expected)
    assert rows[("B200", target)]["error_from"] == "own"
    # leave-one-out does not depend on the rate of a one-hardware series
    dearer = cli_json(None, *db, "iso", *MTP, "--at", f"{float(target)!r}", "--rate", "B200=3.9", "--json")
    assert dearer["interpolation_error"]["by_method"] == out["interpolation_error"]["by_method"]
    assert dearer["rows"][0]["usd_per_mtok_error"] == pytest.approx(expected)


def test_crossover_json_and_text_say_within_uncertainty(sample_db, capsys):
    from model.cli import main

    out = cli_json(None, "--db", str(sample_db), "crossover", *MTP, "--json")
    assert all(isinstance(r["within_uncertainty"], bool) for r in out["rows"])
    assert {"series_a", "series_b", "interactivity", "cheaper_below", "cheaper_above"} <= set(out["rows"][0])
    assert "interpolation_error" in out
    assert main(["--db", str(sample_db), "crossover", *MTP]) == 0
    text = capsys.readouterr().out
    marked = [n for n, r in enumerate(out["rows"], 1) if r["within_uncertainty"]]
    for n in marked:
        assert f"crossing {n} (" in text and "is within uncertainty" in text
    assert ("within uncertainty (" in text) == bool(marked)


# ----------------------------------------------------------------------------- the pages (AppTest)

@pytest.fixture
def page(tmp_path, monkeypatch):
    from tests.test_app import _db, open_page

    def make(name: str, query: dict):
        monkeypatch.setenv("COSTFRONTIER_DB", str(_db(tmp_path, True)))
        at = open_page(name, query)
        assert not at.exception, at.exception
        return at

    return make


def _cli_iso(db, *argv) -> dict:
    import contextlib
    import io
    import json

    from model.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["--db", str(db), "iso", *argv, "--json"]) == 0
    return json.loads(out.getvalue())


def test_cost_page_shows_the_band_and_the_plus_minus_of_the_cli(page):
    import json
    import os

    from model.present import fmt

    at = page("views/matched_interactivity.py", {"spec": "mtp", "by": "hardware", "at": "24,30,90", "method": "linear"})
    table = at.table[0].value
    expected = _cli_iso(os.environ["COSTFRONTIER_DB"], *MTP, "--at", "24,30,90")
    for row in expected["rows"]:
        cell = table.loc[row["series"], fmt.interactivity(row["interactivity"])]
        if row["status"] in ("measured", "interpolated"):
            assert cell == f"{fmt.usd(row['usd_per_mtok'])} {fmt.plus_minus(row['usd_per_mtok_error'], row['error_from'])}"
            assert "±" in cell
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    bands = [t for t in spec["data"] if t.get("meta", {}).get("kind") == "band"]
    assert {t["meta"]["series"] for t in bands} == {"B200", "MI355X"}
    captions = " ".join(c.value for c in at.caption).replace("\\", "")
    figures = expected["interpolation_error"]["by_method"]
    assert f"off by {fmt.percent(figures['linear']['usd_median'], 1)} at the median point" in captions
    assert f"monotone by {fmt.percent(figures['monotone']['usd_median'], 1)}" in captions


def test_crossovers_page_marks_a_crossing_within_uncertainty(page):
    import json
    import os

    from model.cli import main

    at = page("views/crossovers.py", {"spec": "mtp", "by": "hardware", "method": "linear"})
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["--db", os.environ["COSTFRONTIER_DB"], "crossover", *MTP, "--json"]) == 0
    rows = json.loads(out.getvalue())["rows"]
    text = "\n".join(m.value for m in at.markdown).replace("\\", "")
    for n, row in enumerate(rows, 1):
        assert (f"crossing {n} (" in text) == row["within_uncertainty"]
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    marks = next(t for t in spec["data"] if t.get("meta", {}).get("kind") == "crossovers")
    assert [c.endswith("(within uncertainty)") for c in marks["customdata"]] == [r["within_uncertainty"] for r in rows]


# ----------------------------------------------------------------------------- the report

def test_report_shows_the_plus_minus_and_marks_crossings_like_the_cli(sample_db, tmp_path, capsys):
    from model.cli import main
    from model.present import fmt
    from tests.test_report import parse

    view = [*MTP, "--rate", "B200=1.60", "--at", "20,24.5,35,55,77,90"]
    out = tmp_path / "report.html"
    assert main(["--db", str(sample_db), "report", *view, "--out", str(out)]) == 0
    capsys.readouterr()
    html = out.read_text(encoding="utf-8")
    tables = parse(html).tables
    iso = cli_json(None, "--db", str(sample_db), "iso", *view, "--json")
    shown = {(r["Interactivity [tok/s/user]"], r["Series"]): r for r in tables["iso"]}
    interpolated = 0
    for row in iso["rows"]:
        cell = shown[(f"{row['interactivity']:.1f}", row["series"])]["± interpolation error"]
        if row["status"] not in ("measured", "interpolated"):
            assert cell == "—"
        elif row["error_from"] == "measured":
            assert cell == "exact (measured)"
        else:
            interpolated += 1
            assert cell == fmt.plus_minus(row["usd_per_mtok_error"])
            assert cell.startswith("± ") and cell.endswith(" %")
    assert interpolated >= 6
    cross = cli_json(None, "--db", str(sample_db), "crossover", *view, "--json")
    rows = sorted(cross["rows"], key=lambda r: r["interactivity"])
    assert [r["Within uncertainty"].startswith("yes") for r in tables["crossovers"]] == \
        [r["within_uncertainty"] for r in rows]
    linear = cross["interpolation_error"]["by_method"]["linear"]
    assert f"off by {fmt.percent(linear['usd_median'], 1)} at the median point" in html
    assert "Interpolation error (±)" in html
