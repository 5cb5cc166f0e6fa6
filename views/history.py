"""History: each series' $/M at the interactivity you need, run date by run date, and the best so far."""

import streamlit as st

from model.present import figures, fmt
from model.present.fmt import for_people
from ui import data, frame, widgets
from ui.state import bind, plain

ctx = frame.context()
st.title("History by run date")
st.caption("For every run date: each series' $/M at the interactivity you need from that date's runs alone "
           "(markers), and the best so far, the frontier of every run on or before that date, as 'As of' that "
           "date gives it (a staircase that never rises). Rows that state no run date are left out, never dated.")
if widgets.no_data(ctx):
    st.stop()
answer = ctx.answer("history")
x = answer.interactivity_needed
if x is not None:
    span = answer.cost.x_range      # None when no series has a cost curve: the box offers the field's declared range
    bind(st.number_input, "interactivity_needed", "Interactivity you need [tok/s/user]", step=1.0,
         **({"min_value": float(span[0]), "max_value": float(span[1])} if span else {}),
         to_widget=lambda v: float(x), format="%.1f")
table = answer.history.table
for note in answer.history.notes:
    st.warning(plain(fmt.sentence(note)))
if x is None or table.empty:
    st.info("No dated runs of a priced series in this view: nothing to show by run date.")
else:
    st.plotly_chart(data.per_view(ctx, "history_figure", lambda: figures.on_good_tokens(
        figures.history_figure(table, x), answer.rows.good.caps)), width="stretch",
                    key="history_chart")
    st.markdown(f"**$ per million tokens at {plain(fmt.interactivity(x))}, run date by run date**")
    # a plain table (not a grid): a few rows per series, read as text (and by the browser test)
    st.table(data.per_view(ctx, "history_rows", lambda: for_people(
        table[["series", "run_date", "usd_per_mtok", "status", "best_usd_per_mtok", "best_from", "source"]])
        .set_index("Series")))
bind(st.toggle, "history", "Add this history to the report")
