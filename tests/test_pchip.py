"""The monotone method's curve in numpy (model.core.pchip) is SciPy's PchipInterpolator (the oracle) on random
curves, at the knots, between them and at the ends; so a command pricing by it need not import SciPy."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from model.core import pchip


@pytest.mark.filterwarnings("ignore:overflow encountered in divide:RuntimeWarning")   # SciPy's own, at a tiny secant
@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(0.5, 300, allow_nan=False), min_size=2, max_size=14, unique=True),
       st.lists(st.floats(-50, 5000, allow_nan=False), min_size=14, max_size=14))
def test_numpy_pchip_is_scipys(x, y):
    from scipy.interpolate import PchipInterpolator

    x = np.sort(np.array(x))
    assume(np.diff(x).min() > 1e-3)
    y = np.array(y[:len(x)])
    reference = PchipInterpolator(x, y, extrapolate=False)
    coef = pchip.coefficients(x, y)
    np.testing.assert_allclose(coef, reference.c.T, rtol=1e-9, atol=1e-9 * max(1.0, np.abs(y).max()))
    at = np.r_[x, np.linspace(x[0], x[-1], 57), x[0] - 1, x[-1] + 1]
    np.testing.assert_allclose(pchip.evaluate(x, coef, at), reference(at), rtol=1e-9,
                               atol=1e-9 * max(1.0, np.abs(y).max()), equal_nan=True)


def test_two_points_are_a_straight_line():
    coef = pchip.coefficients(np.array([10.0, 20.0]), np.array([1.0, 3.0]))
    assert pchip.evaluate(np.array([10.0, 20.0]), coef, np.array([15.0]))[0] == pytest.approx(2.0)
