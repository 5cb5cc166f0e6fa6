"""TCO rates: every hardware's $/GPU-hour in one editable table, beside its preset."""

from datetime import date

import pandas as pd
import streamlit as st

from model.core.dated import age_days, is_old, read_on_text
from model.present import fmt
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
profiles = {p.name: p for p in ctx.state.cost_profiles()}
by_hw = {}      # the answer's rate row of each hardware (a profile's row names the profile: its hardware's row)
for r in answer.rates.to_dict("records"):
    hw = profiles[r["profile"]].hardware if r["profile"] in profiles else r["hardware"]
    by_hw.setdefault(str(hw).lower(), r)
today, limit = date.today(), ctx.state.price_stale_days


def _of(hw: str, column: str):
    row = by_hw.get(hw.lower())
    value = row.get(column) if row is not None else None
    return None if value is None or value != value else value


rows = pd.DataFrame({"hardware": in_view, "preset $/GPU-hour": [_of(hw, "preset_usd_per_gpu_hour") for hw in in_view],
                     # a profile's rate to the cent (read-only here); a typed rate as typed
                     "your $/GPU-hour": [fmt.usd(_of(hw, "usd_per_gpu_hour"), "") if _of(hw, "profile") else
                                         numbers.shown(_of(hw, "usd_per_gpu_hour")) for hw in in_view],
                     "all-in kW/GPU": [_of(hw, "all_in_kw_per_gpu") for hw in in_view],
                     "preset read on": [read_on_text(_of(hw, "preset_read_on")) for hw in in_view],
                     "old": [f"old: {age_days(_of(hw, 'preset_read_on'), today)} days"
                             if is_old(_of(hw, "preset_read_on"), today, limit) else "" for hw in in_view]})
profiled = {hw: _of(hw, "profile") for hw in in_view}
if any(profiled.values()):   # which profile prices a row: its rate is the profile's, not edited here
    rows["priced by"] = [f"cost profile '{profiled[hw]}' (read-only)" if profiled[hw] else "" for hw in in_view]
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
