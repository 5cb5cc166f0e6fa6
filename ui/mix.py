"""The GPU mix page's answer and inputs: the mix view's answer (the view widened to every workload of its model), the
request mix typed as a table, or bucketed from an uploaded request trace, which then also gives the demand.

A trace's request lengths are read streaming from a private copy of the upload (:func:`model.data.trace_files.trace_and_mix`,
as the Fleet page reads a trace); what the view keeps
is the buckets (``request_mix``) and the trace's load over time (``trace``, stored as the Fleet page stores it,
:mod:`ui.demand`), so a link to the page reopens the same mix on the same demand.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from model.core.mix import MixSolveError, mix_view
from model.core.request_mix import (
    DEFAULT_ISL_EDGES,
    DEFAULT_OSL_EDGES,
    MixError,
    mix_of_rows,
    parse_edges,
    parse_mix,
)
from model.core.trace import TraceError, is_reference
from model.data.trace_files import private_copy, trace_and_mix
from model.data.traces import store_trace
from model.present import fmt
from model.present.mix_answer import MIX_PARTS
from ui import data, numbers
from ui.demand import nodes_question, view_trace
from ui.state import commit, plain, pop_notices, view

__all__ = ["mix_answer", "mix_editor", "trace_bucketing", "demand_boxes"]

_EDITS = "_mix_edits"            # bumped after a mix is applied: the editor starts again from the view's mix
_BUCKETED = "_mix_bucketed"      # (the view's request mix, the trace's words, ISL edges, OSL edges) of the last trace
_TRACE_ERROR = "_mix_trace_error"


def mix_answer(ctx: data.Ctx):
    """(the answer of the view widened to every workload of its model, with :data:`MIX_PARTS`; or None, and why
    not). None without a problem when the view holds no request mix or no demand yet."""
    state = data.resolved_on(data.snapshot(), ctx.state)
    if not (state.request_mix and state.has_demand):
        return None, None
    if state.workload == "all" and len({v for k, v in state.filters if k == "model"}) != 1:
        return None, "a mix compares the workloads of one model: choose a model and workload in the sidebar"
    try:
        return data.answer_of(mix_view(state), MIX_PARTS, data.snapshot()), None
    except (MixError, MixSolveError) as exc:       # a mix of another model's views, a demand too large to mix
        return None, str(exc)


def _rows(text: str) -> pd.DataFrame:
    buckets = parse_mix(text).buckets if text else ()
    return pd.DataFrame({"isl": [b.isl for b in buckets], "osl": [b.osl for b in buckets],
                         "share": [f"{b.share * 100:.4g}%" for b in buckets]}).astype({"isl": "Int64", "osl": "Int64",
                                                                                      "share": "string"})


def mix_editor() -> None:
    """The request mix as a table (ISL, OSL, share of requests), applied to the view by its button; a mix the view
    refuses is said, and the table keeps what was typed."""
    round_ = st.session_state.setdefault(_EDITS, 0)
    with st.form("mix_form", border=False):
        edited = st.data_editor(
            _rows(view().request_mix), key=f"mix_table_{round_}", num_rows="dynamic", hide_index=True,
            width="stretch", column_config={
                "isl": st.column_config.NumberColumn("ISL [tokens]", min_value=1, step=1, format="%d",
                                                     help="Input tokens of a request of this bucket."),
                "osl": st.column_config.NumberColumn("OSL [tokens]", min_value=1, step=1, format="%d",
                                                     help="Output tokens of a request of this bucket."),
                "share": st.column_config.TextColumn("Share of requests", help="A fraction (0.7) or a percentage "
                                                     "with its sign (70%); the shares sum to 1 (100%).")})
        applied = st.form_submit_button("Use this mix", type="primary")
    if applied:
        try:
            text = mix_of_rows(edited.to_dict("records")).to_text()
        except MixError as exc:
            st.error(plain(f"Not applied: {exc}."))
            return
        if commit(request_mix=text):
            st.session_state[_EDITS] = round_ + 1
            st.rerun()
        for said in pop_notices():
            st.error(plain(fmt.sentence(said)))


def _bucket() -> None:
    upload = st.session_state.get("mix_trace_file")
    if upload is None:
        return
    try:
        isl = parse_edges(st.session_state.get("mix_isl_edges", ""), "ISL")
        osl = parse_edges(st.session_state.get("mix_osl_edges", ""), "OSL")
        with private_copy(upload) as copy:       # read streaming from a copy
            trace, bucketed = trace_and_mix(copy, upload.name, isl, osl)
    except (MixError, TraceError) as exc:
        st.session_state[_TRACE_ERROR] = str(exc)
        return
    st.session_state.pop(_TRACE_ERROR, None)
    stored = None if data.read_only() else data.write(lambda con: store_trace(con, trace), "keep the trace", "trace")
    if commit(trace=stored or trace.to_text(), request_mix=bucketed.to_text()):
        st.session_state[_BUCKETED] = (bucketed.to_text(), bucketed.words(), isl, osl)
        st.session_state[_EDITS] = st.session_state.get(_EDITS, 0) + 1


def trace_bucketing() -> None:
    """Bucket a request trace by ISL and OSL edges: its buckets become the view's request mix and its load over time
    the view's demand; what the last trace was bucketed into is said while the view holds that mix."""
    c1, c2 = st.columns(2)
    c1.text_input("ISL edges [tokens]", value=",".join(map(str, DEFAULT_ISL_EDGES)), key="mix_isl_edges",
                  help="Whole tokens, comma-separated: a bucket per range between them (and below and above).")
    c2.text_input("OSL edges [tokens]", value=",".join(map(str, DEFAULT_OSL_EDGES)), key="mix_osl_edges")
    st.file_uploader("A request trace to bucket (CSV: timestamp,input_tokens,output_tokens, or the Azure trace's "
                     "TIMESTAMP,ContextTokens,GeneratedTokens)", type=["csv"], key="mix_trace_file",
                     on_change=_bucket)
    if st.session_state.get(_TRACE_ERROR):
        st.error(plain("Not read: " + st.session_state[_TRACE_ERROR]))
    if view().trace and not view().request_mix:
        st.caption("The view's trace gives the demand, but its request lengths are not kept with it: upload the file "
                   "here to bucket them.")
    kept = st.session_state.get(_BUCKETED)
    if kept and kept[0] == view().request_mix:
        st.caption(plain(f"The mix is the trace's, bucketed at ISL edges {list(kept[2])} and OSL edges "
                         f"{list(kept[3])}: {kept[1]}."))


def demand_boxes() -> None:
    """The demand the mix serves: a peak, a volume, the peak-to-average factor, headroom and spares; or the trace
    the view holds (its words, and a button to drop it)."""
    c1, c2, c3 = st.columns(3)
    numbers.field_box(c1, "demand_rps", placeholder="e.g. 10", question=nodes_question)
    numbers.field_box(c2, "tokens_per_month", placeholder="e.g. 3e9")
    state = view()
    trace = view_trace(state.trace) if state.trace else None
    if trace is not None:
        kept = "kept in the data" if is_reference(state.trace) else "kept in this session"
        c3.caption(plain(f"Demand over time: the {trace.words()} ({kept})."))
        if c3.button("Remove the trace", key="mix_trace_remove"):
            commit(trace="")
            st.rerun()
    else:
        numbers.field_box(c3, "peak_to_average")
    d1, d2, _ = st.columns(3)
    numbers.field_box(d1, "headroom")
    numbers.field_box(d2, "spares")
