"""The bill by tenant before it exists: a planned fleet's cost split by tenant, user or workload (issue 52).

The formula is the one OpenCost and llm-d propose for inference cost by request headers (open, not shipped):
``cost = prompt tokens × input $/M + completion tokens × output $/M`` (cached prompt tokens at the cached input
$/M), one price per model for everyone, so a plan split this way reconciles with the actuals split the same way
later. The prices are set so that the split adds up to the planned fleet's $ a month: an input token costs
``w_input`` and a cached one ``w_cached`` of an output token (the view's blended-basis weights, 0.25 and 0.025 by
default; OpenCost's fallback multiplier, an output token 2.5 input tokens, is ``w_input`` 0.4), and::

    output $/M = fleet $ a month × 10^6 ÷ Σ_tenants (w_input × uncached input + w_cached × cached + output)
    input $/M = w_input × output $/M,  cached input $/M = w_cached × output $/M

with each tenant's tokens a month its share of the fleet's monthly tokens (the tenants' own counts, from a trace
over any span or typed, give only the shares). Each tenant's $ a month is rounded to the cent so that the cents add
up to the fleet's $ a month rounded to the cent (the largest remainders take the odd cents); its $/M is its $ a
month per million of its tokens. A fleet's range of $ a month (its capacity's ±) splits by the same shares.

A tenant table as a link writes it (the view field ``tenants``): ``NAME:INPUT:OUTPUT[:CACHED]`` tokens, comma
separated; a trace file with a tenant column becomes one (:func:`tenants_of_counts`), its largest
:data:`MAX_TENANTS` tenants by name and the rest as one row.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

__all__ = ["Tenant", "TenantError", "MAX_TENANTS", "TENANT_COLUMNS", "parse_tenants", "tenants_text",
           "tenants_of_counts", "split_cost", "cents_adding_up", "SPLIT_COLUMNS"]

#: the most tenants a view names (a link value stays under its 2,000 characters); a trace's others are one row
MAX_TENANTS = 40
#: the columns of a trace that name who sent a request, in the order one is looked for
TENANT_COLUMNS = ("tenant", "user", "workload", "namespace")
_NAME = re.compile(r"^[^:,\x00-\x1f\x7f]{1,60}$")


class TenantError(ValueError):
    """A tenant table that cannot be read, in the product's words."""


@dataclass(frozen=True)
class Tenant:
    """One tenant's tokens [tokens over any span: the split reads their shares]; ``cached`` is part of ``input``."""

    name: str
    input: float
    output: float
    cached: float = 0.0

    @property
    def total(self) -> float:
        return self.input + self.output


def _number(text: str, name: str, what: str) -> float:
    try:
        value = float(text.strip().replace("_", ""))
    except ValueError:
        raise TenantError(f"tenant {name!r}: {what} tokens {text.strip()!r} is not a number") from None
    if not (0 <= value < 1e21):
        raise TenantError(f"tenant {name!r}: {what} tokens must be from 0 to 1e21, got {text.strip()}")
    return value


def parse_tenants(text: str) -> tuple[Tenant, ...]:
    """The tenants of ``NAME:INPUT:OUTPUT[:CACHED],...`` (tokens; cached, a part of input, defaults to 0). Raises
    :class:`TenantError` naming the tenant and the value."""
    out: list[Tenant] = []
    for item in (p for p in text.split(",") if p.strip()):
        parts = item.split(":")
        name = parts[0].strip()
        if len(parts) not in (3, 4):
            raise TenantError(f"a tenant is NAME:INPUT:OUTPUT[:CACHED] tokens, got {item.strip()[:80]!r}")
        if not _NAME.match(name):
            raise TenantError(f"a tenant's name is 1 to 60 characters without ':' or ',', got {name[:80]!r}")
        tokens = [_number(v, name, w) for v, w in zip(parts[1:], ("input", "output", "cached input"))]
        cached = tokens[2] if len(tokens) == 3 else 0.0
        if cached > tokens[0]:
            raise TenantError(f"tenant {name!r}: cached input tokens ({parts[3].strip()}) are part of its input "
                              f"({parts[1].strip()}), so cannot be more")
        out.append(Tenant(name, tokens[0], tokens[1], cached))
    names = [t.name.lower() for t in out]
    if len(set(names)) != len(names):
        raise TenantError("each tenant is named once")
    if len(out) > MAX_TENANTS + 1:
        raise TenantError(f"at most {MAX_TENANTS + 1} tenants (the largest {MAX_TENANTS} and the others)")
    if out and not sum(t.total for t in out) > 0:
        raise TenantError("the tenants have no tokens to split the cost by")
    return tuple(out)


def _g(value: float) -> str:
    """``9e8`` -> ``"9e8"``, ``1234`` -> ``"1234"``: six significant digits, the exponent as people type it."""
    return f"{value:.6g}".replace("e+0", "e").replace("e+", "e").replace("e-0", "e-")


def tenants_text(tenants: tuple[Tenant, ...]) -> str:
    """The tenant table as a link writes it (six significant digits: shares to 1e-6)."""
    return ",".join(f"{t.name}:{_g(t.input)}:{_g(t.output)}" + (f":{_g(t.cached)}" if t.cached else "")
                    for t in tenants)


def tenants_of_counts(counts: list[tuple[str, float, float]]) -> tuple[Tenant, ...]:
    """Tenants from ``(name, input tokens, output tokens)`` per tenant (a trace's sums): the :data:`MAX_TENANTS`
    largest by tokens, by name, and the rest as one ``others (N)`` row; names cleaned of ``:`` and ``,``."""
    merged: dict[str, list[float]] = {}
    for name, i, o in counts:
        clean = re.sub(r"[:,\x00-\x1f\x7f]", " ", str(name)).strip()[:60] or "(none)"
        got = merged.setdefault(clean, [0.0, 0.0])
        got[0] += float(i)
        got[1] += float(o)
    ranked = sorted(merged.items(), key=lambda kv: (-(kv[1][0] + kv[1][1]), kv[0]))
    kept, rest = ranked[:MAX_TENANTS], ranked[MAX_TENANTS:]
    out = [Tenant(n, i, o) for n, (i, o) in sorted(kept)]
    if rest:
        out.append(Tenant(f"others ({len(rest)})", sum(v[0] for _, v in rest), sum(v[1] for _, v in rest)))
    return tuple(out)


def cents_adding_up(amounts: list[float], total: float) -> list[float]:
    """``amounts`` [$] rounded to the cent so that they add up to ``total`` rounded to the cent: each takes its
    cents rounded down, and the largest remainders one cent more until the total is met."""
    target = round(total * 100)
    floors = [math.floor(a * 100) for a in amounts]
    left = target - sum(floors)
    order = sorted(range(len(amounts)), key=lambda k: -(amounts[k] * 100 - floors[k]))
    for k in order[:max(0, left)]:
        floors[k] += 1
    return [c / 100 for c in floors]


#: the columns of a split (:func:`split_cost`)
SPLIT_COLUMNS = ["tenant", "input_tokens", "cached_input_tokens", "output_tokens", "tokens", "share",
                 "usd_per_month", "usd_per_mtok", "usd_per_month_low", "usd_per_month_high"]


def split_cost(tenants: tuple[Tenant, ...], usd_per_month: float, tokens_per_month: float, basis: str = "total",
               w_input: float = 0.25, w_cached: float = 0.025, usd_low: float = math.nan,
               usd_high: float = math.nan) -> tuple[list[dict], dict[str, float]]:
    """The fleet's ``usd_per_month`` split by ``tenants`` (module docstring): one row per tenant
    (:data:`SPLIT_COLUMNS`; tokens a month, its share of the cost, $ a month to the cent, $/M of its tokens, and its
    part of the fleet's range ``usd_low`` to ``usd_high``) and the prices ``{"usd_per_m_input",
    "usd_per_m_cached_input", "usd_per_m_output"}``. ``tokens_per_month`` is the fleet's, on ``basis`` (total,
    output or input): the tenants' tokens are scaled to it."""
    counted = {"total": lambda t: t.total, "output": lambda t: t.output, "input": lambda t: t.input}.get(basis)
    if counted is None:
        raise ValueError(f"a fleet's tokens are total, output or input, not {basis!r}")
    on_basis = sum(counted(t) for t in tenants)
    if not tenants or not on_basis > 0 or not (usd_per_month >= 0 and tokens_per_month > 0):
        return [], {}
    scale = tokens_per_month / on_basis                     # the tenants' tokens a month
    weight = [(w_input * (t.input - t.cached) + w_cached * t.cached + t.output) * scale for t in tenants]
    out_price = usd_per_month * 1e6 / sum(weight) if sum(weight) > 0 else math.nan
    exact = [w * out_price / 1e6 for w in weight]
    cents = cents_adding_up(exact, usd_per_month)
    rows = []
    for t, usd, e in zip(tenants, cents, exact):
        share = e / usd_per_month if usd_per_month > 0 else math.nan
        tokens = t.total * scale
        rows.append({"tenant": t.name, "input_tokens": t.input * scale, "cached_input_tokens": t.cached * scale,
                     "output_tokens": t.output * scale, "tokens": tokens, "share": share, "usd_per_month": usd,
                     "usd_per_mtok": usd / tokens * 1e6 if tokens > 0 else math.nan,
                     "usd_per_month_low": usd_low * share, "usd_per_month_high": usd_high * share})
    prices = {"usd_per_m_input": w_input * out_price, "usd_per_m_cached_input": w_cached * out_price,
              "usd_per_m_output": out_price}
    return rows, prices
