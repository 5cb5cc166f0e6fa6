"""Sell: what each series' GPU earns selling tokens at an API price, at the interactivity you need: revenue and profit
per GPU-hour (owned, and rented where the view rents), break-even utilisation, per GW-year and ±10 points of
utilisation, each with the throughput's range (the answer's ``sell`` part, as ``costfrontier sell`` and the report)."""

import streamlit as st

from model.core.fleet import preset_kw_per_gpu
from model.present import fmt
from model.present.sell_report import SELL_TABLE
from model.present.tables import table_of
from ui import frame, numbers, report, sell, widgets
from ui.demand import kw_boxes
from ui.state import plain

ctx = frame.context()
st.title("Sell: what the hardware earns")
if widgets.no_data(ctx):
    st.stop()
answer_box = st.container()      # the answer first; the inputs that change it below
answer = ctx.answer("sell")
result = answer.sell
c1, c2, c3 = st.columns(3)
sell.api_boxes(c1, tuple(p.model for p in answer.inputs.api_prices))
numbers.field_box(c2, "input_share", placeholder="the workload's ISL ÷ (ISL + OSL)")
numbers.field_box(c2, "cache_hit", "Cached share of the input [0–1]", placeholder="the rows', else 0")
numbers.field_box(c3, "utilisation")
numbers.field_box(c3, "licence_fee")
kw_boxes(sorted(map(str, ctx.points["hardware"].dropna().unique())), preset_kw_per_gpu(ctx.presets, ctx.state.price_set))
numbers.field_box(st.columns(3)[0], "pue", placeholder="1")
with answer_box:
    (st.success if not result.rows.empty else st.info)(plain(result.headline))
    found = table_of(answer, SELL_TABLE)
    if not result.rows.empty:
        from model.present.sell_answer import shown_rows

        shown = shown_rows(result)
        widgets.spec_table(shown, [(c, c, "text") for c in shown.columns], key="sell_answer",
                           details=("Throughput [tok/s/GPU]", "Revenue per GW-year",
                                    "Profit, utilisation ±10 points [per GW-year]"))
for p in result.prices:
    st.caption(plain(f"Sold at {p['model']}: {fmt.usd(p['usd_per_m_input'])} input, "
                     f"{fmt.usd(p['usd_per_m_cached_input'])} cached input, {fmt.usd(p['usd_per_m_output'])} output "
                     f"({p['matched']}; read {p['read_on'] or 'on an unstated date'})."))
for note in result.notes:
    st.caption(plain(fmt.sentence(note)))
if found is not None:
    st.subheader("Every figure")
    widgets.spec_table(*found, key="sell_table")
    report.table_download(ctx, SELL_TABLE)
st.caption("Revenue per GPU-hour = tok/s/GPU × 3600 × sale price ÷ 10⁶ × utilisation; profit = revenue × (1 − licence "
           "fee) − the $/GPU-hour paid every hour (owned at the view's rate; rented at the rate set on Buy, rent or "
           "API); break-even utilisation = $/GPU-hour ÷ (revenue at full use × (1 − fee)); a GW feeds 10⁶ ÷ (kW per "
           "GPU × PUE) GPUs, 8,760 hours a year. Ranges in brackets: the throughput's, the $/M band at the "
           "interactivity you need inverted (none at a measured point). The report adds this section when the view "
           "sets a token mix, a licence fee or a utilisation.")
