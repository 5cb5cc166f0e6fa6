"""Bounds on what one uploaded or ingested file may cost the server: columns, memory, file names.

- :func:`check_upload_shape`: a CSV with more columns than :func:`max_columns` (default 1,000; the
  widest benchmark file we know has under 100) is refused from its first line, before DuckDB or
  pandas reads it. A 2.4 MB CSV with 100,000 columns used to take a minute and 2.4 GB to preview.
- :func:`preview`: the dashboard's dry run checks the header and the first :data:`PREVIEW_ROWS`
  records exactly as the ingest will, in an in-memory DuckDB capped at :data:`PREVIEW_MEMORY`, so a
  190 MB upload previews in the memory of a small one. The real ingest streams through DuckDB (on
  the write path of :mod:`model.data.snapshot`, capped by ``COSTFRONTIER_WRITE_MEMORY``).
- :func:`utf8_name` / :func:`utf8_path`: a file whose name is not valid UTF-8 (a Latin-1 name from an
  old share) is ingested under that name with the bad bytes shown as U+FFFD, not refused.
"""

from __future__ import annotations

import csv
import io
import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from model.data.importers.base import IngestError

__all__ = [
    "DEFAULT_MAX_COLUMNS",
    "PREVIEW_ROWS",
    "PREVIEW_MEMORY",
    "max_columns",
    "check_upload_shape",
    "utf8_name",
    "utf8_path",
]

DEFAULT_MAX_COLUMNS = 1000
#: records of a CSV the dashboard's preview checks (the ingest checks all of them)
PREVIEW_ROWS = 2000
#: DuckDB memory cap of one preview (it spills to a temp directory past it)
PREVIEW_MEMORY = "256MB"
#: a header line longer than this is refused without being parsed [bytes]
_MAX_HEADER_BYTES = 4 << 20


def max_columns() -> int:
    """The column limit: ``$COSTFRONTIER_MAX_COLUMNS``, else :data:`DEFAULT_MAX_COLUMNS`."""
    text = os.environ.get("COSTFRONTIER_MAX_COLUMNS", "").strip()
    return int(text) if text.isdigit() and int(text) > 0 else DEFAULT_MAX_COLUMNS


def first_line(path: Path) -> bytes | None:
    """The first line of a file, read in 64 KiB blocks; None when it runs past the header limit."""
    out = bytearray()
    with open(path, "rb") as handle:
        while len(out) <= _MAX_HEADER_BYTES:
            block = handle.read(65536)
            if not block:
                return bytes(out)
            end = block.find(b"\n")
            if end >= 0:
                return bytes(out + block[:end])
            out += block
    return None


def check_upload_shape(path: str | os.PathLike, name: str | None = None, limit: int | None = None) -> int:
    """Refuse a delimited file with more than ``limit`` columns; return its column count (0 for JSON).

    Reads only the first line (at most 4 MiB). Raises :class:`model.data.ingest.IngestError` naming the
    file, line 1 and the limit's setting.
    """
    path = Path(path)
    name = name or utf8_name(path)
    limit = limit or max_columns()
    line = first_line(path)
    if line is None:
        raise IngestError(name, f"the header line is longer than {_MAX_HEADER_BYTES // 1024:,} KiB; a benchmark "
                          f"file has at most {limit:,} columns (COSTFRONTIER_MAX_COLUMNS)", line=1)
    text = line.decode("utf-8-sig", errors="replace").rstrip("\r")
    if text.lstrip().startswith(("{", "[")):
        return 0  # JSON: the importers bound it
    counts = {d: text.count(d) for d in ",;\t|"}
    delim = max(counts, key=counts.get)
    if counts[delim] + 1 <= limit:
        return counts[delim] + 1
    columns = len(next(csv.reader(io.StringIO(text), delimiter=delim), []))  # quoted delimiters don't count
    if columns > limit:
        raise IngestError(name, f"{columns:,} columns, over the limit of {limit:,} (COSTFRONTIER_MAX_COLUMNS); "
                          "no benchmark file is that wide: is this the right file, or is it transposed?", line=1)
    return columns


def utf8_name(path: str | os.PathLike) -> str:
    """A file's name as text: bytes that are not UTF-8 become U+FFFD instead of a refusal."""
    return os.fsencode(Path(path).name).decode("utf-8", errors="replace")


@contextmanager
def utf8_path(path: str | os.PathLike) -> Iterator[Path]:
    """``path`` itself, or, when it is not valid UTF-8 (DuckDB takes only UTF-8 paths), a UTF-8 symlink
    to it in a private temporary folder, removed afterwards."""
    path = Path(path)
    try:
        str(path).encode("utf-8")
    except UnicodeEncodeError:
        folder = tempfile.mkdtemp(prefix="costfrontier-name-")
        try:
            alias = Path(folder) / ("file" + utf8_name(Path("x" + path.suffix)).removeprefix("x"))
            os.symlink(os.fsencode(path.absolute()), os.fsencode(alias))
            yield alias
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        return
    yield path
