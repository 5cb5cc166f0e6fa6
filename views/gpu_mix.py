"""GPU mix: the cheapest whole nodes per GPU type for traffic that mixes short and long requests (a request mix typed
as a table, or bucketed from a trace), each bucket served by the type it is cheapest on; beside it each type alone
and the crossover along the share of long requests. The answer is ``costfrontier mix``'s and the report's."""

import streamlit as st

from model.present import fmt
from model.present.mix_figures import mix_crossover_figure
from model.present.tables import mix_tables
from ui import data, frame, mix, widgets
from ui.state import plain

ctx = frame.context()
st.title("GPU mix")
if widgets.no_data(ctx):
    st.stop()
answer, problem = mix.mix_answer(ctx)
result = answer.mix if answer is not None else None
if problem:
    st.error(plain(f"No mix: {problem}."))
elif result is None:
    st.info("Type the request mix (buckets of requests by length, with the share of each) and the demand below, "
            "or bucket a request trace: the answer, the cheapest whole nodes per GPU type, shows here.")
else:
    fleet = answer.fleet
    (st.success if result.mix_pays else st.info)(plain(result.verdict))
    tables = mix_tables(result)
    widgets.spec_table(*tables["GPU mix"], key="mix_fleet", details=("Spares", "IT power [kW]", "Peak utilisation"))
    st.caption(plain(f"For {fleet.need}; SLA: {fleet.sla}; interactivity you need: "
                     + (fmt.interactivity(fleet.x) if fleet.x else "not set (Overview page)")
                     + (f". Effective {fmt.usd(result.effective_usd_per_mtok)} {result.token_basis} tokens "
                        f"({fmt.compact(result.tokens_per_month)} tokens a month)" if not result.fleet.empty else "")
                     + f". Solver: {result.status_text}."))
    for note in result.notes:
        st.caption(plain(fmt.sentence(note)))
    st.subheader("Along the share of long requests")
    st.markdown(plain(fmt.sentence(result.crossover_text)))
    if result.crossover is not None:
        st.plotly_chart(data.per_view(ctx, "mix_crossover", lambda: mix_crossover_figure(
            result.crossover, result.long_share)), width="stretch", key="mix_crossover_chart")
    st.subheader("Buckets and each type alone")
    widgets.spec_table(*tables["GPU mix: buckets"], key="mix_buckets", details=("Requests in the trace",))
    st.caption("Each type alone, in whole nodes for every bucket it has measured (as Fleet sizing counts them):")
    widgets.spec_table(*tables["GPU mix: each type alone"], key="mix_single")

st.subheader("The request mix")
st.caption("Buckets of requests by input and output length, with the share of requests in each. Each bucket is "
           "matched to the nearest measured workload of the view's model on each GPU type (within ×2 of its ISL and "
           "OSL); one no type has measured is named and left out, and the fleet covers the rest.")
mix.mix_editor()
with st.expander("Or bucket a request trace (it gives the demand too)", expanded=False):
    mix.trace_bucketing()
st.subheader("The demand")
mix.demand_boxes()
