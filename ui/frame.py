"""The frame around the pages: the page list for ``st.navigation`` and, before the page runs,
the shared sidebar, the share box and the address bar."""

from __future__ import annotations

from pathlib import Path

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from model.core.view_fields import MAX_VALUE_LENGTH
from model.data.snapshot import changed_text
from model.data.store import StoreError
from ui import data, report, sidebar
from ui.state import mirror_to_url, plain, pop_notices, share_link, view

__all__ = ["PAGES", "URL_PATHS", "navigation", "start", "context", "link_left_out_text"]

#: script, title, URL path (kept from the first layout so old links still open), icon
PAGES = (
    ("pages/0_Overview.py", "Overview", "overview", ":material/home:"),   # default page: served at /
    ("pages/1_Frontier.py", "Frontier", "Frontier", ":material/scatter_plot:"),
    ("pages/2_Matched_interactivity.py", "Cost at matched interactivity", "Matched_interactivity",
     ":material/payments:"),
    ("pages/3_Crossovers.py", "Crossovers", "Crossovers", ":material/compare_arrows:"),
    ("pages/4_Ramps.py", "Load ramps and capacity", "Ramps", ":material/speed:"),
    ("pages/5_TCO_rates.py", "TCO rates", "TCO_rates", ":material/tune:"),
    ("pages/7_TCO_builder.py", "TCO builder (on-prem)", "TCO_builder", ":material/calculate:"),
    ("pages/8_Fleet.py", "Fleet sizing", "Fleet", ":material/dns:"),
    ("pages/9_Buy_rent_or_API.py", "Buy, rent or API", "Buy_rent_or_API", ":material/shopping_cart:"),
    ("pages/10_History.py", "History by run date", "History", ":material/history:"),
    ("pages/6_Data.py", "Data", "Data", ":material/database:"),
)
URL_PATHS = tuple(p[2] for p in PAGES)
_CTX, _RUN = "_ctx", "_frame_run"


def navigation():
    """The page chosen by the address or a sidebar link (``st.navigation`` draws the links)."""
    return st.navigation([st.Page(script, title=title, icon=icon, default=i == 0, url_path=path)
                          for i, (script, title, path, icon) in enumerate(PAGES)])


def start(url_path: str) -> data.Ctx:
    """Before the page: open the store, draw the shared sidebar and the share box, show queued
    notices and mirror the view to the address bar.

    All of it can happen before the page runs because every control writes the view in its
    ``on_change`` callback, which Streamlit runs before the rerun starts.
    """
    try:
        snap = data.begin()
    except StoreError as exc:
        st.error(plain(f"Cannot open the data: {exc.public}"))
        st.stop()
    ctx = sidebar.draw(url_path)
    for text in pop_notices():
        st.warning(plain(text[:1].upper() + text[1:]), icon="⚠️")
    mirror_to_url()
    link = share_link(url_path, URL_PATHS)
    with st.sidebar:
        st.header("Share this view")
        st.code(link, language=None, wrap_lines=True)
        st.caption(f"{len(link)} characters. Opens this page with these filters, rates and targets.")
        left_out = view().left_out_of_link()
        if left_out:
            st.warning(plain(link_left_out_text(left_out)), icon="✂️")
        st.caption(changed_text(snap.changed_at))
    report.report_box(ctx, link)
    st.session_state[_CTX] = ctx
    run = get_script_run_ctx()
    st.session_state[_RUN] = run.cursors if run is not None else None   # marks this run as framed
    return ctx


def link_left_out_text(left_out: tuple[str, ...]) -> str:
    """The Share box's words for a view that does not fit a link, and what to share instead."""
    what = " and ".join(left_out)
    instead = "download the report of this view (below)"
    if "cost profiles" in left_out:
        instead += ", or save the profiles for the team (TCO builder, Team profiles) and load them there"
    return (f"This view's {what} do not fit in a link (at most {MAX_VALUE_LENGTH:,} characters per value): "
            f"the link opens the view without them. To share them, {instead}.")


def context(page_file: str) -> data.Ctx:
    """This rerun's context, for the page script ``page_file`` (its ``__file__``).

    Streamlit runs a file in ``pages/`` by itself, without the frame, while it is in its legacy
    ``pages/``-directory mode: on a server's first request (until ``st.navigation`` has been called
    once in the process) and under AppTest. The page then draws the frame itself (navigation,
    which also ends that mode, and the sidebar), so it never shows a stale or missing view.
    """
    run = get_script_run_ctx()
    if run is None or st.session_state.get(_RUN) is not run.cursors or _CTX not in st.session_state:
        name = Path(page_file).name
        url_path = next((path for script, _, path, _ in PAGES[1:] if Path(script).name == name), "")
        if run is None:   # no Streamlit runtime: nothing to keep identities for
            start(url_path)
        else:             # drawn as app.py draws it (same widget identities), so the next, framed, run keeps its state
            with run.run_with_active_hash(run.pages_manager.main_script_hash):
                navigation()
                start(url_path)
    return st.session_state[_CTX]
