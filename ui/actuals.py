"""The Plan vs actual page's inputs: the plan (a share link, the view's ``plan``), which stored cost to read, and
the upload of actuals (OpenCost responses, a bill), each file stored whole or refused naming its line and field
(:func:`model.data.ingest.ingest_actuals_file`); a read-only deployment writes nothing and offers no upload."""

from __future__ import annotations

import tempfile
from pathlib import Path

import streamlit as st

from model.core.actual_rows import COST_BASES, ActualsError
from model.data.importers.base import IngestError
from model.data.ingest import ingest_actuals_file
from model.present.actual_answer import PLAN_PARTS, plan_of, plan_view
from ui import data, widgets
from ui.state import bind, plain, view

__all__ = ["plan_boxes", "upload_box", "stored_table"]

_ROUND = "_actuals_round"         # a new key empties the uploader after a store
_SAID = "_actuals_said"           # what the last store said, shown once
#: the stored actuals as the page lists them: (header, column, kind), tokens and GPU-hours as whole numbers
_STORED = [("Source #", "source_id", "int"), ("File", "file_name", "text"), ("Model", "model", "text"),
           ("Namespace", "namespace", "text"), ("From", "period_start", "text"), ("To", "period_end", "text"),
           ("Cost basis", "cost_basis", "text"), ("$", "usd", "usd"), ("Input tokens", "input_tokens", "count"),
           ("Output tokens", "output_tokens", "count"), ("GPU-hours", "gpu_hours", "count"),
           ("Allocation method", "allocation_method", "text")]


def plan_boxes() -> None:
    """The plan's share link and the cost basis, bound to the view (so the link and the report carry them)."""
    c1, c2 = st.columns([3, 1])
    bind(c1.text_input, "plan", placeholder="http://…/Buy_rent_or_API?wl=…&tpm=…&v=8")
    bind(c2.selectbox, "cost_basis", ["", *COST_BASES], to_widget=lambda v: v or "", from_widget=lambda v: v or None,
         format_func=lambda v: v or "bill, else allocation, else usage")


def _plan_models(link: str) -> tuple[str, ...] | None:
    """The models the plan's rows hold (actuals of another model are refused), or None without a readable plan."""
    try:
        state, notices = plan_view(link)
        return plan_of(data.answer_of(state, PLAN_PARTS), link, notices).models or None
    except (ActualsError, ValueError):
        return None


def _store(uploads, models) -> list[tuple[str, str]]:
    said = []
    for upload in uploads:
        with tempfile.TemporaryDirectory(prefix="costfrontier-actuals-") as folder:
            copy = Path(folder) / "upload"
            copy.write_bytes(upload.getvalue())
            try:
                result = data.write(lambda con, copy=copy, name=upload.name: ingest_actuals_file(
                    con, copy, display_name=name, plan_models=models), "store the actuals")
            except IngestError as exc:
                said.append(("error", str(exc)))
                continue
        if result is not None:
            said.append(("ok", result.summary))
            said.extend(("warning", f"{upload.name}: {w}") for w in result.warnings)
    return said


def upload_box() -> None:
    """Upload actuals and store them (each file one data version); with a plan named, actuals of another model are
    refused. What the last store said is shown once."""
    for kind, text in st.session_state.pop(_SAID, []):
        (st.success if kind == "ok" else st.error if kind == "error" else st.warning)(plain(text))
    if data.read_only():
        st.caption("Read-only deployment: actuals are stored where the store is written (costfrontier actual FILE).")
        return
    round_ = st.session_state.setdefault(_ROUND, 0)
    files = st.file_uploader("Actuals: OpenCost /inferenceCost responses (JSON) or a bill (CSV of date or period, "
                             "model, input_tokens, output_tokens, usd)", type=["json", "csv"],
                             accept_multiple_files=True, key=f"actuals_upload_{round_}")
    if files and st.button(f"Store {len(files)} file{'s' if len(files) != 1 else ''} of actuals", type="primary",
                           key="actuals_store"):
        link = view().plan
        st.session_state[_SAID] = _store(files, _plan_models(link) if link else None)
        st.session_state[_ROUND] = round_ + 1
        st.rerun()


def stored_table(stored) -> None:
    """The stored actuals, money as dollars and counts as whole numbers (the table's "More columns": namespace,
    allocation method)."""
    def count(v) -> str:
        return "—" if v is None or v != v else f"{float(v):,.0f}"

    frame = stored.assign(**{c: stored[c].map(count) for _, c, k in _STORED if k == "count"},
                          **{c: stored[c].map(lambda v: "" if v is None else f"{v:%Y-%m-%d %H:%M}")
                             for c in ("period_start", "period_end")})
    widgets.spec_table(frame, [(h, c, "text" if k == "count" else k) for h, c, k in _STORED], key="actuals_table",
                       details=("Namespace", "Allocation method"))
