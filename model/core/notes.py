"""What a reader must know beside an answer, typed by where it comes from.

A :class:`Note` is its sentence (a ``str``: every surface prints it as it is) with a ``kind`` from
:data:`NOTE_KINDS`, set by the step that wrote it. Each kind declares where it shows: with every answer of the view
(:func:`for_every_answer`: each command, page and report section that answers it, so ``size`` and ``volume`` on a
purged pinned version say "rows purged" as ``iso`` does), or beside the frontier and its cost table only (the
frontier, ``iso``, ``crossover`` and their pages, which show every note). No surface chooses notes by kind or by
their wording.
"""

from __future__ import annotations

from typing import Iterable

__all__ = ["Note", "NOTE_KINDS", "VIEW", "FRONTIER", "noted", "for_every_answer", "link_notices"]

#: a note that shows with every answer of the view
VIEW = "view"
#: a note that shows beside the frontier and its cost table only
FRONTIER = "frontier"
#: each kind of note: where it comes from, and where it shows
NOTE_KINDS = {
    "link": ("a value of a share link that was ignored, or an option a link's view keeps", VIEW),
    "rate": ("a $/GPU-hour far from its preset, or read long ago", VIEW),
    "rows": ("rows the view's as-of, repeats or SLA left out", VIEW),
    "profile": ("a cost profile that could not be applied", VIEW),
    "selection": ("the selection's workloads were split into series", VIEW),
    "goodput": ("how the goodput caps were applied", VIEW),
    "analysis": ("the frontier fit and pricing: rates missing, rows without a throughput", FRONTIER),
    "baseline": ("the baseline asked for is not in view", FRONTIER),
    "interactivity": ("the interactivity you need lies outside where it may be set, and where it is read instead",
                      VIEW),
    "data": ("the data version read: pinned, purged, from another store", VIEW),
}


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


def for_every_answer(notes: Iterable[str]) -> list[Note]:
    """The notes of ``notes`` that show with every answer of the view (:data:`NOTE_KINDS`: place :data:`VIEW`), in
    order, each once: what ``size``, ``volume``, ``mix``, ``sell`` and the plan beside its actuals print with
    their own."""
    return list(dict.fromkeys(n for n in notes if isinstance(n, Note) and NOTE_KINDS[n.kind][1] == VIEW))


def link_notices(notes: Iterable[str]) -> list[Note]:
    """What the view's link gave that was ignored or refused (the notes of kind ``link``), in order, each once."""
    return list(dict.fromkeys(n for n in notes if isinstance(n, Note) and n.kind == "link"))
