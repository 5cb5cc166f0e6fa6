"""Series and their Pareto frontiers of throughput per GPU against interactivity.

Pure functions over pandas frames; no I/O. A *series* is the set of points that
share the grouping keys (default: hardware, framework, precision, speculative
decoding), pooled over parallelism configs and concurrencies.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = [
    "DEFAULT_SERIES_KEYS",
    "SERIES_KEY_CHOICES",
    "BASES",
    "MEASURED_BASES",
    "throughput_column",
    "DISAGG_MODES",
    "disagg_throughput",
    "apply_disagg",
    "series_labels",
    "pareto_mask",
    "pareto_mask_naive",
    "fit_frontiers",
]

DEFAULT_SERIES_KEYS = ("hardware", "framework", "precision", "spec_decoding")
#: keys a user may group by (parallelism is never a key: series pool over it)
SERIES_KEY_CHOICES = (
    "hardware", "framework", "framework_version", "precision", "spec_decoding", "kv_cache_dtype",
    "disaggregated", "model", "isl", "osl", "scenario", "prefix_cache_hit_rate", "source_file",
)
#: token bases a benchmark measures: which tokens a throughput (and so a $/M) counts
MEASURED_BASES = ("total", "output", "input")
#: ... plus ``blended``: input tokens weighted by price (see model.core.capacity.add_blended_throughput)
BASES = (*MEASURED_BASES, "blended")


def throughput_column(basis: str) -> str:
    """``"total"`` -> ``"total_tokens_per_second_per_gpu"`` [tok/s/GPU] (``blended_...`` for blended)."""
    if basis not in BASES:
        raise ValueError(f"unknown token basis {basis!r}; choose one of {', '.join(BASES)}")
    return f"{basis}_tokens_per_second_per_gpu"


#: how a disaggregated (prefill/decode) row's input or output throughput per GPU is normalised:
#: ``per-role`` the rate per GPU of its own role, as stated (input per prefill GPU, output per
#: decode GPU); ``share`` the total per GPU of both roles split by token share (measured
#: input / (input + output) where the two agree with the total within 1 %, else ISL / (ISL + OSL)).
#: The total basis is always total tok/s per GPU of both roles (InferenceX's convention).
DISAGG_MODES = ("per-role", "share")
#: measured input + output must agree with the total within this fraction for ``share`` to use them
SHARE_TOLERANCE = 0.01
_ROLE_COLUMNS = {"input": "input_tokens_per_second_per_prefill_gpu",
                 "output": "output_tokens_per_second_per_decode_gpu"}


def _floats(points: pd.DataFrame, column: str) -> np.ndarray:
    if column not in points.columns:
        return np.full(len(points), np.nan)
    return points[column].to_numpy(dtype=float, na_value=np.nan)


def _disagg_flags(points: pd.DataFrame) -> np.ndarray:
    """True where a row is disaggregated (False where not, or not stated)."""
    if "disaggregated" not in points.columns:
        return np.zeros(len(points), dtype=bool)
    return points["disaggregated"].astype("boolean").fillna(False).to_numpy(dtype=bool)


def disagg_throughput(points: pd.DataFrame, basis: str, mode: str) -> pd.Series:
    """Throughput per GPU on ``basis`` [tok/s/GPU] for every row, disaggregated rows normalised by ``mode``.

    Aggregated rows, and every row on the ``total`` and ``blended`` bases, keep
    :func:`throughput_column` as stored. For a disaggregated row on the input (output) basis:

    - ``per-role``: input tok/s per prefill GPU (output per decode GPU), as the file states it;
      the per-GPU-of-all-roles value where the role rate is unknown.
    - ``share``: total tok/s per GPU of both roles x the token share, where the share is
      input / (input + output) [system tok/s] when |input + output - total| <= 1 % of total,
      else ISL / (ISL + OSL); empty when neither is known.

    Raises ``ValueError`` for an unknown basis or mode.
    """
    column = throughput_column(basis)
    if mode not in DISAGG_MODES:
        raise ValueError(f"unknown disaggregation mode {mode!r}; choose one of {', '.join(DISAGG_MODES)}")
    values = _floats(points, column)
    if basis not in _ROLE_COLUMNS:
        return pd.Series(values, index=points.index, name=column)
    disagg = _disagg_flags(points)
    if mode == "per-role":
        role = _floats(points, _ROLE_COLUMNS[basis])
        out = np.where(disagg & np.isfinite(role), role, values)
    else:
        inp, outp, total = (_floats(points, f"{b}_tokens_per_second") for b in ("input", "output", "total"))
        isl, osl = _floats(points, "isl"), _floats(points, "osl")
        with np.errstate(invalid="ignore", divide="ignore"):
            agree = np.abs(inp + outp - total) <= SHARE_TOLERANCE * total
            share_in = np.where(agree, inp / (inp + outp), isl / (isl + osl))
            share = share_in if basis == "input" else 1.0 - share_in
            out = np.where(disagg, _floats(points, "total_tokens_per_second_per_gpu") * share, values)
    return pd.Series(out, index=points.index, name=column)


def apply_disagg(points: pd.DataFrame, basis: str, mode: str) -> tuple[pd.DataFrame, list[str]]:
    """``points`` with the basis column normalised by :func:`disagg_throughput`, and a note saying how.

    Returns ``points`` itself (no copy) when no disaggregated row is affected.
    """
    if mode not in DISAGG_MODES:
        raise ValueError(f"unknown disaggregation mode {mode!r}; choose one of {', '.join(DISAGG_MODES)}")
    n = int(_disagg_flags(points).sum())
    if not n:
        return points, []
    if basis not in _ROLE_COLUMNS:
        how = "per GPU of both roles" if basis == "total" else "from the per-GPU-of-all-roles rates"
        return points, [f"{n} disaggregated rows: {basis} tok/s {how}"]
    role = "prefill" if basis == "input" else "decode"
    how = (f"{basis} tok/s per {role} GPU, as stated (--disagg per-role)" if mode == "per-role" else
           f"total tok/s per GPU of both roles x the {basis} token share (measured where input + output agree "
           "with the total within 1 %, else ISL/OSL; --disagg share)")
    column = throughput_column(basis)
    return points.assign(**{column: disagg_throughput(points, basis, mode)}), [f"{n} disaggregated rows: {how}"]


def _label_part(key: str, value: object) -> str:
    if value is None or (isinstance(value, float) and np.isnan(value)) or value is pd.NA:
        return ""      # a field the rows do not state is left out of the label, not shown as "?"
    if key in ("isl", "osl"):
        return f"{key.upper()} {int(value)}"
    if key == "spec_decoding":
        return "no spec" if value == "none" else str(value)
    if key == "disaggregated":
        return "disagg" if bool(value) else "agg"
    if key == "prefix_cache_hit_rate":
        return f"{float(value):.0%} cache hit"
    return str(value)


def series_labels(points: pd.DataFrame, keys: tuple[str, ...] | list[str]) -> pd.Series:
    """One readable label per row, e.g. ``"MI355X · sglang · fp8 · mtp"``; ``"B200"`` for ``keys=("hardware",)``.

    Fields a row does not state are left out (``"B200 · sglang"`` when precision and speculative
    decoding are not stated).
    """
    keys = list(keys)
    for key in keys:
        if key not in SERIES_KEY_CHOICES:
            raise ValueError(f"cannot group by {key!r}; choose from {', '.join(SERIES_KEY_CHOICES)}")
    if points.empty:
        return pd.Series([], dtype="string", index=points.index)
    if not keys:
        return pd.Series("all", index=points.index, dtype="string")
    codes = points.groupby(keys, dropna=False, sort=False).ngroup().to_numpy()
    firsts = points[keys].iloc[_first_index(codes)].astype("object")
    names = [" · ".join(part for k, v in zip(keys, row) if (part := _label_part(k, v))) or "not stated"
             for row in firsts.itertuples(index=False, name=None)]
    if "disaggregated" not in keys and "disaggregated" in points.columns:
        # disaggregated series say so even when the grouping does not split on it
        flags = _disagg_flags(points)
        some = np.bincount(codes, weights=flags, minlength=len(names))
        every = np.bincount(codes, minlength=len(names))
        names = [n + (" · disagg" if k == total else " · incl. disagg") if k else n
                 for n, k, total in zip(names, some, every)]
    return pd.Series(pd.array(names, dtype="string")[codes], index=points.index)


def _first_index(codes: np.ndarray) -> np.ndarray:
    """Row position of the first row of each group code, in code order."""
    _, first = np.unique(codes, return_index=True)
    return first


def pareto_mask(x: np.ndarray, y: np.ndarray, groups: np.ndarray | None = None) -> np.ndarray:
    """Boolean mask of points not dominated in (x higher, y higher), per group. O(n log n).

    A point is dominated when another point of its group has x >= and y >= with
    at least one strictly greater. Of exact duplicates, the first (lowest position) is kept,
    as :func:`pareto_mask_naive` keeps it.

    From :data:`PREFILTER_MIN` points on, points that a point of a strictly higher x bucket of
    their group dominates are dropped before the sort (:func:`_beaten_from_above`; 97 % of 1M points
    of 900 series): the answer is the same, the sort much shorter.

    Parameters
    ----------
    x : array  interactivity [tok/s/user]
    y : array  throughput [tok/s/GPU] (or any "more is better" measure)
    groups : array of int, optional  group code per point
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    n = len(x)
    if n == 0:
        return np.zeros(0, dtype=bool)
    g = np.zeros(n, dtype=np.int64) if groups is None else np.asarray(groups, dtype=np.int64)
    if n >= PREFILTER_MIN:
        beaten = _beaten_from_above(x, y, g)
        if beaten is not None and beaten.any():
            rest = np.flatnonzero(~beaten)
            mask = np.zeros(n, dtype=bool)
            # the group offsets of the whole: the same sums, so the same comparisons, as without the filter
            mask[rest] = _pareto_sorted(x[rest], y[rest], g[rest], float(np.max(y) - np.min(y)) + 1.0)
            return mask
    return _pareto_sorted(x, y, g)


#: pareto_mask prefilters from this many points on (below it the sort costs less than the filter)
PREFILTER_MIN = 20_000
#: x buckets of the prefilter per group (fewer when there are many groups: at most _PREFILTER_CELLS cells)
_PREFILTER_BUCKETS = 256
_PREFILTER_CELLS = 4_000_000


def _beaten_from_above(x: np.ndarray, y: np.ndarray, g: np.ndarray) -> np.ndarray | None:
    """True where a point of the same group in a strictly higher x bucket has y >= this point's y: that point
    has a strictly higher x (buckets rise with x), so it dominates, and the point cannot be on the frontier.
    Points it drops never decide another point's fate (whoever they dominate, their own dominator dominates
    too), so the frontier of the rest is the frontier of all. None when it does not apply (non-finite values,
    negative group codes, too many groups)."""
    if not (np.isfinite(x).all() and np.isfinite(y).all()) or g.min() < 0:
        return None
    groups = int(g.max()) + 1
    buckets = min(_PREFILTER_BUCKETS, _PREFILTER_CELLS // groups)
    if buckets < 4:
        return None
    edges = np.unique(x[:: max(1, len(x) // (buckets * 16))])          # sample of x, sorted
    edges = edges[:: max(1, len(edges) // buckets)][1:]
    bucket = np.searchsorted(edges, x, side="right")                   # non-decreasing in x
    width = len(edges) + 2
    best = np.full(groups * width, -np.inf)
    np.maximum.at(best, g * width + bucket, y)
    # per group, the best y of every bucket strictly above: a reversed running max, shifted by one
    best = best.reshape(groups, width)
    above = np.maximum.accumulate(best[:, ::-1], axis=1)[:, ::-1]
    above = np.concatenate([above[:, 1:], np.full((groups, 1), -np.inf)], axis=1).ravel()
    return y <= above[g * width + bucket]


def _pareto_sorted(x: np.ndarray, y: np.ndarray, g: np.ndarray, span: float | None = None) -> np.ndarray:
    """:func:`pareto_mask` by one sort of every point; ``span`` the y range (+1) that offsets groups."""
    n = len(x)
    # group, then x descending, then y descending, then position: a point is on the frontier when its y
    # beats every y seen before it in its group (all of which have x >= its x)
    order = _lexsort3(g, x, y)
    ys, gs = y[order], g[order]
    starts = np.r_[True, gs[1:] != gs[:-1]]
    # running max within each group: offset each group so maxima never leak across groups
    span = float(np.nanmax(ys) - np.nanmin(ys)) + 1.0 if span is None else span
    group_rank = np.cumsum(starts) - 1
    lifted = ys + group_rank * span * 2.0
    running = np.maximum.accumulate(lifted)
    previous = np.r_[-np.inf, running[:-1]]
    keep_sorted = starts | (lifted > previous)
    mask = np.zeros(n, dtype=bool)
    mask[order] = keep_sorted
    return mask


def _lexsort3(g: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``np.lexsort((-y, -x, g))``, exact ties in their order of position as there: stable passes
    (radix for small group codes) from the last key to the first."""
    order = np.argsort(-y, kind="stable")
    order = order[np.argsort(-x[order], kind="stable")]
    codes = g[order]
    if codes.size and 0 <= codes.min() and codes.max() < 2 ** 15:
        codes = codes.astype(np.int16)                  # numpy's stable sort is a radix sort for 16-bit ints
    return order[np.argsort(codes, kind="stable")]


def pareto_mask_naive(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """O(n^2) oracle for :func:`pareto_mask` (one group). Duplicates: the first is kept."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    n = len(x)
    keep = np.ones(n, dtype=bool)
    for i in range(n):
        for j in range(n):
            if i == j:
                continue
            dominates = x[j] >= x[i] and y[j] >= y[i] and (x[j] > x[i] or y[j] > y[i])
            duplicate_earlier = x[j] == x[i] and y[j] == y[i] and j < i
            if dominates or duplicate_earlier:
                keep[i] = False
                break
    return keep


def fit_frontiers(points: pd.DataFrame, keys=DEFAULT_SERIES_KEYS, basis: str = "total",
                  usd_per_gpu_hour: dict[str, float] | None = None) -> pd.DataFrame:
    """The Pareto frontier of every series, one row per frontier point, x ascending.

    Keeps every column of the chosen points (config, concurrency, source) and adds
    ``series`` and ``tokens_per_second_per_gpu`` (the basis' throughput [tok/s/GPU]).
    Points without interactivity or throughput on the basis are left out.

    When the grouping keys include ``hardware``, each series has one $/GPU-hour and
    the throughput frontier is also the cost frontier, whatever the rates. When they
    do not, series mix hardware and the frontier is fitted on tokens per dollar,
    which needs ``usd_per_gpu_hour``.
    """
    column = throughput_column(basis)
    x = points["interactivity"].to_numpy(dtype=float, na_value=np.nan)
    y = points[column].to_numpy(dtype=float, na_value=np.nan)
    ok = np.isfinite(x) & np.isfinite(y) & (x > 0) & (y > 0)
    if "hardware" not in keys:
        if not usd_per_gpu_hour:
            raise ValueError("series mix hardware: rates are needed to fit a cost frontier")
        rate = points["hardware"].map(usd_per_gpu_hour).to_numpy(dtype=float, na_value=np.nan)
        y = y / rate
        ok &= np.isfinite(y)
    rows = np.flatnonzero(ok)
    if rows.size == 0:
        return points.iloc[rows].assign(series=pd.Series(dtype="string"),
                                        tokens_per_second_per_gpu=pd.Series(dtype=float))
    # group codes from the key columns only: copying every column of every usable row costs more than the fit
    codes = _group_codes(points[list(keys)], keys)[rows]
    mask = pareto_mask(x[ok], y[ok], codes)
    frontier = points.iloc[rows[mask]]
    # label only the frontier rows: labelling every point costs more than the fit
    frontier = frontier.assign(series=series_labels(frontier, keys), tokens_per_second_per_gpu=frontier[column])
    return frontier.sort_values(["series", "interactivity"], kind="stable").reset_index(drop=True)


def _group_codes(points: pd.DataFrame, keys) -> np.ndarray:
    if not keys:
        return np.zeros(len(points), dtype=np.int64)
    return points.groupby(list(keys), dropna=False, sort=False).ngroup().to_numpy()
