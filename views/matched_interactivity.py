"""Cost at matched interactivity: $/M of every series at the same tok/s/user, and ratios to a baseline."""

import streamlit as st

from model.present import figures, fmt
from model.present.answers import iso_pivot, iso_shown, method_errors_text, method_words, parse_targets
from model.present.tables import CALIBRATION_TABLE, RUN_TO_RUN_TABLE, table_of
from ui import frame, report, sell, widgets
from ui.state import bind, plain

ctx = frame.context()
st.title("Cost at matched interactivity")
if widgets.no_data(ctx):
    st.stop()
answer = ctx.answer("cost", "crossed", "run_to_run")
cost = answer.cost
defaults = cost.analysis.targets if not ctx.state.targets else []
bind(st.text_input, "targets", "Interactivity targets [tok/s/user], comma-separated",
     to_widget=lambda v: ", ".join(f"{x:g}" for x in (v or defaults)), from_widget=parse_targets)
names = sorted(cost.analysis.curves)
if ctx.state.baseline and ctx.state.baseline not in names:
    st.warning(plain(f"Baseline {ctx.state.baseline!r} is not among the series shown; using {names[0]!r}.")
               if names else "No series to compare.")
if names:
    bind(st.selectbox, "baseline", "Baseline series for ratios", names,
         to_widget=lambda v: v if v in names else names[0])
result, iso = cost.analysis, iso_shown(cost)
widgets.notes(result)
curves, iso_drawn = figures.only(widgets.drawn(answer.crossed), result.curves, iso)
st.plotly_chart(figures.on_good_tokens(figures.cost_figure(curves, iso_drawn, cost.method, cost.uncertainty),
                                        answer.rows.good.caps), width="stretch",
                key="cost_chart")
widgets.band_note(curves)
if iso.empty:
    st.info("No series to price.")
else:
    costs, ratios = iso_pivot(iso)
    st.markdown("**$ per million tokens** (hollow markers and *(clamped)*: within 1% past a frontier's end; "
                "*−a %/+b %* (or *± N %*), the shaded band: where 9 in 10 of this store's measured points fell when "
                "each was left out and predicted from its neighbours; *(measured)*: a frontier point, exact)")
    st.table(costs)
    st.markdown(f"**Cost relative to {plain(cost.baseline)}** (above 1.00x: dearer than the baseline)")
    st.table(ratios)
    report.table_download(ctx, "Cost at matched interactivity")
    if answer.run_to_run.any:             # points measured over repeated runs: their band, named on its own
        st.markdown("**Run-to-run** (how far the measured throughput moved between repeated runs, beside the "
                    "interpolation range: the two are separate bands)")
        widgets.spec_table(*table_of(answer, RUN_TO_RUN_TABLE), key="run_to_run_table")
        for note in answer.run_to_run.notes:
            st.caption(plain(fmt.sentence(note)))
st.markdown(f"**{CALIBRATION_TABLE}** (every interior point of this store's frontiers left out in turn)")
if (calibration := table_of(answer, CALIBRATION_TABLE)) is not None:
    widgets.spec_table(*calibration, key="calibration_table")
else:
    st.info("This store has no measured point with a neighbour on each side to test the interpolation on.")
st.caption(plain(method_errors_text(cost.uncertainty)) + " The band grows with the gap between measured neighbours "
           "and how far apart their prices are; it is not run-to-run noise; see the manual, "
           "\"Interpolation and its ±\".", help="Switch the Interpolation method in the sidebar to compare.")
st.caption(plain(method_words(ctx.state.method, cost.uncertainty)) + f" Basis: {ctx.state.basis} tokens. Cost = $/GPU-hour ÷ (3600 × tok/s/GPU "
           f"÷ 10⁶). No extrapolation past a frontier's end. Targets: {', '.join(fmt.interactivity(x) for x in result.targets)}.")
sell.cap_section(ctx)           # the inverse question (issue 52)
