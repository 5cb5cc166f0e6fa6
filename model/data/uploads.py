"""Bounds on what one uploaded or ingested file may cost the server: columns, memory, file names.

- :func:`check_upload_shape`: a CSV with more columns than :func:`max_columns` (default 1,000; the
  widest benchmark file we know has under 100) is refused from its first line, before DuckDB or
  pandas reads it. A 2.4 MB CSV with 100,000 columns used to take a minute and 2.4 GB to preview.
- :func:`preview`: the dashboard's dry run checks the header and the first :data:`PREVIEW_ROWS`
  records exactly as the ingest will, in an in-memory DuckDB capped at :data:`PREVIEW_MEMORY`, so a
  190 MB upload previews in the memory of a small one. The real ingest streams through DuckDB (on
  the write path of :mod:`model.data.snapshot`, capped by ``COSTFRONTIER_WRITE_MEMORY``).
- :func:`plain_line_ends`: CRLF, LF, CR-only (Excel's "CSV (Macintosh)") and mixed line ends read alike:
  a file that is not all LF or all CRLF is read through a temporary LF copy, written block by block.
- :func:`starts_json`: a file whose first non-space byte is ``{`` or ``[`` is JSON, whatever its size,
  and is never judged by a header line (the CLI's rule).
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

from model.data.importers._common import env_mb
from model.data.importers.base import IngestError

__all__ = [
    "BYTES_PER_MB",
    "DEFAULT_MAX_FILE_MB",
    "DEFAULT_MAX_UPLOAD_MB",
    "max_file_mb",
    "max_upload_mb",
    "check_size",
    "DEFAULT_MAX_COLUMNS",
    "PREVIEW_ROWS",
    "PREVIEW_MEMORY",
    "max_columns",
    "check_upload_shape",
    "utf8_name",
    "utf8_path",
    "starts_json",
    "line_ends",
    "plain_line_ends",
]

#: the megabyte of every size limit [bytes]: 2**20, as Streamlit's ``server.maxUploadSize`` counts it
BYTES_PER_MB = 1 << 20
#: default size limit of one ingested file [MB]; ``$COSTFRONTIER_MAX_FILE_MB`` overrides it
DEFAULT_MAX_FILE_MB = 512
#: default size limit of one file uploaded on the Data page [MB]; ``$COSTFRONTIER_MAX_UPLOAD_MB`` overrides
#: it, and ``server.maxUploadSize`` (.streamlit/config.toml) should be at least as large
DEFAULT_MAX_UPLOAD_MB = 200
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
    """The first line of a file (ended by LF, CRLF or a lone CR), read in 64 KiB blocks; None when it
    runs past the header limit."""
    out = bytearray()
    with open(path, "rb") as handle:
        while len(out) <= _MAX_HEADER_BYTES:
            block = handle.read(65536)
            if not block:
                return bytes(out)
            ends = [i for i in (block.find(b"\n"), block.find(b"\r")) if i >= 0]
            if ends:
                return bytes(out + block[:min(ends)])
            out += block
    return None


def starts_json(path: str | os.PathLike) -> bool:
    """Whether the first byte of ``path`` that is not white space (after a UTF-8 BOM) is ``{`` or ``[``.

    The CLI's rule for JSON: such a file goes to the JSON importers at any size (within
    ``COSTFRONTIER_MAX_FILE_MB``) and is never judged by a header line.
    """
    with open(path, "rb") as handle:
        first = True
        while block := handle.read(65536):
            if first:
                block, first = block.removeprefix(b"\xef\xbb\xbf"), False
            text = block.lstrip(b" \t\r\n")
            if text:
                return text[:1] in (b"{", b"[")
    return False


#: block size of the line-end scan and copy [bytes]
_LINE_BLOCK = 1 << 23


def line_ends(path: str | os.PathLike) -> str:
    """How the lines of ``path`` end: ``"lf"``, ``"crlf"``, ``"none"`` (one line), or ``"mixed"`` (lone CRs,
    as Excel's "CSV (Macintosh)" writes, or CRLF and LF in one file). Streams the file in blocks."""
    crlf = lone_lf = 0
    previous = b""
    with open(path, "rb") as handle:
        while block := handle.read(_LINE_BLOCK):
            joined = previous + block
            pairs = joined.count(b"\r\n")
            # a CR at the end of a block is judged with the next block
            held = joined.endswith(b"\r")
            if joined.count(b"\r") - pairs - held > 0:
                return "mixed"
            crlf += pairs
            lone_lf += joined.count(b"\n") - pairs
            if crlf and lone_lf:
                return "mixed"
            previous = b"\r" if held else b""
    if previous:
        return "mixed"  # the file ends in a lone CR
    return "crlf" if crlf else "lf" if lone_lf else "none"


@contextmanager
def plain_line_ends(path: str | os.PathLike, ends: str | None = None) -> Iterator[Path]:
    """``path`` itself when its lines all end alike (LF, or CRLF, which DuckDB reads), else a temporary copy
    with every CRLF and lone CR turned into LF, removed afterwards. Line numbers stay those of the original.
    The copy is written block by block; the file is never read into memory whole. ``ends``: what
    :func:`line_ends` says of ``path``, when the caller already knows (it is then not read again)."""
    path = Path(path)
    if (ends or line_ends(path)) != "mixed":
        yield path
        return
    folder = tempfile.mkdtemp(prefix="costfrontier-lines-")
    try:
        copy = Path(folder) / ("file" + utf8_name(Path("x" + path.suffix)).removeprefix("x"))
        with open(path, "rb") as src, open(copy, "wb") as dst:
            carry = b""
            while block := src.read(_LINE_BLOCK):
                block = carry + block
                carry = b"\r" if block.endswith(b"\r") else b""
                if carry:
                    block = block[:-1]
                dst.write(block.replace(b"\r\n", b"\n").replace(b"\r", b"\n"))
            if carry:
                dst.write(b"\n")
        yield copy
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def max_file_mb() -> float:
    """The size limit for one ingested file [MB]: ``$COSTFRONTIER_MAX_FILE_MB``, else 512."""
    return env_mb("COSTFRONTIER_MAX_FILE_MB", DEFAULT_MAX_FILE_MB)


def max_upload_mb() -> float:
    """The size limit for one file uploaded on the Data page [MB]: ``$COSTFRONTIER_MAX_UPLOAD_MB``, else 200."""
    return env_mb("COSTFRONTIER_MAX_UPLOAD_MB", DEFAULT_MAX_UPLOAD_MB)


def check_size(size_bytes: int, name: str) -> None:
    """Refuse a file over :func:`max_file_mb` (before anything reads it), naming the limit and its setting."""
    limit = max_file_mb()
    if size_bytes > limit * BYTES_PER_MB:
        raise IngestError(name, f"the file is {size_bytes / BYTES_PER_MB:,.0f} MB, over the {limit:g} MB limit "
                          "(COSTFRONTIER_MAX_FILE_MB); split it into smaller files or raise the limit")


def check_upload_shape(path: str | os.PathLike, name: str | None = None, limit: int | None = None) -> int:
    """Refuse a delimited file with more than ``limit`` columns; return its column count (0 for JSON).

    Reads only the first line (at most 4 MiB). Raises :class:`model.data.ingest.IngestError` naming the
    file, line 1 and the limit's setting.
    """
    path = Path(path)
    name = name or utf8_name(path)
    limit = limit or max_columns()
    if starts_json(path):
        return 0  # JSON at any size: the importers bound it (as the CLI does)
    line = first_line(path)
    if line is None:
        raise IngestError(name, f"the header line is longer than {_MAX_HEADER_BYTES // 1024:,} KiB; a benchmark "
                          f"file has at most {limit:,} columns (COSTFRONTIER_MAX_COLUMNS)", line=1)
    text = line.decode("utf-8-sig", errors="replace").rstrip("\r")
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
