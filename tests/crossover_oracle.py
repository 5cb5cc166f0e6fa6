"""Test oracle: the crossover implementation ``model.core.iso`` shipped before the envelope sweep (issue 12).

A Python loop over series with numpy over the others, on the union of every breakpoint of a
comparison group: O(series^2 x breakpoints). Kept as it was, bar its name and one
fix, so the vectorised ``model.core.crossings.crossovers`` can be checked against it on random series.

The fix: where two curves cross exactly on a grid point (``touch``), the shipped code put the
crossing on the *next* grid point (t = 1.0 from the segment that starts at the touching point)
and read "cheaper below" from the zero at the point itself, so it always named B. The
vectorised sweep found this on random series; ``tests/test_envelope.py`` pins the right answer
with a hand-checked example.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.optimize import brentq

from model.core.iso import CostCurve, cost_within


def crossovers_per_pair_loop(curves: dict[str, CostCurve], method: str = "linear",
               groups: dict[str, object] | None = None) -> pd.DataFrame:
    """Every interactivity where two series' cost curves cross, inside their common range.

    Roots are exact for ``linear`` (both curves are linear between the union of their
    breakpoints) and found with Brent's method for ``monotone``; never snapped to a grid.
    ``groups`` maps series -> comparison group (e.g. the workload); only series of the
    same group are paired. Columns: series_a, series_b, interactivity, usd_per_mtok,
    cheaper_below, cheaper_above.
    """
    columns = ["series_a", "series_b", "interactivity", "usd_per_mtok", "cheaper_below", "cheaper_above"]
    names = sorted(curves)
    by_group: dict[object, list[str]] = {}
    for name in names:
        by_group.setdefault((groups or {}).get(name), []).append(name)
    parts: list[tuple[np.ndarray, ...]] = []
    for members in by_group.values():
        if len(members) < 2:
            continue
        grid = np.unique(np.concatenate([curves[m].x for m in members]))
        values = np.vstack([cost_within(curves[m], grid, method) for m in members])
        for a in range(len(members) - 1):
            diff = values[a] - values[a + 1:]                   # (others, grid)
            sign = np.sign(diff)
            strict = (sign[:, :-1] * sign[:, 1:]) < 0            # crossing strictly inside a segment
            touch = np.zeros_like(strict)                        # crossing exactly on a grid point
            if grid.size >= 3:
                touch[:, 1:] = (sign[:, 1:-1] == 0) & ((sign[:, :-2] * sign[:, 2:]) < 0)
            other, seg = np.nonzero(strict | touch)
            if other.size == 0:
                continue
            on_point = touch[other, seg]
            d0, d1 = diff[other, seg], diff[other, seg + 1]
            with np.errstate(invalid="ignore", divide="ignore"):
                t = np.where(on_point, 0.0, d0 / (d0 - d1))   # shipped as 1.0: see the module docstring
            x_root = grid[seg] + t * (grid[seg + 1] - grid[seg])
            # between grid points both linear curves are linear, so is the cost at the root
            cost = values[a, seg] + t * (values[a, seg + 1] - values[a, seg])
            if method != "linear":
                ca = curves[members[a]]
                for i in np.flatnonzero(~on_point):
                    cb = curves[members[a + 1 + other[i]]]
                    x_root[i] = brentq(lambda v, ca=ca, cb=cb: cost_within(ca, v, method) - cost_within(cb, v, method),
                                       grid[seg[i]], grid[seg[i] + 1], xtol=1e-9)
                    cost[i] = float(cost_within(ca, np.array([x_root[i]]), method)[0])
            names_b = np.array(members, dtype=object)[a + 1 + other]
            a_below = sign[other, seg - on_point] < 0            # A is cheaper just below the crossing (shipped: seg)
            name_a = np.full(other.size, members[a], dtype=object)
            parts.append((name_a, names_b, x_root, cost, np.where(a_below, name_a, names_b),
                          np.where(a_below, names_b, name_a)))
    if not parts:
        return pd.DataFrame(columns=columns)
    stacked = [np.concatenate(column) for column in zip(*parts)]
    return pd.DataFrame(dict(zip(columns, stacked))).sort_values(
        ["series_a", "series_b", "interactivity"], ignore_index=True)
