"""The TCO builder's inputs and actions: build-up fields with their cited defaults, adding and
replacing the view's cost profiles, and the team's stored profiles."""

from __future__ import annotations

import re
from datetime import date

import streamlit as st

from model.core.cost_profiles import cost_profile, profiles_to_text
from model.core.onprem_labels import ONPREM_COUNTS, onprem_label
from model.core.opencost_pricing import price_file, years_after
from model.core.plausible import percent_question
from model.core.tco import TcoInputError
from model.data.profiles import load_profiles, save_profiles
from ui import data, numbers
from ui.sidebar import RATE_BOUNDS
from ui.state import commit, notice, plain, view

__all__ = ["build_up_inputs", "defaults_in_use", "read_build_up", "add_onprem", "add_rate", "replace_profiles", "team_store",
           "opencost_download"]

#: build-up input (labelled by model.core.tco.ONPREM_LABELS), typed in percent (the model takes utilisation as a
#: fraction: the form divides by 100)
_FIELDS = (("server_usd", False), ("gpus_per_node", False), ("network_pct", True), ("install_usd", False),
           ("years", False), ("rate_pct", True), ("kw_per_gpu", False), ("pue", False), ("usd_per_kwh", False),
           ("colo_usd_per_kw_month", False), ("maintenance_pct", True), ("licence_usd_per_gpu_year", False),
           ("staff_usd_per_year", False), ("fleet_gpus", False), ("utilization", True))
_START = {"gpus_per_node": 8, "network_pct": 0.0, "install_usd": 0.0, "rate_pct": 0.0, "maintenance_pct": 0.0,
          "licence_usd_per_gpu_year": 0.0, "staff_usd_per_year": 0.0, "utilization": 1.0}
_PER_NODE = "kw_per_node"
_PER_NODE_LABEL = "All-in power per node [kW] (instead of per GPU)"
_UTIL_LABEL = onprem_label("utilization", percent=True)


def build_up_inputs(defaults: dict, hardware: str) -> dict:
    """Draw the build-up's inputs (inside a form) as number boxes read by the one number rule; each default
    says where it comes from. Returns {input: typed text}; :func:`read_build_up` reads them on submit.

    The fields are keyed per GPU (``tco_kw_per_gpu::B200``): choosing another GPU shows that GPU's
    defaults, never the last one's (a B200 profile was once priced with the H200's 1.37 kW/GPU)."""
    typed, sources = {}, {}
    cols = st.columns(3)
    for i, (name, pct) in enumerate(_FIELDS):
        label = onprem_label(name, percent=name == "utilization")
        start, source = defaults.get(name, (_START.get(name), ""))
        if start is not None and name == "utilization":
            start = start * 100
        typed[name] = cols[i % 3].text_input(
            label, value=numbers.shown(start), key=f"tco_{name}::{hardware}",
            placeholder="needed" if name == "server_usd" else "optional",
            help=("In percent: 70 for 70 %." if pct else None))
        if source:
            sources[name] = f"{label}: {start:g} from {source}" if start is not None else f"{label}: {source}"
    kw = defaults.get("kw_per_gpu", (None, ""))[0]
    typed[_PER_NODE] = cols[len(_FIELDS) % 3].text_input(
        _PER_NODE_LABEL, key=f"tco_{_PER_NODE}::{hardware}",
        placeholder=f"{kw * 8:g} for 8 GPUs" if kw else "optional",
        help="A quote's power per node: divided by the GPUs per node, it replaces the power per GPU.")
    typed["colo_includes_power"] = st.checkbox(onprem_label("colo_includes_power"), key="tco_colo_power")
    in_use = defaults_in_use(typed, defaults)
    if kw and "kw_per_gpu" in in_use:
        st.caption(plain(f"All-in power: {kw:g} kW per GPU = {kw * 8:g} kW per 8-GPU node (the preset's); give "
                         "either."))
    cited = [text for name, text in sources.items() if name in in_use or defaults.get(name, (None,))[0] is None]
    if cited:
        st.caption("Defaults and their sources — " + plain("; ".join(cited)))
    return typed


def defaults_in_use(typed: dict, defaults: dict) -> set[str]:
    """The inputs whose box still holds its cited default (``defaults``: name -> (value, source)), not a value the
    user typed over it: the only ones the words about defaults (the preset's, where it came from, read long ago)
    are about. The power per GPU is typed over when a power per node is given."""
    out = set()
    for name, _ in _FIELDS:
        start = defaults.get(name, (None, ""))[0]
        if start is None:
            continue
        start = start * 100 if name == "utilization" else start
        if str(typed.get(name) or "").strip() == numbers.shown(start):
            out.add(name)
    if str(typed.get(_PER_NODE) or "").strip():
        out.discard("kw_per_gpu")
    return out


def read_build_up(typed: dict) -> tuple[dict | None, str | None]:
    """(values, question) of the typed build-up: values None when a box is refused (each refusal shown, quoting
    what was typed); question when the utilisation looks like a fraction (1 % or less), to confirm."""
    values, ok = {}, True
    for name, pct in (*_FIELDS, (_PER_NODE, False)):
        label = _PER_NODE_LABEL if name == _PER_NODE else onprem_label(name, percent=name == "utilization")
        good, value = numbers.read(label, typed.get(name), percent=pct, whole=name in ONPREM_COUNTS)
        ok = ok and good
        values[name] = value
    util = values["utilization"]
    if util is not None and not (0 < util <= 100):
        notice(f"{_UTIL_LABEL}: {typed['utilization'].strip()!r} not applied: the share of hours billable "
                       "must be more than 0 % and at most 100 %")
        ok = False
    if not ok:
        return None, None
    node_kw = values.pop(_PER_NODE)
    if node_kw is not None:
        values["kw_per_gpu"] = node_kw / (values["gpus_per_node"] or 8)
    question = percent_question(util, _UTIL_LABEL)
    values["utilization"] = None if util is None else util / 100
    values["colo_includes_power"] = typed["colo_includes_power"]
    return values, question


def _add(profile, profiles, in_view: tuple[str, ...] = ()) -> None:
    kept = [p for p in profiles if p.name != profile.name]
    if commit(profiles=profiles_to_text([*kept, profile]),
              priced_by=tuple(n for n in view().priced_by if n != profile.name) + (profile.name,)):
        rate = profile.rate()
        priced = f" at ${rate:,.2f}/GPU-hour" if rate else " (no price yet)"
        if profile.hardware.lower() in {h.lower() for h in in_view}:
            notice(f"cost profile '{profile.name}' added{priced}: {profile.hardware} is now priced by it on every page")
        else:
            notice(f"cost profile '{profile.name}' added{priced}; no series in view runs on {profile.hardware}, so "
                   "it prices nothing until its rows are in view")


def add_onprem(name: str, hardware: str, values: dict, profiles, in_view: tuple[str, ...] = ()) -> None:
    try:
        _add(cost_profile(name=name, hardware=hardware, onprem={k: v for k, v in values.items() if v is not None},
                          source="TCO builder (on-prem build-up)"), profiles, in_view)
    except TcoInputError as exc:
        st.error(plain(str(exc)))
    else:
        st.rerun()


def add_rate(name: str, hardware: str, typed: str, profiles, in_view: tuple[str, ...] = ()) -> None:
    ok, rate = numbers.read("$/GPU-hour", typed, bounds=RATE_BOUNDS)
    if not ok or rate is None:
        if ok:
            st.error("Give the quoted $/GPU-hour.")
        return
    try:
        _add(cost_profile(name=name, hardware=hardware, usd_per_gpu_hour=rate, source="TCO builder (quoted rate)"),
             profiles, in_view)
    except TcoInputError as exc:
        st.error(plain(str(exc)))
    else:
        st.rerun()


def replace_profiles(profiles) -> None:
    """The edited table's profiles become the view's (names no longer present stop pricing)."""
    names = {p.name for p in profiles}
    commit(profiles=profiles_to_text(profiles), priced_by=tuple(n for n in view().priced_by if n in names))
    st.session_state["_profiles_edits"] = st.session_state.get("_profiles_edits", 0) + 1
    st.rerun()


def team_store(profiles, read_only: bool) -> None:
    """Profiles the team keeps in the database: load them into this view, or save this view's."""
    with st.expander("Team profiles (stored in the database)"):
        stored = load_profiles(data.cursor())
        names = [p.name for p in stored]
        chosen = st.multiselect("Stored profiles", names, key="stored_choice", placeholder="none stored yet"
                                if not names else "choose")
        if st.button("Load into this view", key="load_profiles", disabled=not chosen):
            current = {p.name: p for p in profiles}
            current.update({p.name: p for p in stored if p.name in chosen})
            commit(profiles=profiles_to_text(list(current.values())))
            st.rerun()
        if not read_only and st.button("Save this view's profiles for the team", key="save_profiles",
                                       disabled=not profiles):
            count = data.write(lambda con: save_profiles(con, profiles, saved_by="dashboard"), "save the profiles")
            if count is not None:
                st.success(f"Saved {count} cost profile{'s' if count != 1 else ''}.")


def opencost_download(profiles) -> None:
    """OpenCost's CSV pricing of an on-prem profile bought on a date (:func:`model.core.opencost_pricing.price_file`,
    what ``costfrontier tco ... --opencost-pricing FILE --purchase-date D`` writes): its paid $/GPU-hour on the GPU
    row, the purchase date and the depreciation schedule in lines OpenCost skips."""
    built = [p for p in profiles if p.onprem is not None and p.paid_rate() is not None]
    st.subheader("OpenCost price file")
    if not built:
        st.caption("An on-prem build-up above can be written as OpenCost's custom CSV pricing, so the cluster's own "
                   "cost reports use the proposal's rate.")
        return
    c1, c2 = st.columns(2)
    names = [p.name for p in built]
    chosen = c1.selectbox("Profile", names, key="opencost_profile")
    bought = c2.date_input("Purchase date", value=date.today(), key="opencost_purchase_date",
                           help="The depreciation schedule starts here; its end is the file's EndTimestamp.")
    profile = built[names.index(chosen)]
    try:
        text = price_file(profile, bought)
    except TcoInputError as exc:
        st.error(plain(str(exc)))
        return
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", profile.name).strip("-.") or "profile"
    st.download_button("OpenCost price file (CSV)", text, f"{stem}-opencost-pricing.csv", "text/csv",
                       key="opencost_download", on_click="ignore", icon=":material/download:")
    st.caption(plain(f"${profile.paid_rate():.6f} per GPU-hour paid (every hour, at full use: OpenCost adds idle "
                     f"cost itself), depreciated from {bought.isoformat()} to "
                     f"{years_after(bought, profile.onprem.years).isoformat()}. Nodes are matched by the label "
                     f"node.kubernetes.io/instance-type={profile.hardware.lower()}, their GPUs by nvidia.com/gpu_type="
                     f"{profile.hardware}; enable with USE_CSV_PROVIDER=true and CSV_PATH "
                     "(costfrontier tco --opencost-node/--opencost-gpu choose other labels)."))
