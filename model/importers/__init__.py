"""Format detection and the importers for files that benchmark tools write.

``detect`` names a file's format; ``parse`` turns a non-CSV file into a frame of
canonical fields (one row per load point, ``source_line`` locating it) that
:func:`model.ingest.ingest_frame` validates and stores like any CSV.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

__all__ = ["detect", "parse", "FORMATS"]

#: formats ``--format`` accepts
FORMATS = ("csv",)


def detect(path: Path, name: str) -> str:
    """The format of ``path``: ``"csv"`` for delimited text, else a JSON format's name."""
    from model.ingest import IngestError

    head = path.read_bytes()[:4096].lstrip(b"\xef\xbb\xbf \t\r\n")
    if head[:1] in (b"{", b"["):
        raise IngestError(name, "JSON result files are not supported yet; tried formats: csv")
    return "csv"


def parse(path: Path, name: str, fmt: str) -> tuple[pd.DataFrame, str, str | None]:
    from model.ingest import IngestError

    raise IngestError(name, f"unknown format {fmt!r}; known: {', '.join(FORMATS)}")
