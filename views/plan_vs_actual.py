"""Plan vs actual: a proposal (its share link) against what the cluster's bill and token counts say, period by
period: realised and planned $/M, tokens served against the plan's volume, the implied utilisation and the input
that explains most of the difference. The answer is ``costfrontier plan-vs-actual``'s and the report's."""

import streamlit as st

from model.core.actual_rows import ActualsError
from model.present import fmt
from model.present.actual_answer import plan_line
from model.present.actual_figures import plan_figure
from model.present.tables import plan_tables
from ui import actuals, data, frame, widgets
from ui.state import plain

ctx = frame.context()
st.title("Plan vs actual")
if ctx.empty:
    st.info("No benchmark data yet. Load the bundled samples on the Overview page, or upload files on the Data page.")
    st.stop()
link, comparison = ctx.state.plan, None
if not link:
    st.info("Paste below the share link the proposal was made from (its pinned link, with v=N), and store the "
            "cluster's actuals (an OpenCost response or a bill): the plan against them shows here.")
else:
    try:
        comparison = data.comparison(link, ctx.state.cost_basis)
    except ActualsError as exc:
        st.warning(plain(f"No comparison yet: {exc}."))
if comparison is not None:
    plan, sentences = comparison.plan, comparison.sentences
    if sentences:
        st.info(plain(sentences[0]))
    tables = plan_tables(comparison)
    widgets.spec_table(*tables["Plan vs actual"], key="plan_table", details=("Plan's ±", "Hours", "Planned $"))
    st.caption(plain(fmt.sentence(plan_line(plan)) + f"; actuals: the {comparison.cost_basis} "
                     "cost."))
    for sentence in sentences[1:]:
        st.markdown(plain(sentence))
    st.plotly_chart(plan_figure(tables["Plan vs actual"][0], plan.basis), width="stretch", key="plan_chart")
    if "Plan vs actual: at the realised volume" in tables:
        st.subheader("At the realised volume")
        widgets.spec_table(*tables["Plan vs actual: at the realised volume"], key="plan_options")
    if "Plan vs actual: how close to the limits" in tables:
        st.subheader("How close the fleet ran to its limits")
        st.caption(plain(comparison.saturation["total"]["text"]))
        widgets.spec_table(*tables["Plan vs actual: how close to the limits"], key="plan_saturation")
    for note in comparison.notes:
        st.caption(plain(fmt.sentence(note)))

st.subheader("The plan and the actuals")
actuals.plan_boxes()
actuals.upload_box()
stored = data.actuals(ctx.version)
with st.expander(f"Stored actuals ({len(stored)} rows)", expanded=False):
    actuals.stored_table(stored)
