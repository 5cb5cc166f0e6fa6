"""On-prem cost of a GPU-hour built from its parts, and cost profiles.

Pure functions and frozen pydantic models (numpy, pandas, pydantic; no I/O, no Streamlit).

*Build-up* (:func:`build_up`), every part in $ per GPU-hour at full use:

- capital: ``capital_per_gpu = (server_usd × (1 + network_pct/100) + network_usd + install_usd) / gpus_per_node``
  [$/GPU], recovered as an annuity: ``capital = capital_per_gpu × CRF(r, years) / 8760`` with
  ``CRF = r(1+r)^n / ((1+r)^n − 1)`` (:func:`capital_recovery_factor`; r = 0 gives ``1/n``,
  straight-line depreciation);
- power: ``kw_per_gpu × pue × usd_per_kwh`` (zero, and said so, when the colocation price includes power);
- facility: ``kw_per_gpu × colo_usd_per_kw_month / 730`` plus rack space
  ``rack_usd_per_month / (nodes_per_rack × gpus_per_node) / 730``;
- operations: ``(capital_per_gpu × maintenance_pct/100 + licence_usd_per_gpu_year
  + staff_usd_per_year / fleet_gpus) / 8760``.

The effective rate divides the sum by ``utilization`` (the share of hours that serve billable
load). 8760 hours a year, 730 (= 8760/12) a month.

*Cost profile* (:class:`CostProfile`): a named way to pay for one hardware's GPU, either a plain
$/GPU-hour (a preset, a cloud quote) or an on-prem build-up. :func:`profile_rates` gives each
profile's $/GPU-hour by name; :func:`profiles_to_text` / :func:`profiles_from_text` carry a list of
profiles in a share link.
"""

from __future__ import annotations

import base64
import json
import math
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from model.hardware import canonical_hardware
from model.names import MAX_NAME_LENGTH, name_problem, validation_reason

__all__ = [
    "HOURS_PER_YEAR",
    "HOURS_PER_MONTH",
    "PARTS",
    "ONPREM_FIELDS",
    "PROFILE_COLUMNS",
    "TcoInputError",
    "capital_recovery_factor",
    "OnPremInputs",
    "TcoBreakdown",
    "build_up",
    "onprem_inputs",
    "CostProfile",
    "cost_profile",
    "profile_rates",
    "hardware_rates",
    "relabel_by_profile",
    "preset_profiles",
    "profiles_frame",
    "breakdown_frame",
    "profiles_from_frame",
    "profiles_to_text",
    "profiles_from_text",
    "REFERENCE_CSV",
    "reference_values",
    "onprem_defaults",
    "ONPREM_LABELS",
]

HOURS_PER_YEAR = 8760.0
#: a month of the build-up and of fleet costs: 8760 / 12 hours
HOURS_PER_MONTH = 730.0
#: the four parts of a GPU-hour, in the order charts stack them
PARTS = ("capital", "power", "facility", "operations")


class TcoInputError(ValueError):
    """A TCO input or cost profile is missing, out of range or inconsistent; the message names the field."""


def capital_recovery_factor(rate, years):
    """Share of a capital sum paid each year to repay it with interest over ``years``.

    ``CRF = r(1+r)^n / ((1+r)^n − 1)``; at ``r = 0`` it is ``1/n`` (straight-line depreciation).

    Parameters
    ----------
    rate : numeric  cost of capital [fraction/year], e.g. 0.10 for 10 %/year; >= 0
    years : numeric  repayment (depreciation) period [years]; > 0

    Returns
    -------
    numeric  [1/year]. CRF(0.10, 5) = 0.263797.
    """
    r = np.asarray(rate, dtype=float)
    n = np.asarray(years, dtype=float)
    if np.any(r < 0) or np.any(n <= 0):
        raise TcoInputError("capital recovery factor needs a cost of capital >= 0 and years > 0")
    with np.errstate(divide="ignore", invalid="ignore"):
        log_growth = n * np.log1p(r)  # exact for tiny r, where (1+r)^n − 1 would round to 0
        # below 1e-12 the annuity differs from 1/n by under 1e-12 relative, and subnormal rates lose digits
        out = np.where(r > 1e-12, r * np.exp(log_growth) / np.expm1(log_growth), 1.0 / n)
    return out if out.ndim else float(out)


def _money(description: str, **kw):
    return Field(description=description, **kw)


class OnPremInputs(BaseModel):
    """Inputs of one on-prem build-up; units in the names and descriptions.

    Every amount is per node unless the name says per GPU. ``server_usd=None`` leaves the profile
    unpriced (no reliable public server price): power and facility are still computed.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    server_usd: float | None = _money("server price per node [$]", default=None, gt=0, le=1e9)
    gpus_per_node: int = _money("GPUs per node [GPUs]", default=8, gt=0, le=1024)
    network_pct: float = _money("network and storage share [% of the server price]", default=0.0, ge=0, le=1000)
    network_usd: float = _money("network and storage per node [$]", default=0.0, ge=0, le=1e9)
    install_usd: float = _money("installation per node [$]", default=0.0, ge=0, le=1e9)
    years: float = _money("depreciation period [years]", default=5.0, gt=0, le=50)
    rate_pct: float = _money("cost of capital [%/year]", default=0.0, ge=0, lt=100)
    kw_per_gpu: float = _money("all-in IT power per GPU [kW]", gt=0, le=100)
    pue: float = _money("power usage effectiveness [-], facility power / IT power", default=1.0, ge=1, le=5)
    usd_per_kwh: float = _money("electricity [$/kWh]", default=0.0, ge=0, le=10)
    colo_usd_per_kw_month: float = _money("colocation [$/kW-month] of IT power", default=0.0, ge=0, le=100_000)
    colo_includes_power: bool = _money("the colocation price includes electricity", default=False)
    rack_usd_per_month: float = _money("rack space [$ per rack-month]", default=0.0, ge=0, le=1e7)
    nodes_per_rack: int | None = _money("nodes per rack [nodes]", default=None, gt=0, le=1000)
    maintenance_pct: float = _money("support and maintenance [% of capital per GPU per year]", default=0.0,
                                    ge=0, le=100)
    licence_usd_per_gpu_year: float = _money("software licences [$/GPU-year]", default=0.0, ge=0, le=1e7)
    staff_usd_per_year: float = _money("staff [$/year] for the whole fleet", default=0.0, ge=0, le=1e10)
    fleet_gpus: int | None = _money("GPUs in the fleet the staff cost is spread over [GPUs]", default=None,
                                    gt=0, le=10_000_000)
    utilization: float = _money("share of hours serving billable load [fraction, 0..1]", default=1.0, gt=0, le=1)

    @field_validator("*", mode="before")
    @classmethod
    def _finite(cls, value):
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError("must be a finite number")
        return value

    @field_validator("utilization", mode="before")
    @classmethod
    def _fraction(cls, value):
        try:
            number = float(value)
        except (TypeError, ValueError):
            return value
        if 1 < number <= 100:
            raise ValueError(f"is a fraction of hours in (0, 1], e.g. 0.7 for 70 %; got {number:g}")
        return value

    @model_validator(mode="after")
    def _consistent(self) -> "OnPremInputs":
        if self.network_pct and self.network_usd:
            raise ValueError("give network and storage as network_pct or as network_usd, not both")
        if self.colo_usd_per_kw_month and self.rack_usd_per_month:
            raise ValueError("give the facility as colocation $/kW-month or as rack space $/month, not both")
        if self.rack_usd_per_month and not self.nodes_per_rack:
            raise ValueError("rack space needs nodes_per_rack (how many nodes share one rack)")
        if self.staff_usd_per_year and not self.fleet_gpus:
            raise ValueError("a staff cost needs fleet_gpus (the number of GPUs it is spread over)")
        if self.colo_includes_power and not self.colo_usd_per_kw_month:
            raise ValueError("colo_includes_power needs a colocation price (colo_usd_per_kw_month)")
        return self


def _explain(exc: ValidationError, what: str) -> TcoInputError:
    """One readable line per broken field: ``what: field (description): message (got value)``."""
    lines = []
    fields = OnPremInputs.model_fields | CostProfile.model_fields
    for error in exc.errors():
        loc = ".".join(str(p) for p in error["loc"] if p != "onprem") or "inputs"
        info = fields.get(str(error["loc"][-1])) if error["loc"] else None
        label = f"{loc} ({info.description})" if info is not None and info.description else loc
        message = validation_reason(error)
        got = error.get("input")
        shown = "" if isinstance(got, dict) or got is None or error["type"] == "value_error" else f" (got {got!r})"
        lines.append(f"{label}: {message}{shown}")
    return TcoInputError(f"{what}: " + "; ".join(lines))


def onprem_inputs(**values) -> OnPremInputs:
    """:class:`OnPremInputs` from keyword values, raising :class:`TcoInputError` with readable messages.

    ``None`` values are dropped (the field's default applies), so form and CLI values pass as they are.
    """
    try:
        return OnPremInputs(**{k: v for k, v in values.items() if v is not None or k == "server_usd"})
    except ValidationError as exc:
        raise _explain(exc, "on-prem build-up") from None


@dataclass(frozen=True)
class TcoBreakdown:
    """One build-up's result. Parts are [$/GPU-hour] at full use, before dividing by utilisation.

    ``capital_per_gpu`` [$/GPU]; ``crf`` [1/year]; ``usd_per_gpu_hour_full_use`` = sum of the parts;
    ``usd_per_gpu_hour`` = that ÷ ``utilization`` (the rate that prices tokens). Unpriced (no server
    price): capital, operations and both totals are NaN. ``notes`` say what was dropped or assumed.
    """

    capital: float
    power: float
    facility: float
    operations: float
    utilization: float
    gpus_per_node: int
    capital_per_gpu: float
    crf: float
    notes: tuple[str, ...] = field(default=())

    @property
    def priced(self) -> bool:
        return math.isfinite(self.capital)

    @property
    def usd_per_gpu_hour_full_use(self) -> float:
        return self.capital + self.power + self.facility + self.operations

    @property
    def usd_per_gpu_hour(self) -> float:
        return self.usd_per_gpu_hour_full_use / self.utilization

    def parts(self) -> dict[str, float]:
        """{part: $/GPU-hour at full use} in :data:`PARTS` order."""
        return {p: getattr(self, p) for p in PARTS}

    def table(self) -> pd.DataFrame:
        """The breakdown per GPU and per node, per hour, month (730 h) and year (8760 h).

        Rows: the four parts, ``total (full use)`` and ``effective (÷ utilisation)``; columns
        ``usd_per_gpu_hour``, ``usd_per_gpu_month``, ``usd_per_gpu_year``, ``usd_per_node_hour``,
        ``usd_per_node_month``, ``usd_per_node_year`` [$]. A month or year of one GPU costs the
        full-use rate × hours (every hour is paid for); the effective row is per billable hour.
        """
        rows = {**self.parts(), "total (full use)": self.usd_per_gpu_hour_full_use,
                f"effective (÷ {self.utilization:g} utilisation)": self.usd_per_gpu_hour}
        out = pd.DataFrame({"part": list(rows), "usd_per_gpu_hour": list(rows.values())})
        for unit, hours in (("month", HOURS_PER_MONTH), ("year", HOURS_PER_YEAR)):
            out[f"usd_per_gpu_{unit}"] = out["usd_per_gpu_hour"] * hours
        for unit in ("hour", "month", "year"):
            out[f"usd_per_node_{unit}"] = out[f"usd_per_gpu_{unit}"] * self.gpus_per_node
        return out

    def to_dict(self) -> dict[str, object]:
        """Flat JSON-ready dict: the parts, both totals, utilisation, capital per GPU, CRF, notes."""
        return {"usd_per_gpu_hour": self.usd_per_gpu_hour, **self.parts(),
                "usd_per_gpu_hour_full_use": self.usd_per_gpu_hour_full_use, "utilization": self.utilization,
                "capital_per_gpu": self.capital_per_gpu, "crf": self.crf, "gpus_per_node": self.gpus_per_node,
                "usd_per_gpu_month_full_use": self.usd_per_gpu_hour_full_use * HOURS_PER_MONTH,
                "usd_per_node_month_full_use": self.usd_per_gpu_hour_full_use * HOURS_PER_MONTH * self.gpus_per_node,
                "notes": list(self.notes)}


def build_up(inputs: OnPremInputs) -> TcoBreakdown:
    """The cost of one GPU-hour from an on-prem build-up (formulas in the module docstring).

    Parameters
    ----------
    inputs : OnPremInputs  server price and shares [$], years, cost of capital [%/year], power
        [kW/GPU], PUE, electricity [$/kWh], colocation [$/kW-month] or rack [$/rack-month],
        maintenance [%/year], licences [$/GPU-year], staff [$/year], utilisation [fraction]

    Returns
    -------
    TcoBreakdown  parts [$/GPU-hour] at full use; totals at full use and ÷ utilisation.

    Examples
    --------
    The issue's worked example: $300,000 per 8-GPU node, network 15 %, 5 years at 10 %,
    1.37 kW/GPU, PUE 1.3, $0.08/kWh, colocation $184/kW-month, maintenance 3 %/year, 70 % use:
    capital 1.29866 + power 0.14248 + facility 0.34531 + operations 0.14769 = 1.9341 $/GPU-hour,
    2.7630 at 70 %.
    """
    notes = []
    per_node = (inputs.server_usd * (1 + inputs.network_pct / 100) + inputs.network_usd + inputs.install_usd
                if inputs.server_usd is not None else math.nan)
    capital_per_gpu = per_node / inputs.gpus_per_node
    crf = capital_recovery_factor(inputs.rate_pct / 100, inputs.years)
    if inputs.server_usd is None:
        notes.append("no server price: capital and the total stay unpriced until one is given")
    capital = capital_per_gpu * crf / HOURS_PER_YEAR
    if inputs.colo_includes_power:
        power = 0.0
        notes.append("the colocation price includes power: the separate power line is dropped")
    else:
        power = inputs.kw_per_gpu * inputs.pue * inputs.usd_per_kwh
    facility = inputs.kw_per_gpu * inputs.colo_usd_per_kw_month / HOURS_PER_MONTH
    if inputs.rack_usd_per_month:
        facility += inputs.rack_usd_per_month / (inputs.nodes_per_rack * inputs.gpus_per_node) / HOURS_PER_MONTH
    staff = inputs.staff_usd_per_year / inputs.fleet_gpus if inputs.staff_usd_per_year else 0.0
    operations = (capital_per_gpu * inputs.maintenance_pct / 100 + inputs.licence_usd_per_gpu_year + staff) \
        / HOURS_PER_YEAR
    return TcoBreakdown(capital=float(capital), power=float(power), facility=float(facility),
                        operations=float(operations), utilization=inputs.utilization,
                        gpus_per_node=inputs.gpus_per_node, capital_per_gpu=float(capital_per_gpu),
                        crf=float(crf), notes=tuple(notes))


# ------------------------------------------------------------------------------------------ profiles

#: build-up input -> what it is, with its unit (the TCO builder's form, the report's inputs table)
ONPREM_LABELS = {
    "server_usd": "Server price per node [$]", "gpus_per_node": "GPUs per node",
    "network_pct": "Network and storage [% of server]", "network_usd": "Network and storage per node [$]",
    "install_usd": "Installation per node [$]", "years": "Depreciation [years]",
    "rate_pct": "Cost of capital [%/year]", "kw_per_gpu": "All-in power per GPU [kW]", "pue": "PUE",
    "usd_per_kwh": "Electricity [$/kWh]", "colo_usd_per_kw_month": "Colocation [$/kW-month]",
    "colo_includes_power": "Colocation price includes electricity",
    "rack_usd_per_month": "Rack space [$/rack-month]", "nodes_per_rack": "Nodes per rack",
    "maintenance_pct": "Support and maintenance [% of capital/year]",
    "licence_usd_per_gpu_year": "Software licences [$/GPU-year]", "staff_usd_per_year": "Staff [$/year, whole fleet]",
    "fleet_gpus": "Fleet size for staff cost [GPUs]", "utilization": "Utilisation [fraction of hours billable]",
}

#: the on-prem input names, in form order
ONPREM_FIELDS: tuple[str, ...] = tuple(OnPremInputs.model_fields)
PROFILE_KINDS = ("rate", "on-prem")


class CostProfile(BaseModel):
    """A named way to pay for one hardware's GPU: a plain $/GPU-hour or an on-prem build-up.

    Attributes
    ----------
    name : str  unique label, e.g. ``"H200 on-prem 5y"``; prices series by name
    hardware : str  canonical GPU name (``h200`` -> ``H200``)
    usd_per_gpu_hour : float, optional  a plain rate [$/GPU-hour] (preset, cloud quote)
    onprem : OnPremInputs, optional  the build-up instead of a plain rate
    source : str  where the numbers come from (provenance), e.g. ``"SemiAnalysis 2025-08 owning_hyperscaler"``

    Neither a rate nor a build-up (or a build-up without a server price) is an *unpriced* profile.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(description="profile name", min_length=1, max_length=MAX_NAME_LENGTH)
    hardware: str = Field(description="GPU (canonical name)")
    usd_per_gpu_hour: float | None = Field(None, description="plain rate [$/GPU-hour]", gt=0, le=1000)
    onprem: OnPremInputs | None = None
    source: str = Field("", description="provenance of the numbers", max_length=300)

    @field_validator("name", mode="before")
    @classmethod
    def _name(cls, value):
        if isinstance(value, str):
            problem = name_problem(value)
            if problem:
                raise ValueError(problem)
            value = " ".join(value.split())   # runs of spaces (a non-breaking one too) become one
        return value

    @field_validator("source", mode="before")
    @classmethod
    def _text(cls, value):
        if isinstance(value, str):
            value = " ".join(value.split())   # provenance may be pasted over several lines
            if not value.isprintable():
                raise ValueError("must not hold control characters")
        return value

    @field_validator("hardware", mode="before")
    @classmethod
    def _hardware(cls, value):
        name = canonical_hardware(value)
        if not name:
            raise ValueError("is empty: name the GPU, e.g. H200")
        return name

    @field_validator("usd_per_gpu_hour", mode="before")
    @classmethod
    def _rate(cls, value):
        if isinstance(value, float) and not math.isfinite(value):
            return None
        return value

    @model_validator(mode="after")
    def _one_way(self) -> "CostProfile":
        if self.usd_per_gpu_hour is not None and self.onprem is not None:
            raise ValueError(f"profile {self.name!r}: give a plain $/GPU-hour or an on-prem build-up, not both")
        return self

    @property
    def kind(self) -> str:
        """``"on-prem"`` or ``"rate"``."""
        return "on-prem" if self.onprem is not None else "rate"

    def breakdown(self) -> TcoBreakdown | None:
        """The build-up of an on-prem profile; ``None`` for a plain rate."""
        return build_up(self.onprem) if self.onprem is not None else None

    def rate(self) -> float | None:
        """The $/GPU-hour that prices tokens (on-prem: effective, ÷ utilisation); ``None`` when unpriced."""
        if self.onprem is None:
            return self.usd_per_gpu_hour
        value = build_up(self.onprem).usd_per_gpu_hour
        return value if math.isfinite(value) else None

    def paid_rate(self) -> float | None:
        """The $/GPU-hour paid for every hour a GPU exists (on-prem: at full use); ``None`` when unpriced.

        A fleet's $/month is GPUs × this × 730: idle hours cost the same as busy ones.
        """
        if self.onprem is None:
            return self.usd_per_gpu_hour
        value = build_up(self.onprem).usd_per_gpu_hour_full_use
        return value if math.isfinite(value) else None


def cost_profile(**values) -> CostProfile:
    """:class:`CostProfile` from keyword values, raising :class:`TcoInputError` with readable messages."""
    return _profile(values, f"cost profile {values.get('name')!r}")


def _profile(values: dict, what: str) -> CostProfile:
    try:
        return CostProfile(**values)
    except ValidationError as exc:
        raise _explain(exc, what) from None


def _unique(profiles) -> list[CostProfile]:
    profiles = list(profiles)
    seen: set[str] = set()
    for p in profiles:
        if p.name in seen:
            raise TcoInputError(f"two cost profiles are named {p.name!r}; profile names must be unique")
        seen.add(p.name)
    return profiles


def profile_rates(profiles) -> dict[str, float]:
    """{profile name: $/GPU-hour} of every priced profile (on-prem: effective, ÷ utilisation).

    Unpriced profiles are left out (a series is never priced at zero); duplicate names raise
    :class:`TcoInputError`.
    """
    return {p.name: r for p in _unique(profiles) if (r := p.rate()) is not None}


def hardware_rates(profiles, names=None) -> dict[str, float]:
    """{hardware: $/GPU-hour} from the chosen profiles, for ``Scenario.rates`` / ``--rate``.

    Parameters
    ----------
    profiles : iterable of CostProfile
    names : iterable of str, optional  the profiles to use; default every priced profile

    Raises :class:`TcoInputError` when two chosen profiles name the same hardware (price them side
    by side with :func:`relabel_by_profile` instead) or a name is unknown.
    """
    by_name = {p.name: p for p in _unique(profiles)}
    chosen = list(by_name) if names is None else list(names)
    unknown = [n for n in chosen if n not in by_name]
    if unknown:
        raise TcoInputError(f"unknown cost profile {unknown[0]!r}; known: {', '.join(by_name) or 'none'}")
    out: dict[str, float] = {}
    owner: dict[str, str] = {}
    for name in chosen:
        profile = by_name[name]
        rate = profile.rate()
        if rate is None:
            continue
        if profile.hardware in out:
            raise TcoInputError(f"profiles {owner[profile.hardware]!r} and {name!r} both price {profile.hardware}; "
                                "choose one, or compare them side by side")
        out[profile.hardware], owner[profile.hardware] = rate, name
    return out


def relabel_by_profile(points: pd.DataFrame, profiles, names) -> tuple[pd.DataFrame, dict[str, float]]:
    """Points repeated once per chosen profile, so one hardware can be priced two ways side by side.

    Each copy keeps the rows of its profile's hardware, moves the GPU name to ``base_hardware``,
    sets ``hardware`` and ``cost_profile`` to the profile name, and the returned rates are keyed by
    profile name: ``analyse(points, Scenario(rates=tuple(rates.items())))`` then draws one series
    per (series, profile). Unpriced profiles are kept (their series stay unpriced).

    Returns
    -------
    (DataFrame, {profile name: $/GPU-hour})
    """
    by_name = {p.name: p for p in _unique(profiles)}
    frames = []
    for name in names:
        if name not in by_name:
            raise TcoInputError(f"unknown cost profile {name!r}; known: {', '.join(by_name) or 'none'}")
        profile = by_name[name]
        part = points[points["hardware"] == profile.hardware]
        frames.append(part.assign(base_hardware=part["hardware"], hardware=name, cost_profile=name))
    out = pd.concat(frames, ignore_index=True) if frames else points.iloc[0:0].assign(base_hardware=[], cost_profile=[])
    return out, {n: r for n in names if (r := by_name[n].rate()) is not None}


def preset_profiles(presets: pd.DataFrame, price_set: str, tier: str) -> list[CostProfile]:
    """One plain-rate profile per hardware of a preset price set and tier, named ``"B200 owning_hyperscaler 2025-08"``.

    ``presets`` as :func:`model.cost.load_presets`; the source column is kept as provenance.
    """
    rows = presets[(presets["price_set"] == price_set) & (presets["tier"] == tier)]
    return [CostProfile(name=f"{r.hardware} {tier} {price_set}", hardware=r.hardware,
                        usd_per_gpu_hour=float(r.usd_per_gpu_hour), source=f"{r.source} ({price_set}, {tier})")
            for r in rows.itertuples(index=False)]


#: columns of the editable profiles table (:func:`profiles_frame`)
PROFILE_COLUMNS = ("name", "hardware", "kind", "usd_per_gpu_hour", *ONPREM_FIELDS, "source")


def profiles_frame(profiles) -> pd.DataFrame:
    """Profiles as one table row each, for an editable table: :data:`PROFILE_COLUMNS`.

    ``usd_per_gpu_hour`` is the plain rate of a ``rate`` profile and the computed effective rate of
    an ``on-prem`` one (ignored when read back by :func:`profiles_from_frame`). Empty cells are NaN/None.
    """
    rows = []
    for p in profiles:
        row: dict[str, object] = {"name": p.name, "hardware": p.hardware, "kind": p.kind,
                                  "usd_per_gpu_hour": p.rate() if p.rate() is not None else math.nan,
                                  "source": p.source}
        for f in ONPREM_FIELDS:
            row[f] = getattr(p.onprem, f) if p.onprem is not None else None
        rows.append(row)
    return pd.DataFrame(rows, columns=list(PROFILE_COLUMNS))


def breakdown_frame(profiles) -> pd.DataFrame:
    """One row per profile for a stacked bar of the breakdown [$/GPU-hour].

    Columns: ``profile``, ``hardware``, ``kind``, the four :data:`PARTS` (at full use; NaN for a plain
    rate, whose parts are unknown), ``usd_per_gpu_hour_full_use``, ``utilization`` and
    ``usd_per_gpu_hour`` (effective: what prices tokens; NaN when unpriced).
    """
    rows = []
    for p in _unique(profiles):
        row: dict[str, object] = {"profile": p.name, "hardware": p.hardware, "kind": p.kind}
        b = p.breakdown()
        if b is not None:
            row.update(b.parts(), usd_per_gpu_hour_full_use=b.usd_per_gpu_hour_full_use, utilization=b.utilization,
                       usd_per_gpu_hour=b.usd_per_gpu_hour)
        else:
            rate = p.usd_per_gpu_hour if p.usd_per_gpu_hour is not None else math.nan
            row.update(dict.fromkeys(PARTS, math.nan), usd_per_gpu_hour_full_use=rate, utilization=1.0,
                       usd_per_gpu_hour=rate)
        rows.append(row)
    return pd.DataFrame(rows, columns=["profile", "hardware", "kind", *PARTS, "usd_per_gpu_hour_full_use",
                                       "utilization", "usd_per_gpu_hour"])


def _cell(value):
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return None
    if isinstance(value, str) and not value.strip():
        return None
    if hasattr(value, "item"):
        return value.item()
    return value


def profiles_from_frame(frame: pd.DataFrame) -> list[CostProfile]:
    """Read back an edited :func:`profiles_frame` table.

    ``kind`` decides: ``on-prem`` reads the build-up columns, ``rate`` (or empty) reads
    ``usd_per_gpu_hour``. Rows without a name are skipped (an empty new row). The first bad
    row raises :class:`TcoInputError` naming the row (1-based), the profile and the field.
    """
    out = []
    for i, row in enumerate(frame.to_dict("records"), start=1):
        cells = {k: _cell(v) for k, v in row.items()}
        if cells.get("name") is None:
            continue
        kind = str(cells.get("kind") or "rate").strip().lower()
        if kind not in PROFILE_KINDS:
            raise TcoInputError(f"row {i} ({cells['name']}): kind must be one of {', '.join(PROFILE_KINDS)}, "
                                f"got {kind!r}")
        values: dict[str, object] = {"name": cells["name"], "hardware": cells.get("hardware"),
                                     "source": cells.get("source") or ""}
        if kind == "on-prem":
            try:
                values["onprem"] = onprem_inputs(**{f: cells.get(f) for f in ONPREM_FIELDS})
            except TcoInputError as exc:
                raise TcoInputError(f"row {i} ({cells['name']}): {exc}") from None
        else:
            values["usd_per_gpu_hour"] = cells.get("usd_per_gpu_hour")
        out.append(_profile(values, f"row {i} ({cells['name']})"))
    return _unique(out)


# ---------------------------------------------------------------------------------------- share link

#: stable short keys for the share link; never reuse a retired key
_SHORT = {"name": "n", "hardware": "h", "usd_per_gpu_hour": "r", "source": "s", "onprem": "o",
          "server_usd": "sv", "gpus_per_node": "g", "network_pct": "np", "network_usd": "nu", "install_usd": "in",
          "years": "y", "rate_pct": "rp", "kw_per_gpu": "kw", "pue": "pu", "usd_per_kwh": "e",
          "colo_usd_per_kw_month": "co", "colo_includes_power": "ci", "rack_usd_per_month": "ra",
          "nodes_per_rack": "nr", "maintenance_pct": "m", "licence_usd_per_gpu_year": "l",
          "staff_usd_per_year": "st", "fleet_gpus": "fg", "utilization": "u"}
_LONG = {v: k for k, v in _SHORT.items()}
_LINK_PREFIX = "p1."
_MAX_LINK_CHARS = 16_000
_MAX_JSON_BYTES = 200_000
#: profiles nest 3 deep (list, profile, build-up); anything much deeper is not a profile list
_MAX_JSON_DEPTH = 8


def profiles_to_text(profiles) -> str:
    """A compact URL-safe text holding ``profiles`` (for a share link's query parameter).

    Only values that differ from the defaults are kept, under short keys, then zlib and base64url:
    ``"p1.<base64>"``; ``""`` for no profiles. :func:`profiles_from_text` reads it back equal.
    """
    items = []
    for p in _unique(profiles):
        data = p.model_dump(exclude_defaults=True)
        short = {_SHORT[k]: v for k, v in data.items() if k != "onprem"}
        if p.onprem is not None:
            onprem = p.onprem.model_dump(exclude_defaults=True)
            if p.onprem.server_usd is None:
                onprem["server_usd"] = None
            short["o"] = {_SHORT[k]: v for k, v in onprem.items()}
        items.append(short)
    if not items:
        return ""
    raw = json.dumps(items, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    return _LINK_PREFIX + base64.urlsafe_b64encode(zlib.compress(raw, 9)).decode("ascii").rstrip("=")


def _nesting_depth(text: str) -> int:
    """The deepest ``[``/``{`` nesting of JSON ``text``, counted without recursion (brackets inside strings skipped)."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def _link_items(body: str) -> list:
    """The JSON list a link's cost profiles part holds; TcoInputError in the product's words otherwise."""
    damaged = TcoInputError("share link: the cost profiles part is damaged or cut short")
    try:
        packed = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
        inflater = zlib.decompressobj()
        raw = inflater.decompress(packed, _MAX_JSON_BYTES)   # never more than this, however it was packed
    except (ValueError, zlib.error):
        raise damaged from None
    if inflater.unconsumed_tail:
        raise TcoInputError(f"share link: the cost profiles part unpacks to more than {_MAX_JSON_BYTES:,} bytes")
    if not inflater.eof or inflater.unused_data:
        raise damaged
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise damaged from None
    if _nesting_depth(text) > _MAX_JSON_DEPTH:
        raise TcoInputError("share link: the cost profiles part is nested deeper than cost profiles are")
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        raise damaged from None


def profiles_from_text(text: str | None) -> list[CostProfile]:
    """The profiles a :func:`profiles_to_text` text holds; ``[]`` for an empty text.

    A damaged, foreign, oversized (more than 200,000 bytes unpacked) or deeply nested text raises
    :class:`TcoInputError` ("share link: ..."), never a partial list and never another exception.
    """
    text = (text or "").strip()
    if not text:
        return []
    if not text.startswith(_LINK_PREFIX) or len(text) > _MAX_LINK_CHARS:
        raise TcoInputError("share link: the cost profiles part is not one this version wrote")
    items = _link_items(text[len(_LINK_PREFIX):])
    foreign = TcoInputError("share link: the cost profiles part holds something other than cost profiles")
    if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
        raise foreign
    long = []
    for item in items:
        try:
            values = {_LONG[k]: v for k, v in item.items()}
            if isinstance(values.get("onprem"), dict):
                values["onprem"] = {_LONG[k]: v for k, v in values["onprem"].items()}
        except KeyError:
            raise foreign from None
        long.append(values)
    return _unique(_profile(v, f"share link, profile {i}") for i, v in enumerate(long, start=1))


# ------------------------------------------------------------------------------- cited default values

REFERENCE_CSV = Path(__file__).resolve().parent.parent / "data" / "samples" / "tco_reference_values.csv"
#: build-up inputs that start from a published value in :data:`REFERENCE_CSV` (key -> input name)
_REFERENCE_DEFAULTS = {"usd_per_kwh": "usd_per_kwh", "colo_usd_per_kw_month": "colo_usd_per_kw_month",
                       "pue": "pue", "years": "years"}


def reference_values() -> pd.DataFrame:
    """The bundled table of published reference values, with source, URL and note per row.

    Columns: key, value (NaN where no reliable public value exists), unit, applies_to, what, source,
    url, note.
    """
    return pd.read_csv(REFERENCE_CSV, dtype={"key": str, "applies_to": str}, keep_default_na=True)


def onprem_defaults(hardware: str, presets: pd.DataFrame | None = None,
                    price_set: str | None = None) -> dict[str, tuple[float | None, str]]:
    """Starting values of a build-up for one GPU, each with where it comes from.

    ``kw_per_gpu`` is the preset's all-in kW per GPU (``presets`` as :func:`model.cost.load_presets`,
    newest price set unless ``price_set`` is given); electricity, colocation, PUE and years come from
    :func:`reference_values`; the server price is ``None`` (no reliable public price) unless the table
    has one for this hardware.

    Returns
    -------
    {input name: (value or None, source text)}
    """
    hardware = canonical_hardware(hardware)
    ref = reference_values()
    out: dict[str, tuple[float | None, str]] = {}
    for key, name in _REFERENCE_DEFAULTS.items():
        rows = ref[(ref["key"] == key) & ref["applies_to"].isin(["all", hardware])]
        if not rows.empty and pd.notna(rows.iloc[-1]["value"]):
            row = rows.iloc[-1]
            out[name] = (float(row["value"]), f"{row['source']}" + (f" ({row['url']})" if pd.notna(row["url"]) else ""))
    server = ref[(ref["key"] == "server_usd") & (ref["applies_to"] == hardware)]
    if not server.empty and pd.notna(server.iloc[0]["value"]):
        out["server_usd"] = (float(server.iloc[0]["value"]), str(server.iloc[0]["source"]))
    else:
        out["server_usd"] = (None, "no reliable public price: give a quote")
    if presets is not None:
        rows = presets[(presets["hardware"] == hardware) & presets["all_in_kw_per_gpu"].notna()]
        if price_set is not None:
            rows = rows[rows["price_set"] == price_set]
        if not rows.empty:
            row = rows.sort_values("price_set").iloc[-1]
            out["kw_per_gpu"] = (float(row["all_in_kw_per_gpu"]),
                                 f"all-in kW per GPU, {row['source']} (price set {row['price_set']})")
    return out


def price_with_profiles(points: pd.DataFrame, overrides: dict[str, float], profiles,
                        names) -> tuple[pd.DataFrame, dict[str, float], list[str]]:
    """Price ``points`` by the chosen cost profiles: the one rule the dashboard and the CLI share.

    A hardware one chosen profile names is priced at that profile's effective rate (it wins over a
    rate set by hand, and the note says so). A hardware two or more chosen profiles name is shown
    side by side: its rows are repeated once per profile (:func:`relabel_by_profile`), each copy
    named and priced by its profile.

    Parameters
    ----------
    points : DataFrame  benchmark rows with ``hardware``
    overrides : dict  hardware -> $/GPU-hour set by hand [$/GPU/h]
    profiles : iterable of CostProfile  every profile known (the view's or the store's)
    names : iterable of str  the profiles chosen to price series

    Returns
    -------
    (points, overrides, notes): the rows to analyse, the rates for ``Scenario.rates`` and what was done.
    """
    names = list(dict.fromkeys(names))
    if not names:
        return points, dict(overrides), []
    by_name = {p.name: p for p in _unique(profiles)}
    unknown = [n for n in names if n not in by_name]
    if unknown:
        raise TcoInputError(f"unknown cost profile {unknown[0]!r}; known: {', '.join(by_name) or 'none'}")
    per_hw: dict[str, list[str]] = {}
    for name in names:
        per_hw.setdefault(by_name[name].hardware.lower(), []).append(name)
    rates, notes = dict(overrides), []
    side_by_side = [n for group in per_hw.values() if len(group) > 1 for n in group]
    for group in per_hw.values():
        if len(group) == 1:
            profile = by_name[group[0]]
            same = [hw for hw in rates if hw.lower() == profile.hardware.lower()]
            for hw in same:
                del rates[hw]
            if profile.rate() is not None:
                rates[profile.hardware] = profile.rate()
                notes.append(f"{profile.hardware} is priced by cost profile {profile.name!r} "
                             f"(${profile.rate():.4g}/GPU-hour)" + (" instead of the rate set by hand" if same else ""))
            else:
                notes.append(f"cost profile {profile.name!r} has no price yet, so {profile.hardware} is unpriced")
    if side_by_side:
        hardware = {by_name[n].hardware.lower() for n in side_by_side}
        lower = points["hardware"].astype(str).str.lower()
        copies, named = relabel_by_profile(points.assign(hardware=points["hardware"].where(
            ~lower.isin(hardware), lower.map({h: by_name[per_hw[h][0]].hardware for h in hardware}))),
            profiles, side_by_side)
        points = pd.concat([points[~lower.isin(hardware)], copies], ignore_index=True)
        rates.update(named)
        notes.append("side by side: " + ", ".join(side_by_side))
    return points, rates, notes
