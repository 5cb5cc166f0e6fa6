"""The cheapest mix of GPU types for the traffic people have (issue 43).

Real traffic mixes short chats and long-context calls, whose cheapest hardware differs. This module takes a
*request mix*, buckets of requests by input and output length (ISL, OSL) with the share of requests in each, and
finds the whole nodes per GPU type, and the share of each bucket each type serves, that serve every bucket's
peak for the least $/month (:mod:`model.core.mix_solve`, an integer program solved by HiGHS).

- **The request mix** (:class:`model.core.request_mix.RequestMix`, typed or a trace's requests bucketed by
  length). Each bucket's peak is its share of the demand's peak [req/s]: the mix is taken to hold steady over time.
- **Matching** (:func:`match_buckets`): per type and bucket, the measured workload nearest the bucket by the
  *distance factor* ``max(ISL/ISL', ISL'/ISL, OSL/OSL', OSL'/OSL)`` (1 = the same; 2 = one length half or twice
  the other), within :data:`MATCH_FACTOR`. The capacity is the measured one (req/s of one node at that workload,
  under the SLA at the interactivity you need, as fleet sizing reads it: :func:`model.core.node_capacity.node_capacity`),
  never scaled to the bucket's lengths: a bucket longer than its match is likely served slower than said (the
  answer says so per bucket). A bucket no type has measured within the factor is *not measured*: named, and left
  out of the fleet, which then covers the rest of the requests (said with its share).
- **The cheapest mix** (:func:`cheapest_mix`): the program over every priced type, and each type alone
  (``⌈Σ load⌉ + spares`` nodes); the verdict names the saving against the best single type, or "no mix beats X".
  It assumes any bucket's requests can be routed to any type (a router that sends each request by its size).
- **The crossover along the mix** (:func:`mix_crossover`): the share of long requests swept from 0 to 100 %
  (the short buckets and the long ones each keep their proportions, the total peak stays), and where a mix
  starts (and stops) paying. *Long* buckets carry more tokens per request (ISL+OSL) than the mix's median request.

Pure functions over numpy and pandas frames (numpy, scipy, pandas; no I/O, no Streamlit).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Mapping

import numpy as np
import pandas as pd

from model.core.demand import SECONDS_PER_MONTH
from model.core.mix_solve import MixSolution, MixSolveError, single_type, solve_mix
from model.core.request_mix import (  # the value a mix answer is for
    Bucket,
    MixError,
    RequestMix,
)
from model.core.tco import HOURS_PER_MONTH

__all__ = ["MixLimits", "MixAnswer", "match_buckets", "distance_factor", "long_buckets", "cheapest_mix", "mix_crossover",
           "mix_view", "offers_of",
           "OFFER_COLUMNS", "MATCH_FACTOR", "CROSSOVER_STEPS", "ROUTING", "MixSolveError"]

#: a bucket matches a measured workload whose ISL and OSL are each within this factor of its own [-]
MATCH_FACTOR = 2.0
#: the long-request shares the crossover sweeps: 0, 5 %, ..., 100 %
CROSSOVER_STEPS = 21
#: what every answer assumes, in words
ROUTING = ("assumes each bucket's requests can be routed to any GPU type (a router that sends each request by its "
           "length); capacities are measured points, never extrapolated beyond the measured range")
#: the columns :func:`match_buckets` and :func:`cheapest_mix` read from the offers: one row per (type, measured
#: workload, series): ``type`` (a hardware at one price), ``hardware``, ``series``, ``isl``, ``osl``,
#: ``per_node_rps`` [req/s/node], ``capacity_from`` (the measured point in words), ``gpus_per_node``,
#: ``usd_per_gpu_hour`` [$/GPU-hour, paid every hour], ``kw_per_gpu`` [kW IT], ``pue`` [-], ``pricing`` (words)
OFFER_COLUMNS = ("type", "hardware", "series", "isl", "osl", "per_node_rps", "capacity_from", "gpus_per_node",
                 "usd_per_gpu_hour", "kw_per_gpu", "pue", "pricing")


# ------------------------------------------------------------------------------------------ matching

def distance_factor(isl, osl, measured_isl, measured_osl) -> float:
    """How far a measured workload is from a bucket: ``max(ISL/ISL', ISL'/ISL, OSL/OSL', OSL'/OSL)`` [-], 1 when the
    same; NaN when a length is unknown or not positive."""
    values = np.array([isl, osl, measured_isl, measured_osl], dtype=float)
    if not (np.isfinite(values).all() and (values > 0).all()):
        return math.nan
    a, b, c, d = values
    return float(max(a / c, c / a, b / d, d / b))


def _ratio_words(bucket: Bucket, isl: float, osl: float) -> str:
    return f"ISL ×{bucket.isl / isl:.3g}, OSL ×{bucket.osl / osl:.3g} of the measured"


_MATCH_COLUMNS = ["bucket", "label", "type", "series", "measured_isl", "measured_osl", "factor", "per_node_rps",
                  "capacity_from", "note"]


def match_buckets(mix: RequestMix, offers: pd.DataFrame, factor: float = MATCH_FACTOR) -> pd.DataFrame:
    """Per type and bucket, the measured workload the bucket is served at, and one node's capacity there.

    Among the type's workloads within ``factor`` (:func:`distance_factor`), the nearest with capacity (ties: the
    smaller sum of ``|log|`` ratios, then the smaller ISL, then OSL); of several series there, the one carrying
    the most req/s per node. Without one: the nearest measured, with why it gives no capacity.

    Returns
    -------
    DataFrame: ``bucket`` (0-based, the mix's order), ``label``, ``type``, ``series``, ``measured_isl``,
    ``measured_osl`` [tokens], ``factor`` [-], ``per_node_rps`` [req/s/node; NaN: cannot serve it],
    ``capacity_from`` and a ``note`` (how far, and whether the capacity is likely optimistic or conservative).
    """
    if not factor >= 1:
        raise MixError(f"the match factor must be 1 or more, got {factor}")
    rows = []
    known = offers[pd.to_numeric(offers["isl"], errors="coerce").gt(0)
                   & pd.to_numeric(offers["osl"], errors="coerce").gt(0)]
    for kind in sorted(offers["type"].dropna().astype(str).unique()):
        mine = known[known["type"] == kind]
        isl = mine["isl"].to_numpy(dtype=float)
        osl = mine["osl"].to_numpy(dtype=float)
        rps = pd.to_numeric(mine["per_node_rps"], errors="coerce").to_numpy(dtype=float)
        for b, bucket in enumerate(mix.buckets):
            base = {"bucket": b, "label": bucket.label, "type": kind}
            if mine.empty:
                rows.append({**base, "note": "no measured ISL/OSL"})
                continue
            far = np.array([distance_factor(bucket.isl, bucket.osl, i, o) for i, o in zip(isl, osl)])
            logs = np.abs(np.log(bucket.isl / isl)) + np.abs(np.log(bucket.osl / osl))
            order = np.lexsort((-np.nan_to_num(rps, nan=-1.0), osl, isl, logs, far))
            near = [k for k in order if far[k] <= factor * (1 + 1e-12)]
            usable = [k for k in near if rps[k] > 0]
            k = usable[0] if usable else (near[0] if near else order[0])
            row = mine.iloc[k]
            base.update(series=row["series"], measured_isl=isl[k], measured_osl=osl[k], factor=far[k],
                        capacity_from=row.get("capacity_from"))
            if usable:
                longer = bucket.tokens("total") / (isl[k] + osl[k])
                lean = ("; longer requests than measured: the capacity is likely optimistic" if longer > 1.1 else
                        "; shorter requests than measured: the capacity is likely conservative" if longer < 1 / 1.1
                        else "")
                how = "measured" if far[k] == 1 else f"nearest measured, {_ratio_words(bucket, isl[k], osl[k])}"
                rows.append({**base, "per_node_rps": rps[k],
                             "note": f"served at {isl[k]:.0f}/{osl[k]:.0f} ({how}){lean}"})
            elif near:
                rows.append({**base, "note": f"{isl[k]:.0f}/{osl[k]:.0f} is measured, but gives no capacity: "
                                             f"{row.get('capacity_from') or 'no point meets the limits'}"})
            else:
                rows.append({**base, "note": f"nearest measured {isl[k]:.0f}/{osl[k]:.0f} is ×{far[k]:.3g} away "
                                             f"(more than ×{factor:g})"})
    out = pd.DataFrame(rows, columns=_MATCH_COLUMNS)
    for column in ("measured_isl", "measured_osl", "factor", "per_node_rps"):
        out[column] = pd.to_numeric(out[column], errors="coerce").astype(float)
    return out


# ------------------------------------------------------------------------------------------ the answer

@dataclass(frozen=True)
class MixLimits:
    """Optional limits: nodes available and IT power per type (keyed by type or hardware, any case), and the
    facility power of the whole mix.

    Attributes
    ----------
    max_nodes : {name: int}  nodes of a type available, spares included [nodes]
    max_kw : {name: float}  IT power a type may draw [kW]
    budget_kw : float, optional  facility power the whole mix may draw [kW] (IT kW × PUE)
    """

    max_nodes: Mapping[str, int] = field(default_factory=dict)
    max_kw: Mapping[str, float] = field(default_factory=dict)
    budget_kw: float | None = None

    def words(self) -> str:
        parts = [f"{k} at most {v:,} node{'s' if v != 1 else ''}" for k, v in self.max_nodes.items()]
        parts += [f"{k} at most {v:,.4g} kW" for k, v in self.max_kw.items()]
        parts += [f"the mix at most {self.budget_kw:,.4g} kW of facility power"] if self.budget_kw is not None else []
        return "; ".join(parts)


@dataclass(frozen=True, eq=False)
class MixAnswer:
    """The cheapest mix of GPU types for a request mix (:func:`cheapest_mix`).

    Attributes
    ----------
    status, status_text : str  the solver's outcome (:data:`model.core.mix_solve.SOLVER_STATUSES`) and in words
    verdict : str  one sentence: the mix and its saving, or "no mix beats X", or why there is no answer
    usd_per_month : float  the answer's cost [$/month] (the best single type's when no mix beats it)
    effective_usd_per_mtok : float  ``usd_per_month`` ÷ the covered buckets' tokens a month [$/M tokens]
    tokens_per_month : float  the covered buckets' tokens a month on ``token_basis`` [tokens]
    covered_share : float  the share of requests in measured buckets [-]
    fleet : DataFrame  per type used: ``type``, ``hardware``, ``pricing``, ``nodes``, ``spares``, ``gpus``,
        ``usd_per_gpu_hour``, ``usd_per_month``, ``kw`` [IT], ``utilization`` (mean load ÷ capacity bought),
        ``peak_utilization``, ``serves`` (words)
    assignment : DataFrame  per (bucket, type) serving it: ``share`` [-] and ``peak_rps`` [req/s]
    buckets : DataFrame  ``bucket``, ``label``, ``isl``, ``osl``, ``share``, ``peak_rps``, ``mean_rps``,
        ``requests``, ``measured``, ``note``
    matches : DataFrame  :func:`match_buckets`
    single : DataFrame  each type alone: ``type``, ``nodes``, ``usd_per_month``, ``status``, ``note``
    best_single : str or None  the cheapest type alone (ties: the first by name; :attr:`ties` names the others)
    best_single_usd_per_month, saving_usd_per_month : float  [$/month]; saving NaN without a single type
    saving_pct : float  saving ÷ the best single type's cost [-]
    mix_pays : bool  the mix costs less than the best single type
    ties : tuple of str  types whose cost alone equals the best single's, besides it
    crossover : DataFrame or None  :func:`mix_crossover` (None: fewer than two measured buckets, or no answer)
    crossover_text : str
    notes : tuple of str
    long_share : float or None  the share of the measured requests that are long now [-] (where the mix stands on
        the crossover; None without one)
    """

    status: str
    status_text: str
    verdict: str
    usd_per_month: float
    effective_usd_per_mtok: float
    tokens_per_month: float
    covered_share: float
    fleet: pd.DataFrame
    assignment: pd.DataFrame
    buckets: pd.DataFrame
    matches: pd.DataFrame
    single: pd.DataFrame
    best_single: str | None
    best_single_usd_per_month: float
    saving_usd_per_month: float
    saving_pct: float
    mix_pays: bool
    ties: tuple[str, ...]
    crossover: pd.DataFrame | None
    crossover_text: str
    notes: tuple[str, ...]
    token_basis: str = "total"
    source: str = "typed"
    long_share: float | None = None
    #: the answer's cost with every type's capacity at the top and at the bottom of its range (NaN: not estimated)
    usd_per_month_low: float = math.nan
    usd_per_month_high: float = math.nan

    def payload(self) -> dict:
        """Everything as plain values (frames as lists of records), for ``costfrontier mix --json``."""
        def records(frame):
            return [] if frame is None else frame.to_dict("records")

        return {"status": self.status, "status_text": self.status_text, "verdict": self.verdict,
                "usd_per_month": self.usd_per_month, "effective_usd_per_mtok": self.effective_usd_per_mtok,
                "usd_per_month_low": _plain(self.usd_per_month_low),
                "usd_per_month_high": _plain(self.usd_per_month_high),
                "tokens_per_month": self.tokens_per_month, "token_basis": self.token_basis,
                "covered_share": self.covered_share, "mix_source": self.source, "fleet": records(self.fleet),
                "assignment": records(self.assignment), "buckets": records(self.buckets),
                "matches": records(self.matches), "single": records(self.single), "best_single": self.best_single,
                "best_single_usd_per_month": self.best_single_usd_per_month,
                "saving_usd_per_month": self.saving_usd_per_month, "saving_pct": self.saving_pct,
                "mix_pays": self.mix_pays, "ties": list(self.ties),
                "crossover": {"rows": records(self.crossover), "text": self.crossover_text,
                              "long_share": self.long_share},
                "notes": list(self.notes)}


def _plain(value: float) -> float | None:
    return float(value) if value == value and math.isfinite(value) else None


@dataclass(frozen=True)
class _Types:
    """The priced types of the offers, in order of name, and the arrays the solver takes."""

    names: tuple[str, ...]
    hardware: tuple[str, ...]
    pricing: tuple[str, ...]
    gpus_per_node: np.ndarray
    usd_per_gpu_hour: np.ndarray
    usd_per_node_month: np.ndarray
    kw_per_node: np.ndarray
    pue: np.ndarray


def _types_of(offers: pd.DataFrame) -> tuple[_Types, list[str]]:
    notes, rows = [], []
    for kind, part in offers.sort_values(["type", "isl", "osl", "series"], kind="stable").groupby("type", sort=True):
        first = part.iloc[0]
        gpn = pd.to_numeric(part["gpus_per_node"], errors="coerce").dropna().unique()
        if len(gpn) > 1:
            notes.append(f"{kind}: its series state different GPUs per node ({', '.join(f'{g:g}' for g in gpn)}): "
                         f"priced at {gpn[0]:g}")
        rate = pd.to_numeric(part["usd_per_gpu_hour"], errors="coerce").dropna()
        if not (pd.to_numeric(part["per_node_rps"], errors="coerce") > 0).any():
            notes.append(f"{kind}: no measured point gives it capacity under these limits, so it serves no bucket")
            continue
        if rate.empty or not (rate.iloc[0] >= 0):
            notes.append(f"{kind}: no $/GPU-hour, so it is left out of the mix")
            continue
        n = float(gpn[0]) if len(gpn) else 8.0
        kw = pd.to_numeric(pd.Series([first.get("kw_per_gpu")]), errors="coerce").iloc[0]
        pue = pd.to_numeric(pd.Series([first.get("pue")]), errors="coerce").iloc[0]
        rows.append((str(kind), str(first.get("hardware", kind)), str(first.get("pricing", "") or ""), n,
                     float(rate.iloc[0]), float(kw) * n if kw == kw else math.nan, float(pue) if pue == pue else 1.0))
    return _Types(tuple(r[0] for r in rows), tuple(r[1] for r in rows), tuple(r[2] for r in rows),
                  np.array([r[3] for r in rows]), np.array([r[4] for r in rows]),
                  np.array([r[3] * r[4] * HOURS_PER_MONTH for r in rows]), np.array([r[5] for r in rows]),
                  np.array([r[6] for r in rows])), notes


def _limit_arrays(types: _Types, limits: MixLimits) -> dict:
    def per_type(mapping, what) -> np.ndarray | None:
        if not mapping:
            return None
        out = np.full(len(types.names), math.inf)
        for key, value in mapping.items():
            hit = [t for t, (name, hw) in enumerate(zip(types.names, types.hardware))
                   if key.lower() in (name.lower(), hw.lower())]
            if not hit:
                raise MixError(f"{what}: no type {key!r} in this mix (types: {', '.join(types.names) or 'none'})")
            out[hit] = float(value)
        return out

    max_kw = per_type(limits.max_kw, "max kW")
    if (max_kw is not None or limits.budget_kw is not None) and not np.isfinite(types.kw_per_node).all():
        unknown = [n for n, kw in zip(types.names, types.kw_per_node) if not math.isfinite(kw)]
        raise MixError(f"a power limit needs the kW per GPU of every type: {', '.join(unknown)} has none "
                       "(give --kw-per-gpu)")
    return {"max_nodes": per_type(limits.max_nodes, "max nodes"), "max_kw": max_kw, "budget_kw": limits.budget_kw,
            "kw_per_node": types.kw_per_node, "pue": types.pue}


def long_buckets(mix: RequestMix, basis: str = "total", long_tokens: float | None = None) -> np.ndarray:
    """Which buckets are *long* (a boolean per bucket): more tokens per request on ``basis`` than
    ``long_tokens`` [tokens/request], by default than the mix's median request (the smallest bucket size at
    which half the requests or more are as short or shorter; the shares need not sum to 1)."""
    tokens = np.array([b.tokens(basis) for b in mix.buckets], dtype=float)
    if long_tokens is None:
        shares = np.array([b.share for b in mix.buckets])
        order = np.argsort(tokens, kind="stable")
        cumulative = np.cumsum(shares[order])
        if not len(tokens) or not cumulative[-1] > 0:
            return np.zeros(len(tokens), dtype=bool)
        median = min(int(np.searchsorted(cumulative / cumulative[-1], 0.5 - 1e-12)), len(tokens) - 1)
        long_tokens = tokens[order][median]
    return tokens > long_tokens


def _best(costs: np.ndarray) -> tuple[int | None, list[int]]:
    finite = np.where(np.isfinite(costs))[0]
    if not len(finite):
        return None, []
    low = costs[finite].min()
    same = [int(t) for t in finite if costs[t] <= low * (1 + 1e-9) + 1e-9]
    return same[0], same[1:]


def _solve_all(cap, peak, usd_per_node_month, headroom, spares, limits,
               names=None) -> tuple[MixSolution, list[MixSolution]]:
    kwargs = {"headroom": headroom, "spares": spares, **limits}
    alone = [single_type(cap, peak, usd_per_node_month, t, **kwargs) for t in range(len(usd_per_node_month))]
    return solve_mix(cap, peak, usd_per_node_month, names=names, **kwargs), alone


def mix_crossover(cap: np.ndarray, shares: np.ndarray, long: np.ndarray, peak_rps: float,
                  usd_per_node_month: np.ndarray, names, *, headroom: float = 1.0, spares: int = 0,
                  limits: dict | None = None, steps: int = CROSSOVER_STEPS) -> tuple[pd.DataFrame, str]:
    """The mix and the best single type as the share of long requests goes from 0 to 1 in ``steps``.

    Parameters
    ----------
    cap : array (types × buckets)  [req/s/node] of the measured buckets
    shares : array (buckets,)  the buckets' shares of requests [-] (of the measured ones)
    long : array of bool (buckets,)  which buckets are long (:func:`long_buckets`)
    peak_rps : float  the measured buckets' peak together [req/s]
    usd_per_node_month : array (types,)  [$/month]
    names : sequence of str  the types' names
    headroom, spares, limits : as :func:`model.core.mix_solve.solve_mix` (``limits``: its keyword arguments)
    steps : int  long shares from 0 to 1

    Returns
    -------
    (DataFrame, str): per step ``long_share`` [-], ``mix_usd_per_month``, ``best_single``,
    ``best_single_usd_per_month``, ``saving_usd_per_month`` [$/month], ``mix_types`` (words) and each type alone,
    ``"<type> alone"`` [$/month; NaN where it alone cannot serve the step]; and where the mix pays, in words.
    """
    short_total, long_total = shares[~long].sum(), shares[long].sum()
    rows = []
    for alpha in np.linspace(0.0, 1.0, steps):
        weights = np.where(long, alpha * shares / long_total, (1 - alpha) * shares / short_total)
        keep = weights > 0
        mix, alone = _solve_all(cap[:, keep], weights[keep] * peak_rps, usd_per_node_month, headroom, spares,
                                limits or {}, names)
        costs = np.array([s.usd_per_month if s.solved else math.nan for s in alone])
        best, _ = _best(costs)
        used = [names[t] for t, n in enumerate(mix.nodes) if n] if mix.solved else []
        rows.append({"long_share": float(alpha), "mix_usd_per_month": mix.usd_per_month if mix.solved else math.nan,
                     "best_single": names[best] if best is not None else None,
                     "best_single_usd_per_month": costs[best] if best is not None else math.nan,
                     "mix_types": " + ".join(used), **{f"{name} alone": cost for name, cost in zip(names, costs)}})
    frame = pd.DataFrame(rows)
    frame["saving_usd_per_month"] = frame["best_single_usd_per_month"] - frame["mix_usd_per_month"]
    pays = frame["saving_usd_per_month"] > 1e-6 * frame["best_single_usd_per_month"].abs() + 1e-9
    step = 1 / (steps - 1)
    if not pays.any():
        return frame, (f"no mix beats a single type at any share of long requests (0–100 % in steps of {step:.0%})")
    first, last = frame.loc[pays, "long_share"].min(), frame.loc[pays, "long_share"].max()
    below = frame.loc[frame["long_share"] < first, "best_single"].dropna()
    above = frame.loc[frame["long_share"] > last, "best_single"].dropna()
    text = f"a mix starts to pay at {first:.0%} long requests"
    text += f" ({below.iloc[-1]} alone below)" if not below.empty else ""
    text += f" and pays up to {last:.0%}" + (f" ({above.iloc[0]} alone above)" if not above.empty else "")
    gaps = int((~pays[(frame["long_share"] >= first) & (frame["long_share"] <= last)]).sum())
    if gaps:
        text += f"; within that range {gaps} step{'s' if gaps != 1 else ''} of whole nodes favour a single type"
    return frame, text + f" (steps of {step:.0%})"


def _serves(t: int, shares: np.ndarray, peak: np.ndarray, labels: list[str]) -> str:
    parts = [f"{shares[t, b]:.0%} of {labels[b]} ({shares[t, b] * peak[b]:.3g} req/s)"
             for b in range(shares.shape[1]) if shares[t, b] > 1e-9]
    return "; ".join(parts)


def cheapest_mix(mix: RequestMix, offers: pd.DataFrame, *, peak_rps: float, mean_rps: float,
                 token_basis: str = "total", headroom: float = 1.0, spares: int = 0,
                 limits: MixLimits | None = None, factor: float = MATCH_FACTOR,
                 long_tokens: float | None = None, sweep: bool = True) -> MixAnswer:
    """The cheapest mix of the offers' types for ``mix`` at a total peak and mean rate.

    Parameters
    ----------
    mix : RequestMix
    offers : DataFrame  :data:`OFFER_COLUMNS`: one node's capacity per (type, measured workload, series) and
        how the type is priced
    peak_rps : float  every bucket's requests together at the peak [req/s]; a bucket's peak is its share of it
    mean_rps : float  ... on average [req/s] (utilisation, tokens a month, effective $/M)
    token_basis : str  what the tokens a month count: total, output or input
    headroom : float  capacity bought ÷ peak [-]
    spares : int  whole nodes added to every type used
    limits : MixLimits, optional
    factor : float  :data:`MATCH_FACTOR`
    long_tokens : float, optional  the crossover's long requests: more tokens than this [tokens/request]
    sweep : bool  compute the crossover along the mix

    Returns
    -------
    MixAnswer
    """
    if not (peak_rps > 0 and math.isfinite(peak_rps)) or not (mean_rps >= 0 and math.isfinite(mean_rps)):
        raise MixError(f"the mix needs a total peak above 0 req/s (got {peak_rps}) and a mean of 0 or more")
    limits = limits or MixLimits()
    missing = [c for c in OFFER_COLUMNS if c not in offers.columns]
    if missing:
        raise MixError(f"the offers lack {', '.join(missing)}")
    order = sorted(range(len(mix.buckets)), key=lambda b: (mix.buckets[b].isl, mix.buckets[b].osl))
    mix = RequestMix(tuple(mix.buckets[b] for b in order), mix.source, mix.isl_edges, mix.osl_edges)
    types, notes = _types_of(offers)
    matches = match_buckets(mix, offers[offers["type"].isin(types.names)], factor)
    n_b = len(mix.buckets)
    cap = np.zeros((len(types.names), n_b))
    for m in matches.to_dict("records"):
        if m["per_node_rps"] > 0:
            cap[types.names.index(m["type"]), m["bucket"]] = m["per_node_rps"]
    measured = (cap > 0).any(axis=0) if len(types.names) else np.zeros(n_b, dtype=bool)
    shares = np.array([b.share for b in mix.buckets])
    peaks, means = shares * peak_rps, shares * mean_rps
    labels = [b.label for b in mix.buckets]
    bucket_rows = []
    for b, bucket in enumerate(mix.buckets):
        mine = matches[matches["bucket"] == b]
        note = ("; ".join(f"{r['type']}: {r['note']}" for r in mine.to_dict("records") if r["per_node_rps"] > 0)
                if measured[b] else "not measured: " + ("; ".join(f"{r['type']}: {r['note']}"
                                                                 for r in mine.to_dict("records")) or "no priced type"))
        bucket_rows.append({"bucket": b, "label": bucket.label, "isl": bucket.isl, "osl": bucket.osl,
                            "share": bucket.share, "peak_rps": peaks[b], "mean_rps": means[b],
                            "requests": bucket.requests, "measured": bool(measured[b]), "note": note})
    buckets = pd.DataFrame(bucket_rows)
    covered = float(shares[measured].sum())
    tokens = float(sum(means[b] * bucket.tokens(token_basis) for b, bucket in enumerate(mix.buckets) if measured[b])
                   * SECONDS_PER_MONTH)
    notes = [ROUTING, *notes]
    unmeasured = [b for b in range(n_b) if not measured[b]]
    if unmeasured:
        notes.append("not measured within ×{:g} on any priced type: {}; the fleet covers the rest, {:.1%} of "
                     "requests".format(factor, ", ".join(f"{labels[b]} ({shares[b]:.1%} of requests)"
                                                          for b in unmeasured), covered))
    if limits.words():
        notes.append(f"limits: {limits.words()}")
    empty_fleet = pd.DataFrame(columns=["type", "hardware", "pricing", "nodes", "spares", "gpus", "usd_per_gpu_hour",
                                        "usd_per_month", "kw", "utilization", "peak_utilization", "serves"])
    nothing = MixAnswer("infeasible", "", "", math.nan, math.nan, tokens, covered, empty_fleet,
                        pd.DataFrame(columns=["bucket", "label", "type", "share", "peak_rps"]), buckets, matches,
                        pd.DataFrame(columns=["type", "nodes", "usd_per_month", "status", "note"]), None, math.nan,
                        math.nan, math.nan, False, (), None, "", tuple(notes), token_basis, mix.source)
    nothing = replace(nothing, crossover_text="none: nothing was solved")
    if not measured.any():
        text = ("no priced type has measured any bucket of this mix within ×{:g}".format(factor) if types.names
                else "no priced type in this view")
        return replace(nothing, status_text=f"nothing to solve: {text}", verdict=f"No answer: {text}.")
    keep = np.where(measured)[0]
    arrays = _limit_arrays(types, limits)
    best_mix, alone = _solve_all(cap[:, keep], peaks[keep], types.usd_per_node_month, headroom, spares, arrays,
                                 types.names)
    single = pd.DataFrame([{"type": types.names[t], "nodes": s.nodes[t] if s.solved else math.nan,
                            "usd_per_month": s.usd_per_month, "status": s.status,
                            "note": "" if s.solved else s.text} for t, s in enumerate(alone)])
    costs = np.array([s.usd_per_month if s.solved else math.nan for s in alone])
    best, ties = _best(costs)
    best_cost = costs[best] if best is not None else math.nan
    if not best_mix.solved:
        text = best_mix.text
        return replace(nothing, status=best_mix.status, status_text=text, single=single,
                        verdict=f"No mix serves this demand: {text}.",
                        best_single=types.names[best] if best is not None else None, best_single_usd_per_month=best_cost)
    pays = best is None or best_mix.usd_per_month < best_cost * (1 - 1e-9) - 1e-9
    chosen = best_mix if pays else alone[best]
    full = np.zeros((len(types.names), n_b))
    full[:, keep] = chosen.shares
    fleet_rows, assignment = [], []
    for t, nodes in enumerate(chosen.nodes):
        if not nodes:
            continue
        load_mean = sum(full[t, b] * means[b] / cap[t, b] for b in keep if full[t, b] > 0)
        fleet_rows.append({"type": types.names[t], "hardware": types.hardware[t], "pricing": types.pricing[t],
                           "nodes": nodes, "spares": nodes - chosen.working[t],
                           "gpus": nodes * types.gpus_per_node[t], "usd_per_gpu_hour": types.usd_per_gpu_hour[t],
                           "usd_per_month": nodes * types.usd_per_node_month[t],
                           "kw": nodes * types.kw_per_node[t], "utilization": load_mean / nodes,
                           "peak_utilization": chosen.load[t] / nodes, "serves": _serves(t, full, peaks, labels)})
        assignment += [{"bucket": b, "label": labels[b], "type": types.names[t], "share": full[t, b],
                        "peak_rps": full[t, b] * peaks[b]} for b in keep if full[t, b] > 1e-9]
    fleet = pd.DataFrame(fleet_rows, columns=empty_fleet.columns)
    cost = chosen.usd_per_month
    saving = best_cost - cost if best is not None else math.nan
    used = " + ".join(f"{n:,} {types.names[t]}" for t, n in enumerate(chosen.nodes) if n)
    cover = f" for the {covered:.1%} of requests measured" if unmeasured else ""
    if best is None:
        verdict = f"A mix of {used} nodes costs ${cost:,.0f} a month{cover}; no single type can serve every bucket."
    elif pays:
        verdict = (f"A mix of {used} nodes costs ${cost:,.0f} a month{cover}: ${saving:,.0f} ({saving / best_cost:.1%}) "
                   f"less than the best single type, {types.names[best]} alone (${best_cost:,.0f}).")
    else:
        verdict = (f"No mix beats {types.names[best]} alone: {used} nodes, ${cost:,.0f} a month{cover}"
                   + (f" (as much as {', '.join(types.names[t] for t in ties)} alone)" if ties else "") + ".")
    crossover, crossover_text, now = None, "one measured bucket: no crossover along the mix", None
    long = long_buckets(RequestMix(tuple(mix.buckets[b] for b in keep)), token_basis, long_tokens)
    if sweep and len(keep) > 1 and long.any() and (~long).any():
        crossover, crossover_text = mix_crossover(cap[:, keep], shares[keep] / covered, long, float(peaks[keep].sum()),
                                                  types.usd_per_node_month, types.names, headroom=headroom,
                                                  spares=spares, limits=arrays)
        now = float(shares[keep][long].sum() / covered)
        crossover_text += (f"; long = {', '.join(labels[b] for b, is_long in zip(keep, long) if is_long)}, "
                           f"{now:.0%} of the measured requests now")
    elif sweep and len(keep) > 1:
        crossover_text = "every measured bucket is as long as the median request: no crossover along the mix"
    return MixAnswer(chosen.status, best_mix.text, verdict, cost,
                     cost / (tokens / 1e6) if tokens > 0 else math.nan, tokens, covered, fleet,
                     pd.DataFrame(assignment, columns=["bucket", "label", "type", "share", "peak_rps"]), buckets,
                     matches, single, types.names[best] if best is not None else None, best_cost, saving,
                     saving / best_cost if best is not None and best_cost > 0 else math.nan, bool(pays and best is not None),
                     tuple(types.names[t] for t in ties), crossover, crossover_text, tuple(notes), token_basis,
                     mix.source, now)




# ------------------------------------------------------------------------------------------ from a view

def mix_view(view):
    """The view a mix is answered on: every workload of the view's model (``workload="all"`` with a ``model``
    filter, split by ISL and OSL, never pooled), so each bucket can be matched to any measured ISL/OSL.

    ``view`` names its workload (``model|isl|osl``, as :func:`model.data.inputs.with_workload` sets it), or is
    ``"all"`` with one ``model`` filter; else :class:`MixError` (a mix compares workloads of one model).
    """
    models = [value for key, value in view.filters if key == "model"]
    if view.workload and view.workload != "all":
        model = view.workload.split("|")[0]
        filters = tuple(view.filters) + ((("model", model),) if model not in models else ())
    elif len(set(models)) == 1:
        filters = tuple(view.filters)
    else:
        raise MixError("a mix compares the workloads of one model: choose it with --where model=NAME")
    return view.replace(workload="all", filters=filters, mix_workloads=False)


def offers_of(sized: pd.DataFrame, capacity: pd.DataFrame) -> pd.DataFrame:
    """The offers (:data:`OFFER_COLUMNS`) of a fleet sized per series and pricing
    (:func:`model.core.fleet.size_fleet`: per-node capacity, $/GPU-hour paid every hour, kW per GPU, PUE and
    how it is priced) and the capacity it sized (:func:`model.core.node_capacity.node_capacity`: each series'
    ISL and OSL). A type is a hardware at one pricing, named by the hardware (and the pricing when one hardware
    is priced two ways)."""
    if sized.empty:
        return pd.DataFrame(columns=list(OFFER_COLUMNS))
    lengths = capacity[["series", "method", "isl", "osl"]].drop_duplicates(["series", "method"])
    out = sized.merge(lengths, on=["series", "method"], how="left")
    ways = out.groupby("hardware")["pricing"].transform("nunique")
    out["type"] = np.where(ways > 1, out["hardware"].astype(str) + " · " + out["pricing"].astype(str),
                           out["hardware"].astype(str))
    # a series without capacity was sized without a rate: its type's rate is that of its rows that have one
    for column in ("usd_per_gpu_hour",):
        out[column] = out.groupby("type")[column].transform(lambda v: v.fillna(v.dropna().iloc[0])
                                                            if v.notna().any() else v)
    return out[list(OFFER_COLUMNS)].reset_index(drop=True)
