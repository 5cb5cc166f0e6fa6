"""The TCO builder's inputs and actions: build-up fields with their cited defaults, adding and
replacing the view's cost profiles, and the team's stored profiles."""

from __future__ import annotations

import streamlit as st

from model.core.cost_profiles import cost_profile, profiles_to_text
from model.core.onprem_labels import onprem_label
from model.core.tco import TcoInputError
from model.data.profiles import load_profiles, save_profiles
from ui import data
from ui.state import commit, notice, plain, view

__all__ = ["build_up_inputs", "add_onprem", "add_rate", "replace_profiles", "team_store"]

#: build-up input (labelled by model.core.tco.ONPREM_LABELS), step, shown as a percentage of a fraction
_FIELDS = (
    ("server_usd", 1000.0, False),
    ("gpus_per_node", 1, False),
    ("network_pct", 1.0, False),
    ("install_usd", 100.0, False),
    ("years", 1.0, False),
    ("rate_pct", 0.5, False),
    ("kw_per_gpu", 0.05, False),
    ("pue", 0.01, False),
    ("usd_per_kwh", 0.005, False),
    ("colo_usd_per_kw_month", 1.0, False),
    ("maintenance_pct", 0.5, False),
    ("licence_usd_per_gpu_year", 100.0, False),
    ("staff_usd_per_year", 1000.0, False),
    ("fleet_gpus", 8, False),
    ("utilization", 1.0, True),
)
_START = {"gpus_per_node": 8, "network_pct": 0.0, "install_usd": 0.0, "rate_pct": 0.0, "maintenance_pct": 0.0,
          "licence_usd_per_gpu_year": 0.0, "staff_usd_per_year": 0.0, "utilization": 1.0}


def build_up_inputs(defaults: dict, hardware: str) -> dict:
    """Draw the build-up's inputs (inside a form); each default says where it comes from. Returns the values.

    The fields are keyed per GPU (``tco_kw_per_gpu::B200``): choosing another GPU shows that GPU's
    defaults, never the last one's (a B200 profile was once priced with the H200's 1.37 kW/GPU)."""
    values, sources = {}, []
    cols = st.columns(3)
    for i, (name, step, pct) in enumerate(_FIELDS):
        label = onprem_label(name, percent=pct)
        start, source = defaults.get(name, (_START.get(name), ""))
        if start is not None and pct:
            start = start * 100
        is_int = isinstance(step, int)
        value = cols[i % 3].number_input(label, value=None if start is None else (int(start) if is_int else float(start)),
                                         step=step, key=f"tco_{name}::{hardware}", placeholder="needed" if name == "server_usd"
                                         else "optional", format=None if is_int else "%g")
        values[name] = value / 100 if (pct and value is not None) else value
        if source:
            sources.append(f"{label}: {start:g} from {source}" if start is not None else f"{label}: {source}")
    values["colo_includes_power"] = st.checkbox(onprem_label("colo_includes_power"), key="tco_colo_power")
    st.caption("Defaults and their sources — " + plain("; ".join(sources)))
    return values


def _add(profile, profiles) -> None:
    kept = [p for p in profiles if p.name != profile.name]
    if commit(profiles=profiles_to_text([*kept, profile]),
              priced_by=tuple(n for n in view().priced_by if n != profile.name) + (profile.name,)):
        notice(f"cost profile '{profile.name}' added: {profile.hardware} is now priced by it on every page")


def add_onprem(name: str, hardware: str, values: dict, profiles) -> None:
    try:
        _add(cost_profile(name=name, hardware=hardware, onprem={k: v for k, v in values.items() if v is not None},
                          source="TCO builder (on-prem build-up)"), profiles)
    except TcoInputError as exc:
        st.error(plain(str(exc)))
    else:
        st.rerun()


def add_rate(name: str, hardware: str, rate, profiles) -> None:
    try:
        _add(cost_profile(name=name, hardware=hardware, usd_per_gpu_hour=rate, source="TCO builder (quoted rate)"),
             profiles)
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
