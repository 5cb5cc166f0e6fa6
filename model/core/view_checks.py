"""The checks of a view's values, and the bounds they hold: what :mod:`model.core.view_fields` declares each field
with (``check``, ``before``, an option's ``read``). Each returns the value (normalised) or raises ValueError in the
product's words. Standard library only, like the declarations: a check that needs the analysis modules is
declared by name (:class:`Uses`) and lives in :mod:`model.core.value_checks`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Callable
from urllib.parse import urlsplit

from model.core import view_codecs as c
from model.core.chargeback import parse_tenants, tenants_text
from model.core.limits import (
    DIGEST_CHARS,
    MAX_DEMAND_RPS,
    MAX_INTERACTIVITY,
    MAX_USD_PER_GPU_HOUR,
    MIN_INTERACTIVITY,
    MIN_KW_PER_GPU,
    MIN_USD_PER_GPU_HOUR,
)
from model.core.names import name_problem
from model.core.shape import PRESETS, curve_of
from model.core.view_codecs import short

__all__ = ["Bounds", "Uses", "one_of", "check_names", "check_rates", "check_targets", "check_as_of", "check_api",
           "check_api_usd", "check_shape", "check_plan", "DEMAND_BOUNDS", "MW_BOUNDS", "USD_BOUNDS",
           "TPD_BOUNDS", "TPM_BOUNDS", "KW_PER_GPU_BOUNDS", "check_kw_per_gpu", "RACK_KW_BOUNDS", "check_tenants",
           "check_digest"]



@dataclass(frozen=True)
class Uses:
    """A check, or an option's read, that needs the analysis modules (numpy, pandas, pydantic): the function
    :data:`model.core.value_checks.CHECKS` holds under ``name``, bound where the view is built (:mod:`model.core.view`)
    and where a command's options are read (:mod:`model.cli.options`), so the declarations stay standard library
    only and ``costfrontier --help`` starts without those modules."""

    name: str


def check_names(value: tuple[str, ...]) -> tuple[str, ...]:
    for name in value:
        problem = name_problem(name)
        if problem:
            raise ValueError(f"the name {short(name)!r} {problem}")
    return tuple(dict.fromkeys(value))      # a name given twice (a link key repeated alike) is one


def one_of(what: str, choices: tuple[str, ...]) -> Callable[[str], str]:
    def check(value: str) -> str:
        if value not in choices:
            raise ValueError(f"{what} must be one of {', '.join(choices)}")
        return value
    return check


@dataclass(frozen=True)
class Bounds:
    """The check of a number (or None) between ``low`` and ``high``, each end included unless open; a widget
    bound to the field offers the same range (:func:`ui.state.bind`)."""

    low: float
    high: float
    message: str
    open_low: bool = False
    open_high: bool = False

    def __call__(self, value):
        if value is None:
            return value
        above = self.low < value if self.open_low else self.low <= value
        below = value < self.high if self.open_high else value <= self.high
        if not (above and below):
            raise ValueError(self.message)
        return value


def check_rates(what: str) -> Callable:
    def check(value: tuple[tuple[str, float], ...]) -> tuple[tuple[str, float], ...]:
        for hw, rate in value:
            problem = name_problem(hw)
            if problem:
                raise ValueError(f"the hardware name {short(hw)!r} {problem}")
            if not (MIN_USD_PER_GPU_HOUR <= rate <= MAX_USD_PER_GPU_HOUR):
                raise ValueError(f"{what} for {hw} must be in [{MIN_USD_PER_GPU_HOUR:g}, {MAX_USD_PER_GPU_HOUR:g}], "
                                 f"got {rate:g}")
        return tuple(sorted(dict(value).items()))
    return check


def check_kw_per_gpu(value: tuple[tuple[str, float], ...]) -> tuple[tuple[str, float], ...]:
    """kW per GPU per hardware (``*``: every hardware without its own), each within :data:`KW_PER_GPU_BOUNDS`."""
    for hw, kw in value:
        problem = name_problem(hw) if hw != c.EVERY_HARDWARE else None
        if problem:
            raise ValueError(f"the hardware name {short(hw)!r} {problem}")
        try:
            KW_PER_GPU_BOUNDS(kw)
        except ValueError as exc:
            raise ValueError(f"{exc} (got {kw:g} for {'every hardware' if hw == c.EVERY_HARDWARE else hw})") from None
    return tuple(sorted(dict(value).items()))


def check_targets(value: tuple[float, ...]) -> tuple[float, ...]:
    if len(value) > 20:
        raise ValueError("at most 20 targets")
    for x in value:
        if not (MIN_INTERACTIVITY <= x < MAX_INTERACTIVITY):
            raise ValueError(f"an interactivity target must be at least {MIN_INTERACTIVITY:g} and below "
                             f"{MAX_INTERACTIVITY:.0f} tok/s/user, got {x:g}")
    return tuple(sorted(set(value)))


def check_as_of(value):
    if isinstance(value, str):
        value = c.DATE.read(value)
    if isinstance(value, date) and not (date(1990, 1, 1) <= value <= date(2100, 12, 31)):
        raise ValueError("a run date must be between 1990-01-01 and 2100-12-31")
    return value


def check_api(value: str | None) -> str | None:
    if value is not None and name_problem(value):
        raise ValueError(f"the API model name {short(value)!r} {name_problem(value)}")
    return value


def check_api_usd(value: tuple[float, ...]) -> tuple[float, ...]:
    if value and (len(value) != 3 or not all(0 <= x <= 1000 for x in value)
                  or not (value[0] >= 1e-6 and value[2] >= 1e-6) or 0 < value[1] < 1e-6):
        raise ValueError("API prices are three $/M numbers, input,cached input,output, e.g. 1.4,0.26,4.4 "
                         "(input and output at least 1e-6, cached 0 or at least 1e-6, each at most 1,000)")
    return value


#: the demand, budgets and volume a view takes (fleet sizing answers all of them); each message states its limits.
#: Each low end is a bound on sense, not only above 0: a subnormal volume (1e-320 tokens) priced a token at
#: $1e300 or divided by zero
DEMAND_BOUNDS = Bounds(1e-6, MAX_DEMAND_RPS, "peak demand must be at least 1e-6 and at most 1e9 req/s")
MW_BOUNDS = Bounds(1e-3, 1e6, "the power budget must be at least 0.001 MW (1 kW) and at most 1e6 MW")
USD_BOUNDS = Bounds(1, 1e15, "the money budget must be at least $1 and at most $1e15 a month")
TPD_BOUNDS = Bounds(1, 1e17, "the demand must be at least 1 and at most 1e17 tokens a day")
TPM_BOUNDS = Bounds(1, 1e18, "the volume must be at least 1 and at most 1e18 tokens a month")
KW_PER_GPU_BOUNDS = Bounds(MIN_KW_PER_GPU, 20, "all-in kW per GPU must be at least 0.005 (5 W) and at most 20 kW")
RACK_KW_BOUNDS = Bounds(1, 1000, "IT power per rack must be at least 1 and at most 1,000 kW")


def check_shape(value: str) -> str:
    value = value.strip()
    if value.lower().replace(" ", "-").replace("_", "-") in PRESETS:      # "business hours" as people write it
        value = value.lower().replace(" ", "-").replace("_", "-")
    curve_of(value)               # raises ValueError naming what is wrong
    return value


def check_digest(value: str | None) -> str | None:
    """A data version's digest as a pinned link carries it: :data:`DIGEST_CHARS` hex characters (any case)."""
    if value is None or not value.strip():
        return None
    text = value.strip().lower()
    if len(text) != DIGEST_CHARS or any(ch not in "0123456789abcdef" for ch in text):
        raise ValueError(f"a data digest is {DIGEST_CHARS} hex characters, e.g. 3f9a2c (costfrontier versions "
                         "lists each version's)")
    return text


def check_plan(value: str) -> str:
    """The share link a proposal was made from (plan against actual): an http(s) link with a query, written back as
    typed, spaces around it dropped. The view it opens is checked by :class:`model.core.view.View` (``_plan``)."""
    text = (value or "").strip()
    if not text:
        return ""
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.netloc or not parts.query:
        raise ValueError("the plan is the share link the proposal was made from (http://…/Buy_rent_or_API?…&v=N)")
    return text


def check_tenants(value: str) -> str:
    """A tenant table (:func:`model.core.chargeback.parse_tenants`), written back as a link writes it."""
    value = value.strip()
    return tenants_text(parse_tenants(value)) if value else ""
