"""The bill by tenant of a view's planned fleet (issue 52; :attr:`model.present.parts.Answer.chargeback`).

The plan is the fleet the view's demand gets (:attr:`model.present.parts.Answer.fleet`), its cheapest sized
series (the one its headline names); its $ a month is split by the view's tenants (typed, or summed from a trace's
tenant, user or workload column) by the formula OpenCost proposes (:func:`model.core.chargeback.split_cost`), so the
tenants' $ a month add up to the fleet's to the cent, and the fleet's range (its capacity's ±) splits by the same
shares.
"""

from __future__ import annotations

import pandas as pd

from model.core.chargeback import SPLIT_COLUMNS, parse_tenants, split_cost
from model.core.demand import finite_number
from model.core.view import View
from model.present import fmt
from model.present.parts import ChargebackAnswer

__all__ = ["chargeback_of"]


def chargeback_of(view: View, fleet) -> ChargebackAnswer | None:
    """Step ``chargeback``: the view's tenants' part of its fleet's $ a month (None: no tenants, or no fleet sized
    for a demand)."""
    if not view.tenants or fleet is None or fleet.kind != "demand" or fleet.sized.empty:
        return None
    sized = fleet.sized[fleet.sized["nodes"].notna() & (fleet.sized["nodes"] > 0)
                        & fleet.sized["usd_per_month"].notna()]
    if sized.empty:
        return None
    best = sized.sort_values("usd_per_month", kind="stable").iloc[0]
    capacity = fleet.capacity            # what the fleet's tokens a month count (as the fleet step reads it)
    usable = capacity[capacity["per_node_rps"] > 0] if not capacity.empty else capacity
    basis = view.token_basis or (str(usable.iloc[0].get("basis") or "total") if not usable.empty else "total")
    basis = basis if basis in ("total", "output", "input") else "total"
    usd, tokens = float(best["usd_per_month"]), float(best["tokens_per_month"])
    low, high = finite_number(best.get("usd_per_month_low")), finite_number(best.get("usd_per_month_high"))
    rows, prices = split_cost(parse_tenants(view.tenants), usd, tokens, basis, view.w_input, view.w_cached, low, high)
    frame = pd.DataFrame(rows, columns=SPLIT_COLUMNS)
    if frame.empty:
        return None
    frame = frame.sort_values(["usd_per_month", "tenant"], ascending=[False, True], kind="stable").reset_index(drop=True)
    text = (f"The planned fleet ({best['series']}, ${usd:,.2f} a month) split by {fmt.count(len(frame), 'tenant')} "
            f"as OpenCost proposes (prompt tokens × input $/M + completion tokens × output $/M): input "
            f"{fmt.usd(prices['usd_per_m_input'])}, cached input {fmt.usd(prices['usd_per_m_cached_input'])}, output "
            f"{fmt.usd(prices['usd_per_m_output'])} (an input token {view.w_input:g} and a cached one {view.w_cached:g}"
            f" of an output token); the largest, {frame.iloc[0]['tenant']}, pays ${frame.iloc[0]['usd_per_month']:,.2f}"
            f" a month ({fmt.percent(frame.iloc[0]['share'], 1)}).")
    return ChargebackAnswer(str(best["series"]), usd, low, high, tokens, basis, prices, view.w_input, view.w_cached,
                            frame, text)
