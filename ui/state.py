"""The view of a session: one :class:`~model.core.view.View`, mirrored to the URL.

The state lives in ``st.session_state`` under a non-widget key, so it survives page
changes (Streamlit drops the state of widgets a page does not draw). Widgets are
*bound* to a field: each rerun seeds the widget from the state, and the widget's
``on_change`` callback writes the new value back through validation. A value that
fails validation is refused with a notice and the widget shows the kept value.
"""

from __future__ import annotations

from typing import Any, Callable

import streamlit as st
from pydantic import ValidationError

from model.core.links import public_base_url, view_url
from model.core.names import reason
from model.core.view import View
from model.core.view_fields import BY_NAME, Bounds

__all__ = ["view", "commit", "bind", "key_of", "help_of", "notice", "pop_notices", "mirror_to_url", "share_link", "plain"]

_VIEW, _NOTICES = "_view", "_notices"
_MD_SPECIAL = str.maketrans({c: "\\" + c for c in "\\`*_{}[]()#+-.!|<>~$:"})


def plain(text: str) -> str:
    """Text from files or links, safe for a Markdown-rendering element: every special character escaped."""
    return str(text).translate(_MD_SPECIAL)


def view() -> View:
    """This session's view. The first run of a session reads it from the link (with a notice
    for each value ignored); after that the session owns it."""
    if _VIEW not in st.session_state:
        state, notices = View.from_query({k: st.query_params.get_all(k) for k in st.query_params.keys()})
        st.session_state[_VIEW] = state
        st.session_state[_NOTICES] = list(notices)
    return st.session_state[_VIEW]


def notice(text: str) -> None:
    """Queue a notice for the top of the page (shown once)."""
    st.session_state.setdefault(_NOTICES, []).append(text)


def pop_notices() -> list[str]:
    notices = list(dict.fromkeys(st.session_state.get(_NOTICES, [])))
    st.session_state[_NOTICES] = []
    return notices


def commit(**changes) -> bool:
    """Apply ``changes`` to the view through validation; True when the view now holds them.

    Refused changes leave the view as it was, queue a notice saying why (in the product's words)
    and return False: a caller says a change succeeded only when this returns True.
    """
    state = view()
    if not changes:
        return True
    try:
        new = state.replace(**changes)
    except (ValidationError, ValueError) as exc:
        notice(f"not applied: {reason(exc)}")
        return False
    st.session_state[_VIEW] = new
    return True


def _on_change(key: str, field: str, from_widget: Callable[[Any], Any]) -> None:
    try:
        value = from_widget(st.session_state[key])
    except (TypeError, ValueError) as exc:
        notice(f"not applied: {reason(exc)}")
        return
    commit(**{field: value})


def key_of(field: str) -> str:
    """The widget key of a view field: its link key (:data:`model.core.view_fields.FIELDS`)."""
    return BY_NAME[field].key


def help_of(field: str) -> str | None:
    """The help of a control bound to ``field``: its declaration's (:attr:`model.core.view_fields.ViewField.help`,
    the words ``costfrontier --help`` prints for its option), or None when it declares none."""
    return BY_NAME[field].help or None


def _range(field: str) -> dict:
    """A number input's range from the field's declared bounds (its closed ends), in the field's type."""
    declared = BY_NAME[field]
    if not isinstance(declared.check, Bounds):
        return {}
    kind = int if declared.type is int else float
    bounds = declared.check
    return {**({} if bounds.open_low else {"min_value": kind(bounds.low)}),
            **({} if bounds.open_high else {"max_value": kind(bounds.high)})}


def bind(widget: Callable, field: str, *args, to_widget: Callable[[Any], Any] = lambda v: v,
         from_widget: Callable[[Any], Any] = lambda v: v, **kwargs):
    """Draw ``widget(*args, key=..., **kwargs)`` showing the view's ``field``, and write changes back; the
    widget's key is the field's link key (:func:`key_of`), its help the field's declared one (:func:`help_of`: pages
    pass none, so the dashboard and ``costfrontier --help`` say the same), its label the declared one unless the page
    gives its own (a label as the first argument), and a number input offers the field's declared range unless given
    another (the interactivity of the data in view, say).

    ``to_widget`` / ``from_widget`` convert between the field's value and the widget's.
    """
    key = key_of(field)
    declared = BY_NAME[field]
    if not args or not isinstance(args[0], str):
        args = (declared.label or field.replace("_", " ").capitalize(), *args)
    kwargs.setdefault("help", help_of(field))
    if getattr(widget, "__name__", "") == "number_input":
        kwargs = {**_range(field), **kwargs}
    st.session_state[key] = to_widget(getattr(view(), field))
    return widget(*args, key=key, on_change=_on_change, args=(key, field, from_widget), **kwargs)


_OPENED = "_opened"   # the address the session was opened with and the view's query then, while left as opened


def mirror_to_url() -> None:
    """Write the view's non-default fields to the address bar (only when they differ).

    Each write is a new entry in the browser's history (Streamlit's), so nothing is written while the address is
    still the one the session was opened with, it holds only values the view took as they are (the view merely
    added a default, the workload say) and the view has not changed since: that address opens this view, and
    opening it stays one entry, one Back."""
    wanted = view().to_query()
    current = {k: st.query_params.get(k) for k in st.query_params.keys()}
    if _OPENED not in st.session_state:       # the session's first run
        taken = all(wanted.get(k) == v for k, v in current.items())
        st.session_state[_OPENED] = (current, wanted) if taken else None
    if current != wanted and st.session_state[_OPENED] != (current, wanted):
        st.query_params.from_dict(wanted)


def share_link(url_path: str, page_paths: tuple[str, ...]) -> str:
    """Absolute link to the page at ``url_path`` with the view's query string (:func:`model.core.links.view_url`).

    The base is the deployment's public address when its operator set one, else the address the browser shows
    less the current page's path (``page_paths``: every page's URL path), so a deployment under a base path,
    e.g. behind a proxy, keeps its prefix.
    """
    try:
        url = str(st.context.url or "")
    except Exception:  # AppTest has no browser URL
        url = ""
    base = public_base_url()
    if base is None and url:
        base = url.split("?")[0].rstrip("/")
        last = base.rsplit("/", 1)[-1]
        if base.count("/") > 2 and last in page_paths:
            base = base[: -len(last) - 1]
    return view_url(view().to_query(), url_path, base)
