"""Demand: the peak load a fleet must serve (requests per second, or tokens per day at a peak-to-average
ratio) and the spare capacity bought on top, and how a token count becomes requests."""

from __future__ import annotations

import math

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from model.core.tco import TcoInputError
from model.core.view_fields import MAX_DEMAND_RPS

__all__ = ["TOKEN_BASES", "SECONDS_PER_DAY", "Demand", "demand", "finite_number", "tokens_per_request"]

#: what a token count counts
TOKEN_BASES = ("total", "output", "input")
#: seconds in a day: tokens per day -> tokens per second
SECONDS_PER_DAY = 86_400.0


class Demand(BaseModel):
    """Peak demand and how much spare capacity to buy.

    Attributes
    ----------
    requests_per_second : float, optional  peak demand [req/s]
    tokens_per_day : float, optional  average demand [tokens/day] on ``token_basis``, instead of req/s
    peak_to_average : float  peak ÷ average load [-], >= 1 (only with ``tokens_per_day``)
    token_basis : str  what ``tokens_per_day`` counts: total (input+output), output or input tokens
    headroom : float  capacity bought ÷ peak demand [-], >= 1, e.g. 1.2 for 20 % spare
    spares : int  whole nodes added after rounding up (N+1 = 1)
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    requests_per_second: float | None = Field(None, gt=0, le=MAX_DEMAND_RPS)
    tokens_per_day: float | None = Field(None, gt=0, le=1e18)
    peak_to_average: float = Field(1.0, ge=1, le=1000)
    token_basis: str = "total"
    headroom: float = Field(1.0, ge=1, le=100)
    spares: int = Field(0, ge=0, le=100_000)

    @model_validator(mode="after")
    def _one(self) -> "Demand":
        if (self.requests_per_second is None) == (self.tokens_per_day is None):
            raise ValueError("give demand as requests per second or as tokens per day (one of them)")
        if self.token_basis not in TOKEN_BASES:
            raise ValueError(f"token_basis must be one of {', '.join(TOKEN_BASES)}")
        return self

    def describe(self) -> str:
        if self.requests_per_second is not None:
            text = f"{self.requests_per_second:g} req/s at peak"
        else:
            text = (f"{self.tokens_per_day:,.0f} {self.token_basis} tokens/day × {self.peak_to_average:g} "
                    "peak/average")
        return text + f", headroom {self.headroom:g}" + (f", +{self.spares} spare nodes" if self.spares else "")


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
