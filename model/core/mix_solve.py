"""The integer program of the cheapest mix of GPU types (issue 43), on plain arrays.

Types ``t`` (a hardware at one price), buckets ``b`` (requests of one size). Given the capacity of one node of
``t`` on requests of ``b``, ``cap[t, b]`` [req/s per node] (0 or NaN: ``t`` cannot serve ``b``), each bucket's
peak ``r[b]`` [req/s], the cost of one node ``c[t]`` [$/month], the headroom ``h`` and ``spares`` nodes added to
every type used, :func:`solve_mix` chooses

- ``w[t]``: whole working nodes of ``t`` (integer, >= 0);
- ``y[t]``: whether ``t`` is used (0 or 1; ``y <= w``, ``w <= U[t] y``);
- ``s[t, b]``: the share of bucket ``b``'s requests ``t`` serves (continuous, 0..1, ``Σ_t s[t, b] = 1``);

minimising ``Σ_t c[t] (w[t] + spares y[t])`` [$/month] subject to every type carrying its load at the peak,
``Σ_b s[t, b] r[b] h / cap[t, b] <= w[t]``, and the optional limits: nodes of a type (``w + spares y <= max``),
IT power of a type [kW] and facility power of the whole mix [kW] (IT kW × PUE). This is Mélange's formulation
(Griggs et al., 2024: buckets of request sizes, a share of each bucket per GPU type) with whole nodes, headroom
and spares as fleet sizing buys them (:mod:`model.core.fleet`).

Solved by :func:`scipy.optimize.milp` (HiGHS) with a relative gap of 0: the cost it returns is proven cheapest.
After the solve each type's nodes are counted again from its shares as fleet sizing counts them
(``⌈load⌉ + spares``, floating noise below 1e-9 ignored), so a solution the solver accepts only within its
tolerance is never reported cheaper than it is.

Pure functions (numpy, scipy; no I/O).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["MixSolveError", "MixSolution", "SOLVER_STATUSES", "solve_mix", "single_type", "carried_at_most",
           "MAX_MIX_NODES", "TIME_LIMIT_S"]

def _optimize():
    """SciPy's optimizers (HiGHS), imported when a mix is first solved."""
    from scipy import optimize  # deferred: start-up: SciPy loads in 0.3 s, only a request mix solves

    return optimize


#: the solver's outcome in words (scipy.optimize.milp's ``status`` 0..4)
SOLVER_STATUSES = ("optimal", "stopped at the time limit", "infeasible", "unbounded", "solver error")
#: the most working nodes of one type the program takes: past it the capacity is too small to mix from
MAX_MIX_NODES = 1e7
#: the solver's time limit [s]
TIME_LIMIT_S = 20.0


class MixSolveError(ValueError):
    """A problem the integer program cannot take (a price or capacity that is not a number, shapes that differ)."""


@dataclass(frozen=True, eq=False)
class MixSolution:
    """One solve of :func:`solve_mix`.

    Attributes
    ----------
    status : str  one of :data:`SOLVER_STATUSES`
    text : str  the status in words, with the reason when infeasible
    nodes : tuple of int  nodes bought per type, spares included [nodes] (zeros when not solved)
    working : tuple of int  nodes carrying load per type [nodes]
    shares : ndarray (types × buckets)  share of each bucket's requests each type serves [-]
    usd_per_month : float  [$/month]; NaN when not solved
    load : ndarray (types,)  nodes' worth of peak load each type carries (with headroom) [nodes]
    carried_at_most : float  infeasible by the limits: the largest share of the peak they can carry [-]; else NaN
    """

    status: str
    text: str
    nodes: tuple[int, ...]
    working: tuple[int, ...]
    shares: np.ndarray
    usd_per_month: float
    load: np.ndarray
    carried_at_most: float = math.nan

    @property
    def solved(self) -> bool:
        return self.status in ("optimal", "stopped at the time limit") and math.isfinite(self.usd_per_month)


def _ceil(value: float) -> int:
    """Whole nodes for a load, floating noise below 1e-9 ignored (the rule of :func:`model.core.fleet.size_for_demand`)."""
    return int(math.ceil(round(value, 9)))


def _arrays(capacity, peak_rps, usd_per_node_month):
    cap = np.asarray(capacity, dtype=float)
    r = np.asarray(peak_rps, dtype=float)
    c = np.asarray(usd_per_node_month, dtype=float)
    if cap.ndim != 2 or cap.shape != (len(c), len(r)):
        raise MixSolveError(f"capacity must be types × buckets ({len(c)} × {len(r)}), got {cap.shape}")
    if not (np.isfinite(r).all() and (r >= 0).all()):
        raise MixSolveError("every bucket's peak must be a number of req/s, 0 or more")
    if not (np.isfinite(c).all() and (c >= 0).all()):
        raise MixSolveError("every type's cost per node must be a number of $/month, 0 or more")
    cap = np.where(np.isfinite(cap) & (cap > 0), cap, 0.0)
    return cap, r, c


def _per_type(value, n: int, name: str) -> np.ndarray:
    """A per-type limit as an array (``inf``: no limit); a scalar applies to every type."""
    if value is None:
        return np.full(n, math.inf)
    out = np.broadcast_to(np.asarray(value, dtype=float), (n,)).copy()
    out[np.isnan(out)] = math.inf
    if (out < 0).any():
        raise MixSolveError(f"{name} must be 0 or more")
    return out


def _unsolved(status: str, text: str, n_types: int, n_buckets: int, at_most: float = math.nan) -> MixSolution:
    zeros = (0,) * n_types
    return MixSolution(status, text, zeros, zeros, np.zeros((n_types, n_buckets)), math.nan, np.zeros(n_types),
                       at_most)


def solve_mix(capacity, peak_rps, usd_per_node_month, *, headroom: float = 1.0, spares: int = 0,
              max_nodes=None, kw_per_node=None, max_kw=None, budget_kw: float | None = None, pue=None,
              time_limit_s: float = TIME_LIMIT_S, names=None) -> MixSolution:
    """The cheapest whole nodes per type, and the share of each bucket each type serves.

    Parameters
    ----------
    capacity : array (types × buckets)  one node's capacity on each bucket's requests [req/s/node];
        0 or NaN where the type cannot serve the bucket
    peak_rps : array (buckets,)  each bucket's peak [req/s]
    usd_per_node_month : array (types,)  what one node costs [$/month]
    headroom : float  capacity bought ÷ peak [-], >= 1
    spares : int  whole nodes added to every type used [nodes]
    max_nodes : array (types,) or float, optional  nodes of each type available, spares included [nodes]
    kw_per_node : array (types,), optional  IT power of one node [kW]; needed by ``max_kw`` and ``budget_kw``
    max_kw : array (types,) or float, optional  IT power each type may draw [kW]
    budget_kw : float, optional  facility power the whole mix may draw [kW] (IT kW × ``pue``)
    pue : array (types,) or float, optional  facility ÷ IT power [-] (default 1)
    time_limit_s : float  the solver's time limit [s]
    names : sequence of str, optional  the types' names, for what is said (default ``type 1``, ``type 2``, ...)

    Returns
    -------
    MixSolution
    """
    cap, r, c = _arrays(capacity, peak_rps, usd_per_node_month)
    n_t, n_b = cap.shape
    if not headroom >= 1 or not spares >= 0 or int(spares) != spares:
        raise MixSolveError("headroom must be 1 or more, and spares a whole number of nodes, 0 or more")
    spares = int(spares)
    served = r > 0
    orphans = [b for b in range(n_b) if served[b] and not (cap[:, b] > 0).any()]
    if orphans:
        return _unsolved("infeasible", f"infeasible: no type can serve bucket {', '.join(str(b + 1) for b in orphans)}",
                         n_t, n_b)
    per_share = np.divide(r * headroom, cap, out=np.zeros_like(cap), where=cap > 0)   # nodes for all of b on t
    bound = np.array([_ceil(per_share[t, cap[t] > 0].sum()) for t in range(n_t)], dtype=float)
    if (bound > MAX_MIX_NODES).any():
        t = int(np.argmax(bound))
        name = str(names[t]) if names is not None and t < len(names) else f"type {t + 1}"
        raise MixSolveError(f"{name} would need {bound[t]:,.0f} nodes for the whole demand: more than "
                            f"{MAX_MIX_NODES:,.0f}, too many to mix from")
    most = _per_type(max_nodes, n_t, "max nodes")
    kw, watts_limit, p = (_per_type(kw_per_node, n_t, "kW per node"), _per_type(max_kw, n_t, "max kW"),
                          _per_type(pue if pue is not None else 1.0, n_t, "PUE"))
    if (np.isfinite(watts_limit) | (budget_kw is not None)).any() and not np.isfinite(kw).all():
        raise MixSolveError("a power limit needs the kW per node of every type")

    # variables: w (n_t), y (n_t), s (n_t × n_b, row-major)
    n_s = n_t * n_b
    cost = np.concatenate([c, c * spares, np.zeros(n_s)])
    integrality = np.concatenate([np.ones(2 * n_t), np.zeros(n_s)])
    upper_s = (cap > 0).astype(float).ravel()
    bounds = _optimize().Bounds(np.zeros(2 * n_t + n_s), np.concatenate([bound, np.ones(n_t), upper_s]))
    rows, lo, hi = [], [], []

    def row() -> np.ndarray:
        return np.zeros(2 * n_t + n_s)

    for b in range(n_b):                  # every request of every bucket is served
        a = row()
        a[2 * n_t + np.arange(n_t) * n_b + b] = 1.0
        rows.append(a), lo.append(1.0 if served[b] else 0.0), hi.append(1.0 if served[b] else 1.0)
    for t in range(n_t):
        a = row()                          # load at the peak fits the working nodes
        a[2 * n_t + t * n_b: 2 * n_t + (t + 1) * n_b] = per_share[t]
        a[t] = -1.0
        rows.append(a), lo.append(-math.inf), hi.append(0.0)
        a = row()                          # working nodes only on a type used ...
        a[t], a[n_t + t] = 1.0, -max(bound[t], 1.0)
        rows.append(a), lo.append(-math.inf), hi.append(0.0)
        a = row()                          # ... and a type used has a working node (spares alone carry nothing)
        a[n_t + t], a[t] = 1.0, -1.0
        rows.append(a), lo.append(-math.inf), hi.append(0.0)
        for limit, per_node in ((most[t], 1.0), (watts_limit[t], kw[t])):
            if math.isfinite(limit):
                a = row()
                a[t], a[n_t + t] = per_node, per_node * spares
                rows.append(a), lo.append(-math.inf), hi.append(limit)
    if budget_kw is not None:
        a = row()
        a[:n_t], a[n_t:2 * n_t] = kw * p, kw * p * spares
        rows.append(a), lo.append(-math.inf), hi.append(float(budget_kw))
    result = _optimize().milp(cost, integrality=integrality, bounds=bounds,
                  constraints=_optimize().LinearConstraint(np.array(rows), np.array(lo), np.array(hi)),
                  options={"mip_rel_gap": 0.0, "time_limit": time_limit_s, "presolve": True})
    status = SOLVER_STATUSES[result.status] if 0 <= result.status < len(SOLVER_STATUSES) else "solver error"
    if result.x is None:
        if status == "infeasible":
            # a type used has its spares: the nodes left to work are the limit less them
            at_most = carried_at_most(cap, r, headroom, np.maximum(most - spares, 0), kw,
                                      np.maximum(watts_limit - spares * np.nan_to_num(kw), 0), budget_kw, p)
            said = (f"infeasible: the limits given carry at most {at_most:.1%} of the peak (with headroom), even in "
                    "fractions of a node" if math.isfinite(at_most) and at_most < 1 else
                    "infeasible: the limits given cannot be met in whole nodes with their spares (in fractions of a "
                    "node they would carry the peak)")
            return _unsolved(status, said, n_t, n_b, at_most)
        return _unsolved(status, f"{status}: {result.message}", n_t, n_b)
    shares = np.clip(result.x[2 * n_t:].reshape(n_t, n_b), 0.0, 1.0)
    shares[:, ~served] = 0.0
    total = shares.sum(axis=0)
    shares[:, served] = shares[:, served] / total[served]
    return _counted(shares, per_share, c, spares, status,
                    "optimal (HiGHS, proven cheapest)" if status == "optimal"
                    else "stopped at the solver's time limit: the best mix found, not proven cheapest")


def _counted(shares: np.ndarray, per_share: np.ndarray, c: np.ndarray, spares: int, status: str,
             text: str) -> MixSolution:
    """Whole nodes per type for ``shares``, counted as fleet sizing counts them, and their cost."""
    load = (shares * per_share).sum(axis=1)
    working = tuple(_ceil(v) if v > 1e-12 else 0 for v in load)
    nodes = tuple(w + spares if w else 0 for w in working)
    return MixSolution(status, text, nodes, working, shares, float(np.dot(c, nodes)), load)


def single_type(capacity, peak_rps, usd_per_node_month, t: int, *, headroom: float = 1.0, spares: int = 0,
                max_nodes=None, kw_per_node=None, max_kw=None, budget_kw: float | None = None,
                pue=None) -> MixSolution:
    """Type ``t`` alone serving every bucket: ``⌈Σ_b r[b] h / cap[t, b]⌉ + spares`` nodes, as fleet sizing counts
    them; infeasible (with the reason) when it cannot serve a bucket or a limit is passed. Arguments as
    :func:`solve_mix`."""
    cap, r, c = _arrays(capacity, peak_rps, usd_per_node_month)
    n_t, n_b = cap.shape
    missing = [b + 1 for b in range(n_b) if r[b] > 0 and not cap[t, b] > 0]
    if missing:
        return _unsolved("infeasible", f"infeasible: it cannot serve bucket {', '.join(map(str, missing))}", n_t, n_b)
    per_share = np.divide(r * headroom, cap, out=np.zeros_like(cap), where=cap > 0)
    shares = np.zeros((n_t, n_b))
    shares[t, r > 0] = 1.0
    solution = _counted(shares, per_share, c, int(spares), "optimal", "optimal (one type: whole nodes for its load)")
    nodes = solution.nodes[t]
    kw = _per_type(kw_per_node, n_t, "kW per node")[t]
    p = _per_type(pue if pue is not None else 1.0, n_t, "PUE")[t]
    passed = [words for limit, used, words in
              ((_per_type(max_nodes, n_t, "max nodes")[t], nodes, "nodes available"),
               (_per_type(max_kw, n_t, "max kW")[t], nodes * kw, "its kW limit"),
               (budget_kw if budget_kw is not None else math.inf, nodes * kw * p, "the power budget"))
              if math.isfinite(limit) and not used <= limit + 1e-9]
    if passed:
        return _unsolved("infeasible", f"infeasible: {nodes:,} nodes pass {' and '.join(passed)}", n_t, n_b)
    return solution


def carried_at_most(cap: np.ndarray, r: np.ndarray, headroom: float, max_nodes: np.ndarray, kw: np.ndarray,
                    max_kw: np.ndarray, budget_kw: float | None, pue: np.ndarray) -> float:
    """The largest share ``θ`` of every bucket's peak the limits can carry, nodes taken as fractions and spares
    left out (so an upper bound) [-]: the linear program max θ subject to ``Σ_t l[t, b] = θ r[b]``,
    ``Σ_b l[t, b] h / cap[t, b] <= n[t]`` and the limits on ``n``. NaN when it cannot be computed."""
    n_t, n_b = cap.shape
    n_l = n_t * n_b
    # variables: θ, n (n_t), l (n_t × n_b)
    cost = np.zeros(1 + n_t + n_l)
    cost[0] = -1.0
    a_eq = np.zeros((n_b, 1 + n_t + n_l))
    for b in range(n_b):
        a_eq[b, 0] = -r[b]
        a_eq[b, 1 + n_t + np.arange(n_t) * n_b + b] = 1.0
    a_ub, b_ub = [], []
    for t in range(n_t):
        a = np.zeros(1 + n_t + n_l)
        a[1 + n_t + t * n_b: 1 + n_t + (t + 1) * n_b] = np.divide(headroom, cap[t], out=np.zeros(n_b),
                                                                  where=cap[t] > 0)
        a[1 + t] = -1.0
        a_ub.append(a), b_ub.append(0.0)
        if math.isfinite(max_kw[t]):
            a = np.zeros(1 + n_t + n_l)
            a[1 + t] = kw[t]
            a_ub.append(a), b_ub.append(max_kw[t])
    if budget_kw is not None:
        a = np.zeros(1 + n_t + n_l)
        a[1:1 + n_t] = kw * pue
        a_ub.append(a), b_ub.append(budget_kw)
    upper_l = [(0, None) if cap[t, b] > 0 else (0, 0) for t in range(n_t) for b in range(n_b)]
    bounds = [(0, None)] + [(0, m if math.isfinite(m) else None) for m in max_nodes] + upper_l
    result = _optimize().linprog(cost, A_ub=np.array(a_ub), b_ub=np.array(b_ub), A_eq=a_eq, b_eq=np.zeros(n_b), bounds=bounds,
                     method="highs")
    return float(result.x[0]) if result.status == 0 else math.nan
