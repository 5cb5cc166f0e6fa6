"""What a row of actuals states, and how its model is matched: the cost bases (:data:`COST_BASES`), OpenCost's
fields and split methods (:data:`OPENCOST_FIELDS`, :data:`ALLOCATION_METHODS`), what a row's input $/M divides by
(:func:`input_denominator`), periods that overlap (:func:`first_overlap`) and model names matched whole or by an
alias (:func:`model_key`). The importers check rows by them (:mod:`model.data.importers.opencost`,
:mod:`model.data.actuals`); the comparison with a plan is :mod:`model.core.actuals`.
"""

from __future__ import annotations

import math
from typing import Iterable

__all__ = ["COST_BASES", "ALLOCATION_METHODS", "OPENCOST_FIELDS", "INPUT_DENOMINATORS", "DENOMINATOR_TOLERANCE",
           "input_denominator", "ActualsError", "MODEL_ALIASES", "model_key", "same_model", "aliases_of", "plain_name",
           "first_overlap"]

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


def plain_name(name) -> str:
    """A model name as it is matched before aliases: lower case, spaces dropped."""
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
    table = {plain_name(k): plain_name(v) for k, v in (MODEL_ALIASES if aliases is None else aliases).items()}
    key = plain_name(name)
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
