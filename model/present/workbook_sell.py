"""The workbook's "Seller economics" sheet as formulas (issue 52): each row's inputs beside it (the throughput and
its range's ends, the API prices, the token mix, the licence fee, the utilisation, kW per GPU and PUE, the tokens sold
per token counted), the $/GPU-hour paid a reference to the Assumptions sheet (``rate_<hardware>`` owned,
``rent_<hardware>`` rented), and every figure a formula of them (:mod:`model.core.sell`):

- sale price = s × (c × cached + (1 − c) × input) + (1 − s) × output (s, c the shares, written in %);
- revenue at full use = tok/s/GPU × 3600 × sale price × tokens sold per token counted ÷ 10^6, revenue = that ×
  utilisation, licence = revenue × fee, profit = revenue × (1 − fee) − $/GPU-hour;
- break-even = $/GPU-hour ÷ (revenue at full use × (1 − fee)); GPUs per GW = 10^6 ÷ (kW × PUE); per GW-year ×
  GPUs per GW × hours_per_year; ±10 points: revenue at full use × the step × GPUs × hours (× (1 − fee) for profit);
- the fleet's $ a month: GPUs × hours_per_month × revenue (profit).
"""

from __future__ import annotations

import math

import pandas as pd
from openpyxl.utils import get_column_letter

from model.present.workbook_cells import HEADER_ROW, F

__all__ = ["SELL_FORMULAS", "sell_columns"]

SELL_FORMULAS = ("Formulas (model.core.sell): sale price of the token mix from the API prices; revenue = tok/s/GPU × "
                 "3600 × sale price × tokens sold per token counted ÷ 10^6 × utilisation; profit = revenue × (1 − "
                 "licence fee) − $/GPU-hour (rate_<hardware> or rent_<hardware>); break-even = $/GPU-hour ÷ (revenue "
                 "at full use × (1 − fee)); per GW-year × 10^6 ÷ (kW × PUE) × hours_per_year.")

#: the inputs written beside each row (header, column, kind)
_INPUTS = [("API $/M input", "api_input", "usd"), ("API $/M cached input", "api_cached", "usd"),
           ("API $/M output", "api_output", "usd"), ("Tokens sold per token counted", "sold_per_basis", "usd"),
           ("Licence fee [share]", "fee", "usd"), ("Utilisation [share]", "utilisation", "usd"),
           ("kW per GPU", "kw_per_gpu", "usd"), ("PUE", "pue", "usd")]


def _ok(value) -> bool:
    return value is not None and not isinstance(value, (bool, str)) and math.isfinite(float(value))


def sell_columns(frame: pd.DataFrame, spec, ctx, sell) -> list[tuple[str, str, list]]:
    """The sheet's columns (header, kind, cells); ``sell``: the answer's :class:`~model.present.sell_answer.
    SellAnswer` (its prices, fee, utilisation and PUE)."""
    prices = {p["model"]: p for p in sell.prices}
    frame = frame.assign(api_input=[prices[a]["usd_per_m_input"] for a in frame["api"]],
                         api_cached=[prices[a]["usd_per_m_cached_input"] for a in frame["api"]],
                         api_output=[prices[a]["usd_per_m_output"] for a in frame["api"]],
                         sold_per_basis=frame["usd_per_mtok_sold"] / frame["blended_usd_per_mtok"],
                         fee=sell.licence_fee, utilisation=sell.utilisation, pue=sell.pue)
    spec = list(spec) + _INPUTS
    c = {col: get_column_letter(j) for j, (_, col, _) in enumerate(spec, start=1)}
    cells = [list(frame[col]) for _, col, _ in spec]
    at = {col: j for j, (_, col, _) in enumerate(spec)}
    for i, rec in enumerate(frame.to_dict("records")):
        r = HEADER_ROW + 1 + i

        def put(column, text, value=None):
            cells[at[column]][i] = F("=" + text, rec.get(column) if value is None else value)

        def v(column):
            return f"{c[column]}{r}"

        if rec["option"] == "rented":
            rate = ctx.rent(rec["hardware"])
        else:        # the hardware's rate where it is the one paid (a build-up's effective rate is not)
            same = math.isclose(ctx.rate_values.get(str(rec["hardware"]), math.nan), rec["usd_per_gpu_hour"],
                                rel_tol=1e-9)
            rate = ctx.rate(rec["hardware"]) if same else None
        if rate is not None:
            put("usd_per_gpu_hour", rate)
        s, h, fee, u = f"({v('input_share_pct')}/100)", f"({v('cache_hit_pct')}/100)", v("fee"), v("utilisation")
        put("blended_usd_per_mtok", f"{s}*({h}*{v('api_cached')}+(1-{h})*{v('api_input')})+(1-{s})*{v('api_output')}")
        per = f"3600*{v('blended_usd_per_mtok')}*{v('sold_per_basis')}/1000000"
        put("gross_full_use", f"{v('tokens_per_second_per_gpu')}*{per}")
        put("revenue_per_gpu_hour", f"{v('gross_full_use')}*{u}")
        put("licence_usd_per_gpu_hour", f"{v('revenue_per_gpu_hour')}*{fee}")
        paid = v("usd_per_gpu_hour")
        put("profit_per_gpu_hour", f"{v('revenue_per_gpu_hour')}*(1-{fee})-{paid}")
        put("margin_pct", f"{v('profit_per_gpu_hour')}/{v('revenue_per_gpu_hour')}*100")
        put("break_even_pct", f"{paid}/({v('gross_full_use')}*(1-{fee}))*100")
        gw = f"{v('gpus_per_gw')}*hours_per_year/1000000000"
        put("gpus_per_gw", f"1000000/({v('kw_per_gpu')}*{v('pue')})")
        put("revenue_b", f"{v('revenue_per_gpu_hour')}*{gw}")
        put("profit_b", f"{v('profit_per_gpu_hour')}*{gw}")
        put("revenue_up_b", f"{v('gross_full_use')}*(MIN(1,{u}+0.1)-{u})*{gw}")
        put("profit_up_b", f"{v('revenue_up_b')}*(1-{fee})")
        put("profit_down_b", f"{v('gross_full_use')}*(MAX(0,{u}-0.1)-{u})*(1-{fee})*{gw}")
        if _ok(rec.get("fleet_gpus")):
            put("revenue_per_month", f"{v('fleet_gpus')}*hours_per_month*{v('revenue_per_gpu_hour')}")
            put("profit_per_month", f"{v('fleet_gpus')}*hours_per_month*{v('profit_per_gpu_hour')}")
        if not (_ok(rec.get("tokens_per_second_per_gpu_low")) and _ok(rec.get("tokens_per_second_per_gpu_high"))):
            continue
        for end, other in (("low", "high"), ("high", "low")):
            revenue = f"{v('tokens_per_second_per_gpu_' + end)}*{per}*{u}"
            put(f"revenue_per_gpu_hour_{end}", revenue)
            put(f"profit_per_gpu_hour_{end}", f"{v('revenue_per_gpu_hour_' + end)}*(1-{fee})-{paid}")
            # a higher throughput breaks even sooner: the range's bottom is read at the throughput's top
            put(f"break_even_{end}_pct", f"{paid}/({v('tokens_per_second_per_gpu_' + other)}*{per}*(1-{fee}))*100")
            put(f"revenue_b_{end}", f"{v('revenue_per_gpu_hour_' + end)}*{gw}")
            put(f"profit_b_{end}", f"{v('profit_per_gpu_hour_' + end)}*{gw}")
    return [(h, k, cells[j]) for j, (h, _, k) in enumerate(spec)]
