"""The inverse question of a view (issue 52; :attr:`model.present.parts.Answer.solve`):

- **under a $/M cap** (the view's ``max_usd_per_mtok``): per priced series, the highest interactivity whose $/M
  stays at or under the cap, read on its cost curve by the view's method and bisected (:mod:`model.core.solve`),
  with the range its band gives (where the band's high end reaches the cap, and where its low end does), and the
  highest overall;
- **the cheapest fleet meeting a rate, TTFT/TPOT percentiles and a budget** (a view with a demand, its SLA and
  optionally a money or power budget): per series, what one node carries at the best **measured** point meeting the
  SLA (:func:`model.present.fleet_answer.capacity_of`, the interactivity you need only where the view sets it) and the
  fleet for the demand (:func:`model.present.fleet_answer.fleet_of`), each held against the budget; the cheapest
  that meets everything, or "no measured configuration meets this". A measured point carries no interpolation ±.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from model.core.iso import cost_within
from model.core.solve import STATUS_WORDS, highest_at_or_under
from model.core.view import View
from model.present import fmt
from model.present.fleet_answer import capacity_of, fleet_of
from model.present.parts import SolveAnswer

__all__ = ["solve_of", "CAP_COLUMNS", "SLO_COLUMNS", "cap_table", "slo_table"]

CAP_COLUMNS = ["series", "hardware", "interactivity", "interactivity_low", "interactivity_high", "usd_per_mtok",
               "usd_per_gpu_hour", "status", "reached"]
SLO_COLUMNS = ["series", "hardware", "nodes", "gpus", "usd_per_month", "mw", "per_node_rps", "meets_budget",
               "capacity_from"]


def _under_cap(view: View, cost) -> tuple[pd.DataFrame, str]:
    cap = view.max_usd_per_mtok
    curves, method = cost.analysis.curves, cost.method
    rows = []
    for name in sorted(curves):         # every priced series has a curve (one without a rate has none)
        curve = curves[name]
        value = highest_at_or_under(lambda x, c=curve: cost_within(c, x, method), curve.x, cap)
        # the band's high end reaches the cap first (the range's low end), its low end last (its high end)
        low = highest_at_or_under(lambda x, c=curve: cost.uncertainty.band(c, x)[1], curve.x, cap)
        high = highest_at_or_under(lambda x, c=curve: cost.uncertainty.band(c, x)[0], curve.x, cap)
        x = value[0]
        rows.append({"series": name, "hardware": curve.hardware[0] if curve.hardware else None, "interactivity": x,
                     "interactivity_low": low[0] if value[1] != "none" else math.nan,
                     "interactivity_high": high[0] if high[1] != "none" else math.nan,
                     "usd_per_mtok": float(cost_within(curve, np.array([x]), method)[0]) if math.isfinite(x)
                     else math.nan, "usd_per_gpu_hour": float(curve.usd_per_gpu_hour[0]), "status": value[1],
                     "reached": STATUS_WORDS[value[1]]})
    frame = pd.DataFrame(rows, columns=CAP_COLUMNS)
    if not frame.empty:
        frame = frame.sort_values(["interactivity", "series"], ascending=[False, True], na_position="last",
                                  kind="stable").reset_index(drop=True)
    found = frame[frame["status"] != "none"]
    if frame.empty:
        return frame, f"No series in view has a cost curve to hold against {fmt.usd(cap)}."
    if found.empty:
        return frame, (f"No measured configuration meets {fmt.usd(cap)}: every series costs more at every "
                       "interactivity it was measured at.")
    best = found.iloc[0]
    return frame, (f"The highest interactivity at or under {fmt.usd(cap)}: {fmt.interactivity(best['interactivity'])} "
                   f"on {best['series']} ({_range(best)}; {best['reached']}).")


def _range(row) -> str:
    low, high = row["interactivity_low"], row["interactivity_high"]
    if not (math.isfinite(low) and math.isfinite(high)):
        return "no range estimated"
    if low == high == row["interactivity"]:
        return "measured: no ±"
    return f"{low:,.1f} to {high:,.1f} tok/s/user within the $/M band"


def _cheapest_fleet(view: View, rows, presets: pd.DataFrame, rates: pd.DataFrame) -> tuple[pd.DataFrame, str]:
    capacity = capacity_of(view, rows.points, rows.scenario.by, view.interactivity_needed)
    fleet = fleet_of(view, capacity, view.interactivity_needed, presets, rates)
    sized = fleet.sized if fleet is not None else pd.DataFrame()
    if sized.empty or "nodes" not in sized.columns:
        return pd.DataFrame(columns=SLO_COLUMNS), "No measured configuration meets this: nothing in view can be sized."
    sized = sized[sized["nodes"].notna() & (sized["nodes"] > 0)].copy()
    sized["mw"] = sized["facility_kw"] / 1000
    meets = pd.Series(True, index=sized.index)
    if view.budget_usd_month is not None:
        meets &= sized["usd_per_month"] <= view.budget_usd_month
    if view.budget_mw is not None:
        meets &= sized["mw"] <= view.budget_mw
    sized["meets_budget"] = meets
    frame = sized.sort_values("usd_per_month", kind="stable").reset_index(drop=True)[SLO_COLUMNS]
    need = f"{fleet.need} under SLA {fleet.sla}" + (f" at {fmt.interactivity(view.interactivity_needed)}" if
                                                    view.interactivity_needed is not None else "")
    budget = " and ".join(([f"${view.budget_usd_month:,.0f} a month"] if view.budget_usd_month is not None else [])
                          + ([f"{view.budget_mw:g} MW"] if view.budget_mw is not None else []))
    ok = frame[frame["meets_budget"]]
    if frame.empty:
        return frame, f"No measured configuration meets {need}."
    if ok.empty:
        best = frame.iloc[0]
        return frame, (f"No measured configuration meets {need} within {budget}: the cheapest, {best['series']}, "
                       f"needs {best['nodes']:,.0f} nodes, ${best['usd_per_month']:,.0f} a month and "
                       f"{best['mw']:,.3g} MW.")
    best = ok.iloc[0]
    return frame, (f"The cheapest measured configuration for {need}" + (f" within {budget}" if budget else "")
                   + f": {best['series']}, {fmt.count(int(best['nodes']), 'node')} ({best['gpus']:,.0f} GPUs), "
                   f"${best['usd_per_month']:,.0f} a month, {best['mw']:,.3g} MW (read at a measured point: no "
                   "interpolation ±).")


def solve_of(view: View, cost, rows, presets: pd.DataFrame, rates: pd.DataFrame) -> SolveAnswer | None:
    """Step ``solve``: the view's inverse questions (module docstring); None when it asks none (no cap, no demand)."""
    if view.max_usd_per_mtok is None and not view.has_demand:
        return None
    frame, text = _under_cap(view, cost) if view.max_usd_per_mtok is not None else \
        (pd.DataFrame(columns=CAP_COLUMNS), "")
    slo, slo_text = _cheapest_fleet(view, rows, presets, rates) if view.has_demand else (None, "")
    return SolveAnswer(view.max_usd_per_mtok, frame, text, slo, slo_text)


def cap_table(solve: SolveAnswer) -> pd.DataFrame:
    """The cap's answer as a person reads it: each series' highest interactivity under the cap with its range."""
    frame = solve.by_series
    return frame.assign(range=[_range(r) if r["status"] != "none" else "" for r in frame.to_dict("records")])


def slo_table(solve: SolveAnswer) -> pd.DataFrame:
    return solve.slo if solve.slo is not None else pd.DataFrame(columns=SLO_COLUMNS)
