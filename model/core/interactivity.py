"""What "tokens per second per user" counts: by TPOT or by ITL, a choice the view makes and says.

A serving benchmark states two per-user paces: **TPOT**, the time per output token after the first (a request's
``(latency − TTFT) ÷ (output tokens − 1)``), and **ITL**, the time between two streamed chunks. Without speculative
decoding a chunk is a token and the two agree; with it (MTP, EAGLE, a draft model) one step emits several accepted
tokens in one chunk, so the mean ITL can be several times the mean TPOT (a real multi-turn run: TPOT 25.0 ms, ITL
81.4 ms: 40 or 12 tok/s/user). Both are honest: TPOT counts the tokens a reader gets per second, ITL how often the
screen changes.

The stored ``interactivity`` is ``1000 ÷ median TPOT`` (:class:`model.core.schema.BenchmarkPoint`); a point that states
its median ITL keeps it beside (``itl_median_ms``). A view's ``interactivity_from`` (:data:`DEFINITIONS`, link key
``ia``, ``--interactivity-from``) chooses which one its frontier reads: :func:`by_definition`. A point without the
chosen measure keeps the other, and the view's notes count them (never a silent mix). Where a file states both and
they are more than :data:`FACTOR` apart the importer says so in the row's notes (:func:`apart_note`).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

__all__ = ["DEFINITIONS", "FACTOR", "WORDS", "apart", "apart_note", "by_definition", "interactivity_column_of"]

DEFINITIONS = ("tpot", "itl")
#: TPOT and ITL further apart than this (either way) is said in a row's notes and the view's
FACTOR = 1.5
WORDS = {"tpot": "1000 ÷ median TPOT: the tokens a user receives per second",
         "itl": "1000 ÷ median ITL: the chunks a user receives per second (several tokens each under speculative "
                "decoding)"}


def _ok(value) -> bool:
    return value is not None and isinstance(value, (int, float)) and math.isfinite(value) and value > 0


def apart(tpot_ms, itl_ms) -> float | None:
    """How many times the larger of TPOT and ITL is the smaller (None when either is missing)."""
    if not (_ok(tpot_ms) and _ok(itl_ms)):
        return None
    return max(tpot_ms, itl_ms) / min(tpot_ms, itl_ms)


def apart_note(mean_tpot, mean_itl, median_tpot, median_itl) -> str | None:
    """The row's note when its TPOT and ITL are more than :data:`FACTOR` apart (means where stated, else medians);
    None otherwise."""
    tpot, itl, which = (mean_tpot, mean_itl, "mean") if apart(mean_tpot, mean_itl) else \
        (median_tpot, median_itl, "median")
    ratio = apart(tpot, itl)
    if ratio is None or ratio <= FACTOR:
        return None
    by = f"{1000 / median_tpot:.3g} tok/s/user by TPOT" if _ok(median_tpot) else "by TPOT"
    by_itl = f"{1000 / median_itl:.3g} by ITL" if _ok(median_itl) else "by ITL"
    return (f"TPOT and ITL {ratio:.2g}x apart ({which} TPOT {tpot:.4g} ms, {which} ITL {itl:.4g} ms: several tokens per "
            f"streamed chunk, e.g. speculative decoding): interactivity is {by}, {by_itl} (medians); the view's "
            "'interactivity from' chooses")


def interactivity_column_of(definition: str) -> str:
    """The stored column a definition reads: ``tpot_median_ms`` or ``itl_median_ms``."""
    if definition not in DEFINITIONS:
        raise ValueError(f"unknown interactivity definition {definition!r}; choose one of {', '.join(DEFINITIONS)}")
    return "tpot_median_ms" if definition == "tpot" else "itl_median_ms"


def by_definition(rows: pd.DataFrame, definition: str) -> tuple[pd.DataFrame, list[str]]:
    """``rows`` with ``interactivity`` by ``definition`` (``tpot``: as stored; ``itl``: ``1000 ÷ itl_median_ms`` where
    a row states it, its TPOT-based one otherwise, counted in a note), and notes: how many rows in view have TPOT and
    ITL more than :data:`FACTOR` apart, whatever the definition."""
    notes = []
    tpot = pd.to_numeric(rows["tpot_median_ms"], errors="coerce").to_numpy(dtype=float, na_value=np.nan) \
        if "tpot_median_ms" in rows else np.full(len(rows), np.nan)
    itl = pd.to_numeric(rows["itl_median_ms"], errors="coerce").to_numpy(dtype=float, na_value=np.nan) \
        if "itl_median_ms" in rows else np.full(len(rows), np.nan)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.maximum(tpot, itl) / np.minimum(tpot, itl)
    far = int(np.sum(np.isfinite(ratio) & (ratio > FACTOR)))
    if far:
        notes.append(f"{far} point{'s' if far != 1 else ''} in view state a median TPOT and ITL more than {FACTOR:g}x "
                     f"apart (several tokens per streamed chunk): interactivity here is {WORDS[definition]}")
    if definition == "tpot" or rows.empty:
        return rows, notes
    has = np.isfinite(itl) & (itl > 0)
    if not has.any():
        notes.append("interactivity from ITL: no point in view states a median ITL, so every point keeps its "
                     "TPOT-based interactivity")
        return rows, notes
    stored = pd.to_numeric(rows["interactivity"], errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    with np.errstate(divide="ignore"):
        values = np.where(has, 1000.0 / itl, stored)
    if (~has).any():
        notes.append(f"interactivity from ITL: {int((~has).sum())} of {len(rows)} rows state no median ITL and keep "
                     "their TPOT-based interactivity")
    return rows.assign(interactivity=values), notes
