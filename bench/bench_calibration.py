"""How often the interpolation band holds, measured the way it is stated (issue 47).

Each interior frontier point of a store is left out in turn: its row is removed, the store's frontiers and the band's
calibration are fitted again without it (:func:`model.core.uncertainty.store_calibration`), and the band at the
point's interactivity is read from its series' reduced curve, by each method. The truth (the point's own $/M) lies
inside that band, or not. Printed: by store, method and kind of band, the points left out, the share inside (the
claim is 9 in 10) and the median distance of the band's ends from the value; and, beside it, the old rule's
(the 90th percentile of the view's own curvature coefficients) on the same points.

    .venv/bin/python bench/bench_calibration.py            # the bundled samples and the public calibration set
    .venv/bin/python bench/bench_calibration.py DB.duckdb  # a store of your own

The test suite runs the same protocol (``tests/test_calibration.py``) and asserts 85-95 % on both stores.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from model.core.iso import METHODS, cost_curves, evaluate  # noqa: E402
from model.core.uncertainty import store_calibration, store_frontiers, uncertainty  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
CALIBRATION_SET = ROOT / "tests" / "fixtures" / "calibration" / "inferencex_api_dsr1_rows.json"
COLUMNS = ["series", "point_id", "interactivity", "method", "kind", "status", "truth", "value", "low", "high",
           "inside"]


def left_out(points: pd.DataFrame, methods=METHODS) -> pd.DataFrame:
    """Each interior frontier point of the store whose rows are ``points`` left out in turn (:data:`COLUMNS`): the
    band its series' curve gives at its interactivity once it and its row are gone, refitted (frontiers and
    calibration) without it, and whether its own $/M lies inside. $/M at $1/GPU-hour: a series of one hardware
    scales with its rate, its band with it."""
    frontier = store_frontiers(points)
    out = []
    for series, part in frontier.groupby("series", sort=True):
        part = part.sort_values("interactivity")
        if len(part) < 3:
            continue
        for _, row in part.iloc[1:-1].iterrows():
            rest = points[points["point_id"] != row["point_id"]]
            calibration = store_calibration(rest)
            reduced = store_frontiers(rest)
            curves = cost_curves(reduced, {h: 1.0 for h in reduced["hardware"].dropna().unique()})
            curve = curves[series]
            x = float(row["interactivity"])
            truth = 1e6 / (3600 * float(row["tokens_per_second_per_gpu"]))
            for method in methods:
                errors = uncertainty({series: curve}, method, calibration)
                value, status = evaluate(curve, [x], method)
                low, high = errors.band(curve, [x])
                out.append((series, int(row["point_id"]), x, method, errors.kind(series), str(status[0]), truth,
                            float(value[0]), float(low[0]), float(high[0]),
                            bool(low[0] * (1 - 1e-9) <= truth <= high[0] * (1 + 1e-9))))
    return pd.DataFrame(out, columns=COLUMNS)


def coverage(frame: pd.DataFrame) -> pd.DataFrame:
    """By method and kind: points, how many lay inside, the share, and the median distance of the band's ends from
    the value [%]."""
    rows = []
    for (method, kind), part in frame.groupby(["method", "kind"], sort=True):
        v = part["value"].to_numpy()
        rows.append((method, kind, len(part), int(part["inside"].sum()), float(part["inside"].mean()),
                     float(np.nanmedian((1 - part["low"].to_numpy() / v) * 100)),
                     float(np.nanmedian((part["high"].to_numpy() / v - 1) * 100))))
    return pd.DataFrame(rows, columns=["method", "kind", "points", "inside", "share", "median_below_pct",
                                       "median_above_pct"])


def _old_rule(points: pd.DataFrame) -> pd.DataFrame:
    """The rule this replaced, on the same points: ± = k (x − a)(b − x)/x², k the 90th percentile of the series' own
    curvature coefficients (3 or more interior points), else of every series' pooled; measured left-out points."""
    from model.core.leave_one_out import leave_one_out

    frontier = store_frontiers(points)
    curves = cost_curves(frontier, {h: 1.0 for h in frontier["hardware"].dropna().unique()})
    rows = []
    for method in METHODS:
        loo = leave_one_out(curves, method)
        s = (loo["interactivity"] - loo["left"]) * (loo["right"] - loo["interactivity"]) / loo["interactivity"] ** 2
        k = (loo["usd_error"].abs() / s).replace([np.inf], np.nan)
        pooled = np.nanquantile(k, 0.9)
        inside = []
        width = []
        for series, part in loo.assign(k=k, s=s).groupby("series"):
            for i in part.index:      # leave the point's own coefficient out of its band
                others = part.drop(index=i)["k"].dropna()
                q = np.quantile(others, 0.9) if len(others) >= 3 else pooled
                band = q * part.at[i, "s"]
                inside.append(abs(part.at[i, "usd_error"]) <= band)
                width.append(band * 100)
        rows.append((method, "old rule", len(inside), int(np.sum(inside)), float(np.mean(inside)),
                     float(np.median(width)), float(np.median(width))))
    return pd.DataFrame(rows, columns=["method", "kind", "points", "inside", "share", "median_below_pct",
                                       "median_above_pct"])


def _store(name: str) -> Path:
    from model.data.ingest import ingest_file
    from model.data.samples import load_samples
    from model.data.store import connect

    path = Path(tempfile.mkdtemp()) / f"{name}.duckdb"
    con = connect(path)
    if name == "samples":
        load_samples(con)
    else:
        ingest_file(con, CALIBRATION_SET)
    con.close()
    return path


def table_text(points: pd.DataFrame, frame: pd.DataFrame | None = None) -> str:
    """The coverage table of a store's rows as this script prints it (and docs/numbers/interpolation.md shows it):
    the new band's by method and kind, then the old rule's."""
    frame = left_out(points) if frame is None else frame
    table = pd.concat([coverage(frame), _old_rule(points)], ignore_index=True)
    with pd.option_context("display.width", 160, "display.float_format", "{:.3g}".format):
        return table.to_string(index=False)


def main(argv: list[str]) -> int:
    from model.data.store import connect, load_points

    stores = [(Path(a).name, Path(a)) for a in argv] or [("bundled samples", _store("samples")),
                                                       ("public calibration set", _store("calibration"))]
    for name, path in stores:
        con = connect(path, read_only=True)
        points = load_points(con)
        con.close()
        started = time.perf_counter()
        frame = left_out(points)
        took = time.perf_counter() - started
        print(f"{name}: {frame['point_id'].nunique()} interior frontier points left out in turn, refitted each time "
              f"({took:.1f} s)")
        print(table_text(points, frame))
        print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
