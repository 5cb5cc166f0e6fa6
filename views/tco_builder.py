"""TCO builder: cost profiles (a quoted rate, or an on-prem build-up from a server quote and a power bill)
that price every page, with their breakdown and sensitivity."""

import streamlit as st

from model.core.cost_profiles import breakdown_frame, profiles_frame, profiles_from_frame
from model.core.hardware import CANONICAL_HARDWARE
from model.core.tco import TcoInputError, onprem_defaults
from model.present import fmt
from model.present.tco_figures import breakdown_figure, tornado_figure
from ui import data, frame, tco, widgets
from ui.state import bind, plain

ctx = frame.context()
st.title("TCO builder")
st.caption("A cost profile is a named way to pay for a GPU: a quoted $/GPU-hour, or an on-prem build-up. Profiles "
           "chosen below price their hardware on every page and travel in the share link.")
profiles = ctx.state.cost_profiles()
hardware = sorted({*(ctx.options["hardware"]), *CANONICAL_HARDWARE}, key=str.lower)

st.subheader("On-prem build-up")
# outside the form: choosing a GPU reruns the page, so its own defaults (kW per GPU, ...) fill the form
hw = st.selectbox("Hardware", hardware, index=hardware.index("H200") if "H200" in hardware else 0, key="tco_hw")
with st.form("onprem_form"):
    name = st.text_input("Profile name", placeholder=f"{hw} on-prem 5y", key="tco_name")
    defaults = onprem_defaults(hw, ctx.presets)
    values = tco.build_up_inputs(defaults, hw)
    submitted = st.form_submit_button("Add to this view and price with it", type="primary")
if submitted:
    tco.add_onprem(name or f"{hw} on-prem {values.get('years') or 5:g}y", hw, values, profiles)

with st.expander("A quoted rate (cloud, reserved, neocloud)"):
    with st.form("rate_form"):
        c1, c2, c3 = st.columns(3)
        quote_hw = c1.selectbox("Hardware", hardware, key="quote_hw")
        quote_name = c2.text_input("Profile name", key="quote_name", placeholder=f"{quote_hw} cloud 3y reserved")
        quote = c3.number_input("$/GPU-hour", value=None, step=0.01, format="%.2f", key="quote_rate")
        if st.form_submit_button("Add"):
            tco.add_rate(quote_name or f"{quote_hw} quote", quote_hw, quote, profiles)

if profiles:
    st.subheader("Profiles in this view")
    editor_key = f"profiles_table_{st.session_state.setdefault('_profiles_edits', 0)}"
    shown = profiles_frame(profiles)
    edited = st.data_editor(shown, key=editor_key, hide_index=True, width="stretch", num_rows="dynamic",
                            disabled=["kind", "usd_per_gpu_hour"],
                            column_config={"usd_per_gpu_hour": st.column_config.NumberColumn(
                                "effective $/GPU-hour", format="$%.4f")})
    if not edited.equals(shown):
        try:
            tco.replace_profiles(profiles_from_frame(edited))
        except TcoInputError as exc:
            st.error(plain(str(exc)))
    bind(st.multiselect, "priced_by", "Price series with", [p.name for p in profiles], to_widget=list,
         from_widget=tuple, help="A hardware two chosen profiles name is shown side by side, once per profile.")
    table = breakdown_frame(profiles)
    st.plotly_chart(breakdown_figure(table), width="stretch", key="breakdown_chart")
    widgets.table(table.rename(columns={"profile": "series"}), key="breakdown_table")

    answered = [pa for pa in ctx.answer.profiles if pa.tornado is not None]
    if answered:
        st.subheader("Sensitivity: each input ±20 %")
        c1, c2 = st.columns(2)
        chosen = c1.selectbox("Profile", [pa.profile.name for pa in answered], key="tornado_profile")
        pa = next(pa for pa in answered if pa.profile.name == chosen)
        c2.markdown(plain(f"$/M of {pa.series} at {fmt.interactivity(ctx.answer.interactivity_needed)} (the interactivity you need)"
                          if pa.tornado_unit == "usd_per_mtok" else
                          "$/GPU-hour (no series of this hardware is in view to price tokens)"))
        st.plotly_chart(tornado_figure(pa.tornado, pa.tornado_base, pa.tornado_unit), width="stretch",
                        key="tornado_chart")
        for _, _, _, text in pa.break_even:
            st.markdown(plain(text + "."))
    tco.team_store(profiles, read_only=data.read_only())
else:
    tco.team_store([], read_only=data.read_only())
