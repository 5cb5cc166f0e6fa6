"""What every importer shares with the ingest pipeline: its errors, its results, and how a format registers.

This module imports nothing of ours, so the importers and :mod:`model.data.ingest` can both use it
without importing each other: :mod:`model.data.ingest` imports :mod:`model.data.importers`, never the reverse.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

__all__ = ["IngestError", "NotResults", "IngestResult", "Format", "Rows", "duck_msg"]

#: what an importer returns: one dict per load point, keyed by canonical field names (plus extras)
Rows = list[dict[str, Any]]


class IngestError(Exception):
    """A file cannot be ingested. Names the file and, where known, the line and field."""

    def __init__(self, file: str, message: str, line: int | None = None, field: str | None = None,
                 more: list["IngestError"] | None = None):
        self.file, self.message, self.line, self.field = file, message, line, field
        self.more = more or []
        super().__init__(str(self))

    def __str__(self) -> str:
        where = self.file
        if self.line is not None:
            where += f", line {self.line}"
        if self.field:
            where += f", field '{self.field}'"
        text = f"{where}: {self.message}"
        for other in self.more:
            text += f"\n  also line {other.line}, field '{other.field}': {other.message}"
        return text


class NotResults(IngestError):
    """A file a benchmark tool writes beside its results (per-request records, time slices, console text,
    a summary of results other files hold): recognised, and not stored.

    A directory ingest skips it with one line (:attr:`line_text`); a file ingested alone is refused with
    ``what``, the tool and ``instead`` (what to ingest in its place).
    """

    def __init__(self, file: str, what: str, tool: str, instead: str, skip: str = "skipped"):
        self.what, self.tool, self.skip = what, tool, skip
        super().__init__(file, f"{what} ({tool}), not a result to store: {instead}")

    @property
    def line_text(self) -> str:
        """The one line a directory ingest prints for it."""
        return f"{self.file}: {self.what} ({self.tool}), {self.skip}"


@dataclass
class IngestResult:
    """What one file's ingest did."""

    file: str
    format: str
    kind: str
    rows_added: int = 0
    duplicate_of: int | None = None
    source_id: int | None = None
    unknown_columns: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def summary(self) -> str:
        if self.duplicate_of is not None:
            return f"{self.file}: already ingested (source #{self.duplicate_of}); nothing added"
        text = f"{self.file}: {self.rows_added:,} row{'' if self.rows_added == 1 else 's'} added as {self.kind} ({self.format}, source #{self.source_id})"
        if self.unknown_columns:
            text += f"; columns kept in 'extra': {', '.join(self.unknown_columns)}"
        return text


@dataclass(frozen=True)
class Format:
    """One file format an importer reads, as registered in :data:`model.data.importers.REGISTRY`.

    Attributes
    ----------
    name : str
        what ``--format`` and ``sources.format`` call it.
    container : str
        ``"json"`` (JSON, JSON Lines), ``"csv"`` (delimited text) or ``"text"`` (a console log, told by its
        content before any CSV reading: ``matches(None, head)``).
    matches : callable
        JSON: ``matches(keys, head)`` with every object key in the first MiB and that text;
        CSV: ``matches(header, head)`` with the first row's cells and the first MiB.
    read : callable or None
        JSON: ``read(records, name)`` with :func:`model.data.importers._common.load_json`'s records;
        CSV: ``read(path, name)``. Either returns ``(rows, notes)``. ``None`` for the canonical
        CSV, which the pipeline reads column by column in DuckDB instead.
    beside : callable or None
        ``beside(rows, path, name, notes)``: completes the rows from what the run's folder holds beside the
        file (the other stages of one run), in place; ``None`` when a file is read alone.
    """

    name: str
    container: str
    matches: Callable[[Any, str], bool]
    read: Callable[[Any, str], tuple[Rows, list[str]]] | None = None
    beside: Callable[[Rows, Any, str, list[str]], None] | None = None

    def __post_init__(self) -> None:
        if self.container not in ("json", "csv", "text"):
            raise ValueError(f"container must be 'json', 'csv' or 'text', not {self.container!r}")


def duck_msg(exc: Exception) -> str:
    """The first line of a DuckDB error (at most 300 characters), for messages."""
    lines = [ln for ln in str(exc).splitlines() if ln.strip()]
    return lines[0][:300] if lines else type(exc).__name__
