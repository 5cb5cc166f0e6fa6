"""The cheapest series at every interactivity, and where that changes, per comparison group: the lower
envelope of the cost curves, merged pairwise with the crossings' overlay and roots (:mod:`model.core.crossings`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from model.core.crossings import POINT_NOISE, SAME_COST, overlay, roots
from model.core.iso import CostCurve, PackedCurves, check_method

__all__ = ["Envelope", "ENVELOPE_SEGMENT_COLUMNS", "ENVELOPE_CHANGE_COLUMNS", "lower_envelope"]


@dataclass(frozen=True)
class Envelope:
    """The cheapest series at each interactivity, per comparison group (workload).

    segments : DataFrame
        group, series, min_interactivity, max_interactivity [tok/s/user],
        usd_per_mtok_at_min, usd_per_mtok_at_max [$/M]: ``series`` is the cheapest over
        [min, max]. A single-point series cheaper than its neighbours there gives a
        zero-width segment; interactivity no series reaches has no segment.
    changes : DataFrame
        group, interactivity [tok/s/user], from_series, to_series, usd_per_mtok (the
        new cheapest series' $/M there) and kind: ``crossover`` where the two curves
        cross (both cost the same there), ``reach`` where a frontier ends or begins and the
        cheapest jumps, ``step`` where both curves go on but cross between two neighbouring
        floating-point interactivities (a curve that rises or falls over less than floating
        resolution, as between two frontier points ~1e-16 apart), so the cheapest jumps too.
    """

    segments: pd.DataFrame
    changes: pd.DataFrame


ENVELOPE_SEGMENT_COLUMNS = ["group", "series", "min_interactivity", "max_interactivity",
                            "usd_per_mtok_at_min", "usd_per_mtok_at_max"]


ENVELOPE_CHANGE_COLUMNS = ["group", "interactivity", "from_series", "to_series", "usd_per_mtok", "kind"]


def lower_envelope(curves: dict[str, CostCurve], method: str = "linear",
                   groups: dict[str, object] | None = None, packed: PackedCurves | None = None) -> Envelope:
    """The cheapest series at every interactivity, and where that changes, per comparison group.

    Divide and conquer over the series of each group: pairs of envelopes are merged
    level by level, every merge of a level in one vectorised sweep over the union of
    their breakpoints, so the work is O(total breakpoints x log(series)) array operations.
    Exact for ``linear``; for ``monotone`` each interval is cut where two curves' gap is
    stationary, so no crossing is missed, and roots are found by bisection.
    Ties go to the series first in name order. ``packed``: ``curves`` already packed for ``method``, if at hand.

    Returns
    -------
    Envelope
    """
    check_method(method)
    empty = Envelope(pd.DataFrame(columns=ENVELOPE_SEGMENT_COLUMNS), pd.DataFrame(columns=ENVELOPE_CHANGE_COLUMNS))
    if not curves:
        return empty
    if packed is None or packed.method != method or packed.names != sorted(curves):
        packed = PackedCurves(curves, method)
    labels = [(groups or {}).get(n) for n in packed.names]
    group_keys = list(dict.fromkeys(labels))
    gcode = np.array([group_keys.index(g) for g in labels], dtype=np.int64) if groups else \
        np.zeros(len(labels), dtype=np.int64)
    # position of each series within its group
    slot = np.zeros(len(labels), dtype=np.int64)
    seen: dict[int, int] = {}
    for i, g in enumerate(gcode):
        slot[i] = seen.get(int(g), 0)
        seen[int(g)] = slot[i] + 1
    span = int(slot.max()) + 1
    owners = np.arange(len(labels), dtype=np.int64)
    job, x0, x1, row = packed.segment_pieces(owners, gcode * span + slot)
    # the cheapest at a lone point, found where a crossing falls between two neighbouring floats
    point_rows, point_x = [], []
    while span > 1:
        grp, pos = job // span, job % span
        half = (span + 1) // 2
        pair_job = grp * half + pos // 2
        odd = pos % 2 == 1
        a = (pair_job[~odd], x0[~odd], x1[~odd], row[~odd])
        b = (pair_job[odd], x0[odd], x1[odd], row[odd])
        job, x0, x1, row, lost_row, lost_x = _merge(packed, a, b)
        point_rows.append(lost_row)
        point_x.append(lost_x)
        span = half
    points = (packed.owner[np.concatenate(point_rows)], np.concatenate(point_x)) if point_rows else None
    return _envelope_frames(packed, job, x0, x1, packed.owner[row], gcode, group_keys, points)


def _merge(packed: PackedCurves, a, b) -> tuple[np.ndarray, ...]:
    """Pointwise cheaper of two envelopes per job, as pieces (job, x0, x1, row), and lone points (row, x).

    Where a crossing falls between two neighbouring floats (a curve that rises or falls over less
    than floating resolution: two breakpoints a few ulps apart), the root rounds onto an end of its
    interval and one of the two pieces has no width. The cheaper series at that end is then kept as
    a lone point (row, x): it may be cheaper there than every piece, which :func:`_add_points` checks.
    """
    if len(b[0]) == 0:
        return (*a, np.zeros(0, dtype=np.int64), np.zeros(0))
    ov = overlay(packed, a, b)
    oa, ob, d0, d1 = ov["row_a"], ov["row_b"], ov["d0"], ov["d1"]
    both = (oa >= 0) & (ob >= 0)
    cross = both & (((d0 < 0) & (d1 > 0)) | ((d0 > 0) & (d1 < 0)))
    tie = (d0 == 0) & (d1 == 0)
    a_wins = np.where(both, np.where(tie, oa < ob, (d0 <= 0) & (d1 <= 0)), oa >= 0)
    winner = np.where(a_wins, oa, ob)
    keep = (winner >= 0) & ~cross
    job, x0, x1, owner = ov["job"][keep], ov["x0"][keep], ov["x1"][keep], winner[keep]
    hit = np.flatnonzero(cross)
    if hit.size:
        root, _ = roots(packed, ov, hit)
        # the root is a float beside the crossing. Where the two still differ there beyond rounding (a
        # curve steeper than floating resolution can resolve) and the first is the cheaper, take the next
        # float up: from the root on, the second is then the cheaper, and a change there reads as one.
        lo_x, hi_x = ov["x0"][hit], ov["x1"][hit]
        root = np.clip(root, lo_x, hi_x)                          # x0 + t (x1 - x0) may round past x1
        qa, qb = packed.q_piece(oa[hit], root), packed.q_piece(ob[hit], root)
        apart = np.abs(qa - qb) > SAME_COST * np.maximum(np.abs(qa), np.abs(qb))
        first_cheaper = apart & np.where(d0[hit] < 0, qa < qb, qa > qb)
        root = np.where(first_cheaper, np.minimum(np.nextafter(root, np.inf), hi_x), root)
        # a piece left without width matters only if its series is cheaper than the other beyond rounding
        qa, qb = packed.q_piece(oa[hit], root), packed.q_piece(ob[hit], root)
        distinct = np.abs(qa - qb) > POINT_NOISE * np.maximum(np.abs(qa), np.abs(qb))
        first = np.where(d0[hit] < 0, oa[hit], ob[hit])
        second = np.where(d0[hit] < 0, ob[hit], oa[hit])
        job = np.r_[job, ov["job"][hit], ov["job"][hit]]
        x0 = np.r_[x0, ov["x0"][hit], root]
        x1 = np.r_[x1, root, ov["x1"][hit]]
        owner = np.r_[owner, first, second]
        significant = np.r_[np.zeros(len(job) - 2 * hit.size, dtype=bool), distinct, distinct]
    else:
        significant = np.zeros(len(job), dtype=bool)
    keep = x1 > x0
    lost = ~keep & significant    # only a crossing's piece can lack width: its root is an end of the interval
    return job[keep], x0[keep], x1[keep], owner[keep], owner[lost], x0[lost]


def _envelope_frames(packed: PackedCurves, job, x0, x1, owner, gcode, group_keys, points=None) -> Envelope:
    """Coalesce pieces into segments, add lone points that win, and list the changes.

    ``points`` (owner, x): lone points the merges found (see :func:`_merge`).
    """
    group = job                               # after the last level, job is the group code
    order = np.lexsort((x0, group))
    group, x0, x1, owner = group[order], x0[order], x1[order], owner[order]
    # single-point series (no pieces) and lone points join as zero-width segments where they are cheapest
    single = np.flatnonzero(packed.count == 1)
    point_owner, point_x = single, packed.x[packed.start[single]]
    # a lone point from a crossing counts only where it is cheaper beyond rounding (else it is noise)
    point_tol = np.zeros(len(single))
    if points is not None:
        point_owner = np.r_[point_owner, points[0]].astype(np.int64)
        point_x = np.r_[point_x, points[1]]
        point_tol = np.r_[point_tol, np.full(len(points[0]), POINT_NOISE)]
    if point_owner.size:
        group, x0, x1, owner = _add_points(packed, point_owner, point_x, point_tol, gcode, group, x0, x1, owner)
    contiguous = (group[1:] == group[:-1]) & (x1[:-1] == x0[1:])
    same = contiguous & (owner[1:] == owner[:-1]) & (x1[:-1] > x0[:-1]) & (x1[1:] > x0[1:])
    starts = np.r_[True, ~same]
    seg = np.cumsum(starts) - 1
    s_group, s_owner, s_x0 = group[starts], owner[starts], x0[starts]
    s_x1 = np.zeros(len(s_x0))
    np.maximum.at(s_x1, seg, x1)
    names = np.array(packed.names, dtype=object)
    labels = np.array(group_keys + [None], dtype=object)
    cost0 = packed.cost(packed.q_at(s_owner, s_x0))
    cost1 = packed.cost(packed.q_at(s_owner, s_x1))
    segments = pd.DataFrame({"group": labels[s_group], "series": names[s_owner], "min_interactivity": s_x0,
                             "max_interactivity": s_x1, "usd_per_mtok_at_min": cost0, "usd_per_mtok_at_max": cost1},
                            columns=ENVELOPE_SEGMENT_COLUMNS)
    meet = np.flatnonzero((s_group[1:] == s_group[:-1]) & (s_x1[:-1] == s_x0[1:]) & (s_owner[1:] != s_owner[:-1]))
    src, dst, at = s_owner[meet], s_owner[meet + 1], s_x0[meet + 1]
    x_end = packed.x[packed.start + packed.count - 1]
    both_continue = (x_end[src] > at) & (packed.x[packed.start[dst]] < at)
    # both curves go on, yet do not cost the same here: they cross between this float and its neighbour
    # (one of them rises or falls over less than floating resolution), so the cheapest jumps
    cost_src, cost_dst = packed.cost(packed.q_at(src, at)), cost0[meet + 1]
    meet_here = np.abs(cost_src - cost_dst) <= SAME_COST * np.maximum(np.abs(cost_src), np.abs(cost_dst))
    kind = np.where(both_continue, np.where(meet_here, "crossover", "step"), "reach")
    changes = pd.DataFrame({"group": labels[s_group[meet]], "interactivity": at, "from_series": names[src],
                            "to_series": names[dst], "usd_per_mtok": cost_dst,
                            "kind": kind}, columns=ENVELOPE_CHANGE_COLUMNS)
    return Envelope(segments, changes)


def _add_points(packed: PackedCurves, single, at, tol, gcode, group, x0, x1, owner):
    """Zero-width pieces for points (series ``single`` at ``at``) cheaper than every piece covering them
    (by more than ``tol``, relative)."""
    g = gcode[single]
    q_point = packed.q_at(single, at)
    order = np.lexsort((single, q_point, at, g))                # cheapest first, ties by name
    single, at, g, q_point, tol = single[order], at[order], g[order], q_point[order], tol[order]
    first = np.r_[True, (g[1:] != g[:-1]) | (at[1:] != at[:-1])]
    single, at, g, q_point, tol = single[first], at[first], g[first], q_point[first], tol[first]
    add_x0, add_x1, add_owner, add_group = [], [], [], []
    cut = np.zeros(len(x0), dtype=bool)
    for s, x, gg, q, t in zip(single, at, g, q_point, tol):
        covering = np.flatnonzero((group == gg) & (x0 <= x) & (x1 >= x))
        if covering.size and (packed.q_at(owner[covering], np.full(covering.size, x)) <= q + t * abs(q)).any():
            continue
        for i in covering[(x0[covering] < x) & (x1[covering] > x)]:  # split a piece the point lands inside
            cut[i] = True
            add_x0 += [x0[i], x]
            add_x1 += [x, x1[i]]
            add_owner += [owner[i], owner[i]]
            add_group += [group[i], group[i]]
        add_x0.append(x)
        add_x1.append(x)
        add_owner.append(s)
        add_group.append(gg)
    keep = ~cut
    group = np.r_[group[keep], np.array(add_group, dtype=np.int64)]
    x0 = np.r_[x0[keep], add_x0]
    x1 = np.r_[x1[keep], add_x1]
    owner = np.r_[owner[keep], np.array(add_owner, dtype=np.int64)]
    # zero-width segments sort between the pieces that end and begin at their point
    order = np.lexsort((x1, x0, group))
    return group[order], x0[order], x1[order], owner[order]
