"""A cost profile's $/GPU-hour as a price file OpenCost's custom CSV pricing reads, with its amortisation schedule.

OpenCost's CSV provider (``USE_CSV_PROVIDER=true``, ``CSV_PATH``; ``pkg/cloud/provider/csvprovider.go``, sample
files ``configs/pricing_schema*.csv``) reads a CSV whose header is :data:`HEADER` and whose rows price assets:

- ``AssetClass`` ``node``: ``InstanceIDField`` names where a node's id is (``metadata.labels.<label key>``,
  ``metadata.name`` or ``spec.providerID``), ``InstanceID`` the value to match, ``MarketPriceHourly`` the node's
  $/hour;
- ``AssetClass`` ``gpu``: ``InstanceIDField`` is a node label naming the GPU class (e.g. ``nvidia.com/gpu_type``),
  ``InstanceID`` its value; ``MarketPriceHourly`` is $ per GPU-hour, times the node's GPU count. ``Region`` must
  stay empty on GPU rows (the provider looks GPU classes up by the label value alone), and a node must be matched
  by a node row for its GPUs to be priced;
- ``EndTimestamp`` is read but unused by OpenCost today (written here as the end of the depreciation period);
  ``Version`` is free text. A line of one field starting with ``#`` is skipped: the purchase date and the schedule
  over the depreciation period go there, so the file says where its rate comes from.

The rate is the profile's *paid* $/GPU-hour (:meth:`model.core.profile.CostProfile.paid_rate`: every part of the
build-up at full use, what an hour of a GPU costs whether it serves or not), the figure ``costfrontier tco``
prints as ``usd_per_gpu_hour_full_use``: OpenCost charges idle capacity as idle itself, so dividing by the
utilisation here would count it twice. The whole per-GPU cost goes on the GPU row; the node row is 0 (the
build-up prices a node by its GPUs), so the cluster's own cost reports use the proposal's on-prem rate.

The capital line is an annuity (:func:`model.core.tco.capital_recovery_factor`): each year of the schedule pays
``capital per GPU × CRF``, of which ``book value × r`` is interest and the rest repays capital; at r = 0 it is
straight-line depreciation, ``capital ÷ years`` a year.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date, timedelta

from model.core.profile import CostProfile
from model.core.tco import HOURS_PER_YEAR, TcoInputError

__all__ = ["HEADER", "VERSION", "ScheduleYear", "schedule", "price_file", "years_after"]

#: the columns OpenCost's CSV provider reads, in its order (the ``csv`` tags of its ``price`` struct)
HEADER = ("EndTimestamp", "InstanceID", "Region", "AssetClass", "InstanceIDField", "InstanceType",
          "MarketPriceHourly", "Version")
VERSION = "costfrontier-1"
#: where a node's GPU class is, by default (OpenCost's own sample ``pricing_schema_mixed_gpu_ondemand.csv``)
DEFAULT_GPU_LABEL = "nvidia.com/gpu_type"
#: where a node's type is, by default (the well-known Kubernetes label)
DEFAULT_NODE_LABEL = "node.kubernetes.io/instance-type"


@dataclass(frozen=True)
class ScheduleYear:
    """One year of the capital's repayment, per GPU [$]."""

    year: int
    start: date
    end: date
    payment: float            # capital recovered this year, interest included [$/GPU]
    interest: float           # [$/GPU]
    principal: float          # capital repaid [$/GPU]
    book_value_end: float     # capital still to repay at the end of the year [$/GPU]


def years_after(start: date, years: float) -> date:
    """The date ``years`` after ``start``: the same day of the month for whole years (29 February → 28), else
    whole years and then the rest in days of 365.25."""
    whole = int(math.floor(years))
    try:
        moved = start.replace(year=start.year + whole)
    except ValueError:                       # 29 February in a year that has none
        moved = start.replace(year=start.year + whole, day=28)
    return moved + timedelta(days=round((years - whole) * 365.25))


def schedule(capital_per_gpu: float, rate: float, years: float, crf: float, purchased: date) -> list[ScheduleYear]:
    """The capital's repayment year by year from ``purchased``: ``crf`` [1/year] as the build-up used it, ``rate``
    the cost of capital [fraction/year]. A part year at the end repays what is left."""
    out, book, start = [], capital_per_gpu, purchased
    payment = capital_per_gpu * crf
    for year in range(1, math.ceil(years - 1e-9) + 1):
        part = min(1.0, years - (year - 1))
        end = years_after(purchased, year - 1 + part)
        interest = book * ((1 + rate) ** part - 1)
        principal = book if year == math.ceil(years - 1e-9) else payment * part - interest
        out.append(ScheduleYear(year, start, end, interest + principal, interest, principal, book - principal))
        book -= principal
        start = end
    return out


def _comment(text: str) -> str:
    """A ``#`` line OpenCost skips: one CSV field, so no comma or quote in it."""
    return "# " + text.replace(",", ";").replace('"', "'")


def _number(value: float) -> str:
    return repr(float(value))


def _stamp(day: date) -> str:
    return f"{day.isoformat()} 00:00:00 UTC"    # as OpenCost's own samples write EndTimestamp


def price_file(profile: CostProfile, purchased: date, node_label: tuple[str, str] | None = None,
               gpu_label: tuple[str, str] | None = None) -> str:
    """OpenCost's CSV pricing for ``profile`` bought on ``purchased``: the header, ``#`` lines (what the rate is,
    the purchase date and the schedule) and two rows, the nodes (0 $/hour) and their GPUs (the paid $/GPU-hour).

    ``node_label``: (label key, value) that marks the nodes (default ``node.kubernetes.io/instance-type`` = the
    hardware in lower case); ``gpu_label``: (label key, value) naming their GPU class (default
    ``nvidia.com/gpu_type`` = the hardware). Raises :class:`TcoInputError` for an unpriced profile.
    """
    rate = profile.paid_rate()
    if rate is None:
        raise TcoInputError(f"cost profile {profile.name!r} is unpriced (no server price): no rate to write")
    node_key, node_value = node_label or (DEFAULT_NODE_LABEL, profile.hardware.lower())
    gpu_key, gpu_value = gpu_label or (DEFAULT_GPU_LABEL, profile.hardware)
    for what, text in (("node label", node_key), ("node label value", node_value), ("GPU label", gpu_key),
                       ("GPU label value", gpu_value)):
        if not text or any(c in text for c in ',"\n\r') or not text.isprintable():
            raise TcoInputError(f"the {what} {text!r} cannot go in a CSV field (no comma, quote or line break)")
    breakdown = profile.breakdown()
    years = profile.onprem.years if profile.onprem is not None else None
    end = years_after(purchased, years) if years else None
    lines = [",".join(HEADER),
             _comment(f"Cost Frontier cost profile '{profile.name}' ({profile.hardware}): ${rate:.6f} per GPU-hour "
                      "paid (every hour whether used or not); OpenCost adds idle cost itself"),
             _comment(f"purchase date {purchased.isoformat()}")]
    if breakdown is not None:
        r = profile.onprem.rate_pct / 100
        parts = "; ".join(f"{k} {v:.6f}" for k, v in breakdown.parts().items())
        lines += [_comment(f"depreciation {years:g} years at {profile.onprem.rate_pct:g} %/year cost of capital "
                           f"(CRF {breakdown.crf:.6f}/year) to {end.isoformat()}; $/GPU-hour by part: {parts}"),
                  _comment(f"capital {breakdown.capital_per_gpu:.2f} $/GPU repaid as below; the rate stays "
                           f"{rate:.6f} $/GPU-hour over the period (the annuity is level)")]
        for y in schedule(breakdown.capital_per_gpu, r, years, breakdown.crf, purchased):
            lines.append(_comment(f"year {y.year} {y.start.isoformat()} to {y.end.isoformat()}: capital "
                                  f"{y.payment / HOURS_PER_YEAR:.6f} $/GPU-hour ({y.payment:.2f} $/GPU = interest "
                                  f"{y.interest:.2f} + repaid {y.principal:.2f}); book value at the end "
                                  f"{max(y.book_value_end, 0.0):.2f} $/GPU"))
    else:
        lines.append(_comment("a plain rate: no build-up and no depreciation schedule"))
    lines.append(_comment(f"nodes: label {node_key}={node_value}; their GPUs: label {gpu_key}={gpu_value}; enable "
                          "with USE_CSV_PROVIDER=true and CSV_PATH"))
    ends = _stamp(end) if end else ""
    lines.append(",".join([ends, node_value, "", "node", f"metadata.labels.{node_key}", node_value, "0.0", VERSION]))
    lines.append(",".join([ends, gpu_value, "", "gpu", gpu_key, profile.hardware, _number(rate), VERSION]))
    return "\n".join(lines) + "\n"
