"""The shared sidebar, drawn once per rerun by the frame (``app.py``) before the page runs.

Every control is bound to a :class:`~model.core.view.View` field (see ``ui.state``; its widget key is the field's link key),
so its value survives page changes, reloads and share links.
"""

from __future__ import annotations

import math

import streamlit as st

from model.core.capacity import BLENDED_FORMULA
from model.core.cost import resolve_rates
from model.core.frontier import BASES, SERIES_KEY_CHOICES
from model.core.interactivity import DEFINITIONS as INTERACTIVITY_FROM
from model.core.names import reason
from model.core.plausible import percent_question, rate_question
from model.core.sla import SLA, TTFT_PERCENTILES
from model.core.view import reconcile
from model.core.view_codecs import short
from model.core.view_fields import MAX_USD_PER_GPU_HOUR, METHOD_CHOICES, MIN_USD_PER_GPU_HOUR, Bounds
from ui import data, numbers
from ui.state import bind, commit, help_of, key_of, notice, plain, view

__all__ = ["draw", "set_rate", "reset_rates", "profile_pricing", "RATE_BOUNDS", "exact_rate_key"]

WORKLOAD_KEYS = ("model", "isl", "osl")


def _on_workload() -> None:
    chosen = st.session_state[key_of("workload")]
    by = view().by
    if chosen == "all" and "isl" not in by:   # series of different workloads must not be compared
        by = tuple(by) + tuple(k for k in WORKLOAD_KEYS if k not in by)
    commit(workload=chosen, by=by)


def _filters(sb, opts: dict) -> None:
    state = view()
    workloads = list(opts["workloads"]) + (["all"] if len(opts["workloads"]) > 1 else [])
    sb.header("View")
    if workloads:
        st.session_state[key_of("workload")] = state.workload if state.workload in workloads else workloads[0]
        labels = {**opts["workload_labels"], "all": "All workloads (series split by model and ISL/OSL)"}
        sb.selectbox("Model and workload", workloads, key=key_of("workload"), on_change=_on_workload,
                     format_func=lambda w: labels.get(w, w), help=help_of("workload"))
        if state.workload is None:
            commit(workload=workloads[0])
    for column, label in (("hardware", "Hardware"), ("framework", "Framework"), ("precision", "Precision"),
                          ("spec_decoding", "Speculative decoding")):
        bind(sb.multiselect, column, label, opts[column], placeholder="all", to_widget=list, from_widget=tuple)
    bind(sb.multiselect, "by", "Series = rows sharing", SERIES_KEY_CHOICES, to_widget=list, from_widget=tuple)
    if not view().by:
        sb.caption("No grouping keys: everything is one series.")
    bind(sb.radio, "basis", "Token basis", BASES, horizontal=True)
    if view().basis == "blended":
        c1, c2 = sb.columns(2)
        numbers.field_box(c1, "w_input", "input weight")
        numbers.field_box(c2, "w_cached", "cached weight")
        sb.caption(plain(BLENDED_FORMULA))
    _sla(sb)
    bind(sb.radio, "interactivity_from", "Interactivity from", INTERACTIVITY_FROM, horizontal=True,
         format_func=lambda d: "TPOT (tokens)" if d == "tpot" else "ITL (chunks)")
    bind(sb.radio, "method", "Interpolation", METHOD_CHOICES, horizontal=True,
         format_func=lambda m: "fits better" if m == "auto" else m)


_REPEAT_LABELS = {"pooled": "all pooled", "latest": "latest run", "median": "median of repeats"}


def _runs(sb) -> None:
    """Which repeat runs build the frontier, and the run date the view looks back from."""
    state = view()
    title = "Repeat runs and run dates" + (f": as of {state.as_of.isoformat()}" if state.as_of else "")
    with sb.expander(title, expanded=state.repeats != "pooled" or state.as_of is not None):
        bind(st.radio, "repeats", "Repeat runs", tuple(_REPEAT_LABELS), format_func=_REPEAT_LABELS.get,
             horizontal=True)
        bind(st.date_input, "as_of", "As of (run date)", format="YYYY-MM-DD")


def _disagg(sb, points) -> None:
    """How disaggregated prefill/decode rows count on the input or output basis (only when there are some)."""
    if view().basis not in ("input", "output") or points.empty or "disaggregated" not in points.columns \
            or not points["disaggregated"].astype("boolean").fillna(False).any():
        return
    labels = {"per-role": "per GPU of its own role, as stated", "share": "all-GPU total × token share"}
    bind(sb.radio, "disagg", "Disaggregated rows", tuple(labels), format_func=labels.get)


_SLA_INPUTS = (  # widget key, SLA field, label, step
    ("sla_ttft", "ttft_max_s", "TTFT at most [s]", 0.1),
    ("sla_tpot", "tpot_max_ms", "median TPOT at most [ms]", 1.0),
    ("sla_int", "interactivity_min", "interactivity at least [tok/s/user]", 1.0),
    ("sla_e2e", "e2e_max_s", "median end-to-end at most [s]", 1.0),
    ("sla_ok", "success_min", "success rate at least [%]", 0.5),
)


def _on_sla() -> None:
    """Read the SLA boxes by the one number rule; a success rate of 1 % or less is held until confirmed."""
    parts = {"ttft_percentile": st.session_state["sla_pct"]}
    for key, name, label, _ in _SLA_INPUTS:
        ok, value = numbers.read(label, st.session_state.get(key), percent=name == "success_min")
        if not ok:
            return
        if value:
            parts[name] = value / 100 if name == "success_min" else value
    try:
        text = SLA(**parts).to_text() if any(k != "ttft_percentile" for k in parts) else ""
    except ValueError as exc:
        notice(f"SLA not applied: {reason(exc)}")
        return
    numbers.drop("sla_ok")
    asked = percent_question(parts["success_min"] * 100, "success rate") if "success_min" in parts else None
    if asked:
        numbers.hold("sla_ok", asked, st.session_state["sla_ok"], {"sla": text})
        return
    commit(sla=text)


def _sla(sb) -> None:
    """The latency SLA, shared by every page: empty or 0 leaves a limit off."""
    text = view().sla
    current = SLA.from_text(text) if text else SLA()
    with sb.expander("Latency SLA" + (f": {current.describe()}" if text else " (off)"), expanded=bool(text)):
        st.session_state["sla_pct"] = current.ttft_percentile
        st.selectbox("TTFT percentile", TTFT_PERCENTILES, key="sla_pct", on_change=_on_sla)
        for key, name, label, _ in _SLA_INPUTS:
            value = getattr(current, name)
            entry = numbers.held(key)
            st.session_state[key] = entry["typed"] if entry else numbers.shown(
                None if value is None else (value * 100 if name == "success_min" else value))
            st.text_input(label, key=key, placeholder="no limit", on_change=_on_sla,
                          help="In percent: 99.5 for 99.5 %." if name == "success_min" else "Empty or 0: no limit.")
        numbers.confirm_box(st, "sla_ok", "sidebar:")
        st.caption("Rows that break a limit are left out before any frontier is fitted.")


def _on_price_set(key: str) -> None:
    changes = {"price_set" if key == key_of("price_set") else "tier": st.session_state[key]}
    sets = data.options(data.version())["price_sets"]
    tiers = sets.get(changes.get("price_set", view().price_set), [])
    if "price_set" in changes and view().tier not in tiers and tiers:
        changes["tier"] = tiers[0]
    if view().rates:
        notice("rates set by hand were reset to the presets of the price set you chose")
    commit(**changes, rates=())


#: the check of a rate typed by hand: the one bound every surface imports
RATE_BOUNDS = Bounds(MIN_USD_PER_GPU_HOUR, MAX_USD_PER_GPU_HOUR, f"a rate must be at least ${MIN_USD_PER_GPU_HOUR:g} "
                     f"and at most ${MAX_USD_PER_GPU_HOUR:,.0f}/GPU-hour")


def profile_pricing(hw: str) -> str | None:
    """The name(s) of the chosen cost profiles that price ``hw``, or None when its rate is the preset's or typed."""
    state = view()
    profiles = {p.name: p for p in state.cost_profiles()}
    names = [n for n in state.priced_by if n in profiles and profiles[n].hardware.lower() == hw.lower()]
    return ", ".join(f"'{n}'" for n in names) or None


def set_rate(hw: str, value, typed: str | None = None) -> None:
    """Set ``hw``'s $/GPU-hour as typed (text read by the one number rule, or a slider's number); refuse with a
    notice quoting what was typed what is not a usable rate; hold (:func:`ui.numbers.hold`) a rate more than
    5× or less than 1/5 of its preset until confirmed. A hardware a cost profile prices is not set here."""
    typed = str(value if typed is None else typed) if value is not None else ""
    by = profile_pricing(hw)
    if by:
        notice(f"{hw}: {short(typed)!r} not applied: {hw} is priced by the cost profile {by} (TCO builder); "
               "change the profile there, or stop pricing with it")
        return
    overrides = dict(view().rates)
    numbers.drop(f"rate::{hw}")
    if isinstance(value, str):
        ok, value = numbers.read(f"{hw} rate [$/GPU-hour]", value, bounds=RATE_BOUNDS)
        if not ok:
            return
    elif value is not None:
        try:
            RATE_BOUNDS(float(value))
        except (TypeError, ValueError) as exc:
            notice(f"{hw} rate [$/GPU-hour]: {short(typed)!r} not applied: {reason(exc)}")
            return
    preset = resolve_rates([hw], data.presets(data.version()), view().price_set, view().tier).get(hw)
    if value is None or (preset is not None and abs(value - preset) < 1e-9):
        overrides.pop(hw, None)
    else:
        overrides[hw] = float(value)
    changes = {"rates": tuple(sorted(overrides.items()))}
    question = rate_question(hw, value, preset)
    if question:
        numbers.hold(f"rate::{hw}", question, typed, changes)
        return
    commit(**changes)


def _on_rate(hw: str, key: str) -> None:
    value = st.session_state[key]
    st.session_state[_SHOWN + key] = value      # what the slider shows now: the view follows it, not the reverse
    set_rate(hw, value)


def exact_rate_key(hw: str, shown: str) -> str:
    """The key of ``hw``'s exact-rate box showing ``shown``: a new box (its value given, never written into its
    state) whenever the rate it shows changes."""
    return f"rate_exact::{hw}::{shown}"


def _on_exact(hw: str, key: str, shown: str) -> None:
    """A rate typed in the exact box; its own text unchanged is no edit. The browser sends every box's text with each
    slider move, and a box drawn at an earlier rate, its text untouched, came back while the next moves were in
    flight: taken as typed, it set the rate back (five presses 0.1 s apart stopped two steps short)."""
    if str(st.session_state[key]).strip() != shown.strip():
        set_rate(hw, st.session_state[key])


#: session key prefix: the value a rate slider was last set to or moved to (:func:`_follow`)
_SHOWN = "_shown::"


def _follow(key: str, value: float) -> None:
    """Set the slider ``key`` to the view's ``value`` only when the view's rate differs from what the slider last
    showed (a link, a typed rate, a reset, a refused move): writing it on every run undid the key presses the browser
    sent while a run was under way (five presses 0.1 s apart stopped at the second step, the address at another)."""
    if key not in st.session_state or st.session_state.get(_SHOWN + key) != value:
        st.session_state[key] = st.session_state[_SHOWN + key] = value


def _slider_top(preset: float | None, rate: float) -> float:
    """The slider spans $0 to about three times the preset (and always past the rate itself)."""
    top = max(3 * (preset or rate), 1.5 * rate, 1.0)
    return float(math.ceil(top) if top < 20 else math.ceil(top / 10) * 10)


def reset_rates() -> None:
    """Callback: every rate back to the chosen preset."""
    commit(rates=())


def _rates(sb, ctx_points, presets) -> None:
    state = view()
    sb.header("TCO rates [$/GPU-hour]")
    sets = data.options(data.version())["price_sets"]
    for field, label, choices in (("price_set", "Price set", list(sets)),
                                  ("tier", "Tier", sets.get(state.price_set, []))):
        key = key_of(field)
        if choices:
            st.session_state[key] = getattr(state, field)
            sb.selectbox(label, choices, key=key, on_change=_on_price_set, args=(key,), help=help_of(field))
    in_view = sorted(ctx_points["hardware"].dropna().unique()) if not ctx_points.empty else []
    preset = resolve_rates(in_view, presets, state.price_set, state.tier)
    overrides = {hw.lower(): rate for hw, rate in state.rates}
    profiles = {p.name: p for p in state.cost_profiles()}
    by_profile: dict[str, list] = {}
    for name in state.priced_by:
        by_profile.setdefault(profiles[name].hardware.lower(), []).append(profiles[name])
    for hw in in_view:
        if hw.lower() in by_profile:   # a cost profile prices it (set on the TCO builder page)
            sb.caption(plain(f"{hw}: " + "; ".join(
                f"cost profile '{p.name}' " + (f"${p.rate():,.2f}/GPU-hour" if p.rate() else "(no price yet)")
                for p in by_profile[hw.lower()])))
            continue
        rate = overrides.get(hw.lower(), preset.get(hw))
        slider_key = f"rate::{hw}"
        if rate is None:   # no preset and no rate given: ask, never invent one (unpriced until set)
            exact_key = exact_rate_key(hw, "")
            sb.text_input(f"{hw} (no preset)", value="", key=exact_key, placeholder="set $/GPU-hour",
                          on_change=_on_exact, args=(hw, exact_key, ""))
            continue
        label = f"{hw} (preset {'$%.2f' % preset[hw]})" if hw in preset else f"{hw} (no preset)"
        c1, c2 = sb.columns([3, 2], vertical_alignment="bottom")
        top = _slider_top(preset.get(hw), rate)
        _follow(slider_key, float(rate))
        c1.slider(label, 0.0, top, key=slider_key, step=0.01, format="$%.2f", on_change=_on_rate,
                  args=(hw, slider_key))
        entry = numbers.held(f"rate::{hw}")
        shown = entry["typed"] if entry else numbers.shown(rate)
        exact_key = exact_rate_key(hw, shown)
        c2.text_input(f"{hw} exact [$/GPU-hour]", value=shown, key=exact_key, label_visibility="collapsed",
                      on_change=_on_exact, args=(hw, exact_key, shown), help=f"Type any rate above $0 and up to ${MAX_USD_PER_GPU_HOUR:,.0f}"
                      "/GPU-hour; 1,48 and 1.48 are both $1.48. A rate more than 5× or less than 1/5 of the preset "
                      "is applied once you confirm it.")
        numbers.confirm_box(sb, f"rate::{hw}", "sidebar:")
    sb.button("Reset rates to preset", on_click=reset_rates, key="reset_rates_sidebar", disabled=not state.rates)


def draw(url_path: str) -> data.Ctx:
    """Draw the shared sidebar and return this rerun's context."""
    ver = data.version()
    opts = data.options(ver)
    presets = data.presets(ver)
    state, notices = reconcile(view(), opts)
    for text in notices:
        notice(text)
    if notices:
        commit(**state.model_dump())
    sb = st.sidebar
    _filters(sb, opts)
    inputs = data.inputs(data.resolved_on(data.snapshot(), view()))
    _disagg(sb, inputs.loaded)
    _runs(sb)
    _rates(sb, inputs.loaded, presets)
    return data.Ctx(view(), inputs, presets, opts, ver, url_path)
