"""Request traces kept in the store, so a view names one by a short reference instead of carrying it.

A trace read from a file (:func:`model.data.trace_files.read_trace_file`) is aggregated to what sizing reads: requests
per minute and the token totals, about 130,000 characters of text for a month. :func:`store_trace` keeps that text
in the ``traces`` table, once per content (its key is :attr:`model.core.trace.Trace.reference`, ``s1;`` and 16 hex
characters of the text's SHA-256), in a data version of its own (action ``trace``), as every write is versioned;
a view then carries the reference (link key ``trace``) and :func:`with_stored_trace` reads the trace back for the
answer. A trace is never changed or removed, so a reference names the same trace for as long as the store holds it.

The table is optional (:data:`model.data.database.OPTIONAL_TABLES`): created by the first trace stored, read as
empty when absent. A view's inline trace (``t1;...``, as links written before carried it, and as a read-only
deployment, which writes nothing, still makes one) is read as it always was.
"""

from __future__ import annotations

from model.core.trace import Trace, is_reference
from model.core.view import View
from model.data.database import TRACES_DDL, StoreError
from model.data.versions import latest_version, stamp

__all__ = ["TraceNotStored", "store_trace", "load_trace", "with_stored_trace", "missing_trace_text"]


class TraceNotStored(StoreError):
    """A view names a stored trace (``s1;...``) that this store does not hold (another store's, or one stored
    after the copy this store was restored from)."""


def missing_trace_text(reference: str) -> str:
    """The words for a view naming a trace this store does not hold (no path: viewers read them too)."""
    return (f"the view's request trace ({reference}) is not in this store: it was stored in another one, or after "
            "the copy this store was restored from. Upload or give the trace file again")


def store_trace(con, trace: Trace) -> str:
    """Keep ``trace`` in the store (``con``: a writing connection, e.g. :func:`model.data.snapshot.write`'s) and
    return its reference. A trace already held is not written again (no new version); a new one is one version,
    action ``trace``, named by the trace's file name."""
    reference = trace.reference
    con.execute("BEGIN")
    try:
        con.execute(TRACES_DDL)
        if con.execute("SELECT 1 FROM traces WHERE reference = ?", [reference]).fetchone() is None:
            con.execute("INSERT INTO traces VALUES (?, ?, ?, ?, ?)",
                        [reference, trace.name, trace.requests, trace.to_text(), latest_version(con) + 1])
            stamp(con, "trace", f"{trace.name} ({reference})", sources=False)
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    return reference


def load_trace(con, reference: str) -> Trace | None:
    """The stored trace ``reference`` names; None when the store does not hold it (or has no trace table)."""
    present = con.execute("SELECT count(*) FROM information_schema.tables WHERE table_name = 'traces'").fetchone()[0]
    if not present:
        return None
    row = con.execute("SELECT trace FROM traces WHERE reference = ?", [reference]).fetchone()
    return Trace.from_text(row[0]) if row else None


def with_stored_trace(con, view: View) -> View:
    """``view`` with the stored trace it names (``s1;...``) read in, as the answer reads a trace; a view that holds
    its trace inline, or has none, as it is. Raises :class:`TraceNotStored` when the store does not hold it."""
    if not is_reference(view.trace):
        return view
    trace = load_trace(con, view.trace)
    if trace is None:
        text = missing_trace_text(view.trace)
        raise TraceNotStored(text, public=text[:1].upper() + text[1:] + ".")
    return view.replace(trace=trace.to_text())
