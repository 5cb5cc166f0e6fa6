"""The demand's shape, drawn alike on the Fleet and the Buy, rent or API pages: a 24-hour curve (a preset or
typed hourly weights) or an uploaded request trace, and the on-demand fleet's minimum and scale-up step.

An uploaded trace is read streaming from a private copy on disk (:func:`model.data.trace_files.read_trace_file`) and
kept in the store (:func:`model.data.traces.store_trace`): the view, and so its link, carries a short reference.
A read-only deployment writes nothing: there the view holds the trace itself, in this session."""

from __future__ import annotations

import streamlit as st

from model.core.shape import PRESETS
from model.core.trace import Trace, TraceError, is_reference
from model.core.view_checks import KW_PER_GPU_BOUNDS
from model.core.view_codecs import EVERY_HARDWARE
from model.core.view_fields import KNEE_RULES, TOKEN_BASES
from model.data.trace_files import private_copy, read_trace_file
from model.data.traces import load_trace, store_trace
from model.present import fmt
from model.present.view_answer import fleet_at
from model.present.volume_figures import day_figure
from ui import data, numbers
from ui.state import bind, commit, plain, view

__all__ = ["shape_boxes", "fleet_boxes", "fleet_settings", "day_chart", "view_trace", "nodes_question"]

_NONE, _TYPED = "", "typed"
_WORDS = {_NONE: "none (a peak-to-average factor)", "flat": "flat", "business-hours": "business hours (09–18 h)",
          "diurnal": "diurnal (a smooth day)", _TYPED: "typed: 24 hourly weights"}
_DONE = "_trace_read"      # the uploaded file last read, so a rerun does not read it again


def nodes_question(rps: float) -> str | None:
    """Why a peak of ``rps`` may be a slip: the smallest fleet it sizes has more than 1,000 nodes (sized as the Fleet
    page would, from the view's own capacity: :func:`model.present.view_answer.fleet_at`). The peak demand boxes ask
    it (the Fleet and GPU mix pages), as the field's help says."""
    try:
        fleet = fleet_at(data.answer_of(view(), ("capacity", "rates")), demand_rps=rps, budget_mw=None,
                         budget_usd_month=None)
    except ValueError:   # the view refuses it: committing says why
        return None
    return fleet.question if fleet is not None else None


def _shape_choice(value: str) -> str:
    return value if value in PRESETS or value == _NONE else _TYPED


def _typed_shape() -> None:
    commit(shape=st.session_state["shape_typed"])


def _upload() -> None:
    upload = st.session_state.get("trace_file")
    if upload is None:
        return
    try:
        trace = _read_upload(upload)
    except TraceError as exc:
        st.session_state["_trace_error"] = str(exc)
        return
    st.session_state.pop("_trace_error", None)
    st.session_state[_DONE] = upload.file_id
    stored = None if data.read_only() else data.write(lambda con: store_trace(con, trace), "keep the trace", "trace")
    commit(trace=stored or trace.to_text())


def _read_upload(upload) -> Trace:
    """The uploaded trace, read streaming from a private copy on disk (the upload is copied a block at a time)."""
    with private_copy(upload) as copy:
        return read_trace_file(copy, upload.name)


def view_trace(text: str) -> Trace | None:
    """The trace a view's ``trace`` value holds or names (a stored one read from this rerun's snapshot); None when
    it names one the store does not hold."""
    return load_trace(data.cursor(), text) if is_reference(text) else Trace.from_text(text)


def shape_boxes(where, with_factor: bool = True) -> None:
    """The shape's boxes in ``where`` (a column): the curve, typed weights, the trace and its window; the
    peak-to-average factor when ``with_factor`` and no curve is chosen."""
    state = view()
    trace = view_trace(state.trace) if state.trace else None
    if trace is not None:
        kept = ("Kept in the data: the link carries a short reference to it." if is_reference(state.trace) else
                "Kept in this session only: a link does not carry it unless it is short.")
        where.caption(plain(f"Shape: the {trace.words()}. {kept}"))
        numbers.field_box(where, "trace_window")
        if where.button("Remove the trace", key="trace_remove"):
            commit(trace="")
            st.rerun()
    else:
        choice = _shape_choice(state.shape)
        bind(where.selectbox, "shape", "Shape over the day", [_NONE, *PRESETS, _TYPED],
             to_widget=_shape_choice, from_widget=lambda v: state.shape if v == _TYPED and choice == _TYPED else
             ("1," * 23 + "1" if v == _TYPED else v), format_func=_WORDS.get)
        if choice == _TYPED:
            st.session_state["shape_typed"] = state.shape
            where.text_input("Hourly weights (24, from midnight)", key="shape_typed", on_change=_typed_shape)
        elif choice == _NONE and with_factor:
            numbers.field_box(where, "peak_to_average")
    where.file_uploader("Or a request trace (CSV: timestamp,input_tokens,output_tokens, or the Azure trace's "
                        "TIMESTAMP,ContextTokens,GeneratedTokens)", type=["csv"], key="trace_file",
                        on_change=_upload)
    if st.session_state.get("_trace_error"):
        where.error(plain("Not read: " + st.session_state["_trace_error"]))


def fleet_boxes(where) -> None:
    """On demand: the nodes kept up and the nodes added at a time."""
    numbers.field_box(where, "min_nodes")
    numbers.field_box(where, "scale_step")


def fleet_settings(hardware: list[str], preset_kw: dict[str, float]) -> None:
    """How a fleet is sized: the knee rule, GPUs per node, kW per GPU of each hardware in view (and of every
    hardware without its own), PUE, IT power per rack and what a typed volume counts (view fields: each in the link,
    the report's assumptions and the CLI's options)."""
    c1, c2, c3 = st.columns(3)
    bind(c1.selectbox, "rule", KNEE_RULES, format_func=lambda v: {"first_failure": "before the first rate breaking "
                                                                  "the SLA", "highest_pass": "the highest rate meeting it"}[v])
    numbers.field_box(c1, "gpus_per_node", placeholder="as the rows state, else 8")
    numbers.field_box(c2, "pue", placeholder="the profile's, else 1")
    numbers.field_box(c3, "rack_kw", placeholder="racks not counted")
    bind(c3.selectbox, "token_basis", [None, *TOKEN_BASES],
         format_func=lambda v: "the capacity's basis" if v is None else f"{v} tokens")
    kw_boxes(hardware, preset_kw)


def kw_boxes(hardware: list[str], preset_kw: dict[str, float]) -> None:
    """A box of kW per GPU for each hardware in view, and one for every hardware without its own (the view's
    per-hardware ``kw_per_gpu``), each saying what it is when empty."""
    state = view()
    profiled = {p.hardware.lower() for p in state.cost_profiles() if p.name in state.priced_by and p.onprem}
    st.caption("All-in IT power per GPU [kW]: each hardware's own, or one value for every hardware without its own.")
    boxes = st.columns(min(4, len(hardware) + 1))
    _kw_box(boxes[0], EVERY_HARDWARE, "every hardware", "each one's below")
    for i, hw in enumerate(hardware, start=1):
        default = ("the cost profile's" if hw.lower() in profiled else
                   f"{preset_kw[hw]:g} (the price set's)" if hw in preset_kw else "none: kW not counted")
        _kw_box(boxes[i % len(boxes)], hw, hw, default)


def _kw_box(where, hw: str, label: str, placeholder: str) -> None:
    """A box of one hardware's kW per GPU in the view's per-hardware ``kw_per_gpu`` (``*``: every hardware)."""
    key = f"kwg::{hw}"
    st.session_state[key] = numbers.shown(dict(view().kw_per_gpu).get(hw))
    where.text_input(f"kW per GPU, {label}", key=key, placeholder=placeholder, on_change=_on_kw, args=(hw, key),
                     help=fmt.sentence(KW_PER_GPU_BOUNDS.message))


def _on_kw(hw: str, key: str) -> None:
    ok, value = numbers.read(f"kW per GPU, {'every hardware' if hw == EVERY_HARDWARE else hw}",
                             st.session_state[key], bounds=KW_PER_GPU_BOUNDS)
    if not ok:
        return
    values = {k: v for k, v in view().kw_per_gpu if k != hw}
    if value is not None:
        values[hw] = value
    commit(kw_per_gpu=tuple(values.items()))


def day_chart(fleet, key: str) -> None:
    """Demand against capacity over the day, for the series chosen (none with no curve)."""
    if fleet is None or fleet.over_time is None or fleet.over_time.empty:
        return
    names = list(dict.fromkeys(fleet.over_time["series"]))
    series = st.selectbox("Series over the day", names, key=f"{key}_series") if len(names) > 1 else names[0]
    st.plotly_chart(day_figure(fleet.over_time, series), width="stretch", key=key)
