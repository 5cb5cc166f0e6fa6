"""The frame around the pages: the page list for ``st.navigation`` and, before the page runs,
the shared sidebar, the share box and the address bar."""

from __future__ import annotations

import streamlit as st

from model.core.view import View
from model.core.view_fields import MAX_VALUE_LENGTH
from model.data.snapshot import changed_text
from model.data.store import StoreError
from ui import data, report, sidebar
from ui.state import mirror_to_url, plain, pop_notices, share_link, view

__all__ = ["PAGES", "URL_PATHS", "navigation", "page_links", "start", "context", "link_left_out_text"]

#: script, title, URL path (the first layout's, from its ``pages/`` file names, so old links still open), icon.
#: The scripts sit in ``views/``, which only ``st.navigation`` serves: Streamlit's legacy ``pages/``-directory
#: mode, which ran a page file without this frame, is never on.
PAGES = (
    ("views/overview.py", "Overview", "overview", ":material/home:"),   # default page: served at /
    ("views/frontier.py", "Frontier", "Frontier", ":material/scatter_plot:"),
    ("views/matched_interactivity.py", "Cost at matched interactivity", "Matched_interactivity",
     ":material/payments:"),
    ("views/crossovers.py", "Crossovers", "Crossovers", ":material/compare_arrows:"),
    ("views/ramps.py", "Load ramps and capacity", "Ramps", ":material/speed:"),
    ("views/tco_rates.py", "TCO rates", "TCO_rates", ":material/tune:"),
    ("views/tco_builder.py", "TCO builder (on-prem)", "TCO_builder", ":material/calculate:"),
    ("views/fleet.py", "Fleet sizing", "Fleet", ":material/dns:"),
    ("views/buy_rent_or_api.py", "Buy, rent or API", "Buy_rent_or_API", ":material/shopping_cart:"),
    ("views/history.py", "History by run date", "History", ":material/history:"),
    ("views/data.py", "Data", "Data", ":material/database:"),
)
URL_PATHS = tuple(p[2] for p in PAGES)
_CTX = "_ctx"


_PAGE_OBJECTS = "_pages"


def navigation():
    """The page chosen by the address or a sidebar link. The links are the frame's own (:func:`page_links`), not
    ``st.navigation``'s: Streamlit's own links open a page without its query string, and the view written back to
    the address then made a second history entry, so the browser's Back took two presses per page."""
    pages = [st.Page(script, title=title, icon=icon, default=i == 0, url_path=path)
             for i, (script, title, path, icon) in enumerate(PAGES)]
    st.session_state[_PAGE_OBJECTS] = pages
    return st.navigation(pages, position="hidden")


def page_links(query: dict[str, str]) -> None:
    """A link to every page that carries the view's query string, so opening a page is one history entry whose
    address already holds the view (:func:`ui.state.mirror_to_url` then has nothing to write)."""
    for page in st.session_state[_PAGE_OBJECTS]:
        st.page_link(page, query_params=query, width="stretch")


def start(url_path: str) -> data.Ctx:
    """Before the page: open the store, draw the shared sidebar and the share box, show queued
    notices and mirror the view to the address bar.

    All of it can happen before the page runs because every control writes the view in its
    ``on_change`` callback, which Streamlit runs before the rerun starts.
    """
    with st.sidebar:
        links = st.container(key="page_links")   # filled once the sidebar has settled the view
    try:
        snap = data.begin()
    except StoreError as exc:
        st.error(plain(f"Cannot open the data: {exc.public}"))
        _stop(links)
    if data.store_away(snap, view() != View()):
        st.warning("The data are away for a moment (the store is being replaced). Your view, its rates, filters "
                   "and targets, is kept and comes back with the data: try again in a moment.", icon="⏳")
        st.button("Try again", key="_store_away_retry")   # a rerun of this session, its view intact
        _stop(links)   # before the sidebar: drawn over no data, it would drop every filter and rate of the view
    ctx = sidebar.draw(url_path)
    for text in pop_notices():
        st.warning(plain(text[:1].upper() + text[1:]), icon="⚠️")
    mirror_to_url()
    with links:
        page_links(view().to_query())
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
    return ctx


def _stop(links) -> None:
    """End this run before the page, the page links still drawn (in ``links``) so every page stays a click away."""
    with links:
        page_links(view().to_query())
    st.stop()


def link_left_out_text(left_out: tuple[str, ...]) -> str:
    """The Share box's words for a view that does not fit a link, and what to share instead."""
    what = " and ".join(left_out)
    instead = "download the report of this view (below)"
    if "cost profiles" in left_out:
        instead += ", or save the profiles for the team (TCO builder, Team profiles) and load them there"
    return (f"This view's {what} do not fit in a link (at most {MAX_VALUE_LENGTH:,} characters per value): "
            f"the link opens the view without them. To share them, {instead}.")


def context() -> data.Ctx:
    """This rerun's context, as :func:`start` left it before the page ran."""
    return st.session_state[_CTX]
