"""The seller's side of a view (issue 52): what each series' GPU earns selling tokens at an API price, at the
interactivity you need (:attr:`model.present.parts.Answer.sell`).

:func:`sell_of` reads, per priced series at the interactivity you need, its throughput and the range its $/M's band
gives it (the throughput's range is the $/M range inverted: :func:`model.core.sell.throughput_band`), the API price it
sells at (typed, chosen, or the stored price matched by its model's name: :func:`model.present.volume_answer.
api_price_of`) and the token mix (input share and cache hits: typed, else the view's trace, else the workload's ISL
and OSL and the rows' prefix-cache hit rate), and prices it owned (its $/GPU-hour at full use) and rented (the
view's rented rate for its hardware) with :func:`model.core.sell.economics`. The page, ``costfrontier sell``, the
report and the workbook render this.
"""

from __future__ import annotations

import math

import pandas as pd

from model.core.demand import finite_number
from model.core.fleet import overridden
from model.core.sell import (
    HOURS_PER_MONTH,
    SalePrice,
    blended_usd_per_mtok,
    economics,
    sold_per_basis_token,
    throughput_band,
)
from model.core.status import PRICED
from model.core.trace import Trace
from model.core.view import View
from model.present import fmt
from model.present.parts import SellAnswer
from model.present.volume_answer import api_price_of, cache_hit_of

__all__ = ["sell_of", "SELL_COLUMNS", "RANGED", "shown_rows", "SHOWN_COLUMNS"]

#: the figures that carry the throughput's range (``*_low``, ``*_high`` beside each)
RANGED = ("tokens_per_second_per_gpu", "revenue_per_gpu_hour", "profit_per_gpu_hour", "break_even_utilisation",
          "revenue_per_gw_year", "profit_per_gw_year")
#: the columns of :attr:`SellAnswer.rows`
SELL_COLUMNS = ["series", "option", "hardware", "usd_per_gpu_hour", "tokens_per_second_per_gpu", "basis",
                "input_share", "cache_hit", "api", "blended_usd_per_mtok", "usd_per_mtok_sold", "gross_full_use",
                "revenue_per_gpu_hour", "licence_usd_per_gpu_hour", "profit_per_gpu_hour", "margin",
                "break_even_utilisation", "kw_per_gpu", "gpus_per_gw", "gpu_hours_per_gw_year", "revenue_per_gw_year",
                "profit_per_gw_year", "revenue_per_mw_year", "profit_per_mw_year", "revenue_up", "profit_up",
                "revenue_down", "profit_down", "fleet_gpus", "revenue_per_month", "profit_per_month",
                *(f"{c}_{end}" for c in RANGED for end in ("low", "high")), "range", "error_from"]


def _mix(view: View, part: pd.DataFrame) -> tuple[float, str, float, str]:
    """(input share, where from, cache-hit rate, where from) of one series' tokens sold."""
    hit, hit_from = cache_hit_of(view, part)
    if view.input_share is not None:
        return view.input_share, "set in this view", hit, hit_from
    if view.trace:
        try:
            trace = Trace.from_text(view.trace)
            isl, osl = trace.mean_isl, trace.mean_osl
            if isl + osl > 0:
                return isl / (isl + osl), "the view's request trace", hit, hit_from
        except (ValueError, AttributeError):
            pass                  # a stored trace's reference: the workload's ISL and OSL below
    isl = finite_number(part["isl"].dropna().iloc[0]) if "isl" in part and part["isl"].notna().any() else math.nan
    osl = finite_number(part["osl"].dropna().iloc[0]) if "osl" in part and part["osl"].notna().any() else math.nan
    if math.isfinite(isl) and math.isfinite(osl) and isl + osl > 0:
        return isl / (isl + osl), f"the workload's ISL {isl:,.0f} ÷ (ISL + OSL {osl:,.0f})", hit, hit_from
    return math.nan, "not known: the rows state no ISL and OSL; type the input share", hit, hit_from


def _rate(rates: pd.DataFrame, hardware, series: str) -> float:
    """The full-use $/GPU-hour of ``series``: the rate row of the cost profile its label names, else its hardware's
    (an owned GPU-hour is paid whether it sells or not, so never the rate divided by a build-up's utilisation)."""
    rows = rates[rates["hardware"].astype(str).str.lower() == str(hardware).lower()] if not rates.empty else rates
    if rows.empty:
        return math.nan
    named = [r for r in rows.to_dict("records") if isinstance(r.get("profile"), str) and r["profile"]
             and r["profile"] in series]
    plain = [r for r in rows.to_dict("records") if not (isinstance(r.get("profile"), str) and r["profile"])]
    return finite_number((named or plain or rows.to_dict("records"))[0]["usd_per_gpu_hour_full_use"])


def _kw(view: View, rates: pd.DataFrame, hardware) -> float:
    own = overridden(dict(view.kw_per_gpu), hardware)      # the view's for this hardware, else its "*"
    if own is not None:
        return own
    rows = rates[rates["hardware"].astype(str).str.lower() == str(hardware).lower()] if not rates.empty else rates
    return finite_number(rows.iloc[0].get("all_in_kw_per_gpu")) if not rows.empty else math.nan


def _fleet_gpus(fleet) -> dict[str, float]:
    if fleet is None or fleet.sized.empty or "gpus" not in fleet.sized.columns:
        return {}
    sized = fleet.sized[fleet.sized["gpus"].notna()]
    return dict(zip(sized["series"], sized["gpus"].astype(float)))


def sell_of(view: View, cost, rates: pd.DataFrame, prices: list, fleet=None) -> SellAnswer:
    """Step ``sell``: the seller's economics of every priced series of ``cost`` (:class:`model.present.answer_steps.
    Cost`) at its interactivity you need (module docstring). ``rates``: the answer's rate table (full-use
    $/GPU-hour, all-in kW per GPU); ``prices``: the stored API prices; ``fleet``: the sized fleet, if any (its GPUs
    give each series' $ a month)."""
    x, notes = cost.interactivity_needed, []
    at = cost.at_x[cost.at_x["status"].isin(PRICED)] if not cost.at_x.empty else cost.at_x
    frontier = cost.analysis.frontier
    basis = cost.analysis.scenario.basis
    pue = view.pue if view.pue is not None else 1.0
    gpus = _fleet_gpus(fleet)
    rows, sold_at = [], {}
    for r in at.to_dict("records") if x is not None else []:
        series, hw = str(r["series"]), r.get("hardware")
        part = frontier[frontier["series"] == series] if not frontier.empty else frontier
        price, matched, said = api_price_of(view, part, prices)
        notes.extend(f"{series}: {n}" for n in said)
        share, share_from, hit, hit_from = _mix(view, part)
        if price is None or not math.isfinite(share):
            if not math.isfinite(share):
                notes.append(f"{series}: the input share is {share_from}")
            continue
        blended = blended_usd_per_mtok(SalePrice(price.usd_input, price.cached, price.usd_output), share, hit)
        per_basis = blended * sold_per_basis_token(basis, share, hit, view.w_input, view.w_cached)
        sold_at[price.model] = {"model": price.model, "provider": price.provider, "matched": matched,
                                "usd_per_m_input": price.usd_input, "usd_per_m_cached_input": price.cached,
                                "usd_per_m_output": price.usd_output,
                                "read_on": price.read_on.isoformat() if price.read_on else None,
                                "source": price.source}
        tps, usd = float(r["tokens_per_second_per_gpu"]), float(r["usd_per_mtok"])
        low, high = finite_number(r.get("usd_per_mtok_low")), finite_number(r.get("usd_per_mtok_high"))
        tps_low, tps_high = throughput_band(tps, usd, low, high)
        kw = _kw(view, rates, hw)
        if not math.isfinite(kw):
            notes.append(f"{series}: the price set states no all-in kW per GPU for {hw}, so nothing is given per GW "
                         "or MW; type it (kW per GPU, --kw-per-gpu)")
        owned = _rate(rates, hw, series)
        ways = [("owned", owned if math.isfinite(owned) else float(r["usd_per_gpu_hour"]))]
        ways += [("rented", float(rate)) for h, rate in view.rent if h.lower() == str(hw).lower()]
        for option, rate in ways:
            e = economics(tps, per_basis, view.utilisation, view.licence_fee, rate, kw, pue)
            ends = [economics(t, per_basis, view.utilisation, view.licence_fee, rate, kw, pue)
                    if math.isfinite(t) else None for t in (tps_low, tps_high)]
            row = {"series": series, "option": option, "hardware": hw, "usd_per_gpu_hour": rate,
                   "tokens_per_second_per_gpu": tps, "basis": basis, "input_share": share, "cache_hit": hit,
                   "api": price.model, "blended_usd_per_mtok": blended, "usd_per_mtok_sold": per_basis,
                   **{k: v for k, v in e.as_dict().items() if k not in ("kept", "cost", "revenue", "profit")},
                   "revenue_per_gpu_hour": e.revenue, "licence_usd_per_gpu_hour": e.revenue - e.kept,
                   "profit_per_gpu_hour": e.profit, "kw_per_gpu": kw,
                   "revenue_per_mw_year": e.revenue_per_gw_year / 1000, "profit_per_mw_year": e.profit_per_gw_year / 1000,
                   "fleet_gpus": gpus.get(series, math.nan),
                   "revenue_per_month": gpus.get(series, math.nan) * HOURS_PER_MONTH * e.revenue,
                   "profit_per_month": gpus.get(series, math.nan) * HOURS_PER_MONTH * e.profit,
                   "error_from": r.get("error_from") or "", "input_share_from": share_from, "cache_hit_from": hit_from}
            row["tokens_per_second_per_gpu_low"], row["tokens_per_second_per_gpu_high"] = tps_low, tps_high
            for name, attr in (("revenue_per_gpu_hour", "revenue"), ("profit_per_gpu_hour", "profit"),
                               ("break_even_utilisation", "break_even_utilisation"),
                               ("revenue_per_gw_year", "revenue_per_gw_year"),
                               ("profit_per_gw_year", "profit_per_gw_year")):
                values = [getattr(end, attr) for end in ends if end is not None]
                row[f"{name}_low"] = min(values) if len(values) == 2 else math.nan
                row[f"{name}_high"] = max(values) if len(values) == 2 else math.nan
            row["range"] = fmt.band(e.revenue, row["revenue_per_gpu_hour_low"], row["revenue_per_gpu_hour_high"],
                                    "measured" if r.get("status") == "measured" else "")
            rows.append(row)
    frame = pd.DataFrame(rows, columns=[*SELL_COLUMNS, "input_share_from", "cache_hit_from"])
    if not frame.empty:
        frame = frame.sort_values("profit_per_gpu_hour", ascending=False, kind="stable").reset_index(drop=True)
    if x is None:
        notes.append("no interactivity you need: no series is priced there")
    return SellAnswer(x, view.utilisation, view.licence_fee, pue, frame, tuple(sold_at.values()),
                      _headline(frame, x, view), tuple(dict.fromkeys(notes)))


def _headline(rows: pd.DataFrame, x: float | None, view: View) -> str:
    if rows.empty:
        return "No series in view can be priced as sold: it needs an API price (stored, chosen or typed) and a " \
               "token mix."
    best = rows.iloc[0]
    text = (f"At {fmt.interactivity(x)}, {fmt.percent(view.utilisation)} utilisation and a "
            f"{fmt.percent(view.licence_fee)} licence fee, {best['series']} ({best['option']} at "
            f"{fmt.usd(best['usd_per_gpu_hour'], '/GPU-hour')}) sells {best['api']} at "
            f"{fmt.usd(best['blended_usd_per_mtok'])} blended: {fmt.usd(best['revenue_per_gpu_hour'], '')} revenue and "
            f"{fmt.usd(best['profit_per_gpu_hour'], '')} profit per GPU-hour ({best['range']}, the throughput's "
            f"range), {fmt.percent(best['margin'], 1)} margin, break-even at {fmt.percent(best['break_even_utilisation'], 1)}"
            " utilisation")
    if math.isfinite(best["gpus_per_gw"]):
        text += (f"; ${best['revenue_per_gw_year'] / 1e9:,.1f} B revenue and ${best['profit_per_gw_year'] / 1e9:,.1f} B "
                 "profit per GW-year")
    return text + "."


#: the columns of the table a person reads (:func:`shown_rows`)
SHOWN_COLUMNS = ["Series", "Paid as", "$/GPU-hour", "Throughput [tok/s/GPU]", "Revenue per GPU-hour",
                 "Profit per GPU-hour", "Margin", "Break-even utilisation", "Revenue per GW-year", "Profit per GW-year",
                 "Profit, utilisation ±10 points [per GW-year]"]


def _billions(value) -> str:
    return "—" if not math.isfinite(value) else f"{'−' if value < 0 else ''}${abs(value) / 1e9:,.2f} B"


def _money(value) -> str:
    return f"{'−' if value < 0 else ''}${abs(value):,.2f}"


def _ranged(value, low, high, say) -> str:
    if not (math.isfinite(low) and math.isfinite(high)):
        return f"{say(value)} (± ?)"
    if low == high == value:
        return say(value)
    return f"{say(value)} ({say(low)} to {say(high)})"


def shown_rows(sell: SellAnswer) -> pd.DataFrame:
    """The rows as a person reads them (:data:`SHOWN_COLUMNS`): each figure with the range the throughput's band
    gives it in brackets (none at a measured point, ``± ?`` where no band is estimated)."""
    out = []
    for r in sell.rows.to_dict("records"):
        out.append([r["series"], r["option"], fmt.usd(r["usd_per_gpu_hour"], ""),
                    _ranged(r["tokens_per_second_per_gpu"], r["tokens_per_second_per_gpu_low"],
                            r["tokens_per_second_per_gpu_high"], lambda v: f"{v:,.0f}"),
                    _ranged(r["revenue_per_gpu_hour"], r["revenue_per_gpu_hour_low"], r["revenue_per_gpu_hour_high"],
                            _money),
                    _ranged(r["profit_per_gpu_hour"], r["profit_per_gpu_hour_low"], r["profit_per_gpu_hour_high"],
                            _money),
                    fmt.percent(r["margin"], 1),
                    _ranged(r["break_even_utilisation"], r["break_even_utilisation_low"],
                            r["break_even_utilisation_high"], lambda v: fmt.percent(v, 1)),
                    _billions(r["revenue_per_gw_year"]), _billions(r["profit_per_gw_year"]),
                    f"+{_billions(r['profit_up'])} / −{_billions(-r['profit_down'])}"])
    return pd.DataFrame(out, columns=SHOWN_COLUMNS)
