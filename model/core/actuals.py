"""Plan against actual: what a proposal planned and what the cluster's bill says, period by period and in total.

Pure arithmetic (pandas, numpy; no I/O). The plan (:class:`Plan`) is what a pinned view answered: the owned fleet
it sized for its volume, that fleet's $/GPU-hour and capacity, its $/M with the ± the answer gave it, and the
API price it compared with. The actuals are rows of the ``actuals`` table (:mod:`model.data.actuals`): a cost,
tokens and a period per model. A month is 730 hours (:data:`HOURS_PER_MONTH`, as everywhere in the product),
so a plan of ``V`` tokens a month plans ``V × h / 730`` tokens over a period of ``h`` hours.

Over a period of ``h`` hours (each row of :attr:`Comparison.periods`, and the total over the union of them):

- **tokens served** ``T`` on the plan's token basis (``total``, ``output`` or ``input``) against the plan's
  ``T_p = V × h / 730``; input and output tokens against the plan's mix: ``total = V ÷ share(basis)``,
  ``input = total × ISL/(ISL+OSL)``, ``output = total × OSL/(ISL+OSL)``;
- **realised $/M** of each kind ``usd ÷ tokens of that kind × 1e6`` against the plan's ``C_p ÷ T_p(kind) × 1e6``,
  ``C_p = planned $/month × h / 730`` (like with like: both divide the whole cost by the same kind of token;
  OpenCost's own input/output split is shown apart, with the method it used, :data:`ALLOCATION_METHODS`);
- **implied utilisation** ``T ÷ (nodes × node tok/s × 3600 × h)``: tokens served over what the planned fleet
  could carry in those hours (the plan's capacity, on its basis);
- **allocation − usage**: where OpenCost gives both cost bases for the same window, the cost of capacity kept
  warm (allocation reconciles to the bill; usage counts consumption only);
- **variance attribution**: realised ÷ planned $/M is exactly the product of three factors,
  ``rate = (usd ÷ GH) ÷ planned $/GPU-hour``, ``utilisation = GH ÷ (planned GPUs × h)`` (GPU-hours paid for
  against the planned fleet's: capacity kept beyond, or short of, the plan) and ``volume = T_p ÷ T`` (fewer
  tokens on the same capacity cost more each), ``GH`` the GPU-hours the actuals state, else the planned fleet's
  (said). The difference is split additively by the logarithmic mean (LMDI-I, Ang 2004):
  ``Δ = Σ L(a, p) × ln(factor)``, ``L(a, p) = (a − p) ÷ ln(a ÷ p)``; the input with the largest share explains
  most of it. The cost variance splits the same way over rate and utilisation (a fleet's cost does not follow
  its volume);
- **±**: the plan's $/M carries the relative ± the plan's answer gave it (0 for capacity read at a measured point);
  it carries over to the planned figures, the capacity (hence the implied utilisation's range) and the
  variances. Realised figures are what the files state: no ±.
- **at the realised volume**: the plan's buy/rent/API comparison re-run at ``Σ T ÷ Σ h × 730`` tokens a month
  (its options as the answer prices them), and the API at the realised token mix:
  ``((input − cached) × $in + cached × $cached + output × $out) ÷ 1e6``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Iterable

import pandas as pd

__all__ = ["HOURS_PER_MONTH", "COST_BASES", "ALLOCATION_METHODS", "OPENCOST_FIELDS", "FACTORS", "TOKEN_KINDS",
           "INPUT_DENOMINATORS", "DENOMINATOR_TOLERANCE", "input_denominator", "ActualsError", "MODEL_ALIASES",
           "model_key", "same_model", "aliases_of", "first_overlap", "lmdi", "Plan", "Comparison",
           "plan_vs_actual", "DECOMPOSITION"]

HOURS_PER_MONTH = 730.0
#: the cost a row counts: OpenCost's two bases, and a finance team's bill. A comparison reads the first one the
#: actuals hold for the model unless told which
COST_BASES = ("bill", "allocation", "usage")
#: OpenCost's ``allocationMethod`` values (how it split a window's cost into input and output), as documented in
#: its ``pkg/inferencecost/types.go`` across releases; an absent value means no split (no tokens, or a mix)
ALLOCATION_METHODS = {
    "compute_time_with_cache_hits": "split by vLLM prefill/decode time, KV-cache hits taken out of the input "
                                    "denominator",
    "compute_time": "split by vLLM prefill/decode time (earlier releases: KV-cache hits taken out of the input "
                    "denominator; revised releases: none taken out, the cache's share in cacheSavingsFraction)",
    "compute_time_uncorrected": "split by vLLM prefill/decode time; KV-cache data unavailable (older releases)",
    "prefix_caching_off": "split by vLLM prefill/decode time; prefix caching is off on the server",
    "multiplier": "OpenCost's fallback: vLLM timing metrics were unavailable, so the cost was split by a fixed "
                  "multiplier (an output token costs 2.5x an input token by default), not by measured time",
}
#: what each field of an OpenCost inference-cost response means (docs/inference-cost-tracking.md, apitypes.go)
OPENCOST_FIELDS = {
    "properties.modelName": "the vLLM model name (the pod label INFERENCE_MODEL_LABEL, default llm-d.ai/model)",
    "properties.modelVersion": "the model version, when known",
    "properties.namespace": "the Kubernetes namespace serving it",
    "properties.cluster": "the cluster, when aggregated by it",
    "window": "the period, RFC3339 start and end (the end excluded)",
    "costBasis": "allocation: max(request, usage) x price + idle share + shared infrastructure share, reconciles "
                 "to the bill; usage: consumption only, idle and shared infrastructure excluded",
    "totalCost": "infrastructure cost of the window on that basis [$]",
    "promptTokens": "prompt (input) tokens vLLM counted in the window, cached ones included",
    "generationTokens": "generated (output) tokens",
    "totalTokens": "prompt + generation tokens",
    "costPerMillionTokens": "totalCost / totalTokens x 1e6 [$/M], every delivered token",
    "inputCost": "the input share of totalCost, split by allocationMethod [$]",
    "outputCost": "the output share of totalCost [$]",
    "inputCostPerMillionTokens": "inputCost per million input tokens [$/M]: OpenCost's earlier releases divide by "
                                 "the prompt tokens that needed compute (KV-cache hits taken out), the revised one "
                                 "by every delivered prompt token (input_denominator says which a row's is)",
    "outputCostPerMillionTokens": "outputCost per million generated tokens [$/M]",
    "allocationMethod": "how the input/output split was made (omitted when there is none)",
    "cacheSavingsFraction": "share of prompt tokens served from the KV cache, 0..1 (newer releases)",
}
#: what an input $/M divides by (:func:`input_denominator`), in words
INPUT_DENOMINATORS = {"delivered": "every delivered prompt token (cached ones included)",
                      "computed": "the prompt tokens that needed compute (KV-cache hits taken out)"}
#: how close ``inputCost ÷ inputCostPerMillionTokens × 1e6`` must come to ``promptTokens`` to be that count
#: [fraction of promptTokens]: the figures' own rounding, far below any cache hit rate worth a correction
DENOMINATOR_TOLERANCE = 1e-3
#: the inputs a variance is attributed to
FACTORS = ("volume", "utilisation", "rate")
TOKEN_KINDS = ("total", "input", "output")
DECOMPOSITION = ("realised ÷ planned $/M = rate × utilisation × volume; rate = (usd ÷ GPU-hours) ÷ planned "
                 "$/GPU-hour, utilisation = GPU-hours paid ÷ planned GPUs × hours, volume = planned tokens ÷ "
                 "tokens served; the difference is split by the logarithmic mean (LMDI-I): share = L(realised, "
                 "planned) × ln(factor), L(a, p) = (a − p) ÷ ln(a ÷ p); cost: usd ÷ planned usd = rate × "
                 "utilisation")


def input_denominator(row) -> tuple[str | None, float]:
    """What a row's stated input $/M (``usd_per_m_input``) was divided by, read from its own numbers: ``(kind,
    tokens)`` with ``tokens = input_usd ÷ usd_per_m_input × 1e6`` and ``kind``

    - ``"delivered"`` when ``tokens`` is the row's ``input_tokens`` (within :data:`DENOMINATOR_TOLERANCE`): every
      delivered prompt token (OpenCost's revised ``inputCostPerMillionTokens``; an earlier release with no cache hit
      gives the same count);
    - ``"computed"`` when it is fewer: the prompt tokens that needed compute, the KV-cache hits taken out (OpenCost's
      earlier releases); ``input_tokens − tokens`` are the cached prompt tokens;
    - ``"more"`` when it is more than ``input_tokens``: figures that contradict each other;
    - ``None`` (tokens NaN) when the row cannot say: no split, a zero cost or rate, no prompt tokens.

    Two input $/M are compared only when their kinds agree."""
    cost, rate, prompt = row.get("input_usd"), row.get("usd_per_m_input"), row.get("input_tokens")
    try:        # once per row of a year of windows: plain comparisons (NaN compares False; a text raises)
        if not (0 < cost < math.inf and 0 < rate < math.inf and 0 < prompt < math.inf):
            return None, math.nan
    except TypeError:
        return None, math.nan
    tokens = float(cost) / float(rate) * 1e6
    if abs(tokens - prompt) <= max(DENOMINATOR_TOLERANCE * prompt, 0.5):
        return "delivered", tokens
    return ("computed" if tokens < prompt else "more"), tokens


class ActualsError(ValueError):
    """Actuals that cannot be compared with a plan (none for its model, a basis not stored, no owned fleet)."""


#: names that mean a model the benchmark rows name otherwise (its Hugging Face id -> the rows' name), matched whole
#: and ignoring case and spaces. A comparison says when it counted a row by this table; anything else, e.g.
#: ``org-x/GLM-5.2``, counts against ``GLM-5.2`` only when the user maps it (``plan-vs-actual --alias``)
MODEL_ALIASES = {"zai-org/GLM-5": "GLM-5", "zai-org/GLM-5.2": "GLM-5.2", "zai-org/GLM-5-FP8": "GLM-5"}


def _plain(name) -> str:
    return "".join(str(name or "").lower().split())


def aliases_of(pairs: Iterable[str] = ()) -> dict[str, str]:
    """The user's aliases (``NAME=MODEL`` each, as ``--alias`` takes them) over :data:`MODEL_ALIASES`. Raises
    :class:`ActualsError` for a pair without ``=`` or with an empty side."""
    out = dict(MODEL_ALIASES)
    for pair in pairs:
        name, sep, model = str(pair).partition("=")
        if not sep or not name.strip() or not model.strip():
            raise ActualsError(f"an alias is NAME=MODEL (a name the actuals use = the model the plan's rows name), "
                               f"not {pair!r}")
        out[name.strip()] = model.strip()
    return out


def model_key(name, aliases: dict[str, str] | None = None) -> str:
    """The name a model is matched by: its whole name, lower case, spaces dropped (``GLM-5.2`` → ``glm-5.2``); a
    name of the alias table (``aliases``, default :data:`MODEL_ALIASES`) is its model's. Never a part of a name:
    ``org-x/GLM-5.2`` is not ``GLM-5.2`` unless an alias says so."""
    table = {_plain(k): _plain(v) for k, v in (MODEL_ALIASES if aliases is None else aliases).items()}
    key = _plain(name)
    return table.get(key, key)


def same_model(a, b, aliases: dict[str, str] | None = None) -> bool:
    return bool(model_key(a, aliases)) and model_key(a, aliases) == model_key(b, aliases)


def first_overlap(rows: Iterable[tuple]) -> tuple[tuple, tuple] | None:
    """The first two rows of one key whose periods overlap, or None. ``rows``: ``(key, start, end, *where)``;
    periods are half-open ``[start, end)`` (a window ending when the next begins does not overlap it)."""
    by_key: dict = {}
    for row in rows:
        by_key.setdefault(row[0], []).append(row)
    found = None
    for items in by_key.values():
        items = sorted(items, key=lambda r: (r[1], r[2]))
        for before, after in zip(items, items[1:]):
            if after[1] < before[2] and (found is None or after[1] < found[1][1]):
                found = (before, after)
                break
    return found


def lmdi(planned: float, realised: float, factors: dict[str, float]) -> dict[str, float]:
    """Additive shares of ``realised − planned`` for factors whose product is ``realised ÷ planned`` (LMDI-I):
    ``L × ln(factor)``, ``L = (realised − planned) ÷ ln(realised ÷ planned)`` (``realised`` when they are equal).
    NaN shares when either value is not positive and finite."""
    if not (_ok(planned) and _ok(realised) and planned > 0 and realised > 0) or \
            not all(_ok(f) and f > 0 for f in factors.values()):
        return {k: math.nan for k in factors}
    ratio = realised / planned
    weight = realised if math.isclose(ratio, 1.0, rel_tol=1e-12) else (realised - planned) / math.log(ratio)
    return {k: weight * math.log(f) for k, f in factors.items()}


def _ok(value) -> bool:
    return value is not None and isinstance(value, (int, float)) and math.isfinite(value)


def _num(value) -> float | None:
    return float(value) if _ok(value) else None


def _div(a, b) -> float:
    return a / b if _ok(a) and _ok(b) and b != 0 else math.nan


@dataclass(frozen=True)
class Plan:
    """What a pinned view planned (built from its answer by the caller, :mod:`model.cli.actual`).

    Units: ``tokens_per_month`` [tokens a month of 730 h on ``basis``], ``usd_per_month`` [$ a month of the planned
    owned fleet], ``usd_per_gpu_hour`` [$/GPU-hour], ``tokens_per_second_per_node`` [tok/s on ``basis``],
    ``usd_per_mtok`` [$/M on ``basis``], ``error`` [the larger side of its band, relative], ``down``/``up`` [its
    band below and above it, relative: where 9 in 10 measured points left out fell], API prices [$/M].
    """

    link: str
    data_version: int | None
    models: tuple[str, ...]
    basis: str
    tokens_per_month: float
    isl: float
    osl: float
    series: str
    option: str
    nodes: float
    gpus_per_node: float
    usd_per_month: float
    tokens_per_second_per_node: float
    usd_per_mtok: float
    error: float = 0.0
    error_from: str = "measured"
    down: float = math.nan         # the band below usd_per_mtok, relative (NaN: as error)
    up: float = math.nan           # the band above it, relative (NaN: as error)
    api: dict | None = None        # model, provider, usd_per_m_input, usd_per_m_cached_input, usd_per_m_output, ...
    cache_hit: float = 0.0
    notes: tuple[str, ...] = ()

    @property
    def gpus(self) -> float:
        return self.nodes * self.gpus_per_node

    @property
    def band(self) -> tuple[float, float]:
        """(down, up): the plan's band below and above its $/M, relative (``error`` each way where not given)."""
        return (self.down if _ok(self.down) else self.error, self.up if _ok(self.up) else self.error)

    @property
    def usd_per_gpu_hour(self) -> float:
        """The planned fleet's $/GPU-hour: its monthly cost ÷ (GPUs × 730 h)."""
        return _div(self.usd_per_month, self.gpus * HOURS_PER_MONTH)

    @property
    def capacity_per_hour(self) -> float:
        """Tokens on ``basis`` the planned fleet carries in an hour, flat out."""
        return self.nodes * self.tokens_per_second_per_node * 3600.0

    @property
    def utilisation(self) -> float:
        """The plan's own utilisation: its volume over the fleet's capacity."""
        return _div(self.tokens_per_month, self.capacity_per_hour * HOURS_PER_MONTH)

    def shares(self) -> dict[str, float]:
        """Each token kind per token on the plan's basis (from the plan's ISL/OSL; NaN without them)."""
        isl, osl = self.isl, self.osl
        if not (_ok(isl) and _ok(osl) and isl + osl > 0):
            return {k: (1.0 if k == self.basis else math.nan) for k in TOKEN_KINDS}
        per_total = {"total": 1.0, "input": isl / (isl + osl), "output": osl / (isl + osl)}
        base = per_total[self.basis]
        return {k: _div(per_total[k], base) for k in TOKEN_KINDS}

    def tokens(self, hours: float) -> dict[str, float]:
        """Tokens of each kind the plan serves in ``hours``."""
        on_basis = self.tokens_per_month * hours / HOURS_PER_MONTH
        return {k: on_basis * s for k, s in self.shares().items()}

    def usd(self, hours: float) -> float:
        return self.usd_per_month * hours / HOURS_PER_MONTH

    def payload(self) -> dict:
        return {"link": self.link, "data_version": self.data_version, "pinned": self.data_version is not None,
                "models": list(self.models), "basis": self.basis, "tokens_per_month": self.tokens_per_month,
                "isl": _num(self.isl), "osl": _num(self.osl), "series": self.series, "option": self.option,
                "nodes": self.nodes, "gpus_per_node": self.gpus_per_node, "gpus": self.gpus,
                "usd_per_month": self.usd_per_month, "usd_per_gpu_hour": _num(self.usd_per_gpu_hour),
                "tokens_per_second_per_node": self.tokens_per_second_per_node,
                "capacity_tokens_per_month": self.capacity_per_hour * HOURS_PER_MONTH,
                "utilization": _num(self.utilisation), "usd_per_mtok": self.usd_per_mtok, "error": self.error,
                "error_from": self.error_from, "low": self.usd_per_mtok * (1 - self.band[0]),
                "high": self.usd_per_mtok * (1 + self.band[1]), "api": self.api, "cache_hit": self.cache_hit,
                "notes": list(self.notes)}


@dataclass(frozen=True)
class Comparison:
    """Plan against actual: one entry per period and the total (dicts, ready for ``--json``), what the plan would
    have cost at the realised volume, and the notes."""

    plan: Plan
    cost_basis: str
    periods: tuple[dict, ...]
    total: dict
    at_realised: dict | None
    notes: tuple[str, ...] = ()
    sentences: tuple[str, ...] = field(default=())
    #: how close the fleet ran to its limits (:func:`model.core.saturation.summary`): ``total`` and ``periods`` (one
    #: per period, None where no figure falls in it); None when no saturation figure is stored for the model
    saturation: dict | None = None

    def payload(self) -> dict:
        return {"plan": self.plan.payload(), "cost_basis": self.cost_basis, "decomposition": DECOMPOSITION,
                "periods": list(self.periods), "total": self.total, "at_realised_volume": self.at_realised,
                "saturation": self.saturation, "sentences": list(self.sentences), "notes": list(self.notes)}


# ------------------------------------------------------------------------------------------------ the actuals


def _for_plan(plan: Plan, actuals: pd.DataFrame, aliases: dict[str, str] | None = None) -> tuple[pd.DataFrame, list[str]]:
    """The actuals of the plan's models, matched by whole name or an alias; and a note for each name an alias
    counted."""
    keys = {model_key(m, aliases) for m in plan.models}
    if actuals.empty:
        raise ActualsError("no actuals are stored: ingest an OpenCost response or a bill (costfrontier actual FILE)")
    mine = actuals[actuals["model"].map(lambda m: model_key(m, aliases)).isin(keys)]
    if mine.empty:
        held = ", ".join(sorted(set(actuals["model"].astype(str)))[:8])
        raise ActualsError(f"no actuals for the plan's model ({', '.join(plan.models) or 'none'}); the actuals hold "
                           f"{held} (models match by their whole name; map another name with --alias NAME=MODEL)")
    plain = {_plain(m) for m in plan.models}
    aliased = sorted({str(m) for m in mine["model"] if _plain(m) not in plain})
    notes = [f"actuals of {name} are counted as {next(m for m in plan.models if model_key(m, aliases) == model_key(name, aliases))} "
             "(an alias)" for name in aliased]
    return mine, notes


def _basis_of(rows: pd.DataFrame, asked: str | None) -> str:
    present = [b for b in COST_BASES if (rows["cost_basis"] == b).any()]
    if asked is not None:
        if asked not in COST_BASES:
            raise ActualsError(f"cost basis must be one of {', '.join(COST_BASES)}, not {asked!r}")
        if asked not in present:
            raise ActualsError(f"no {asked} actuals for this model; stored: {', '.join(present)}")
        return asked
    return present[0]


def _union_hours(windows: Iterable[tuple[pd.Timestamp, pd.Timestamp]]) -> float:
    total, end = 0.0, None
    for start, stop in sorted(windows):
        if end is None or start >= end:
            total += (stop - start).total_seconds()
            end = stop
        elif stop > end:
            total += (stop - end).total_seconds()
            end = stop
    return total / 3600.0


def _sum(frame: pd.DataFrame, column: str) -> float:
    """The column's sum, NaN when any row leaves it empty (a sum of part of the rows would read as the whole)."""
    values = pd.to_numeric(frame[column], errors="coerce")
    return float(values.sum()) if len(values) and values.notna().all() else math.nan


def _cached(frame: pd.DataFrame) -> float:
    """Cached input tokens the rows state, or derive from OpenCost's cacheSavingsFraction × prompt tokens."""
    stated = _sum(frame, "cached_input_tokens")
    if _ok(stated):
        return stated
    fraction = pd.to_numeric(frame["cache_savings_fraction"], errors="coerce")
    inputs = pd.to_numeric(frame["input_tokens"], errors="coerce")
    if len(frame) and fraction.notna().all() and inputs.notna().all():
        return float((fraction * inputs).sum())
    return math.nan


def _tokens(frame: pd.DataFrame) -> dict[str, float]:
    total = _sum(frame, "total_tokens")
    return {"total": total, "input": _sum(frame, "input_tokens"), "output": _sum(frame, "output_tokens"),
            "cached_input": _cached(frame)}


# ------------------------------------------------------------------------------------------ one period's figures


def _figures(plan: Plan, hours: float, usd: float, tokens: dict[str, float], gpu_hours: float,
             gap: float | None) -> dict:
    """Every figure of one period (or the total) against the plan."""
    e = plan.error if _ok(plan.error) else math.nan
    down, up = (b if _ok(b) else math.nan for b in plan.band)
    planned_tokens, planned_usd = plan.tokens(hours), plan.usd(hours)
    served = tokens[plan.basis]
    capacity = plan.capacity_per_hour * hours
    stated_gpu_hours = _ok(gpu_hours)
    paid = gpu_hours if stated_gpu_hours else plan.gpus * hours
    rate = _div(usd, paid)
    factors_common = {"utilisation": _div(paid, plan.gpus * hours), "rate": _div(rate, plan.usd_per_gpu_hour)}
    per_mtok = {}
    for kind in TOKEN_KINDS:
        realised = _div(usd, tokens[kind]) * 1e6
        planned = _div(planned_usd, planned_tokens[kind]) * 1e6
        factors = {"volume": _div(planned_tokens[kind], tokens[kind]), **factors_common}
        shares = lmdi(planned, realised, factors)
        per_mtok[kind] = {"realised": _num(realised), "planned": _num(planned),
                          "planned_low": _num(planned * (1 - down)), "planned_high": _num(planned * (1 + up)),
                          "variance": _num(realised - planned), "variance_error": _num(planned * e),
                          "factors": {k: _num(v) for k, v in factors.items()},
                          "shares": {k: _num(v) for k, v in shares.items()}, "explained_by": _most(shares, planned)}
    cost_factors = dict(factors_common)
    cost_shares = lmdi(planned_usd, usd, cost_factors)
    utilisation = _div(served, capacity)
    return {
        "hours": hours, "usd": usd, "planned_usd": planned_usd,
        "cost": {"variance": _num(usd - planned_usd), "variance_error": 0.0,
                 "factors": {k: _num(v) for k, v in cost_factors.items()},
                 "shares": {k: _num(v) for k, v in cost_shares.items()},
                 "explained_by": _most(cost_shares, planned_usd)},
        "tokens": {k: _num(v) for k, v in tokens.items()},
        "tokens_on_basis": _num(served), "planned_tokens_on_basis": _num(planned_tokens[plan.basis]),
        "planned_tokens": {k: _num(v) for k, v in planned_tokens.items()},
        "volume_ratio": _num(_div(served, planned_tokens[plan.basis])),
        "tokens_variance": _num(served - planned_tokens[plan.basis]), "tokens_explained_by": "volume",
        "usd_per_mtok": per_mtok,
        "implied_utilization": _num(utilisation),
        "implied_utilization_low": _num(_div(served, capacity * (1 + e))),
        "implied_utilization_high": _num(_div(served, capacity * (1 - e)) if e < 1 else math.inf),
        "planned_utilization": _num(plan.utilisation),
        "capacity_tokens": _num(capacity),
        "gpu_hours": _num(paid), "gpu_hours_from": "stated" if stated_gpu_hours else "the planned fleet (assumed)",
        "usd_per_gpu_hour": _num(rate), "planned_usd_per_gpu_hour": _num(plan.usd_per_gpu_hour),
        "allocation_minus_usage_usd": _num(gap) if gap is not None else None,
    }


def _most(shares: dict[str, float], scale: float) -> str | None:
    """The factor with the largest share; None when no share is more than rounding (1e-9 of ``scale``)."""
    finite = {k: v for k, v in shares.items() if _ok(v)}
    if not finite or all(abs(v) <= 1e-9 * abs(scale) for v in finite.values()):
        return None
    return max(finite, key=lambda k: abs(finite[k]))


def _opencost_split(frame: pd.DataFrame) -> dict | None:
    """OpenCost's own input/output split of the period, as stated (summed over namespaces), with its method."""
    if frame["allocation_method"].isna().all() and frame["input_usd"].isna().all():
        return None
    methods = sorted({str(m) for m in frame["allocation_method"].dropna()})
    input_usd, output_usd = _sum(frame, "input_usd"), _sum(frame, "output_usd")
    single = len(frame) == 1
    kind = input_denominator(frame.iloc[0].to_dict())[0] if single else None
    return {"allocation_methods": methods,
            "methods_said": [ALLOCATION_METHODS.get(m, f"{m}: not a method OpenCost documents") for m in methods],
            "input_usd": _num(input_usd), "output_usd": _num(output_usd),
            # per-million rates only as stated: summed over namespaces they would need OpenCost's denominators
            "usd_per_m_input": _num(float(frame["usd_per_m_input"].iloc[0])) if single else None,
            # what the stated input $/M divides by: two are compared only when this agrees (OpenCost changed it)
            "usd_per_m_input_counts": INPUT_DENOMINATORS.get(kind) if kind else None,
            # the same input cost over every delivered prompt token, whichever release wrote the row: like with like
            "usd_per_m_input_delivered": _num(_div(input_usd, _sum(frame, "input_tokens")) * 1e6),
            "usd_per_m_output": _num(float(frame["usd_per_m_output"].iloc[0])) if single else None,
            "fallback_multiplier": "multiplier" in methods}


def _gap(rows: pd.DataFrame, start, end) -> float | None:
    """Allocation − usage cost of the window, over the namespaces OpenCost gives both for (None: none)."""
    window = rows[(rows["period_start"] == start) & (rows["period_end"] == end)]
    window = window.assign(_ns=window["namespace"].fillna(""))
    alloc, usage = window[window["cost_basis"] == "allocation"], window[window["cost_basis"] == "usage"]
    both = sorted(set(alloc["_ns"]) & set(usage["_ns"]))
    if not both:
        return None
    return _sum(alloc[alloc["_ns"].isin(both)], "usd") - _sum(usage[usage["_ns"].isin(both)], "usd")


def plan_vs_actual(plan: Plan, actuals: pd.DataFrame, at_volume: Callable[[float, float], list[dict]] | None = None,
                   cost_basis: str | None = None, aliases: dict[str, str] | None = None) -> Comparison:
    """The plan against the actuals of its model.

    Parameters
    ----------
    plan : Plan
    actuals : DataFrame  rows of the ``actuals`` table with ``file_name`` (:func:`model.data.actuals.actuals_frame`)
    at_volume : callable, optional  ``at_volume(tokens_per_month, cache_hit)`` → the plan's buy/rent/API options
        re-run at that volume (dicts with ``option``, ``kind``, ``usd_per_month``, ``effective_usd_per_mtok``,
        ``nodes``); None: not re-run
    cost_basis : str, optional  ``bill``, ``allocation`` or ``usage``; default the first of :data:`COST_BASES`
        the actuals hold for the model
    aliases : dict, optional  names the actuals use -> the plan's model (:func:`aliases_of`); default
        :data:`MODEL_ALIASES`. Models match by their whole name or an alias, never by a part.

    Raises
    ------
    ActualsError  no actuals for the plan's model, a basis not stored, a plan without an owned fleet.
    """
    if not (_ok(plan.nodes) and plan.nodes > 0 and _ok(plan.usd_per_month)):
        raise ActualsError("the plan sized no owned fleet (no volume, or no series it could size): plan against "
                           "actual compares a cluster's cost with the fleet a proposal planned")
    rows, aliased = _for_plan(plan, actuals, aliases)
    basis = _basis_of(rows, cost_basis)
    chosen = rows[rows["cost_basis"] == basis].sort_values(["period_start", "period_end"])
    notes = [*plan.notes, *aliased]
    others = sorted(set(rows["cost_basis"]) - {basis})
    if others:
        notes.append(f"the comparison reads the {basis} cost; the actuals also hold {', '.join(others)} for this "
                     f"model (choose with --cost-basis)")
    if basis == "usage":
        notes.append("usage cost counts consumption only and does not reconcile to the bill: idle and shared "
                     "capacity are left out, so the realised $/M is a lower bound")
    periods = []
    for (start, end), part in chosen.groupby(["period_start", "period_end"], sort=True):
        hours = (end - start).total_seconds() / 3600.0
        entry = {"period_start": start.isoformat(), "period_end": end.isoformat(),
                 "sources": sorted(set(part["file_name"].astype(str))),
                 "namespaces": sorted({str(n) for n in part["namespace"].dropna()}),
                 **_figures(plan, hours, _sum(part, "usd"), _tokens(part), _sum(part, "gpu_hours"),
                            _gap(rows, start, end)),
                 "opencost_split": _opencost_split(part)}
        periods.append(entry)
    if len({(p["period_start"], p["period_end"]) for p in periods}) > 1 and _overlapping(chosen):
        notes.append("some periods overlap (different namespaces reported over different windows): the total "
                     "counts each row once, over the hours their windows cover")
    hours = _union_hours(zip(chosen["period_start"], chosen["period_end"]))
    gaps = [p["allocation_minus_usage_usd"] for p in periods]
    gap = sum(gaps) if gaps and all(g is not None for g in gaps) else None
    total = {"period_start": chosen["period_start"].min().isoformat(),
             "period_end": chosen["period_end"].max().isoformat(),
             "sources": sorted(set(chosen["file_name"].astype(str))),
             **_figures(plan, hours, _sum(chosen, "usd"), _tokens(chosen), _sum(chosen, "gpu_hours"), gap)}
    if total["gpu_hours_from"] != "stated":
        notes.append("the actuals state no GPU-hours: the planned fleet is assumed to have been paid for, so any "
                     "difference in cost per GPU-hour shows as rate")
    if any(p["opencost_split"] and p["opencost_split"]["fallback_multiplier"] for p in periods):
        notes.append("OpenCost split some periods' cost into input and output by its fallback fixed multiplier "
                     "(vLLM timing metrics were unavailable), not by measured prefill/decode time")
    at_realised = _at_realised(plan, total, at_volume, cost_basis=basis)
    return Comparison(plan, basis, tuple(periods), total, at_realised, tuple(dict.fromkeys(notes)),
                      tuple(_sentences(plan, total, at_realised)))


def _overlapping(rows: pd.DataFrame) -> bool:
    return first_overlap(("", s, e) for s, e in zip(rows["period_start"], rows["period_end"])) is not None


def _at_realised(plan: Plan, total: dict, at_volume, cost_basis: str) -> dict:
    hours = total["hours"]
    volume = _div(total["tokens_on_basis"], hours) * HOURS_PER_MONTH
    tokens = total["tokens"]
    hit = _div(tokens["cached_input"], tokens["input"])
    hit_from = "the actuals (cached ÷ input tokens)"
    if not (_ok(hit) and 0 <= hit <= 1):
        hit, hit_from = plan.cache_hit, "the plan's (the actuals state no cached input)"
    months = hours / HOURS_PER_MONTH
    options = []
    if at_volume is not None and _ok(volume) and volume > 0:
        for o in at_volume(volume, hit):
            usd_month = o.get("usd_per_month")
            options.append({**o, "usd_over_period": _num(usd_month * months) if _ok(usd_month) else None})
    api = None
    if plan.api is not None:
        p_in, p_out = plan.api.get("usd_per_m_input"), plan.api.get("usd_per_m_output")
        p_cached = plan.api.get("usd_per_m_cached_input")
        p_cached = p_in if p_cached is None else p_cached
        cached = tokens["cached_input"] if _ok(tokens["cached_input"]) else \
            (tokens["input"] * hit if _ok(tokens["input"]) else None)
        if _ok(tokens["input"]) and _ok(tokens["output"]) and cached is not None:
            usd = ((tokens["input"] - cached) * p_in + cached * p_cached + tokens["output"] * p_out) / 1e6
            api = {"model": plan.api.get("model"), "provider": plan.api.get("provider"), "usd": usd,
                   "usd_per_month": _num(_div(usd, months)),
                   "usd_per_mtok": _num(_div(usd, total["tokens_on_basis"]) * 1e6),
                   "cache_hit": hit, "cache_hit_from": hit_from,
                   "text": f"the API ({plan.api.get('model')}) at the realised tokens: "
                           f"(({tokens['input']:,.0f} − {cached:,.0f}) × ${p_in:g} + {cached:,.0f} × ${p_cached:g} "
                           f"+ {tokens['output']:,.0f} × ${p_out:g}) ÷ 1e6 = ${usd:,.2f}"}
    cheapest = min(options, key=lambda o: o["usd_per_month"] if _ok(o.get("usd_per_month")) else math.inf)["option"] \
        if options else None
    return {"tokens_per_month": _num(volume), "basis": plan.basis, "cache_hit": hit, "cache_hit_from": hit_from,
            "hours": hours, "months": months, "cost_basis": cost_basis, "realised_usd": total["usd"],
            "options": options, "cheapest": cheapest, "api_at_realised_tokens": api}


def _sentences(plan: Plan, total: dict, at_realised: dict) -> list[str]:
    out = []
    mtok = total["usd_per_mtok"][plan.basis]
    if mtok["realised"] is not None and mtok["planned"] is not None:
        low, high = mtok["planned_low"], mtok["planned_high"]
        pm = f"; the plan's range ${low:,.2f} to ${high:,.2f}/M" if mtok["variance_error"] and low is not None \
            and high is not None else ""
        text = (f"Realised ${mtok['realised']:,.2f}/M {plan.basis} tokens against the plan's "
                f"${mtok['planned']:,.2f}/M ({'+' if mtok['variance'] >= 0 else '−'}"
                f"${abs(mtok['variance']):,.2f}/M{pm})")
        if mtok["explained_by"]:
            share = mtok["shares"][mtok["explained_by"]]
            text += f"; {mtok['explained_by']} explains most of it ({'+' if share >= 0 else '−'}${abs(share):,.2f}/M)"
        out.append(text + ".")
    if total["volume_ratio"] is not None:
        out.append(f"Served {total['tokens_on_basis']:,.0f} {plan.basis} tokens in {total['hours']:,.0f} hours, "
                   f"{total['volume_ratio']:.1%} of the plan's {total['planned_tokens_on_basis']:,.0f}.")
    if total["implied_utilization"] is not None:
        low, high = total["implied_utilization_low"], total["implied_utilization_high"]
        band = f" ({low:.1%}–{high:.1%})" if low is not None and high is not None and high - low > 1e-9 else ""
        out.append(f"Implied utilisation of the planned fleet ({plan.nodes:,.0f} nodes of {plan.series}): "
                   f"{total['implied_utilization']:.1%}{band}, against the plan's {plan.utilisation:.1%}.")
    if total["allocation_minus_usage_usd"] is not None:
        out.append(f"Capacity kept warm (OpenCost allocation − usage): ${total['allocation_minus_usage_usd']:,.2f}.")
    if at_realised and at_realised["options"]:
        parts = [f"{o['option']} ${o['usd_over_period']:,.0f}" for o in at_realised["options"]
                 if o.get("usd_over_period") is not None]
        out.append(f"At the realised {at_realised['tokens_per_month']:,.0f} tokens a month, over these "
                   f"{at_realised['hours']:,.0f} hours: " + "; ".join(parts) + f" (realised ${total['usd']:,.0f}).")
    if at_realised and at_realised["api_at_realised_tokens"]:
        api = at_realised["api_at_realised_tokens"]
        out.append(f"The API ({api['model']}) at the realised token mix would have cost ${api['usd']:,.2f}.")
    return out
