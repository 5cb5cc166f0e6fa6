"""The checks of a view's values, and the limits they hold: what :mod:`model.core.view_fields` declares each field
with (``check``, ``before``, an option's ``read``). Each returns the value (normalised) or raises ValueError in the
product's words. Standard library only, like the declarations (a check that needs more imports it when it runs).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Callable

from model.core import view_codecs as c
from model.core.names import name_problem
from model.core.view_codecs import short

__all__ = ["Bounds", "one_of", "check_names", "check_by", "check_rates", "check_targets", "check_sla", "check_goodput",
           "check_profiles", "check_filters", "check_as_of", "check_api", "check_api_usd", "check_shape",
           "read_shape_option", "check_trace", "read_trace_option", "check_tenants", "read_tenants_option", "check_request_mix", "check_plan", "DEMAND_BOUNDS", "MW_BOUNDS", "USD_BOUNDS",
           "TPD_BOUNDS", "TPM_BOUNDS", "KW_PER_GPU_BOUNDS", "RACK_KW_BOUNDS", "MIN_KW_PER_GPU", "MIN_INTERACTIVITY",
           "MAX_USD_PER_GPU_HOUR", "MIN_USD_PER_GPU_HOUR", "MAX_DEMAND_RPS",
           "MAX_INTERACTIVITY", "DIGEST_CHARS", "check_digest"]

#: the most a $/GPU-hour may be, set by hand, rented or in a link: the one bound every surface imports
MAX_USD_PER_GPU_HOUR = 1000.0
#: the least a $/GPU-hour may be: below it a rate is a slip (a hundredth of a cent an hour), and fleet costs and
#: break-evens computed from it run to hundreds of digits
MIN_USD_PER_GPU_HOUR = 1e-4
#: the most peak demand a fleet is sized for [req/s]: the view's bound, and sizing's (model.core.demand)
MAX_DEMAND_RPS = 1e9
#: interactivity is below this [tok/s/user]
MAX_INTERACTIVITY = 100_000.0
#: and at least this [tok/s/user]: a hundredth of a token a second is no interactivity anyone needs, and a subnormal
#: one labels a target with hundreds of digits
MIN_INTERACTIVITY = 0.01
#: the least all-in power per GPU [kW] (5 W): below it a fleet's power, and what a power budget buys, are nonsense
#: (1e-320 kW bought 10^12 nodes a megawatt)
MIN_KW_PER_GPU = 0.005
#: hex characters of a data version's digest a pinned link carries (``vd=``, :func:`model.data.versions.version_digest`)
DIGEST_CHARS = 6


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


def check_by(value: tuple[str, ...]) -> tuple[str, ...]:
    from model.core.frontier import SERIES_KEY_CHOICES

    bad = [k for k in value if k not in SERIES_KEY_CHOICES]
    if bad:
        raise ValueError(f"cannot group by {', '.join(bad)}; choose from {', '.join(SERIES_KEY_CHOICES)}")
    return tuple(dict.fromkeys(value))


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


def check_targets(value: tuple[float, ...]) -> tuple[float, ...]:
    if len(value) > 20:
        raise ValueError("at most 20 targets")
    for x in value:
        if not (MIN_INTERACTIVITY <= x < MAX_INTERACTIVITY):
            raise ValueError(f"an interactivity target must be at least {MIN_INTERACTIVITY:g} and below "
                             f"{MAX_INTERACTIVITY:.0f} tok/s/user, got {x:g}")
    return tuple(sorted(set(value)))


def check_sla(value: str) -> str:
    from model.core.sla import SLA

    return SLA.from_text(value).to_text() if value else ""


def check_goodput(value: str) -> str:
    from model.core.goodput import check_goodput

    return check_goodput(value)


def check_profiles(value: str) -> str:
    from model.core.cost_profiles import profiles_from_text

    profiles_from_text(value)          # raises TcoInputError (a ValueError) naming what is wrong
    return value


def check_filters(value: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
    from model.core.columns import resolve_column

    out = []
    for name, text in value:
        resolved = resolve_column(str(name))
        if not isinstance(resolved, tuple):
            raise ValueError(f"{short(name)!r} is not a field rows can be filtered on")
        if any(ord(ch) < 32 for ch in str(text)) or len(str(text)) > 120:
            raise ValueError(f"{short(text)!r} is not a value this product stores")
        out.append((resolved[0], str(text)))
    return tuple(dict.fromkeys(out))


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
    from model.core.shape import PRESETS, curve_of

    value = value.strip()
    if value.lower().replace(" ", "-").replace("_", "-") in PRESETS:      # "business hours" as people write it
        value = value.lower().replace(" ", "-").replace("_", "-")
    curve_of(value)               # raises ValueError naming what is wrong
    return value


def read_shape_option(value: str) -> str:
    """``--shape``: a preset or weights as typed, or a file of 24 weights (one a line, or comma-separated)."""
    from pathlib import Path

    if value.strip() in ("flat", "business-hours", "diurnal") or not Path(value).is_file():
        return value
    text = Path(value).read_text(encoding="utf-8", errors="replace")
    return ",".join(p for p in text.replace("\n", ",").replace(";", ",").split(",") if p.strip())


def check_digest(value: str | None) -> str | None:
    """A data version's digest as a pinned link carries it: :data:`DIGEST_CHARS` hex characters (any case)."""
    if value is None or not value.strip():
        return None
    text = value.strip().lower()
    if len(text) != DIGEST_CHARS or any(ch not in "0123456789abcdef" for ch in text):
        raise ValueError(f"a data digest is {DIGEST_CHARS} hex characters, e.g. 3f9a2c (costfrontier versions "
                         "lists each version's)")
    return text


def check_trace(value: str) -> str:
    """A trace as a view carries it: inline (``t1;...``, :meth:`model.core.trace.Trace.to_text`) or a stored
    trace's reference (``s1;`` and 16 hex characters, :mod:`model.data.traces`)."""
    if value:
        from model.core.trace import Trace, is_reference

        if not is_reference(value):
            Trace.from_text(value)
    return value


def check_request_mix(value: str) -> str:
    """A request mix ``ISL:OSL:SHARE,...`` (:func:`model.core.mix.parse_mix`), written back in its one form."""
    if not value:
        return value
    from model.core.mix import parse_mix

    return parse_mix(value).to_text()


def check_plan(value: str) -> str:
    """The share link a proposal was made from (plan against actual): an http(s) link whose view states a volume
    and names no plan of its own, read without a notice (a value it would ignore is refused here, not dropped
    from the plan); written back as typed, spaces around it dropped."""
    text = (value or "").strip()
    if not text:
        return ""
    from urllib.parse import parse_qs, urlsplit

    from model.core.view import View

    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.netloc or not parts.query:
        raise ValueError("the plan is the share link the proposal was made from (http://…/Buy_rent_or_API?…&v=N)")
    plan, notices = View.from_query(parse_qs(parts.query, keep_blank_values=True))
    if notices:
        raise ValueError(f"the plan's link: {notices[0]}")
    if plan.plan:
        raise ValueError("the plan's link names a plan of its own: give the link the proposal was made from")
    if not plan.has_demand:
        raise ValueError("the plan's link has no volume (tpm=, tpd=, rps= or a trace): a plan against actual needs "
                         "the volume the proposal was sized for")
    return text


def read_trace_option(value: str) -> str:
    """``--trace FILE``: the file read into the view's compact trace (a ValueError names file, row and field)."""
    from pathlib import Path

    from model.core.trace import is_reference, read_trace_file

    try:
        path = Path(value)
        is_file = path.is_file()
    except (OSError, ValueError):     # an inline trace is far longer than a file name may be
        is_file = False
    if (value.startswith("t1;") or is_reference(value)) and not is_file:     # a trace as a link writes it
        return value
    if not is_file:
        raise ValueError(f"no trace file {value[:80]!r}")
    return read_trace_file(path, path.name).to_text()


def check_tenants(value: str) -> str:
    """A tenant table (:func:`model.core.chargeback.parse_tenants`), written back as a link writes it."""
    from model.core.chargeback import parse_tenants, tenants_text

    value = value.strip()
    return tenants_text(parse_tenants(value)) if value else ""


def read_tenants_option(value: str) -> str:
    """``--tenants``: a typed table, or a trace FILE (``FILE@COLUMN``: that column) summed per tenant
    (:func:`model.core.trace.tokens_by`) into one; a ValueError names file, row and field."""
    from pathlib import Path

    from model.core.chargeback import tenants_of_counts, tenants_text
    from model.core.trace import tokens_by

    path, _, column = value.rpartition("@") if "@" in value else (value, "", "")
    try:
        is_file = Path(path).is_file()
    except (OSError, ValueError):
        is_file = False
    if not is_file:
        return check_tenants(value)
    _, counts = tokens_by(Path(path), Path(path).name, column or None)
    return tenants_text(tenants_of_counts(counts))
