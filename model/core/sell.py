"""The seller's side: what a GPU earns selling tokens at an API price (issue 52).

Pure arithmetic (standard library only), one function per step, each the formula InferenceX's revenue-per-gigawatt
whitepaper (2026-09) prints its figures with:

- **blended sale price** [$ per million tokens sold] of a token mix: a share ``s`` of the tokens are input, a share
  ``c`` of the input is served from the prefix cache (billed at the cached price)::

      blended = s × (c × cached + (1 − c) × input) + (1 − s) × output

- **gross revenue per GPU-hour at full use** [$]: ``tok/s/GPU × 3600 × blended ÷ 10^6``, the tokens counted the way
  the price counts them (total tokens; a throughput on another basis is converted by :func:`sold_per_basis_token`);
- **revenue per GPU-hour** at utilisation ``u`` (the share of hours the GPU sells at that throughput):
  ``gross × u``;
- **licence fee**: a share ``f`` of the revenue paid to the model's owner (the whitepaper's 30 %), so the seller keeps
  ``revenue × (1 − f)``;
- **profit per GPU-hour**: ``revenue × (1 − f) − $/GPU-hour``, owned or rented, the GPU-hour paid every hour whether
  it sells or not (a full-use rate);
- **margin**: profit ÷ revenue (before the licence fee, as the whitepaper divides);
- **break-even utilisation**: ``$/GPU-hour ÷ (gross × (1 − f))`` (above 1: never at this throughput and price);
- **GPUs per gigawatt**: ``10^6 kW ÷ (all-in kW per GPU × PUE)`` (the whitepaper's 2.09 kW is all-in, so PUE 1);
  GPU-hours per GW-year = GPUs × 8,760; every per-GPU-hour figure × GPU-hours is its GW-year figure (÷ 1,000 a
  MW-year);
- **utilisation sensitivity**: revenue and profit at ``u ± 10`` points (kept within [0, 1]) less those at ``u``:
  ``±gross × 0.10 × GPU-hours`` of revenue and that × ``(1 − f)`` of profit, the cost being paid either way.

The whitepaper's printed figures recompute from these formulas, with one exception its own inputs expose: its gross
$12.97 per GPU-hour needs a blended $0.5892/M, while 99.2 % input and 93.7 % cached at $3.00/$0.30/$15.00 give
$0.5863/M ($12.91). A 99.18 % input share (which the paper rounds to 99.2 %) gives $0.5892/M and every printed
figure to its rounding; ``tests/test_sell.py`` reproduces both and the manual (``docs/numbers/sell.md``) says so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

__all__ = ["HOURS_PER_YEAR", "HOURS_PER_MONTH", "UTILISATION_STEP", "SalePrice", "Economics", "blended_usd_per_mtok",
           "sold_per_basis_token", "revenue_per_gpu_hour", "gpus_per_gw", "economics", "throughput_band"]

HOURS_PER_YEAR = 8760
HOURS_PER_MONTH = 730
#: the utilisation sensitivity's step: ±10 points
UTILISATION_STEP = 0.10


@dataclass(frozen=True)
class SalePrice:
    """An API list price [$ per million tokens]: input, cached input, output."""

    usd_input: float
    usd_cached: float
    usd_output: float


def blended_usd_per_mtok(price: SalePrice, input_share: float, cache_hit: float) -> float:
    """The sale price of a million tokens of the mix [$/M sold tokens]: ``s × (c × cached + (1 − c) × input) + (1 −
    s) × output``. The whitepaper's $3.00/$0.30/$15.00 at 99.2 % input, 93.7 % cached: $0.5863 (printed $0.59)."""
    for name, v in (("input share", input_share), ("cache-hit rate", cache_hit)):
        if not (0 <= v <= 1):
            raise ValueError(f"the {name} is a fraction in [0, 1], got {v}")
    per_input = cache_hit * price.usd_cached + (1 - cache_hit) * price.usd_input
    return input_share * per_input + (1 - input_share) * price.usd_output


def sold_per_basis_token(basis: str, input_share: float, cache_hit: float = 0.0, w_input: float = 0.25,
                         w_cached: float = 0.025) -> float:
    """Tokens sold (input and output) per token a throughput on ``basis`` counts: 1 for total; ``1 ÷ (1 − s)`` for
    output; ``1 ÷ s`` for input; for the blended basis (tokens weighted: an uncached input token ``w_input``, a
    cached one ``w_cached``, an output token 1) ``1 ÷ (s × (c × w_cached + (1 − c) × w_input) + 1 − s)``. NaN
    where the mix has none of what the basis counts."""
    s, c = input_share, cache_hit
    per = {"total": 1.0, "output": 1 - s, "input": s,
           "blended": s * (c * w_cached + (1 - c) * w_input) + (1 - s)}.get(basis)
    if per is None:
        raise ValueError(f"unknown token basis {basis!r}")
    return 1 / per if per > 0 else math.nan


def revenue_per_gpu_hour(tokens_per_second_per_gpu: float, usd_per_mtok: float) -> float:
    """Gross revenue of one GPU-hour at full use [$]: ``tok/s/GPU × 3600 × $/M ÷ 10^6``."""
    return tokens_per_second_per_gpu * 3600 * usd_per_mtok / 1e6


def gpus_per_gw(kw_per_gpu: float, pue: float = 1.0) -> float:
    """GPUs a gigawatt of facility power feeds: ``10^6 ÷ (kW per GPU × PUE)`` (NaN without a power)."""
    kw = kw_per_gpu * pue
    return 1e6 / kw if math.isfinite(kw) and kw > 0 else math.nan


@dataclass(frozen=True)
class Economics:
    """One GPU's economics selling at one throughput and price (:func:`economics`); money in $, shares as fractions."""

    gross_full_use: float            # revenue of a GPU-hour at full use [$]
    revenue: float                   # at the utilisation [$ per GPU-hour]
    kept: float                      # revenue after the licence fee [$ per GPU-hour]
    cost: float                      # the $/GPU-hour paid every hour
    profit: float                    # kept − cost [$ per GPU-hour]
    margin: float                    # profit ÷ revenue
    break_even_utilisation: float    # cost ÷ (gross × (1 − fee))
    gpus_per_gw: float
    gpu_hours_per_gw_year: float
    revenue_per_gw_year: float       # [$]
    profit_per_gw_year: float        # [$]
    revenue_up: float                # revenue per GW-year at utilisation + 10 points, less at the utilisation [$]
    profit_up: float
    revenue_down: float              # ... at utilisation − 10 points (negative) [$]
    profit_down: float

    def as_dict(self) -> dict[str, float]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def economics(tokens_per_second_per_gpu: float, usd_per_mtok: float, utilisation: float, fee: float,
              usd_per_gpu_hour: float, kw_per_gpu: float, pue: float = 1.0) -> Economics:
    """The economics of a GPU serving ``tokens_per_second_per_gpu`` tokens sold at ``usd_per_mtok`` (the blended
    price per token counted), used a share ``utilisation`` of its hours, paying a licence fee ``fee`` of its revenue
    and ``usd_per_gpu_hour`` every hour, drawing ``kw_per_gpu`` × ``pue`` (module docstring)."""
    if not (0 < utilisation <= 1):
        raise ValueError(f"utilisation is a share of hours in (0, 1], got {utilisation}")
    if not (0 <= fee < 1):
        raise ValueError(f"the licence fee is a share of revenue in [0, 1), got {fee}")
    gross = revenue_per_gpu_hour(tokens_per_second_per_gpu, usd_per_mtok)
    revenue = gross * utilisation
    kept = revenue * (1 - fee)
    profit = kept - usd_per_gpu_hour
    per_gw = gpus_per_gw(kw_per_gpu, pue)
    hours = per_gw * HOURS_PER_YEAR
    up = min(1.0, utilisation + UTILISATION_STEP) - utilisation
    down = max(0.0, utilisation - UTILISATION_STEP) - utilisation
    return Economics(
        gross_full_use=gross, revenue=revenue, kept=kept, cost=usd_per_gpu_hour, profit=profit,
        margin=profit / revenue if revenue > 0 else math.nan,
        break_even_utilisation=usd_per_gpu_hour / (gross * (1 - fee)) if gross > 0 else math.inf,
        gpus_per_gw=per_gw, gpu_hours_per_gw_year=hours, revenue_per_gw_year=revenue * hours,
        profit_per_gw_year=profit * hours, revenue_up=gross * up * hours, profit_up=gross * up * (1 - fee) * hours,
        revenue_down=gross * down * hours, profit_down=gross * down * (1 - fee) * hours)


def throughput_band(tokens_per_second_per_gpu: float, usd_per_mtok: float, low: float, high: float
                    ) -> tuple[float, float]:
    """The throughput's range that a $/M range stands for at one rate: ``tok/s/GPU × $/M ÷ high`` to ``tok/s/GPU ×
    $/M ÷ low`` (a $/M is the rate ÷ the throughput, so its range is the throughput's inverted); NaN without one."""
    if not all(math.isfinite(v) and v > 0 for v in (usd_per_mtok, low, high)):
        return math.nan, math.nan
    return tokens_per_second_per_gpu * usd_per_mtok / high, tokens_per_second_per_gpu * usd_per_mtok / low
