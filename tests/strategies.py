"""Hypothesis strategies for benchmark points."""

from __future__ import annotations

from hypothesis import strategies as st

interactivity = st.floats(min_value=0.5, max_value=500, allow_nan=False, allow_infinity=False)
throughput = st.floats(min_value=1, max_value=50_000, allow_nan=False, allow_infinity=False)
rate = st.floats(min_value=0.05, max_value=50, allow_nan=False, allow_infinity=False)

# coarse values so ties and duplicates happen often
coarse_x = st.integers(min_value=1, max_value=30).map(float)
coarse_y = st.integers(min_value=1, max_value=30).map(float)

points = st.lists(st.tuples(interactivity, throughput), min_size=1, max_size=60)
coarse_points = st.lists(st.tuples(coarse_x, coarse_y), min_size=1, max_size=60)

# cost curves: each a few (interactivity [tok/s/user], $/M) points; coarse integers make
# crossings land exactly on breakpoints and curves share points and ends
fine_curve = st.lists(st.tuples(st.floats(1, 100, allow_nan=False), st.floats(0.2, 8, allow_nan=False)),
                      min_size=1, max_size=8)
coarse_curve = st.lists(st.tuples(st.integers(1, 20).map(float), st.integers(1, 9).map(float)),
                        min_size=1, max_size=8)
curve_sets = st.one_of(st.lists(fine_curve, min_size=1, max_size=6), st.lists(coarse_curve, min_size=1, max_size=6))
