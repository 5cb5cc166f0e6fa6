"""TCO rates: every hardware's $/GPU-hour in one editable table, beside its preset."""

from datetime import date

import streamlit as st

from model.present import fmt
from model.present.rate_answer import rates_in_view
from ui import frame, numbers, sidebar, widgets
from ui.state import plain

ctx = frame.context()
st.title("TCO rates")
st.caption("All-in $ per GPU-hour. Edit here or in the sidebar: every page re-prices at once. Any rate from $0.0001 "
           "to $1,000 is taken as typed (1,48 and 1.48 are both $1.48); one more than 5× or less than 1/5 of its "
           "preset is applied once you confirm it. A hardware a cost profile prices shows the profile's rate, "
           "read-only: change it on the TCO builder page.")
answer = ctx.answer("rates")
in_view = sorted(ctx.points["hardware"].dropna().unique()) if not ctx.points.empty else []
today, limit = date.today(), ctx.state.price_stale_days
rows = rates_in_view(answer.rates, in_view, {p.name: p for p in ctx.state.cost_profiles()}, today, limit)
profiled = rows["priced by"] != ""
# a profile's rate to the cent (read-only here); a typed rate as typed
rows["your $/GPU-hour"] = [fmt.usd(v, "") if p else numbers.shown(v) for v, p in zip(rows["your $/GPU-hour"], profiled)]
if not profiled.any():          # which profile prices a row: said only where one does
    rows = rows.drop(columns="priced by")
chosen = ctx.presets[(ctx.presets["price_set"] == ctx.state.price_set) & (ctx.presets["tier"] == ctx.state.tier)]
# the editor's key changes with every accepted or refused edit, so it always shows the rates in force
edits = st.session_state.setdefault("_rates_table_edits", 0)


def _on_edit() -> None:
    changed = st.session_state[f"rates_table_{edits}"].get("edited_rows", {})
    for index, change in changed.items():
        if "your $/GPU-hour" in change and int(index) < len(in_view):
            typed = change["your $/GPU-hour"]
            sidebar.set_rate(in_view[int(index)], "" if typed is None else str(typed))
    st.session_state["_rates_table_edits"] = edits + 1


for note in answer.old_notes(today) if in_view else []:
    st.warning(plain(f"Old default: {note}. Check the price, or type your own rate."))
for hw in in_view:
    numbers.confirm_box(st, f"rate::{hw}", "page:")
if in_view:
    st.data_editor(rows, key=f"rates_table_{edits}", hide_index=True, width="stretch", on_change=_on_edit,
                   disabled=[c for c in rows.columns if c != "your $/GPU-hour"],
                   column_config={"your $/GPU-hour": st.column_config.TextColumn(
                       help="Type a $/GPU-hour: 1.48 or 1,48. Empty: the preset."),
                                  "preset $/GPU-hour": st.column_config.NumberColumn(format="$%.2f")})
else:
    st.info("No hardware in view.")
st.button("Reset to preset", on_click=sidebar.reset_rates, key="reset_rates")
with st.expander(f"All presets in {ctx.state.price_set} / {ctx.state.tier}"):
    widgets.table(chosen.rename(columns={"usd_per_gpu_hour": "usd_per_gpu_hour_preset"}))
st.caption("Presets: SemiAnalysis AI Cloud TCO Model (2025-08 as used by InferenceX; 2026-07 market survey); 2026-09: "
           "VR200, TPU7x and RTX PRO 6000 from the InferenceX-app GPU registry and pull requests. Each rate carries the "
           f"date it was read; one read more than {limit:,} days ago is flagged as old (set the limit in the link, "
           "pstale=, or --price-stale-days).")
