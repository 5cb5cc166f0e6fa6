"""The monotone method's curve: a piecewise cubic Hermite interpolant that keeps the data's shape (PCHIP), in numpy.

The same curve as SciPy's ``PchipInterpolator`` (Fritsch and Carlson's weighted harmonic mean of the secants at an
interior knot, 0 where the data turn or are flat; the one-sided three-point formula at an end, kept shape-preserving;
a straight line through two points), written here so that a command pricing by it does not import SciPy (0.4 to
0.6 s). ``tests/test_pchip.py`` compares it with SciPy on many random curves. Pure functions; no I/O.
"""

from __future__ import annotations

import numpy as np

__all__ = ["interior_slope", "edge_slope", "derivatives", "coefficients", "evaluate"]


def interior_slope(h_left, m_left, h_right, m_right):
    """The slope at a knot between secants ``m_left`` and ``m_right`` over gaps ``h_left`` and ``h_right``: their
    weighted harmonic mean, 0 at a turn or a flat side (arrays)."""
    w1, w2 = 2 * h_right + h_left, h_right + 2 * h_left
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):   # 1 / a subnormal secant: inf, as SciPy
        d = (w1 + w2) / (w1 / m_left + w2 / m_right)
    flat = (np.sign(m_left) != np.sign(m_right)) | (m_left == 0) | (m_right == 0)
    return np.where(flat, 0.0, d)


def edge_slope(h0, h1, m0, m1):
    """The slope at an end from its two nearest secants (the one-sided three-point formula, kept shape-preserving;
    arrays)."""
    d = ((2 * h0 + h1) * m0 - h0 * m1) / (h0 + h1)
    d = np.where(np.sign(d) != np.sign(m0), 0.0, d)
    return np.where((np.sign(m0) != np.sign(m1)) & (np.abs(d) > 3 * np.abs(m0)), 3 * m0, d)


def derivatives(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The PCHIP's slope at each knot (``x`` strictly increasing, two or more knots)."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    h = np.diff(x)
    m = np.diff(y) / h
    if len(x) == 2:
        return np.full(2, m[0])
    d = np.empty(len(x))
    d[1:-1] = interior_slope(h[:-1], m[:-1], h[1:], m[1:])
    d[0] = edge_slope(h[0], h[1], m[0], m[1])
    d[-1] = edge_slope(h[-1], h[-2], m[-1], m[-2])
    return d


def coefficients(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The cubic of each segment j in powers of (x − x[j]): rows (a3, a2, a1, a0), as SciPy's ``PPoly.c.T``."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    d = derivatives(x, y)
    h = np.diff(x)
    m = np.diff(y) / h
    d0, d1 = d[:-1], d[1:]
    return np.column_stack([(d0 + d1 - 2 * m) / h ** 2, (3 * m - 2 * d0 - d1) / h, d0, y[:-1]])


def evaluate(x: np.ndarray, coef: np.ndarray, at: np.ndarray) -> np.ndarray:
    """The interpolant of knots ``x`` with ``coef`` (:func:`coefficients`) at each of ``at``; NaN outside
    [x[0], x[-1]]."""
    at = np.asarray(at, dtype=float)
    j = np.clip(np.searchsorted(x, at, side="right") - 1, 0, len(x) - 2)
    t = at - x[j]
    c = coef[j]
    out = ((c[:, 0] * t + c[:, 1]) * t + c[:, 2]) * t + c[:, 3]
    return np.where((at >= x[0]) & (at <= x[-1]), out, np.nan)
