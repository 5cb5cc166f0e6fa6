"""The inverse question (issue 52): the highest interactivity whose $/M stays at or under a cap.

A series' cost curve (:class:`model.core.iso.CostCurve`, read by the view's method: :func:`model.core.iso.
cost_within`) rises with interactivity along a Pareto frontier, but nothing here relies on it: the curve is read on
a grid of :data:`GRID` points over its measured reach (its knots included), the last grid point at or under the cap
is found, and the crossing between it and the next is bisected to :data:`TOLERANCE` of a tok/s/user. Three readings
give the answer and its range: the curve itself, its band's high end (the interactivity where the $/M could already
reach the cap: the low end of the range) and its band's low end (the high end of the range).

Statuses: ``crossing`` (the curve reaches the cap inside its reach), ``whole reach`` (at or under the cap at every
measured interactivity: the answer is the highest measured one, and faster was not measured), ``none`` (above the
cap at every measured interactivity: no measured configuration meets it).
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np

__all__ = ["GRID", "TOLERANCE", "highest_at_or_under", "STATUS_WORDS"]

#: grid points a curve is read at before the crossing is bisected
GRID = 2001
#: the bisection stops within this many tok/s/user
TOLERANCE = 1e-6
#: each status in words
STATUS_WORDS = {"crossing": "where its $/M reaches the cap",
                "whole reach": "at or under the cap at every measured interactivity (faster was not measured)",
                "none": "above the cap at every measured interactivity: no measured configuration meets it"}


def highest_at_or_under(f: Callable[[np.ndarray], np.ndarray], knots: np.ndarray, cap: float) -> tuple[float, str]:
    """The highest x in ``[knots[0], knots[-1]]`` where ``f(x) <= cap`` and the status (module docstring); NaN and
    ``none`` where there is none. ``f`` is read on an array of x (NaN where it has no value)."""
    knots = np.asarray(knots, dtype=float)
    lo, hi = float(knots[0]), float(knots[-1])
    xs = np.unique(np.concatenate([np.linspace(lo, hi, GRID), knots])) if hi > lo else knots[:1]
    with np.errstate(invalid="ignore"):
        ok = np.asarray(f(xs), dtype=float) <= cap
    if not ok.any():
        return math.nan, "none"
    last = int(np.flatnonzero(ok)[-1])
    if last == len(xs) - 1:
        return hi, "whole reach"
    a, b = float(xs[last]), float(xs[last + 1])
    while b - a > TOLERANCE:
        m = (a + b) / 2
        with np.errstate(invalid="ignore"):
            inside = bool(np.asarray(f(np.array([m])), dtype=float)[0] <= cap)
        a, b = (m, b) if inside else (a, m)
    return a, "crossing"
