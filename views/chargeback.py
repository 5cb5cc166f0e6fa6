"""Chargeback: the planned fleet's $ a month split by tenant, user or workload before the bill exists, by the formula
OpenCost proposes (prompt tokens × input $/M + completion tokens × output $/M), adding up to the fleet's to the cent
(the answer's ``chargeback`` part, as ``costfrontier size --tenants`` and the report)."""

import streamlit as st

from model.present.sell_report import CHARGEBACK_TABLE
from model.present.tables import table_of
from ui import frame, report, sell, widgets
from ui.state import plain

ctx = frame.context()
st.title("Chargeback by tenant")
if widgets.no_data(ctx):
    st.stop()
answer_box = st.container()
sell.tenants_boxes()
state = ctx.state
with answer_box:
    if not state.has_demand:
        st.info("Set a demand on the Fleet page (a peak, a volume or a trace): its planned fleet is what is split.")
    elif not state.tenants:
        st.info("Type the tenants below, or upload a trace with a tenant column.")
    else:
        answer = ctx.answer("chargeback", "fleet")
        result = answer.chargeback
        if result is None:
            st.warning("No fleet could be sized for this demand, so there is nothing to split.")
        else:
            st.success(plain(result.text))
            widgets.spec_table(*table_of(answer, CHARGEBACK_TABLE), key="chargeback_table",
                               details=("Cached input tokens a month", "$ per month, fleet's range bottom",
                                        "$ per month, fleet's range top"))
            st.caption(plain(f"The tenants' $ a month add up to the fleet's: ${result.rows['usd_per_month'].sum():,.2f}"
                             f" ({result.series}, for {answer.fleet.need})."))
            report.table_download(ctx, CHARGEBACK_TABLE)
