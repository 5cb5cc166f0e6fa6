"""Step ``run_to_run``: the run-to-run band of a view's answer, named on its own (:mod:`model.core.run_to_run`).

From the intervals stored with the rows (:mod:`model.data.intervals`, read when the step is asked for) it gives:

- ``points``: each frontier point with ``run_to_run_low``/``run_to_run_high`` (relative to its throughput) and
  ``run_to_run_from`` (what it was read from, or why there is none);
- ``iso``: each row of the iso table (series, interactivity) with its run-to-run $/M band (``run_to_run_low``,
  ``run_to_run_high`` in $/M, ``run_to_run_from``), the wider end of the bracketing frontier points between them;
- ``fleet``: each sized series' nodes sized again on the capacity's run-to-run band (``nodes_run_to_run_low``: the
  runs at their fastest, ``nodes_run_to_run_high``: at their slowest), where the view sizes a fleet;
- ``any``: whether any point in view has an interval (a text table shows the columns only then).

It never changes the interpolation ± (:mod:`model.core.uncertainty`) nor the cost steps: the two bands are shown
side by side, each named; :func:`model.core.run_to_run.combine` is the rule to make one of them.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from model.core.run_to_run import bands_by_series, frontier_bands, point_bands, usd_band
from model.present.parts import RunToRun

__all__ = ["run_to_run_of", "run_to_run_lines", "ISO_COLUMNS", "FLEET_COLUMNS"]

#: the columns the iso rows gain (``iso --json`` keys)
ISO_COLUMNS = ["run_to_run_low", "run_to_run_high", "run_to_run_from"]
FLEET_COLUMNS = ["series", "nodes", "nodes_run_to_run_low", "nodes_run_to_run_high", "run_to_run_from"]


def run_to_run_of(view, intervals: pd.DataFrame | None, frontier: pd.DataFrame, iso: pd.DataFrame,
                  fleet=None, sized_again=None) -> RunToRun:
    """The run-to-run band of a view's answer: ``intervals`` the stored intervals of its rows, ``frontier`` the
    priced frontier points, ``iso`` the iso table, ``fleet`` the fleet part (None: none) and ``sized_again(capacity)``
    the fleet sized on another capacity table (the fleet step with that capacity)."""
    bands = point_bands(intervals, view.basis)
    if bands.empty:                  # no interval stored for any row in view: nothing to read point by point
        points, table = _none(frontier, iso)
        return RunToRun(points, table, _fleet_band(fleet, points, sized_again), False)
    points = frontier_bands(frontier, bands)
    notes = []
    statuses = bands["status"].value_counts() if not bands.empty else pd.Series(dtype=int)
    if statuses.get("differs", 0):
        notes.append(f"{statuses['differs']} point(s) state a run-to-run interval that disagrees with mean ± t·se "
                     "beyond rounding: flagged, not used")
    if statuses.get("one run, no interval", 0):
        notes.append(f"{statuses['one run, no interval']} point(s) of one successful run: one run, no interval")
    rows = []
    readers = bands_by_series(points)
    for row in iso.to_dict("records") if not iso.empty else []:
        low, high, said = readers[row["series"]](row["interactivity"]) if row["series"] in readers else \
            (math.nan, math.nan, "no frontier point")
        usd_low, usd_high = usd_band(row.get("usd_per_mtok"), low, high)
        rows.append({"series": row["series"], "interactivity": row["interactivity"], "run_to_run_low": usd_low,
                     "run_to_run_high": usd_high, "run_to_run_from": said})
    table = pd.DataFrame(rows, columns=["series", "interactivity", *ISO_COLUMNS])
    return RunToRun(points, table, _fleet_band(fleet, points, sized_again), bool(bands["low"].notna().any())
                    if not bands.empty else False, notes=tuple(notes))


def _none(frontier: pd.DataFrame, iso: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The points and cells of a view whose rows state no interval, each saying why it has none (what
    :func:`model.core.run_to_run.band_at` says of each, read from each series' reach at once)."""
    said = "no interval stated (one run)"
    points = frontier.assign(run_to_run_low=np.nan, run_to_run_high=np.nan, run_to_run_from=said)
    if iso.empty:
        return points, pd.DataFrame(columns=["series", "interactivity", *ISO_COLUMNS])
    x = iso["interactivity"].to_numpy(dtype=float)
    reach = frontier.groupby("series")["interactivity"].agg(["min", "max"]) if not frontier.empty else None
    lo = iso["series"].map(reach["min"]).to_numpy(dtype=float) if reach is not None else np.full(len(iso), np.nan)
    hi = iso["series"].map(reach["max"]).to_numpy(dtype=float) if reach is not None else np.full(len(iso), np.nan)
    on = np.isclose(x, lo, rtol=1e-9, atol=0.0) | np.isclose(x, hi, rtol=1e-9, atol=0.0) | ((x > lo) & (x < hi))
    why = np.where(np.isnan(lo) | ~np.isfinite(x), "no frontier point",
                   np.where(on, f"none: {said}", "beyond the frontier's measured points"))
    table = pd.DataFrame({"series": iso["series"].to_numpy(), "interactivity": x, "run_to_run_low": np.nan,
                          "run_to_run_high": np.nan, "run_to_run_from": why})
    return points, table


def _fleet_band(fleet, points: pd.DataFrame, sized_again) -> pd.DataFrame | None:
    """Each sized series' nodes on its capacity point's run-to-run band (None: no fleet)."""
    if fleet is None or fleet.sized.empty or sized_again is None or "nodes" not in fleet.sized.columns:
        return None
    capacity = fleet.capacity
    by_where = {(str(r.get("source_file")), _line(r.get("source_line"))): r for r in points.to_dict("records")}
    factors, said = {}, {}
    for row in capacity.to_dict("records"):
        match = by_where.get((str(row.get("source_file")), _line(row.get("source_line"))))
        if match is None or not math.isfinite(match.get("run_to_run_low", math.nan)):
            said[row["series"]] = match["run_to_run_from"] if match is not None else \
                "no interval: the capacity point is not a frontier point from repeated runs"
            continue
        factors[row["series"]] = (match["run_to_run_low"], match["run_to_run_high"])
        said[row["series"]] = match["run_to_run_from"]
    out = fleet.sized[["series", "nodes"]].copy()
    for column, side in (("nodes_run_to_run_low", 1), ("nodes_run_to_run_high", 0)):
        scale = capacity["series"].map(lambda s: factors.get(s, (math.nan, math.nan))[side]).astype(float)
        scaled = capacity.assign(per_node_rps=capacity["per_node_rps"] * scale,
                                 tokens_per_second_per_node=capacity["tokens_per_second_per_node"] * scale)
        again = sized_again(scaled)
        nodes = dict(zip(again.sized["series"], again.sized["nodes"])) if again is not None else {}
        out[column] = [nodes.get(s, math.nan) if s in factors else math.nan for s in out["series"]]
    out["run_to_run_from"] = [said.get(s, "no capacity row") for s in out["series"]]
    return out[FLEET_COLUMNS]


def _line(value) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def run_to_run_lines(band) -> list[str]:
    """Each sized series' nodes on its capacity point's run-to-run band, in words (none: no line)."""
    if band is None or band.empty or not band["nodes_run_to_run_low"].notna().any():
        return []
    out = []
    for row in band.to_dict("records"):
        if row["nodes_run_to_run_low"] == row["nodes_run_to_run_low"]:
            out.append(f"run-to-run: {row['series']}: {row['nodes']:,.0f} nodes, {row['nodes_run_to_run_low']:,.0f}"
                       f"–{row['nodes_run_to_run_high']:,.0f} on the capacity point's run-to-run interval "
                       f"({row['run_to_run_from']})")
        else:
            out.append(f"run-to-run: {row['series']}: {row['run_to_run_from']}")
    return out
