"""Values a view allows that are more likely a slip than meant: a rate far from its preset, a demand that
sizes a huge fleet, a percentage of 1 or less. The dashboard asks for a confirmation before it applies one
(:mod:`ui.numbers`); the command line takes it and prints a ``note:``.

Standard library only; every question quotes the value and the limit it passed.
"""

from __future__ import annotations

import math
from typing import Iterable, Mapping

__all__ = ["RATE_FACTOR", "MAX_NODES_UNASKED", "rate_question", "rate_notes", "fleet_question", "percent_question"]

#: a rate more than this many times its preset, or less than its preset divided by it, is asked about
RATE_FACTOR = 5.0
#: a demand whose smallest fleet in view has more nodes than this is asked about
MAX_NODES_UNASKED = 1000


def rate_question(hardware: str, rate: float | None, preset: float | None) -> str | None:
    """Why ``rate`` [$/GPU-hour] for ``hardware`` looks like a slip (more than :data:`RATE_FACTOR` × its
    preset, or less than its preset ÷ :data:`RATE_FACTOR`), or None. No preset: nothing to compare with."""
    if rate is None or preset is None or not (preset > 0 and rate > 0):
        return None
    ratio = rate / preset
    if ratio > RATE_FACTOR * (1 + 1e-9):
        how = f"{ratio:,.3g}× its preset"
    elif ratio < (1 - 1e-9) / RATE_FACTOR:
        how = f"1/{1 / ratio:,.3g} of its preset"
    else:
        return None
    return (f"{hardware} at ${rate:,.2f}/GPU-hour is {how} (${preset:,.2f}); rates more than "
            f"{RATE_FACTOR:g}× or less than 1/{RATE_FACTOR:g} of their preset are checked")


def rate_notes(rates: Iterable[tuple[str, float]], presets: Mapping[str, float]) -> list[str]:
    """One note per rate set by hand that :func:`rate_question` asks about (the command line prints them, each
    starting ``unusual rate:``)."""
    by_name = {str(k).lower(): v for k, v in presets.items()}
    notes = []
    for hardware, rate in rates:
        question = rate_question(hardware, rate, by_name.get(str(hardware).lower()))
        if question:
            notes.append(f"unusual rate: {question}: is it what you meant?")
    return notes


def fleet_question(nodes: Mapping[str, float]) -> str | None:
    """Why a demand looks like a slip: the smallest fleet of any series (``{series: nodes}``) has more than
    :data:`MAX_NODES_UNASKED` nodes; None otherwise (or when nothing was sized)."""
    sized = {s: n for s, n in nodes.items() if n is not None and not (isinstance(n, float) and math.isnan(n)) and n > 0}
    if not sized:
        return None
    series, smallest = min(sized.items(), key=lambda item: item[1])
    if smallest <= MAX_NODES_UNASKED:
        return None
    return (f"this demand needs at least {smallest:,.0f} nodes (the smallest fleet in view, {series}); "
            f"fleets of more than {MAX_NODES_UNASKED:,} nodes are checked")


def percent_question(value: float | None, what: str) -> str | None:
    """Why ``value`` typed in a percent field looks like a fraction (more than 0 and at most 1), or None."""
    if value is None or not (0 < value <= 1):
        return None
    return (f"{what}: {value:g} % is 1 % or less; this box takes percent, so 70 % is 70. "
            f"Did you mean {value * 100:g} %?")
