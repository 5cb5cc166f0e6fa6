"""What the report's workbook (:mod:`model.present.workbook`) is made of, apart from writing it: the plan of an
answer's formulas (:class:`WorkbookPlan`, :func:`plan_of`), the header lines saying what each sheet's formulas are
(:data:`FORMULAS`), a formula cell (:class:`F`), the build-up as formulas (:func:`build_up_formulas`) and the layout
constants the sheets share. Light: the report imports it without openpyxl, which only writing the workbook needs.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

__all__ = ["WorkbookPlan", "plan_of", "FORMULAS", "NUMBER_FORMATS", "HEADER_ROW", "F", "build_up_formulas",
           "PARTS_LAYOUT"]

#: the row of each sheet's table headers (data from the next row on)
HEADER_ROW = 4
#: how each column kind is shown (the report's rounding rule as an Excel number format)
NUMBER_FORMATS = {"usd": "[<0.1]0.000##;#,##0.00", "dollars": "#,##0", "x": "0.0", "tps": "#,##0.0",
                  "ratio": '0.00"x"', "int": "0", "share": "0.0%", "rps": "#,##0.0##", "plain": "0.0##"}
#: the header line of each sheet saying what its formulas are
FORMULAS = {
    "iso": "Formulas: $/M = $/GPU-hour / (tok/s/GPU × 3600) × 10^6 at each knot (the frontier points around the "
           "target, columns at the right), linear between them; rates on the Assumptions sheet.",
    "iso_monotone": "Formulas: $/M = $/GPU-hour / (tok/s/GPU × 3600) × 10^6, tok/s/GPU at the target from the "
                    "monotone cubic (a number); rates on the Assumptions sheet.",
    "frontier": "Formulas: $/GPU-hour from the Assumptions sheet; $/M = $/GPU-hour / (tok/s/GPU × 3600) × 10^6.",
    "parts": "Formulas of the build-up's inputs on the Assumptions sheet (model.core.tco.build_up).",
    "sensitivity": "Formulas: the effective rate with one input moved, ÷ (tok/s/GPU at x × 3600) × 10^6.",
    "fleet": "Formulas: GPUs = nodes × GPUs per node; IT power = GPUs × kW per GPU; facility power = IT power × PUE "
             "(fleet_pue on the Assumptions sheet, or a build-up's); $ per month = nodes × GPUs per node × $/GPU-hour "
             "paid × hours_per_month; rented on demand, following the load: mean nodes × GPUs per node × rent_<hardware> × "
             "hours_per_month; effective $/M = $ per month ÷ (tokens per month ÷ 10^6).",
    "volume": "Formulas: owned or rented $ per month = mean nodes × GPUs per node × $/GPU-hour (rate_<hardware>, a "
              "profile's full-use rate, or rent_<hardware>) × hours_per_month, and so within the capacity's ±; the "
              "API's $/M = (ISL × (1 − hit) × input + ISL × hit × cached + OSL × output) ÷ the tokens it counts, its "
              "$ per month = volume ÷ 10^6 × $/M; effective $/M = $ per month ÷ (volume ÷ 10^6). Rows in the order "
              "made (cheapest first at the rates as made).",
    "assumptions": "Change a rate or a build-up input in column B: every formula of the workbook follows.",
    "inputs": "The build-up's inputs as entered; the cells its formulas use are on the Assumptions sheet.",
    "values": "Values as made, at the rates on the Assumptions sheet when made (not recalculated from them).",
}


@dataclass(frozen=True)
class WorkbookPlan:
    """What the formulas need from an answer, besides the report's tables (built by :func:`plan_of`)."""

    tables: dict[str, tuple[pd.DataFrame, list]]    # name -> (unrounded frame, spec), the report's order
    rates: pd.DataFrame                             # the answer's rate table (model.present.rate_answer.RATE_COLUMNS)
    curves: dict                                    # series -> model.core.iso.CostCurve
    method: str
    baseline: str | None
    profiles: tuple = ()                            # model.present.parts.ProfileAnswer
    x: float | None = None                          # the interactivity you need [tok/s/user]
    volume: object = None                           # model.present.parts.VolumeAnswer, or None
    rent: tuple[tuple[str, float], ...] = ()        # the view's rented $/GPU-hour
    pue: float | None = None                        # the view's PUE (None: each build-up's, else 1)
    kw_per_gpu: tuple[tuple[str, float], ...] = ()  # the view's kW per GPU per hardware ("*": every other)
    sell: object = None                             # model.present.parts.SellAnswer, or None


def plan_of(answer, tables: dict[str, tuple[pd.DataFrame, list]]) -> WorkbookPlan:
    """The plan of ``answer``'s workbook; ``tables`` as :func:`model.present.tables.tables` gives them."""
    return WorkbookPlan(tables, answer.rates, answer.crossed.analysis.curves, answer.cost.method, answer.cost.baseline,
                        tuple(answer.profiles), answer.interactivity_needed,
                        answer.volume if "volume" in answer.ran else None, tuple(answer.view.rent),
                        answer.view.pue, tuple(answer.view.kw_per_gpu),
                        answer.sell if "sell" in answer.ran else None)


@dataclass(frozen=True)
class F:
    """A formula cell: its text (starting ``=``) and the product's value as its cached result."""

    text: str
    cached: float | None = None


def build_up_formulas(ref: dict[str, str]) -> dict[str, str]:
    """The build-up (:func:`model.core.tco.build_up`) as Excel expressions of the cells ``ref`` names (input name ->
    reference): ``capital_per_gpu``, ``crf``, the four parts, ``full_use`` and ``effective``, each self-contained."""
    r = f"({ref['rate_pct']}/100)"
    cpg = (f"(({ref['server_usd']}*(1+{ref['network_pct']}/100)+{ref['network_usd']}+{ref['install_usd']})"
           f"/{ref['gpus_per_node']})")
    crf = f"IF({r}>1E-12,{r}*(1+{r})^{ref['years']}/((1+{r})^{ref['years']}-1),1/{ref['years']})"
    capital = f"({cpg}*{crf}/hours_per_year)"
    power = f"IF({ref['colo_includes_power']},0,{ref['kw_per_gpu']}*{ref['pue']}*{ref['usd_per_kwh']})"
    facility = (f"({ref['kw_per_gpu']}*{ref['colo_usd_per_kw_month']}/hours_per_month+IF({ref['rack_usd_per_month']}>0,"
                f"{ref['rack_usd_per_month']}/({ref['nodes_per_rack']}*{ref['gpus_per_node']})/hours_per_month,0))")
    operations = (f"(({cpg}*{ref['maintenance_pct']}/100+{ref['licence_usd_per_gpu_year']}+IF("
                  f"{ref['staff_usd_per_year']}>0,{ref['staff_usd_per_year']}/{ref['fleet_gpus']},0))/hours_per_year)")
    full = f"({capital}+{power}+{facility}+{operations})"
    return {"capital_per_gpu": cpg, "crf": crf, "capital": capital, "power": power, "facility": facility,
            "operations": operations, "full_use": full, "effective": f"({full}/{ref['utilization']})"}


PARTS_LAYOUT = [("Profile", "profile", "text"), ("Capital [$/GPU-hour]", "capital", "usd"),
          ("Power [$/GPU-hour]", "power", "usd"), ("Facility [$/GPU-hour]", "facility", "usd"),
          ("Operations [$/GPU-hour]", "operations", "usd"), ("At full use [$/GPU-hour]", "full_use", "usd"),
          ("Utilisation", "utilization", "share"), ("Effective [$/GPU-hour]", "effective", "usd"),
          ("Capital per GPU [$]", "capital_per_gpu", "dollars"), ("CRF [1/year]", "crf", "ratio")]
