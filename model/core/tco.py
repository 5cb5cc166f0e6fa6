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

import math
from dataclasses import dataclass, field
from datetime import date

import numpy as np
import pandas as pd
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from model.core.hardware import canonical_hardware
from model.core.names import validation_reason
from model.core.onprem_labels import ONPREM_LABELS, onprem_label

__all__ = [
    "HOURS_PER_YEAR",
    "HOURS_PER_MONTH",
    "PARTS",
    "ONPREM_FIELDS",
    "TcoInputError",
    "capital_recovery_factor",
    "OnPremInputs",
    "TcoBreakdown",
    "build_up",
    "onprem_inputs",
    "dated_defaults",
    "ONPREM_LABELS",
    "onprem_label",
    "explain_validation",
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


def explain_validation(exc: ValidationError, what: str, fields: dict | None = None) -> TcoInputError:
    """One readable line per broken field: ``what: field (description): message (got value)``."""
    lines = []
    fields = OnPremInputs.model_fields | (fields or {})
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
        raise explain_validation(exc, "on-prem build-up") from None


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

#: the on-prem input names, in form order
ONPREM_FIELDS: tuple[str, ...] = tuple(OnPremInputs.model_fields)



# ---------------------------------------------------------------------------------------- share link


# ------------------------------------------------------------------------------- cited default values

#: build-up inputs that start from a published value in the reference table (key -> input name)
_REFERENCE_DEFAULTS = {"usd_per_kwh": "usd_per_kwh", "colo_usd_per_kw_month": "colo_usd_per_kw_month",
                       "pue": "pue", "years": "years"}


def _date(value) -> date | None:
    return value if isinstance(value, date) and not pd.isna(value) else None


def dated_defaults(hardware: str, reference: pd.DataFrame, presets: pd.DataFrame | None = None,
                   price_set: str | None = None) -> dict[str, tuple[float | None, str, date | None]]:
    """Starting values of a build-up for one GPU, each with where it comes from and the date it was read.

    ``kw_per_gpu`` is the preset's all-in kW per GPU (``presets`` as :func:`model.data.presets.load_presets`,
    newest price set unless ``price_set`` is given); electricity, colocation, PUE and years come from
    ``reference`` (:func:`model.data.presets.reference_values`); the server price is ``None`` (no reliable public
    price) unless the table has one for this hardware.

    Returns
    -------
    {input name: (value or None, source text, the date read or None: undated, e.g. years, an assumption)}
    """
    hardware = canonical_hardware(hardware)
    ref = reference
    out: dict[str, tuple[float | None, str, date | None]] = {}
    for key, name in _REFERENCE_DEFAULTS.items():
        rows = ref[(ref["key"] == key) & ref["applies_to"].isin(["all", hardware])]
        if not rows.empty and pd.notna(rows.iloc[-1]["value"]):
            row = rows.iloc[-1]
            out[name] = (float(row["value"]), f"{row['source']}" + (f" ({row['url']})" if pd.notna(row["url"]) else ""),
                         _date(row["read_on"]))
    server = ref[(ref["key"] == "server_usd") & (ref["applies_to"] == hardware)]
    if not server.empty and pd.notna(server.iloc[0]["value"]):
        out["server_usd"] = (float(server.iloc[0]["value"]), str(server.iloc[0]["source"]),
                             _date(server.iloc[0]["read_on"]))
    else:
        out["server_usd"] = (None, "no reliable public price: give a quote", None)
    if presets is not None:
        rows = presets[(presets["hardware"] == hardware) & presets["all_in_kw_per_gpu"].notna()]
        if price_set is not None:
            rows = rows[rows["price_set"] == price_set]
        if not rows.empty:
            row = rows.sort_values("price_set").iloc[-1]
            out["kw_per_gpu"] = (float(row["all_in_kw_per_gpu"]),
                                 f"all-in kW per GPU, {row['source']} (price set {row['price_set']})",
                                 _date(row["read_on"]) if "read_on" in row.index else None)
    return out
