"""The controls of issue 52's parts on the dashboard: the $/M cap on Matched interactivity, the API price and token
mix on the Sell page, and the tenants (typed, or from a trace's tenant column) on the Chargeback page. Each writes the
view's own field (:func:`ui.state.bind`, :func:`ui.numbers.field_box`), so a link reopens what the page shows."""

from __future__ import annotations

import streamlit as st

from model.core.chargeback import TenantError, tenants_of_counts, tenants_text
from model.core.trace import TraceError
from model.data.trace_files import private_copy, tokens_by
from model.present.sell_report import CAP_TABLE, SLO_TABLE
from model.present.tables import table_of
from ui import numbers, report, widgets
from ui.state import bind, commit, plain, view

__all__ = ["cap_section", "api_boxes", "tenants_boxes"]

#: the API choice's first entry: the stored price matched by the model's name
MATCHED = "matched by the model's name"


def cap_section(ctx) -> None:
    """Matched interactivity's inverse question: the highest interactivity whose $/M stays at or under a cap, per
    series and overall, each with its range (``costfrontier solve --max-usd-per-mtok``)."""
    st.subheader("The highest interactivity under a $/M cap")
    numbers.field_box(st, "max_usd_per_mtok", placeholder="e.g. 0.5")
    if ctx.state.max_usd_per_mtok is None:
        st.caption("Type a cap: each series' cost curve is read up to where its $/M reaches it.")
        return
    answer = ctx.answer("solve")
    solve = answer.solve
    (st.success if solve.overall else st.warning)(plain(solve.cap_text))
    found = table_of(answer, CAP_TABLE)
    if found is not None:
        widgets.spec_table(*found, key="cap_table")
        report.table_download(ctx, CAP_TABLE)
    if (slo := table_of(answer, SLO_TABLE)) is not None:
        st.markdown(plain(solve.slo_text))
        widgets.spec_table(*slo, key="slo_table", details=("Capacity from",))


def _prices(text: str):
    parts = [p.strip() for p in text.replace(";", ",").split(",") if p.strip()]
    if not parts:
        return ()
    return tuple(float(p) for p in parts)


def api_boxes(where, choices: tuple[str, ...]) -> None:
    """The API price the tokens are sold at: a stored model, or typed prices (input, cached input, output $/M)."""
    current = view().api
    st.session_state["sell_api_pick"] = current if current in choices else MATCHED   # the view decides what shows

    def _picked():
        chosen = st.session_state["sell_api_pick"]
        commit(api=None if chosen == MATCHED else chosen, api_usd=())

    where.selectbox("API price sold at", [MATCHED, *choices], key="sell_api_pick", on_change=_picked)
    bind(where.text_input, "api_usd", "Or type prices [$/M input, cached input, output]",
         to_widget=lambda v: ", ".join(f"{x:g}" for x in v), from_widget=_prices)


def tenants_boxes() -> None:
    """The tenants: typed as NAME:INPUT:OUTPUT[:CACHED], or summed from an uploaded trace's tenant column."""
    bind(st.text_input, "tenants")
    upload = st.file_uploader("Or a request trace with a tenant, user or workload column (CSV)", type=["csv"],
                              key="tenants_trace")
    if upload is None or st.session_state.get("tenants_read") == upload.file_id:
        return
    with private_copy(upload) as path:
        try:
            column, counts = tokens_by(path, upload.name)
            text = tenants_text(tenants_of_counts(counts))
        except (TraceError, TenantError) as exc:
            st.error(plain(f"Not read: {exc}"))
            return
    st.session_state["tenants_read"] = upload.file_id
    if commit(tenants=text):
        st.success(plain(f"Read {len(counts):,} tenants from the {column!r} column."))
        st.rerun()
