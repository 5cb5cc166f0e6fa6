"""What a reader must know beside an answer, typed by where it comes from.

A :class:`Note` is its sentence (a ``str``: every surface prints it as it is) with a ``kind`` from
:data:`NOTE_KINDS`, set by the step that wrote it, so a surface chooses the notes it shows by kind (the CLI's
``volume`` and ``size`` repeat the link's, the profiles' and the rates' notes beside their own), never by their
wording.
"""

from __future__ import annotations

from typing import Iterable

__all__ = ["Note", "NOTE_KINDS", "noted", "of_kind"]

#: where a note comes from
NOTE_KINDS = (
    "link",        # a value of a share link that was ignored, or an option a link's view keeps
    "rate",        # a $/GPU-hour far from its preset, or read long ago
    "rows",        # rows the view's as-of, repeats or SLA left out
    "profile",     # a cost profile that could not be applied
    "selection",   # the selection's workloads were split into series
    "goodput",     # how the goodput caps were applied
    "analysis",    # the frontier fit and pricing: rates missing, rows without a throughput
    "baseline",    # the baseline asked for is not in view
    "interactivity",  # the interactivity you need lies outside where it may be set, and where it is read instead
    "data",        # the data version read: pinned, purged, from another store
)


class Note(str):
    """One note: its sentence, and its ``kind`` (:data:`NOTE_KINDS`)."""

    kind: str

    def __new__(cls, kind: str, text: str) -> "Note":
        if kind not in NOTE_KINDS:
            raise ValueError(f"unknown note kind {kind!r}; choose from {', '.join(NOTE_KINDS)}")
        note = super().__new__(cls, text)
        note.kind = kind
        return note

    def __reduce__(self):
        return (Note, (self.kind, str(self)))


def noted(kind: str, texts: Iterable[str]) -> tuple[Note, ...]:
    """``texts`` as notes of ``kind``; a text that is a note already keeps its own kind; empty texts dropped."""
    return tuple(t if isinstance(t, Note) else Note(kind, t) for t in texts if t)


def of_kind(notes: Iterable[str], *kinds: str) -> list[Note]:
    """The notes of ``kinds`` among ``notes`` (in order, each once)."""
    return list(dict.fromkeys(n for n in notes if isinstance(n, Note) and n.kind in kinds))
