"""The shape of a demand over time: a 24-hour curve of hourly weights (a preset or typed), and how a curve
and a level become the load of each interval.

A curve is a sequence of non-negative weights, one per interval (an hour for the 24-hour curves, a trace's
window for a request trace: :mod:`model.core.trace`), normalised to a mean of 1, so ``load(t) = mean load ×
weight(t)`` and the peak-to-average factor is the largest weight. A month is 730 hours; a curve spanning a day
(or a trace spanning any time) is repeated to fill it.

Presets (hourly, from midnight): ``flat`` (every hour alike), ``business-hours`` (09:00 to 18:00 at 4× the
night's load), ``diurnal`` (a smooth day: a cosine with its trough at 04:00 at a fifth of its peak at 16:00).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["PRESETS", "Curve", "curve_of", "preset_weights"]

#: the 24-hour presets a view names
PRESETS = ("flat", "business-hours", "diurnal")


def preset_weights(name: str) -> tuple[float, ...]:
    """The 24 hourly weights of a preset (before normalising)."""
    if name == "flat":
        return (1.0,) * 24
    if name == "business-hours":
        return tuple(4.0 if 9 <= h < 18 else 1.0 for h in range(24))
    if name == "diurnal":   # trough 0.2 at 04:00, peak 1.0 at 16:00
        return tuple(round(0.6 - 0.4 * math.cos(2 * math.pi * (h - 4) / 24), 6) for h in range(24))
    raise ValueError(f"the shape must be {', '.join(PRESETS)} or 24 hourly weights, comma-separated")


@dataclass(frozen=True)
class Curve:
    """Weights of equal intervals (mean 1) and the length of each interval [s]."""

    weights: tuple[float, ...]
    interval_s: float
    name: str

    @property
    def peak_to_average(self) -> float:
        return max(self.weights)

    @property
    def span_s(self) -> float:
        return self.interval_s * len(self.weights)

    def words(self) -> str:
        """``"business-hours (peak 2.7× the average)"``."""
        return f"{self.name} (peak {self.peak_to_average:.3g}× the average)"


def _normalised(weights: tuple[float, ...], what: str) -> tuple[float, ...]:
    if not weights or not all(math.isfinite(w) and w >= 0 for w in weights):
        raise ValueError(f"{what}: every weight must be a number of 0 or more")
    total = sum(weights)
    if not total > 0:
        raise ValueError(f"{what}: at least one weight must be above 0")
    return tuple(w * len(weights) / total for w in weights)


def curve_of(text: str) -> Curve | None:
    """The 24-hour curve a shape names (a preset, or 24 weights ``"1,1,...,4"``); None for ``""`` (no curve: a
    peak-to-average factor alone). Raises ValueError in the product's words."""
    text = (text or "").strip()
    if not text:
        return None
    if text in PRESETS:
        return Curve(_normalised(preset_weights(text), text), 3600.0, text)
    parts = [p for p in text.replace(";", ",").replace(" ", ",").split(",") if p]
    try:
        weights = tuple(float(p) for p in parts)
    except ValueError:
        raise ValueError(f"the shape must be {', '.join(PRESETS)} or 24 hourly weights, comma-separated") from None
    if len(weights) != 24:
        raise ValueError(f"a typed shape has 24 hourly weights (from midnight), got {len(weights)}")
    return Curve(_normalised(weights, "the hourly shape"), 3600.0, "typed 24-hour curve")
