"""The frame around the pages: the page list for ``st.navigation`` and, before the page runs,
the shared sidebar, the share box and the address bar."""

from __future__ import annotations

import streamlit as st

from model.core.links import live_url, pinned_url
from model.core.trace import is_reference
from model.core.view import View
from model.core.view_fields import MAX_VALUE_LENGTH, PLURAL_WORDS
from model.data.snapshot import changed_text
from model.data.store import StoreError
from model.data.traces import missing_trace_text
from model.data.versions import record_pin
from model.present import fmt
from ui import data, demand, report, sidebar, versions
from ui.state import commit, mirror_to_url, notice, plain, pop_notices, share_link, view

__all__ = ["PAGES", "URL_PATHS", "navigation", "page_links", "start", "context", "link_left_out_text", "pin_button",
           "pinned_notice", "share_promise"]

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
    ("views/gpu_mix.py", "GPU mix", "GPU_mix", ":material/join_inner:"),
    ("views/sell.py", "Sell", "Sell", ":material/sell:"),                      # issue 52
    ("views/chargeback.py", "Chargeback", "Chargeback", ":material/groups:"),
    ("views/plan_vs_actual.py", "Plan vs actual", "Plan_vs_actual", ":material/receipt_long:"),
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
    refusal = _pin_refusal(snap.version)
    if refusal:           # before the sidebar: nothing of the other data is drawn
        _other_data(refusal)
        _stop(links)
    _drop_missing_trace()
    ctx = sidebar.draw(url_path)
    for text in pop_notices():
        st.warning(plain(fmt.sentence(text)), icon="⚠️")
    mirror_to_url()
    with links:
        page_links(view().to_query())
    latest = versions.latest(snap.version)
    pinned_notice(ctx, latest)
    link = share_link(url_path, URL_PATHS)
    shown = view().data_version or latest
    live, pinned = live_url(link), pinned_url(link, shown, versions.digest(snap.version, shown) if shown else None)
    with st.sidebar:
        st.header("Share this view")
        st.caption("On the latest data (it follows every new ingest):")
        st.code(live, language=None, wrap_lines=True)
        if pinned != live:
            purged = versions.pin_check(snap.version, shown, None)[0]
            promise = st.empty()        # said after the button: a pin recorded by this click is recorded
            st.code(pinned, language=None, wrap_lines=True)
            recorded = pin_button(shown, pinned) or shown in versions.recorded(snap.version)
            promise.caption(share_promise(shown, bool(purged), recorded, data.read_only()))
        st.caption(f"{len(live)} characters. Opens this page with these filters, rates and targets.")
        left_out = view().left_out_of_link()
        if left_out:
            st.warning(plain(link_left_out_text(left_out)), icon="✂️")
        st.caption(changed_text(snap.changed_at))
    report.report_box(ctx, pinned)     # the report's reopen link is the pinned one, its digest with it
    st.session_state[_CTX] = ctx
    return ctx


def share_promise(version: int, purged: bool, recorded: bool, read_only: bool) -> str:
    """The Share box's words over the pinned link of data version ``version``: what it keeps showing, and only that.
    A pinned version keeps its numbers through new ingests and removals; a purge deletes rows for good, so only a
    recorded pin (which purge keeps unless forced) keeps them through one."""
    if purged:
        return (f"Pinned to data version {version}: rows it showed have been purged since, so it opens version "
                f"{version} without them (it says so on every page), not the numbers first presented with it.")
    if recorded:
        return (f"As presented, pinned to data version {version}: it shows these numbers even after the data "
                "change (the pin is recorded: a purge keeps what it shows unless forced).")
    keep = ("a read-only deployment cannot record it: the writer's operator can, with costfrontier pin "
            f"{version}" if read_only else "record the pin below to keep them through a purge")
    return (f"As presented, pinned to data version {version}: it shows these numbers after new ingests and "
            f"removals, but a purge of removed files would delete rows it shows ({keep}).")


def _pin_refusal(ver: tuple) -> str | None:
    """Why this store cannot show the view's pinned data version (:func:`ui.versions.pin_check`), or None."""
    pinned = view().data_version
    return versions.pin_check(ver, pinned, view().data_digest)[1] if pinned is not None else None


def _drop_missing_trace() -> None:
    """A view naming a stored trace this store does not hold (a link from another store) opens without it, and
    says so at the top of the page."""
    text = view().trace
    if is_reference(text) and demand.view_trace(text) is None:
        commit(trace="")
        notice(missing_trace_text(text) + "; the view opens without it")


def _other_data(refusal: str) -> None:
    """The page of a pinned link this store cannot show: why, and a button to the view on the latest data."""
    with st.container(border=True, key="pinned_notice"):
        st.error(plain(refusal), icon="📌")
        st.button("Open this view on the latest data", key="_go_live", on_click=commit,
                  kwargs={"data_version": None, "data_digest": None})


def pin_button(version: int, link: str) -> bool:
    """Record the pinned link's version, so ``costfrontier purge`` keeps what it shows (not in a read-only
    deployment, which writes nothing: purge cannot know of links shared from it). Whether it is recorded by this
    click."""
    if data.read_only():
        st.caption("Read-only deployment: this pin is not recorded, so a purge on the writer cannot know of it.")
        return False
    if st.button(f"Record this pin (purge keeps version {version})", key="_record_pin"):
        # the digest when recorded, "" when this version and link were recorded before; None: the write failed
        recorded = data.write(lambda con: record_pin(con, version, link, data.page_name()) or "", "record the pin")
        if recorded is not None:
            st.toast(f"Pinned: version {version} is kept by purge." if recorded
                     else f"This pin is already recorded: version {version} is kept by purge.")
            return True
    return False


def pinned_notice(ctx: data.Ctx, latest: int) -> None:
    """On every page of a view pinned to a data version: the purges that deleted rows it showed (rows purged on
    DATE), and, once the store has moved past it, what changed since (sources added and removed), the headline then
    and now, and a button to the live data. (A version this store does not have, or that shows other data here than
    when the link was made, never gets this far: :func:`start` refuses it.)"""
    pinned = view().data_version
    if pinned is None:
        return
    purged = versions.pin_check(ctx.version, pinned, view().data_digest)[0]
    for text in purged:
        st.warning(plain(fmt.sentence(text)), icon="🗑️")
    if pinned == latest:
        st.caption(f"📌 Pinned to data version {pinned}, the latest: the data have not changed since.")
        return
    added, removed = versions.changes_since(ctx.version, pinned)
    then = _headline(ctx.state)
    now = _headline(ctx.state.replace(data_version=None, data_digest=None))
    what = "; ".join(part for part in (f"added {', '.join(added)}" if added else "",
                                       f"removed {', '.join(removed)}" if removed else "") if part)
    with st.container(border=True, key="pinned_notice"):
        st.warning(plain(f"Pinned to data version {pinned}, as presented. The data have changed since (now version "
                         f"{latest}): {what or 'other writes, no source added or removed'}."), icon="📌")
        st.markdown(plain(f"Then: {then}") + "  \n" + plain(f"Now: {now}"))
        st.button("Switch to the live data", key="_go_live", on_click=commit,
                  kwargs={"data_version": None, "data_digest": None})


def _headline(state: View) -> str:
    try:
        return data.answer_of(state, ("recommendation",), data.snapshot()).recommendation.headline
    except Exception:   # noqa: BLE001 - a view the data cannot answer says so, never a traceback or a path
        return "(this view has no answer on that data)"


def _stop(links) -> None:
    """End this run before the page, the page links still drawn (in ``links``) so every page stays a click away."""
    with links:
        page_links(view().to_query())
    st.stop()


def link_left_out_text(left_out: tuple[str, ...]) -> str:
    """The Share box's words for a view that does not fit a link, and what to share instead."""
    what = " and ".join(left_out)
    many = len(left_out) > 1 or left_out[0] in PLURAL_WORDS
    them, verb = ("them", "do") if many else ("it", "does")
    instead = "download the report of this view (below)"
    if "cost profiles" in left_out:
        instead += ", or save the profiles for the team (TCO builder, Team profiles) and load them there"
    return (f"This view's {what} {verb} not fit in a link (at most {MAX_VALUE_LENGTH:,} characters per value): "
            f"the link opens the view without {them}. To share {them}, {instead}.")


def context() -> data.Ctx:
    """This rerun's context, as :func:`start` left it before the page ran."""
    return st.session_state[_CTX]
