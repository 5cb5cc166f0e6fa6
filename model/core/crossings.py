"""Where cost curves cross, vectorised over all pairs: the packed curves' pieces of every pair are overlaid
(:func:`overlay`), split where a monotone piece turns, and solved for their roots (:func:`roots`). The lower
envelope (:mod:`model.core.envelope`) merges envelopes with the same two steps."""

from __future__ import annotations

import numpy as np
import pandas as pd

from model.core.iso import CostCurve, PackedCurves, check_method

__all__ = ["CROSSOVER_COLUMNS", "SAME_COST", "POINT_NOISE", "overlay", "roots", "all_pairs", "crossovers"]


CROSSOVER_COLUMNS = ["series_a", "series_b", "interactivity", "usd_per_mtok", "cheaper_below", "cheaper_above"]


SAME_COST = 1e-9           # two $/M within this fraction of each other are one cost (a crossover's)


POINT_NOISE = 1e-12        # a crossing's lone point must be cheaper than this fraction to count


_PAIR_CHUNK = 1_000_000     # pieces per batch when crossing many pairs: bounds memory [elements]


def overlay(packed: PackedCurves, a: tuple[np.ndarray, ...], b: tuple[np.ndarray, ...]) -> dict[str, np.ndarray]:
    """Lay pieces ``a`` and ``b`` (job, x0, x1, row) over the union of their endpoints, per job.

    A piece's ``row`` is its owner's segment that holds it. Returns per elementary (sub)interval:
    job, x0, x1, row_a, row_b (-1 where none) and, where both exist, d0 and d1, q_a - q_b at its
    ends (positive: ``a`` is dearer). For ``monotone`` the intervals are cut at the stationary
    points of q_a - q_b, so between ends of one sign the two curves do not cross.
    """
    ja, a0, a1, ra = a
    jb, b0, b1, rb = b
    na, nb = len(ja), len(jb)
    jobs = np.concatenate([ja, jb, ja, jb])
    xs = np.concatenate([a0, b0, a1, b1])
    kind = np.repeat(np.array([0, 1, 2, 2], dtype=np.int8), [na, nb, na, nb])   # a starts, b starts, ends
    piece = np.concatenate([np.arange(na), np.arange(nb), np.zeros(na + nb, dtype=np.int64)])
    order = np.lexsort((xs, jobs))
    jobs, xs, kind, piece = jobs[order], xs[order], kind[order], piece[order]
    position = np.arange(len(xs))
    # one point per distinct (job, x): its last event, which has seen every piece starting there
    last = np.flatnonzero(np.r_[(jobs[1:] != jobs[:-1]) | (xs[1:] != xs[:-1]), True])
    pj, px = jobs[last], xs[last]
    inner = pj[1:] == pj[:-1]
    at, job, x0, x1 = last[:-1][inner], pj[:-1][inner], px[:-1][inner], px[1:][inner]

    def cover(which: int, pieces_job, pieces_x1, rows) -> np.ndarray:
        """Row of the piece covering each interval: the last one of that side to start at or before it."""
        if len(rows) == 0:
            return np.full(len(job), -1, dtype=np.int64)
        started = np.maximum.accumulate(np.where(kind == which, position, -1))[at]
        cand = np.where(started >= 0, piece[np.maximum(started, 0)], 0)
        ok = (started >= 0) & (pieces_job[cand] == job) & (pieces_x1[cand] >= x1)
        return np.where(ok, rows[cand], -1)

    row_a, row_b = cover(0, ja, a1, ra), cover(1, jb, b1, rb)
    out = {"job": job, "x0": x0, "x1": x1, "row_a": row_a, "row_b": row_b}
    both = (row_a >= 0) & (row_b >= 0)
    d0, d1 = np.full(len(job), np.nan), np.full(len(job), np.nan)
    d0[both] = packed.q_piece(row_a[both], x0[both]) - packed.q_piece(row_b[both], x0[both])
    d1[both] = packed.q_piece(row_a[both], x1[both]) - packed.q_piece(row_b[both], x1[both])
    out["d0"], out["d1"] = d0, d1
    if packed.method == "monotone" and both.any():
        out = _split_at_stationary_points(packed, out, np.flatnonzero(both))
    return out


def _shifted(packed: PackedCurves, row: np.ndarray, x0: np.ndarray) -> np.ndarray:
    """Cubic coefficients (a3, a2, a1) of q on segment ``row`` in s = x - x0."""
    c = packed.coef[row]
    e = x0 - packed.x[row]
    return np.stack([c[:, 0], 3 * c[:, 0] * e + c[:, 1], (3 * c[:, 0] * e + 2 * c[:, 1]) * e + c[:, 2]], axis=1)


def _split_at_stationary_points(packed: PackedCurves, out: dict[str, np.ndarray], both: np.ndarray) -> dict[str, np.ndarray]:
    """Cut each interval where both curves exist at the stationary points of q_a - q_b inside it."""
    x0, x1 = out["x0"][both], out["x1"][both]
    c = _shifted(packed, out["row_a"][both], x0) - _shifted(packed, out["row_b"][both], x0)
    a, b, k = 3 * c[:, 0], 2 * c[:, 1], c[:, 2]                  # derivative a s^2 + b s + k
    w = x1 - x0
    with np.errstate(invalid="ignore", divide="ignore"):
        disc = b * b - 4 * a * k
        half = -0.5 * (b + np.copysign(np.sqrt(np.where(disc >= 0, disc, np.nan)), b))   # no cancellation
        quad = np.abs(a) * w * w > 1e-12 * (np.abs(b) * w + np.abs(k))
        s1 = np.where(quad, half / a, -k / b)
        s2 = np.where(quad, k / half, np.nan)
    cuts = np.stack([s1, s2], axis=1)
    # a cut within 1e-6 of an end separates nothing measurable, and its rounded gap (often 0) would hide a sign
    cuts = np.where((cuts > 1e-6 * w[:, None]) & (cuts < (1 - 1e-6) * w[:, None]), cuts, np.nan)
    if np.isnan(cuts).all():
        return out
    cuts.sort(axis=1)                                            # NaN last
    n = len(out["job"])
    extra = np.isfinite(cuts)
    counts = np.ones(n, dtype=np.int64)
    counts[both] += extra.sum(axis=1)
    src = np.repeat(np.arange(n), counts)
    new = {k_: v[src] for k_, v in out.items()}
    # the position of each new interval within its parent, and the parent's cut list
    pos = np.arange(len(src)) - np.repeat(np.cumsum(counts) - counts, counts)
    parent_cuts = np.full((n, 2), np.nan)
    parent_cuts[both] = cuts
    pc = parent_cuts[src]
    lo_s = np.where(pos == 0, 0.0, pc[np.arange(len(src)), np.maximum(pos - 1, 0)])
    hi_s = np.where(pos == counts[src] - 1, np.nan, pc[np.arange(len(src)), np.minimum(pos, 1)])
    base = out["x0"][src]
    split = counts[src] > 1
    new_x0 = np.where(pos == 0, new["x0"], base + lo_s)
    new_x1 = np.where(np.isnan(hi_s), new["x1"], base + hi_s)
    # q_a - q_b at the new interior ends, from the parent's own polynomials
    row_a, row_b = new["row_a"][split], new["row_b"][split]
    d_lo = packed.q(row_a, new_x0[split]) - packed.q(row_b, new_x0[split])
    d_hi = packed.q(row_a, new_x1[split]) - packed.q(row_b, new_x1[split])
    new["d0"][split] = np.where(pos[split] == 0, new["d0"][split], d_lo)
    new["d1"][split] = np.where(np.isnan(hi_s[split]), new["d1"][split], d_hi)
    new["x0"], new["x1"] = new_x0, new_x1
    keep = new["x1"] > new["x0"]
    return {k_: v[keep] for k_, v in new.items()}


def roots(packed: PackedCurves, ov: dict[str, np.ndarray], idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where q_a - q_b changes sign inside intervals ``idx``, and the $/M there.

    Exact for ``linear`` (both are linear on the interval); bisection to machine precision
    for ``monotone`` (q_a - q_b is monotone between the cuts).
    """
    x0, x1, d0, d1 = ov["x0"][idx], ov["x1"][idx], ov["d0"][idx], ov["d1"][idx]
    row_a, row_b = ov["row_a"][idx], ov["row_b"][idx]
    if packed.method == "linear":
        t = d0 / (d0 - d1)
        qa0 = packed.q_piece(row_a, x0)
        qa1 = packed.q_piece(row_a, x1)
        return x0 + t * (x1 - x0), packed.cost(qa0 + t * (qa1 - qa0))
    lo, hi = x0.copy(), x1.copy()
    rising = d0 < 0
    for _ in range(64):
        mid = 0.5 * (lo + hi)
        d = packed.q(row_a, mid) - packed.q(row_b, mid)
        below = (d < 0) == rising                                # the root is above mid
        lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
    root = 0.5 * (lo + hi)
    return root, packed.cost(packed.q(row_a, root))


def all_pairs(curves: dict[str, CostCurve], groups: dict[str, object] | None = None) -> list[tuple[str, str]]:
    """Every pair of series (in name order) of the same comparison group."""
    by_group: dict[object, list[str]] = {}
    for name in sorted(curves):
        by_group.setdefault((groups or {}).get(name), []).append(name)
    return [(a, b) for members in by_group.values() for i, a in enumerate(members) for b in members[i + 1:]]


def crossovers(curves: dict[str, CostCurve], method: str = "linear", groups: dict[str, object] | None = None,
               pairs=None, packed: PackedCurves | None = None) -> pd.DataFrame:
    """Every interactivity where two series' cost curves cross, inside their common range.

    Roots are exact for ``linear`` (both curves are linear between the union of their
    breakpoints). For ``monotone``, each interval between breakpoints is also cut where
    the gap between the two curves is stationary, so each piece holds at most one root,
    found by bisection; never snapped to a grid.

    Parameters
    ----------
    curves : dict of str to CostCurve
    method : str  one of :data:`METHODS`
    groups : dict, optional
        series -> comparison group (e.g. the workload); only series of one group are paired.
    pairs : iterable of (str, str), optional
        just these pairs (e.g. the series in view, or each series against a baseline);
        default every pair of a group: quadratic in series, so leave it for a handful.
    packed : PackedCurves, optional
        ``curves`` already packed for ``method`` (e.g. the range's, :attr:`model.core.uncertainty.Uncertainty.packed`);
        packed here otherwise.

    Returns
    -------
    DataFrame with columns series_a, series_b (in name order), interactivity [tok/s/user],
    usd_per_mtok [$/M], cheaper_below, cheaper_above; sorted by series_a, series_b, interactivity.
    """
    check_method(method)
    wanted = all_pairs(curves, groups) if pairs is None else pairs
    if groups is not None:
        wanted = [(a, b) for a, b in wanted if groups.get(a) == groups.get(b)]
    wanted = sorted({tuple(sorted((a, b))) for a, b in wanted if a != b and a in curves and b in curves})
    if not wanted:
        return pd.DataFrame(columns=CROSSOVER_COLUMNS)
    if packed is None or packed.method != method or packed.names != sorted(curves):
        packed = PackedCurves({n: curves[n] for n in {s for pair in wanted for s in pair}}, method)
    index = {n: i for i, n in enumerate(packed.names)}
    ia = np.array([index[a] for a, _ in wanted], dtype=np.int64)
    ib = np.array([index[b] for _, b in wanted], dtype=np.int64)
    # only the common range can hold a crossing: pairs that share none are dropped here
    lo = np.maximum(packed.x[packed.start[ia]], packed.x[packed.start[ib]])
    hi = np.minimum(packed.x[packed.start[ia] + packed.count[ia] - 1], packed.x[packed.start[ib] + packed.count[ib] - 1])
    share = hi > lo
    ia, ib = ia[share], ib[share]
    sizes = packed.count[ia] + packed.count[ib]
    parts = []
    bounds = np.r_[0, np.flatnonzero(np.diff(np.cumsum(sizes) // _PAIR_CHUNK)) + 1, len(ia)]
    for s, e in zip(bounds[:-1], bounds[1:]):
        if e > s:
            parts.append(_pair_crossings(packed, ia[s:e], ib[s:e]))
    parts = [p for p in parts if not p.empty]
    if not parts:
        return pd.DataFrame(columns=CROSSOVER_COLUMNS)
    return pd.concat(parts, ignore_index=True).sort_values(["series_a", "series_b", "interactivity"], ignore_index=True)


def _pair_crossings(packed: PackedCurves, ia: np.ndarray, ib: np.ndarray) -> pd.DataFrame:
    jobs = np.arange(len(ia), dtype=np.int64)
    ov = overlay(packed, packed.segment_pieces(ia, jobs), packed.segment_pieces(ib, jobs))
    # a gap within rounding of zero is zero: two monotone curves through one shared point differ there
    # by ~1e-16 after evaluation, which must read as touching, not as a sign that hides the crossing
    d0, d1 = (np.where(np.abs(d) <= 1e-12, 0.0, d) for d in (ov["d0"], ov["d1"]))   # [$/M]
    strict = ((d0 < 0) & (d1 > 0)) | ((d0 > 0) & (d1 < 0))
    x_root, cost_root = np.empty(0), np.empty(0)
    hit = np.flatnonzero(strict)
    if hit.size:
        x_root, cost_root = roots(packed, ov, hit)
        if packed.method != "linear":   # keep only true roots: an interval ~1e-14 wide cannot be bisected
            other = packed.cost(packed.q_piece(ov["row_b"][hit], x_root))
            real = np.abs(other - cost_root) <= 1e-7 * np.maximum(1.0, np.abs(cost_root))
            hit, x_root, cost_root = hit[real], x_root[real], cost_root[real]
    # touching zero exactly at an interval end, with opposite signs either side
    nxt = np.arange(1, len(d0))
    touch = (ov["job"][1:] == ov["job"][:-1]) & (ov["x1"][:-1] == ov["x0"][1:]) & (d1[:-1] == 0) \
        & (((d0[:-1] < 0) & (d1[nxt] > 0)) | ((d0[:-1] > 0) & (d1[nxt] < 0)))
    left = np.flatnonzero(touch)
    x_touch = ov["x1"][left]
    cost_touch = packed.cost(packed.q_piece(ov["row_a"][left], x_touch))
    job = np.r_[ov["job"][hit], ov["job"][left]]
    a_below = np.r_[d0[hit] < 0, d0[left] < 0]
    names = np.array(packed.names, dtype=object)
    name_a, name_b = names[ia[job]], names[ib[job]]
    return pd.DataFrame({
        "series_a": name_a, "series_b": name_b,
        "interactivity": np.r_[x_root, x_touch], "usd_per_mtok": np.r_[cost_root, cost_touch],
        "cheaper_below": np.where(a_below, name_a, name_b), "cheaper_above": np.where(a_below, name_b, name_a),
    }, columns=CROSSOVER_COLUMNS)
