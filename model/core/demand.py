"""Demand: a peak (requests per second) and/or a volume (tokens a month or a day) with a shape (a
peak-to-average factor, a 24-hour curve or a request trace), the spare capacity bought on top, and the load
of each interval a fleet follows.

*One demand, with a shape* (:func:`load_of`). With a curve (:mod:`model.core.shape`, :mod:`model.core.trace`)
the factor is the curve's peak ÷ its mean; else ``peak_to_average``. A volume ``V`` [tokens/month on the
token basis] is a mean load of ``V / (730 × 3600) / tokens per request`` req/s; a peak ``P`` is a mean load of
``P / factor``. Given one, the other is derived by the shape; given both, the peak sizes the fleet bought
for the peak and the volume prices it (and sets the curve's level); a trace alone is its own level. The load of
each interval is ``λ(t) = mean × weight(t)``.

*A fleet that follows the curve* (:func:`follow`): ``nodes(t) = ⌈λ(t) × headroom / req/s per node⌉ + spares``,
then at least ``min_nodes`` kept up, added in whole steps of ``step`` nodes, and never more than the fleet for the
peak (or the minimum). Owned and reserved nodes are the peak's, paid every hour; on demand (autoscaled) pays the
node-hours of ``nodes(t)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from model.core.limits import MAX_DEMAND_RPS
from model.core.shape import Curve
from model.core.tco import HOURS_PER_MONTH, TcoInputError
from model.core.trace import Trace

__all__ = ["TOKEN_BASES", "SECONDS_PER_DAY", "SECONDS_PER_MONTH", "Demand", "Load", "demand", "finite_number",
           "tokens_per_request", "load_of", "follow"]

#: what a token count counts
TOKEN_BASES = ("total", "output", "input")
#: seconds in a day: tokens per day -> tokens per second
SECONDS_PER_DAY = 86_400.0
#: seconds in a month of 730 hours
SECONDS_PER_MONTH = HOURS_PER_MONTH * 3600.0


class Demand(BaseModel):
    """A demand and how much spare capacity to buy.

    Attributes
    ----------
    requests_per_second : float, optional  peak demand [req/s]
    tokens_per_day, tokens_per_month : float, optional  volume [tokens] on ``token_basis`` (one of them)
    peak_to_average : float  peak ÷ average load [-], >= 1 (used when there is no curve)
    curve : Curve, optional  the shape over time (a 24-hour curve); a ``trace`` gives its own
    trace : Trace, optional  a request trace (its windows of ``window_minutes`` are the curve)
    token_basis : str  what the volume counts: total (input+output), output or input tokens
    headroom : float  capacity bought ÷ demand [-], >= 1, e.g. 1.2 for 20 % spare
    spares : int  whole nodes added after rounding up (N+1 = 1)
    min_nodes, step : int  on demand: nodes kept up, and the nodes added at a time
    """

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    requests_per_second: float | None = Field(None, gt=0, le=MAX_DEMAND_RPS)
    tokens_per_day: float | None = Field(None, gt=0, le=1e18)
    tokens_per_month: float | None = Field(None, gt=0, le=1e18)
    peak_to_average: float = Field(1.0, ge=1, le=1000)
    curve: Curve | None = None
    trace: Trace | None = None
    window_minutes: int = Field(5, ge=1, le=1440)
    token_basis: str = "total"
    headroom: float = Field(1.0, ge=1, le=100)
    spares: int = Field(0, ge=0, le=100_000)
    min_nodes: int = Field(0, ge=0, le=100_000)
    step: int = Field(1, ge=1, le=100_000)

    @model_validator(mode="after")
    def _one(self) -> "Demand":
        if self.requests_per_second is None and self.volume_given is None and self.trace is None:
            raise ValueError("give a peak (requests per second), a volume (tokens a month or a day) or a trace")
        if self.tokens_per_day is not None and self.tokens_per_month is not None:
            raise ValueError("give the volume one way: tokens a day or tokens a month (one of them)")
        if self.token_basis not in TOKEN_BASES:
            raise ValueError(f"token_basis must be one of {', '.join(TOKEN_BASES)}")
        return self

    @property
    def volume_given(self) -> float | None:
        """The volume typed, as tokens a month (a day's × 730 / 24)."""
        if self.tokens_per_month is not None:
            return self.tokens_per_month
        return self.tokens_per_day * HOURS_PER_MONTH / 24 if self.tokens_per_day is not None else None

    @property
    def shape(self) -> Curve | None:
        """The curve the load follows: the trace's windows, else the curve; None for a factor alone."""
        return self.trace.curve(self.window_minutes) if self.trace is not None else self.curve

    @property
    def factor(self) -> float:
        """Peak ÷ average of the shape."""
        shape = self.shape
        return shape.peak_to_average if shape is not None else self.peak_to_average

    def describe(self) -> str:
        """The demand as typed: ``"6 req/s at peak; 3e+09 total tokens/month; business-hours ..."``."""
        parts = []
        if self.requests_per_second is not None:
            parts.append(f"{self.requests_per_second:g} req/s at peak")
        if self.tokens_per_month is not None:
            parts.append(f"{self.tokens_per_month:,.0f} {self.token_basis} tokens/month")
        if self.tokens_per_day is not None:
            parts.append(f"{self.tokens_per_day:,.0f} {self.token_basis} tokens/day")
        if self.trace is not None:
            parts.append(self.trace.words() + f", {self.window_minutes}-minute windows")
        elif self.curve is not None:
            parts.append(f"shape {self.curve.words()}")
        elif self.peak_to_average != 1:
            parts.append(f"peak {self.peak_to_average:g}× the average")
        return "; ".join(parts) + f", headroom {self.headroom:g}" + (f", +{self.spares} spare nodes" if self.spares
                                                                     else "")


def demand(**values) -> Demand:
    """:class:`Demand` from keyword values (``None`` = default), raising :class:`TcoInputError` readably."""
    try:
        return Demand(**{k: v for k, v in values.items() if v is not None})
    except ValidationError as exc:
        parts = [f"{'.'.join(map(str, e['loc'])) or 'demand'}: {e['msg'].removeprefix('Value error, ')}"
                 for e in exc.errors()]
        raise TcoInputError("demand: " + "; ".join(parts)) from None


def finite_number(value) -> float:
    """``value`` as a float; NaN when it is missing, not a number, or infinite."""
    try:
        out = float(value)
    except (TypeError, ValueError):
        return math.nan
    return out if math.isfinite(out) else math.nan


def tokens_per_request(isl, osl, basis: str) -> float:
    """Tokens one request carries on ``basis`` (total, output or input) from its ISL and OSL; NaN when unknown."""
    isl, osl = finite_number(isl), finite_number(osl)
    value = {"total": isl + osl, "output": osl, "input": isl}.get(basis, math.nan)
    return value if value > 0 else math.nan


@dataclass(frozen=True)
class Load:
    """The load one demand puts on a workload of ``per_request`` tokens a request."""

    peak_rps: float                    # what the fleet bought for the peak is sized for [req/s]
    mean_rps: float                    # [req/s]
    tokens_per_month: float            # [tokens on the basis]
    rates: tuple[float, ...]           # λ of each interval of the shape [req/s]; () with no curve
    interval_s: float                  # [s]
    peak_typed: bool                   # the peak was given (else derived by the shape)
    volume_typed: bool                 # the volume was given (else derived)

    @property
    def curve_peak_rps(self) -> float:
        return max(self.rates) if self.rates else self.peak_rps


def load_of(need: Demand, per_request: float) -> Load:
    """The mean and peak load, the volume and λ(t) of ``need`` on requests of ``per_request`` tokens (on the
    demand's basis; NaN when unknown: a volume then has no requests, a peak no volume)."""
    shape, factor, volume = need.shape, need.factor, need.volume_given
    if volume is not None:
        mean = volume / SECONDS_PER_MONTH / per_request
        peak = need.requests_per_second if need.requests_per_second is not None else mean * factor
    elif need.requests_per_second is not None:
        peak = need.requests_per_second
        mean = peak / factor
        volume = mean * per_request * SECONDS_PER_MONTH
    else:
        mean = need.trace.mean_rps(need.window_minutes)
        peak = mean * factor
        volume = mean * per_request * SECONDS_PER_MONTH
    rates = tuple(mean * w for w in shape.weights) if shape is not None and math.isfinite(mean) else ()
    return Load(peak, mean, volume, rates, shape.interval_s if shape is not None else 3600.0,
                need.requests_per_second is not None, need.volume_given is not None)


def _ceil(values: np.ndarray) -> np.ndarray:
    """Round up, ignoring floating noise below 1e-9 (4.8 / 2.4 is 2 nodes, not 3)."""
    return np.ceil(np.round(values, 9))


def follow(rates, per_node_rps: float, headroom: float = 1.0, spares: int = 0, min_nodes: int = 0, step: int = 1,
           peak_nodes: float | None = None) -> np.ndarray:
    """Nodes of each interval for loads ``rates`` [req/s]: ``⌈λ × headroom / per node⌉ + spares``, at least
    ``min_nodes``, in whole ``step`` s, at most ``peak_nodes`` (the fleet for the peak; default the largest
    interval's) or the minimum."""
    lam = np.asarray(rates, dtype=float)
    nodes = np.where(lam > 0, np.maximum(1, _ceil(lam * headroom / per_node_rps)), 0) + spares   # a load gets a node
    top = float(nodes.max()) if peak_nodes is None else float(peak_nodes)
    stepped = np.ceil(nodes / step) * step
    return np.minimum(np.maximum(stepped, min_nodes), max(top, min_nodes))
