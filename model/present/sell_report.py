"""The report's tables and sections of issue 52: the seller's economics, the highest interactivity under a $/M cap
(and the cheapest measured fleet under an SLO and a budget), and the planned fleet's cost by tenant.

Each table is a (frame, spec) as :func:`model.present.tables.tables` gives every table (so it goes into the report,
its CSV and XLSX downloads and the proposal bundle's figures, which ``verify`` recomputes); :func:`sell_sections`
gives the report's sections. A view asks for them by what it states (:func:`wanted_parts`): the seller's section
when it sets a token mix, a licence fee or a utilisation (the Sell page's controls), the cap's when it sets a cap,
the tenants' when it names tenants and a demand.
"""

from __future__ import annotations

import pandas as pd

from model.present import fmt

__all__ = ["SELL_TABLE", "CAP_TABLE", "SLO_TABLE", "CHARGEBACK_TABLE", "SELL_SPEC", "CAP_SPEC", "SLO_SPEC",
           "CHARGEBACK_SPEC", "ROW_KEYS", "TABLE_PARTS", "wants_sell", "wanted_parts", "issue52_tables",
           "sell_frame", "sell_sections", "SECTION_IDS"]

SELL_TABLE = "Seller economics"
CAP_TABLE = "Highest interactivity under the $/M cap"
SLO_TABLE = "Cheapest measured fleet under the SLA and budget"
CHARGEBACK_TABLE = "Chargeback by tenant"
#: the columns that tell the rows of each table apart (model.present.bundle.ROW_KEYS)
ROW_KEYS = {SELL_TABLE: ("series", "option")}
#: the parts each table reads (model.present.tables.TABLE_PARTS)
TABLE_PARTS = {SELL_TABLE: ("sell",), CAP_TABLE: ("solve",), SLO_TABLE: ("solve",), CHARGEBACK_TABLE: ("chargeback",)}
#: the HTML id of each section (model.present.report_sections.SECTION_IDS)
SECTION_IDS = {"Seller economics": "sell-section", "Under a $/M cap": "solve-section", "Chargeback": "chargeback-section"}

_B = "[$ B per GW-year]"
SELL_SPEC = [("Series", "series", "text"), ("Paid as", "option", "text"),
             ("$/GPU-hour paid", "usd_per_gpu_hour", "usd"), ("Throughput [tok/s/GPU]", "tokens_per_second_per_gpu", "tps"),
             ("Throughput, range's bottom", "tokens_per_second_per_gpu_low", "tps"),
             ("Throughput, range's top", "tokens_per_second_per_gpu_high", "tps"),
             ("API sold at", "api", "text"), ("Input share [%]", "input_share_pct", "x"),
             ("Cache hits [%]", "cache_hit_pct", "x"), ("Sale price [$/M tokens sold]", "blended_usd_per_mtok", "usd"),
             ("Revenue at full use [$/GPU-hour]", "gross_full_use", "usd"),
             ("Revenue [$/GPU-hour]", "revenue_per_gpu_hour", "usd"),
             ("Revenue, range's bottom", "revenue_per_gpu_hour_low", "usd"),
             ("Revenue, range's top", "revenue_per_gpu_hour_high", "usd"),
             ("Licence fee [$/GPU-hour]", "licence_usd_per_gpu_hour", "usd"),
             ("Profit [$/GPU-hour]", "profit_per_gpu_hour", "usd"),
             ("Profit, range's bottom", "profit_per_gpu_hour_low", "usd"),
             ("Profit, range's top", "profit_per_gpu_hour_high", "usd"), ("Margin [%]", "margin_pct", "x"),
             ("Break-even utilisation [%]", "break_even_pct", "x"),
             ("Break-even, range's bottom [%]", "break_even_low_pct", "x"),
             ("Break-even, range's top [%]", "break_even_high_pct", "x"), ("kW per GPU (all-in)", "kw_text", "text"),
             ("GPUs per GW", "gpus_per_gw", "int"), (f"Revenue {_B}", "revenue_b", "usd"),
             ("Revenue per GW-year, range's bottom", "revenue_b_low", "usd"),
             ("Revenue per GW-year, range's top", "revenue_b_high", "usd"), (f"Profit {_B}", "profit_b", "usd"),
             ("Profit per GW-year, range's bottom", "profit_b_low", "usd"),
             ("Profit per GW-year, range's top", "profit_b_high", "usd"),
             (f"Revenue, utilisation +10 points {_B}", "revenue_up_b", "usd"),
             (f"Profit, utilisation +10 points {_B}", "profit_up_b", "usd"),
             (f"Profit, utilisation −10 points {_B}", "profit_down_b", "usd"),
             ("GPUs of the sized fleet", "fleet_gpus", "int"), ("Fleet revenue [$ per month]", "revenue_per_month", "dollars"),
             ("Fleet profit [$ per month]", "profit_per_month", "dollars"), ("Range from", "error_from", "text")]
CAP_SPEC = [("Series", "series", "text"), ("Highest interactivity [tok/s/user]", "interactivity", "x"),
            ("Range's bottom [tok/s/user]", "interactivity_low", "x"),
            ("Range's top [tok/s/user]", "interactivity_high", "x"), ("$/M tokens there", "usd_per_mtok", "usd"),
            ("$/GPU-hour", "usd_per_gpu_hour", "usd"), ("Reached", "reached", "text")]
SLO_SPEC = [("Series", "series", "text"), ("Nodes", "nodes", "int"), ("GPUs", "gpus", "int"),
            ("$ per month", "usd_per_month", "dollars"), ("Facility power [kW]", "facility_kw", "tps"),
            ("Per node [req/s]", "per_node_rps", "x"), ("Within the budget", "meets", "text"),
            ("Capacity from", "capacity_from", "text")]
CHARGEBACK_SPEC = [("Tenant", "tenant", "text"), ("Input tokens a month", "input_tokens", "tps"),
                   ("Cached input tokens a month", "cached_input_tokens", "tps"),
                   ("Output tokens a month", "output_tokens", "tps"), ("Share of the cost [%]", "share_pct", "x"),
                   ("$ per month", "usd_per_month", "usd"), ("$/M tokens", "usd_per_mtok", "usd"),
                   ("$ per month, fleet's range bottom", "usd_per_month_low", "usd"),
                   ("$ per month, fleet's range top", "usd_per_month_high", "usd")]

#: the view's sell fields at their defaults (model.core.view_fields)
_SELL_DEFAULTS = {"input_share": None, "licence_fee": 0.0, "utilisation": 0.6}


def wants_sell(view) -> bool:
    """Whether the view asks for the seller's section: it sets a token mix, a licence fee or a utilisation."""
    return any(getattr(view, k) != v for k, v in _SELL_DEFAULTS.items())


def wanted_parts(view) -> tuple[str, ...]:
    """The parts of issue 52 a view's report renders (module docstring)."""
    return (*(("sell",) if wants_sell(view) else ()), *(("solve",) if view.max_usd_per_mtok is not None else ()),
            *(("chargeback",) if view.tenants and view.has_demand else ()))


def sell_frame(sell) -> pd.DataFrame:
    """:attr:`SellAnswer.rows` with the columns the table shows: shares in %, GW-year money in $ B."""
    r = sell.rows
    return r.assign(input_share_pct=r["input_share"] * 100, cache_hit_pct=r["cache_hit"] * 100,
                    margin_pct=r["margin"] * 100, break_even_pct=r["break_even_utilisation"] * 100,
                    break_even_low_pct=r["break_even_utilisation_low"] * 100,
                    break_even_high_pct=r["break_even_utilisation_high"] * 100,
                    kw_text=[f"{v:g}" if v == v else "not stated" for v in r["kw_per_gpu"]],
                    revenue_b=r["revenue_per_gw_year"] / 1e9, revenue_b_low=r["revenue_per_gw_year_low"] / 1e9,
                    revenue_b_high=r["revenue_per_gw_year_high"] / 1e9, profit_b=r["profit_per_gw_year"] / 1e9,
                    profit_b_low=r["profit_per_gw_year_low"] / 1e9, profit_b_high=r["profit_per_gw_year_high"] / 1e9,
                    revenue_up_b=r["revenue_up"] / 1e9, profit_up_b=r["profit_up"] / 1e9,
                    profit_down_b=r["profit_down"] / 1e9)


def issue52_tables(answer) -> dict[str, tuple[pd.DataFrame, list]]:
    """The tables of the parts the answer ran (each only where it has rows), in the report's order."""
    out: dict[str, tuple[pd.DataFrame, list]] = {}
    sell = answer.sell if "sell" in answer.ran else None
    if sell is not None and wants_sell(answer.view) and not sell.rows.empty:
        out[SELL_TABLE] = (sell_frame(sell), SELL_SPEC)
    solve = answer.solve if "solve" in answer.ran else None
    if solve is not None and solve.cap is not None and not solve.by_series.empty:
        out[CAP_TABLE] = (solve.by_series, CAP_SPEC)
    if solve is not None and solve.cap is not None and solve.slo is not None and not solve.slo.empty:
        slo = solve.slo
        out[SLO_TABLE] = (slo.assign(facility_kw=slo["mw"] * 1000,
                                     meets=["yes" if m else "no" for m in slo["meets_budget"]]), SLO_SPEC)
    chargeback = answer.chargeback if "chargeback" in answer.ran else None
    if chargeback is not None:
        out[CHARGEBACK_TABLE] = (chargeback.rows.assign(share_pct=chargeback.rows["share"] * 100), CHARGEBACK_SPEC)
    return out


def sell_sections(answer, section, tables) -> list:
    """The report's sections of issue 52 (``section``: :class:`model.present.report.ReportSection`; ``tables``: the
    answer's tables, :func:`issue52_tables`)."""
    out = []
    sell = answer.sell if "sell" in answer.ran else None
    if sell is not None and wants_sell(answer.view):
        text = [sell.headline,
                "Revenue per GPU-hour = tok/s/GPU × 3600 × the sale price ÷ 10^6 × utilisation; profit = revenue × (1 − "
                "licence fee) − the $/GPU-hour paid every hour; break-even utilisation = $/GPU-hour ÷ (revenue at full "
                "use × (1 − licence fee)); per GW-year: 10^6 ÷ (kW per GPU × PUE) GPUs × 8,760 hours. Each range is the "
                "throughput's, the $/M band at the interactivity you need inverted.",
                *(f"Sold at {p['model']}: {fmt.usd(p['usd_per_m_input'])} input, {fmt.usd(p['usd_per_m_cached_input'])}"
                  f" cached input, {fmt.usd(p['usd_per_m_output'])} output ({p['matched']}; read "
                  f"{p['read_on'] or 'on an unstated date'})." for p in sell.prices),
                *(fmt.sentence(n) for n in sell.notes)]
        out.append(section("Seller economics", tuple(text), {k: tables[k] for k in (SELL_TABLE,) if k in tables}))
    solve = answer.solve if "solve" in answer.ran else None
    if solve is not None and solve.cap is not None:
        text = [solve.cap_text, *([solve.slo_text] if solve.slo is not None else [])]
        out.append(section("Under a $/M cap", tuple(text), {k: tables[k] for k in (CAP_TABLE, SLO_TABLE)
                                                              if k in tables}))
    chargeback = answer.chargeback if "chargeback" in answer.ran else None
    if chargeback is not None:
        total = chargeback.rows["usd_per_month"].sum()
        out.append(section("Chargeback", (chargeback.text, f"The tenants' $ a month add up to the fleet's: "
                                                           f"${total:,.2f}."),
                           {k: tables[k] for k in (CHARGEBACK_TABLE,) if k in tables}))
    return out
