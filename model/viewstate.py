"""The state of a shareable view, and its round trip through a URL query string.

Every control that changes what is shown is a field here. Parsing is lenient
per field: an unknown key or an invalid value is dropped with a notice, never an
exception. Only values that differ from the defaults are written back, so links
stay short.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator, model_validator

from model.analysis import Scenario
from model.cost import DEFAULT_PRICE_SET, DEFAULT_TIER
from model.frontier import DEFAULT_SERIES_KEYS
from model.hardware import canonical_hardware
from model.tco import profiles_from_text

__all__ = ["ViewState", "parse_query", "reconcile", "MAX_VALUE_LENGTH"]

MAX_VALUE_LENGTH = 2000
#: what a hardware, framework, precision or series name may look like in a link
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9 ._+/()\-·=?]{0,119}")
_SCENARIO_FIELDS = ("by", "basis", "method", "price_set", "tier", "rates", "targets", "baseline", "sla", "w_input",
                    "w_cached", "disagg")
_LISTS = ("hw", "fw", "prec", "spec", "by", "at")

#: query key -> field name
KEYS = {
    "wl": "workload", "hw": "hardware", "fw": "framework", "prec": "precision", "spec": "spec_decoding",
    "by": "by", "basis": "basis", "method": "method", "ps": "price_set", "tier": "tier", "r": "rates",
    "at": "targets", "base": "baseline", "x": "headline_x", "y": "frontier_y", "opt": "optimal_only",
    "pair": "pair", "sla": "sla", "win": "w_input", "wc": "w_cached", "tol": "eval_tolerance",
    "cmp": "compare", "cmpb": "compare_base", "peak": "compare_peaks", "prof": "profiles", "use": "priced_by",
    "all": "all_points", "rps": "demand_rps", "hr": "headroom", "sp": "spares", "mw": "budget_mw", "bud": "budget_usd_month",
    "dis": "disagg",
}


class ViewState(BaseModel):
    """Filters, grouping, rates and targets of one view. Frozen: hashes, keys caches."""

    model_config = ConfigDict(frozen=True)

    workload: str | None = None                 # "model|isl|osl" or "all"
    hardware: tuple[str, ...] = ()
    framework: tuple[str, ...] = ()
    precision: tuple[str, ...] = ()
    spec_decoding: tuple[str, ...] = ()
    by: tuple[str, ...] = DEFAULT_SERIES_KEYS
    basis: str = "total"
    method: str = "linear"
    price_set: str = DEFAULT_PRICE_SET
    tier: str = DEFAULT_TIER
    rates: tuple[tuple[str, float], ...] = ()   # overrides only [$/GPU/h]
    targets: tuple[float, ...] = ()             # [tok/s/user]
    baseline: str | None = None
    headline_x: float | None = None             # [tok/s/user]
    frontier_y: str = "throughput"              # or "cost"
    optimal_only: bool = False
    all_points: bool = False                    # draw every measured point (else a sample past CLOUD_LIMIT)
    pair: str | None = None                     # "A||B" for the break-even chart
    sla: str = ""                               # "ttft_p95=2,tpot=50" (model.capacity.SLA text)
    w_input: float = 0.25                       # blended basis weights (relative to an output token)
    w_cached: float = 0.025
    disagg: str = "per-role"                    # disaggregated rows on input/output (model.frontier.DISAGG_MODES)
    eval_tolerance: float = 0.01                # accuracy drop flagged beyond this [score, 0..1]
    compare: tuple[str, ...] = ()               # ramp series compared on tokens per dollar
    compare_base: str | None = None
    compare_peaks: bool = False                 # compare peaks, ignoring the SLA
    profiles: str = ""                          # cost profiles, model.tco.profiles_to_text form
    priced_by: tuple[str, ...] = ()             # names of the profiles that price series
    demand_rps: float | None = None             # fleet sizing: peak demand [req/s]
    headroom: float = 1.0                       # capacity bought / peak demand [-]
    spares: int = 0                             # whole spare nodes
    budget_mw: float | None = None              # fleet sizing the other way: facility power [MW]
    budget_usd_month: float | None = None       # ... or money [$/month]

    @field_validator("eval_tolerance")
    @classmethod
    def _tolerance(cls, v):
        if not (0 <= v <= 1):
            raise ValueError("tolerance must be in [0, 1]")
        return v

    @field_validator("frontier_y")
    @classmethod
    def _y(cls, v):
        if v not in ("throughput", "cost"):
            raise ValueError("y must be throughput or cost")
        return v

    @field_validator("targets")
    @classmethod
    def _targets(cls, v):
        if len(v) > 20:
            raise ValueError("at most 20 targets")
        return v

    @model_validator(mode="after")
    def _shared_with_scenario(self) -> "ViewState":
        """Fields a Scenario also has are checked (and normalised) by Scenario itself: one definition."""
        try:
            scenario = self.scenario()
        except ValidationError as exc:
            raise ValueError(exc.errors()[0]["msg"].removeprefix("Value error, ")) from None
        for name in _SCENARIO_FIELDS:
            object.__setattr__(self, name, getattr(scenario, name))   # frozen: normalised values
        return self

    @field_validator("headline_x")
    @classmethod
    def _x(cls, v):
        if v is not None and not (0 < v < 100_000):
            raise ValueError("interactivity must be in (0, 100000) tok/s/user")
        return v

    @field_validator("hardware", "framework", "precision", "spec_decoding", "compare", "priced_by")
    @classmethod
    def _names(cls, v):
        for name in v:
            if not NAME.fullmatch(name):
                raise ValueError(f"{_short(name)!r} is not a name this product stores")
        return v

    @field_validator("rates")
    @classmethod
    def _rate_names(cls, v):
        for hw, _ in v:
            if not NAME.fullmatch(hw):
                raise ValueError(f"{_short(hw)!r} is not a hardware name")
        return v

    @field_validator("demand_rps", "budget_mw", "budget_usd_month")
    @classmethod
    def _positive(cls, v):
        if v is not None and not (0 < v < 1e12):
            raise ValueError("must be a positive number")
        return v

    @field_validator("headroom")
    @classmethod
    def _headroom(cls, v):
        if not (1 <= v <= 100):
            raise ValueError("headroom must be between 1 and 100")
        return v

    @field_validator("spares")
    @classmethod
    def _spares(cls, v):
        if not (0 <= v <= 100_000):
            raise ValueError("spares must be between 0 and 100,000 nodes")
        return v

    @field_validator("profiles")
    @classmethod
    def _profiles(cls, v):
        profiles_from_text(v)          # raises TcoInputError (a ValueError) naming what is wrong
        return v

    @model_validator(mode="after")
    def _priced_by_known(self) -> "ViewState":
        known = {p.name for p in self.cost_profiles()}
        unknown = [n for n in self.priced_by if n not in known]
        if unknown:
            raise ValueError(f"no cost profile named {_short(unknown[0])!r} in this view")
        return self

    def cost_profiles(self) -> list:
        """The view's cost profiles (:class:`model.tco.CostProfile`)."""
        return profiles_from_text(self.profiles)

    def replace(self, **changes) -> "ViewState":
        """A validated copy with ``changes`` (``model_copy`` would skip validation)."""
        return ViewState(**{**self.model_dump(), **changes})

    def scenario(self) -> Scenario:
        return Scenario(by=self.by, basis=self.basis, method=self.method, price_set=self.price_set,
                        tier=self.tier, rates=self.rates, targets=self.targets, baseline=self.baseline,
                        sla=self.sla, w_input=self.w_input, w_cached=self.w_cached, disagg=self.disagg)

    def where(self) -> dict[str, list]:
        """Store filters (field -> accepted values) for :func:`model.store.load_points`."""
        out: dict[str, list] = {}
        if self.workload and self.workload != "all":
            # an empty part is a value to match (rows that do not state it), never a wildcard
            for name, value in zip(("model", "isl", "osl"), (self.workload.split("|") + ["", "", ""])[:3]):
                out[name] = [value or None]
        for field in ("hardware", "framework", "precision", "spec_decoding"):
            if getattr(self, field):
                out[field] = list(getattr(self, field))
        return out

    def to_query(self) -> dict[str, str]:
        """Non-default fields as short query parameters."""
        default = ViewState()
        out: dict[str, str] = {}
        for key, field in KEYS.items():
            value = getattr(self, field)
            if value == getattr(default, field):
                continue
            if field == "rates":
                out[key] = ",".join(f"{hw}:{rate:.10g}" for hw, rate in value)   # as typed
            elif field in ("targets",):
                out[key] = ",".join(f"{x:g}" for x in value)
            elif field in ("compare", "priced_by"):
                out[key] = "||".join(value)
            elif isinstance(value, tuple):
                out[key] = ",".join(str(v) for v in value)
            elif isinstance(value, bool):
                out[key] = "1" if value else "0"
            elif isinstance(value, float):
                out[key] = f"{value:g}"
            else:
                out[key] = str(value)
        return out


def _coerce(field: str, text: str) -> Any:
    if field == "rates":
        pairs = []
        for item in text.split(","):
            if not item.strip():
                continue
            hw, _, rate = item.partition(":")
            pairs.append((canonical_hardware(hw), float(rate)))
        return tuple(pairs)
    if field == "targets":
        return tuple(float(x) for x in text.split(",") if x.strip())
    if field in ("hardware",):
        return tuple(canonical_hardware(x) for x in text.split(",") if x.strip())
    if field in ("compare", "priced_by"):
        return tuple(x.strip() for x in text.split("||") if x.strip())
    if field in ("framework", "precision", "spec_decoding", "by"):
        return tuple(x.strip() for x in text.split(",") if x.strip())
    if field in ("headline_x", "w_input", "w_cached", "eval_tolerance", "demand_rps", "headroom", "budget_mw",
                 "budget_usd_month"):
        return float(text)
    if field == "spares":
        return int(text)
    if field in ("optimal_only", "compare_peaks", "all_points"):
        if text not in ("0", "1", "true", "false"):
            raise ValueError("expected 0 or 1")
        return text in ("1", "true")
    return text


def parse_query(params: dict[str, Any]) -> tuple[ViewState, list[str]]:
    """A :class:`ViewState` from query parameters, and a notice for each value ignored."""
    values: dict[str, Any] = {}
    notices: list[str] = []
    order = list(KEYS)   # known keys in KEYS order (cost profiles before the names that choose them)
    for key, raw in sorted(params.items(), key=lambda kv: order.index(kv[0]) if kv[0] in KEYS else -1):
        if key not in KEYS:
            notices.append(f"ignored unknown link parameter {_short(key)!r}")
            continue
        text = raw[-1] if isinstance(raw, (list, tuple)) else raw
        text = "" if text is None else str(text)
        field = KEYS[key]
        if len(text) > MAX_VALUE_LENGTH:
            notices.append(f"ignored link parameter {key!r}: value longer than {MAX_VALUE_LENGTH} characters")
            continue
        try:
            candidate = _coerce(field, text)
            ViewState(**{"profiles": values.get("profiles", ""), field: candidate})
        except (ValueError, ValidationError, TypeError) as exc:
            reason = exc.errors()[0]["msg"] if isinstance(exc, ValidationError) else str(exc)
            reason = reason.removeprefix("Value error, ")
            notices.append(f"ignored link parameter {key}={_short(text)!r}: {_short(reason, 120)}")
            continue
        values[field] = candidate
    return ViewState(**values), notices


def _short(text: str, limit: int = 40) -> str:
    text = str(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _match(value: str, known: list[str]) -> str | None:
    """``value`` as ``known`` spells it, compared case-insensitively; None when absent."""
    lower = {str(k).lower(): k for k in known}
    return lower.get(str(value).lower())


def reconcile(state: ViewState, options: dict) -> tuple[ViewState, list[str]]:
    """Check the values that depend on the data against it; each value dropped gets a notice.

    ``options``: ``workloads`` (keys ``model|isl|osl``), ``hardware``, ``framework``, ``precision``,
    ``spec_decoding`` (values in the data), ``price_sets`` (price set -> its tiers) and
    ``priced`` (hardware names a preset prices). Names are matched case-insensitively and
    returned as the data spells them.
    """
    notices: list[str] = []
    changes: dict[str, Any] = {}
    workloads = list(options.get("workloads", []))
    if state.workload and state.workload != "all" and state.workload not in workloads:
        shown = workloads[0] if workloads else "none"
        notices.append(f"workload {_short(state.workload)!r} from the link is not in the data; showing {shown!r}")
        changes["workload"] = None
    for field, label in (("hardware", "hardware"), ("framework", "framework"), ("precision", "precision"),
                         ("spec_decoding", "speculative decoding")):
        kept = []
        for value in getattr(state, field):
            found = _match(value, options.get(field, []))
            if found is None:
                notices.append(f"ignored {label} filter {_short(value)!r}: not in the data")
            else:
                kept.append(found)
        if tuple(kept) != getattr(state, field):
            changes[field] = tuple(dict.fromkeys(kept))
    sets = options.get("price_sets", {})
    price_set = state.price_set
    if sets and price_set not in sets:
        price_set = DEFAULT_PRICE_SET if DEFAULT_PRICE_SET in sets else sorted(sets)[-1]
        notices.append(f"price set {_short(state.price_set)!r} is not known; showing {price_set} "
                       f"(known: {', '.join(sorted(sets))})")
        changes["price_set"] = price_set
    tiers = sets.get(price_set, [])
    if tiers and state.tier not in tiers:
        tier = DEFAULT_TIER if DEFAULT_TIER in tiers else tiers[0]
        notices.append(f"tier {_short(state.tier)!r} is not in price set {price_set}; showing {tier}")
        changes["tier"] = tier
    known_hw = list(options.get("hardware", []))
    rates = []
    for hw, rate in state.rates:
        found = _match(hw, known_hw)
        if found is None:
            notices.append(f"ignored the rate for {_short(hw)!r}: no such hardware in the data")
        else:
            rates.append((found, rate))
    if tuple(rates) != state.rates:
        changes["rates"] = tuple(rates)
    return (state.replace(**changes) if changes else state), notices
