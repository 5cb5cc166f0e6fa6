"""TCO builder: cost profiles (a quoted rate, or an on-prem build-up from a server quote and a power bill)
that price every page, with their breakdown and sensitivity."""

import streamlit as st

from model import fmt
from model.fleet import break_even, tokens_per_second_at, tornado
from model.hardware import CANONICAL_HARDWARE
from model.tco import TcoInputError, breakdown_frame, onprem_defaults, profiles_frame, profiles_from_frame
from model.tco_figures import breakdown_figure, tornado_figure
from ui import data, frame, tco, widgets
from ui.state import bind, plain

ctx = frame.context(__file__)
st.title("TCO builder")
st.caption("A cost profile is a named way to pay for a GPU: a quoted $/GPU-hour, or an on-prem build-up. Profiles "
           "chosen below price their hardware on every page and travel in the share link.")
profiles = ctx.state.cost_profiles()
hardware = sorted({*(ctx.options["hardware"]), *CANONICAL_HARDWARE}, key=str.lower)

with st.form("onprem_form"):
    st.subheader("On-prem build-up")
    c1, c2 = st.columns(2)
    hw = c1.selectbox("Hardware", hardware, index=hardware.index("H200") if "H200" in hardware else 0, key="tco_hw")
    name = c2.text_input("Profile name", placeholder=f"{hw} on-prem 5y", key="tco_name")
    defaults = onprem_defaults(hw, ctx.presets)
    values = tco.build_up_inputs(defaults)
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
    bind(st.multiselect, "use", "priced_by", "Price series with", [p.name for p in profiles], to_widget=list,
         from_widget=tuple, help="A hardware two chosen profiles name is shown side by side, once per profile.")
    table = breakdown_frame(profiles)
    st.plotly_chart(breakdown_figure(table), width="stretch", key="breakdown_chart")
    widgets.table(table.rename(columns={"profile": "series"}), key="breakdown_table")

    onprem = [p for p in profiles if p.onprem is not None and p.rate() is not None]
    if onprem:
        st.subheader("Sensitivity: each input ±20 %")
        c1, c2 = st.columns(2)
        chosen = c1.selectbox("Profile", [p.name for p in onprem], key="tornado_profile")
        profile = next(p for p in onprem if p.name == chosen)
        result = ctx.analysis()
        series = [s for s, c in result.curves.items() if c.hardware[0].lower() in (profile.hardware.lower(),
                                                                                   profile.name.lower())]
        x = ctx.state.headline_x or (result.targets[len(result.targets) // 2] if result.targets else None)
        tps = tokens_per_second_at(result.frontier, series[0], x) if series and x else float("nan")
        swings = tornado(profile.onprem, tps)
        unit = "usd_per_mtok" if tps == tps else "usd_per_gpu_hour"
        c2.markdown(plain(f"$/M of {series[0]} at {fmt.interactivity(x)}" if unit == "usd_per_mtok" else
                          "$/GPU-hour (no series of this hardware is in view to price tokens)"))
        st.plotly_chart(tornado_figure(swings, float(swings[f"{unit}_base"].iloc[0]), unit), width="stretch",
                        key="tornado_chart")
        rates = [p for p in profiles if p.onprem is None and p.rate() and p.hardware == profile.hardware]
        for quote in rates:
            server = break_even(profile.onprem, quote.rate(), "server_usd")
            st.markdown(plain(f"{profile.name} matches {quote.name} (${quote.rate():.2f}/GPU-hour) at a server "
                              f"price of " + (f"${server.value:,.0f} per node." if server.value == server.value
                                              else server.note)))
    tco.team_store(profiles, read_only=data.read_only())
else:
    tco.team_store([], read_only=data.read_only())
