"""Number boxes that read numbers as people type them, and changes held until a viewer confirms them.

A box is a text input read by the one number rule (:func:`model.core.names.number`: ``1,48`` is 1.48,
``1,000,000`` a million, ``1,480`` refused as ambiguous); the browser's own number box would read ``1,48``
as 148. A refusal quotes what was typed and the limit. A value the view allows but that is more likely a
slip (:mod:`model.core.plausible`) is *held*: not applied until the viewer clicks to confirm it.
"""

from __future__ import annotations

from typing import Callable

import streamlit as st

from model.core.names import number, reason
from model.core.view_codecs import short
from model.core.view_fields import BY_NAME, Bounds
from ui.state import commit, help_of, key_of, notice, view

__all__ = ["shown", "read", "hold", "held", "drop", "confirm_box", "field_box"]

_HELD = "_held"


def shown(value) -> str:
    """A number as a box shows it: ``1.48``, ``2e+12`` as ``2e12``; empty for None."""
    if value is None:
        return ""
    text = f"{float(value):.10g}"
    return text.replace("e+", "e")


def read(label: str, typed: str | None, *, percent: bool = False, whole: bool = False,
         bounds: Bounds | None = None) -> tuple[bool, float | int | None]:
    """(ok, value) of ``typed`` in the box ``label``: empty is (True, None); a refusal queues a notice quoting
    what was typed and the limit, and returns (False, None)."""
    text = (typed or "").strip()
    if not text:
        return True, None
    try:
        value = number(text, "a whole number" if whole else "a number", percent=percent)
        if whole and not value.is_integer():
            raise ValueError("not a whole number")
        if bounds is not None:
            bounds(value)
    except ValueError as exc:
        notice(f"{label}: {short(text)!r} not applied: {reason(exc)}")
        return False, None
    return True, int(value) if whole else value


def hold(key: str, question: str, typed: str, changes: dict) -> None:
    """Hold ``changes`` to the view (not applied) until the viewer confirms ``question`` at :func:`confirm_box`."""
    st.session_state.setdefault(_HELD, {})[key] = {"question": question, "typed": typed, "changes": changes}


def held(key: str) -> dict | None:
    """The change held under ``key``, or None."""
    return st.session_state.get(_HELD, {}).get(key)


def drop(key: str) -> None:
    """Forget the change held under ``key`` (a new value was typed)."""
    st.session_state.get(_HELD, {}).pop(key, None)


def _decide(key: str, apply: bool) -> None:
    entry = st.session_state.get(_HELD, {}).pop(key, None)
    if entry and apply:
        commit(**entry["changes"])


def confirm_box(where, key: str, place: str = "") -> None:
    """Draw the question of a held change with its two buttons (apply it, or keep the value in force)."""
    entry = held(key)
    if not entry:
        return
    where.warning(f"Not applied yet: {entry['question']}. You typed {short(entry['typed'])!r}.")
    c1, c2 = where.columns(2)
    c1.button(f"Apply {short(entry['typed'], 16)}", key=f"confirm::{place}{key}", on_click=_decide, args=(key, True),
              type="primary")
    c2.button("Keep the current value", key=f"cancel::{place}{key}", on_click=_decide, args=(key, False))


def _on_field(field: str, label: str, percent: bool, question: Callable | None) -> None:
    key = key_of(field)
    typed = st.session_state[key]
    declared = BY_NAME[field]
    ok, value = read(label, typed, percent=percent, whole=declared.type is int,
                     bounds=declared.check if isinstance(declared.check, Bounds) else None)
    if not ok:
        return
    drop(key)
    if value is not None and question is not None:
        asked = question(value)
        if asked:
            hold(key, asked, typed, {field: value})
            return
    commit(**{field: value})


def field_box(where, field: str, label: str | None = None, *, question: Callable[[float], str | None] | None = None,
              percent: bool = False, placeholder: str | None = None):
    """A number box bound to the view's ``field`` (its key is the field's link key, its help the field's declared
    one, its label too unless given): typed text is read by the one rule and the field's declared bounds;
    ``question(value)`` returning text holds the value until confirmed. The held question is drawn under the box."""
    key = key_of(field)
    entry = held(key)
    label = label or BY_NAME[field].label or field.replace("_", " ")
    st.session_state[key] = entry["typed"] if entry else shown(getattr(view(), field))
    box = where.text_input(label, key=key, on_change=_on_field, args=(field, label, percent, question),
                           help=help_of(field), placeholder=placeholder)
    confirm_box(where, key)
    return box
