"""The canonical CSV: one row per load point, columns named by field or alias (``model/core/columns.py``).

The reader checks a file's structure (encoding, quoting, field counts) without pandas, tells the four
CSV kinds apart by their header (points, TCO rates, evaluations, published iso tables), and stages a
points file into a DuckDB temporary table for the pipeline in :mod:`model.data.ingest`, which maps and
validates it column by column. The text parsers here fill several fields from one cell.
"""

from __future__ import annotations

import codecs
import csv
import io
import re
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd

from model.core.columns import normalise_header, resolve_column
from model.data.importers.base import Format, IngestError, duck_msg

__all__ = ["FORMATS", "matches", "read_header", "quick_records", "scan_csv", "csv_kind", "stage_csv",
           "read_small_csv", "parse_parallelism", "parse_workload", "UNIT_FIELDS"]


_PAR_RE = re.compile(r"(tp|dp|ep|pp)\s*=?\s*(\d+)", re.I)


def parse_parallelism(text: Any) -> dict[str, int]:
    """``"TP4xDP2"`` -> ``{"tp": 4, "dp": 2}``; ``"TP8"`` -> ``{"tp": 8}``."""
    return {k.lower(): int(v) for k, v in _PAR_RE.findall(str(text or ""))}


_WORKLOAD_RE = re.compile(
    r"(?P<isl>\d+(?:\.\d+)?)\s*(?P<ik>k?)\s*(?:in|input|isl)\b.*?(?P<osl>\d+(?:\.\d+)?)\s*(?P<ok>k?)\s*(?:out|output|osl)\b"
    r"(?:.*?(?P<hit>\d+(?:\.\d+)?)\s*%\s*(?:prefix\s*)?cache)?", re.I)


def parse_workload(text: Any) -> dict[str, Any]:
    """``"20k in / 1k out / 60% cache hit"`` -> ``{"isl": 20000, "osl": 1000, "prefix_cache_hit_rate": 0.6}``."""
    match = _WORKLOAD_RE.search(str(text or ""))
    if not match:
        return {}
    out: dict[str, Any] = {
        "isl": int(round(float(match["isl"]) * (1000 if match["ik"] else 1))),
        "osl": int(round(float(match["osl"]) * (1000 if match["ok"] else 1))),
    }
    if match["hit"]:
        out["prefix_cache_hit_rate"] = float(match["hit"]) / 100
    return out


#: unit text (normalised) -> (field, scale) for long-format files with ``value`` and ``unit`` columns
UNIT_FIELDS: dict[str, tuple[str, float]] = {
    "toksuser": ("interactivity", 1.0),
    "toksnode": ("output_tokens_per_second", 1.0),
    "toks": ("output_tokens_per_second", 1.0),
    "toksgpu": ("output_tokens_per_second_per_gpu", 1.0),
    "tpotms": ("tpot_median_ms", 1.0),
    "ttfts": ("ttft_p50_s", 1.0),
    "reqs": ("request_rate_rps", 1.0),
}



# --------------------------------------------------------------------------- reading

#: leading bytes of files people upload by mistake -> what to tell them
_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"PK\x03\x04", "a ZIP archive or Excel workbook (.xlsx), not CSV text; in Excel use "
                     "File > Save As > CSV UTF-8, or unzip it first"),
    (b"\xd0\xcf\x11\xe0", "an old Excel workbook (.xls), not CSV text; save it as CSV UTF-8"),
    (b"\x1f\x8b", "gzip-compressed; decompress it (gunzip) and upload the CSV or JSON inside"),
    (b"%PDF", "a PDF document, not a CSV or JSON benchmark file"),
    (b"\x89PNG", "a PNG image, not a CSV or JSON benchmark file"),
    (b"SQLite format 3\x00", "a SQLite database, not a CSV or JSON benchmark file"),
    (b"DUCK", "a DuckDB database, not a CSV or JSON benchmark file"),
)


def read_header(path: Path, name: str) -> tuple[list[str], str]:
    with open(path, "rb") as handle:
        raw = handle.read(65536)
    if not raw.strip():
        raise IngestError(name, "the file is empty")
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise IngestError(name, "the file is UTF-16; save it as UTF-8 (CSV UTF-8) and upload again", line=1)
    for magic, what in _MAGIC:
        if raw.startswith(magic) or (magic == b"DUCK" and raw[8:12] == magic):
            raise IngestError(name, f"the file is {what}", line=1)
    if b"\x00" in raw:
        sample = raw[:4096]
        if len(sample) >= 4 and max(sample[0::2].count(0), sample[1::2].count(0)) > len(sample) // 4:
            raise IngestError(name, "the file looks like UTF-16 without a byte-order mark; save it as UTF-8 "
                              "(CSV UTF-8) and upload again", line=1)
        raise IngestError(name, "the file is binary, not a CSV or JSON text file", line=1)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        # the block may end mid-character; only the first line matters
        text = raw.decode("utf-8-sig", errors="ignore")
    first = text.splitlines()[0] if text.splitlines() else ""
    if not first.strip():
        raise IngestError(name, "the first line is blank: a CSV's first line must be its header row (the column "
                          "names); remove the blank lines above it", line=1)
    try:
        dialect = csv.Sniffer().sniff(text[:8192], delimiters=",;\t|")
        delim = dialect.delimiter
    except csv.Error:
        delim = ","
    header = next(csv.reader(io.StringIO(first), delimiter=delim), [])
    return [h.strip() for h in header], delim


def quick_records(path: Path, block: int = 1 << 23) -> int | None:
    """Data records of a CSV counted by lines, at C speed, when that count is exact: the file is
    UTF-8, has no quote character (so no multi-line values) and no blank line. Otherwise ``None``,
    and :func:`scan_csv` parses it. The caller checks the count against what DuckDB read, and a
    disagreement sends the file through :func:`scan_csv` to name the line."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    newlines, tail, last = 0, b"", b""
    with open(path, "rb") as handle:
        while chunk := handle.read(block):
            try:
                decoder.decode(chunk)
            except UnicodeDecodeError:
                return None
            joined = tail + chunk
            if b'"' in chunk or b"\n\n" in joined or b"\n\r\n" in joined:
                return None
            newlines += chunk.count(b"\n")
            tail, last = joined[-2:], chunk[-1:]
    try:
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return None
    lines = newlines + (0 if last == b"\n" else 1)
    return max(lines - 1, 0)


def scan_csv(path: Path, name: str, delim: str) -> int:
    """Check a delimited file's structure before anything reads it; return its number of data records.

    Every line must be UTF-8, every record must have as many fields as the header, and
    quotes must close. DuckDB's reader is fast but, on a few malformed files, guesses a
    dialect that drops or merges rows; this scan names the line instead, and its record
    count is checked against what DuckDB read.
    """
    def lines():
        with open(path, "rb") as handle:
            for number, raw in enumerate(handle, 1):
                try:
                    yield raw.decode("utf-8-sig" if number == 1 else "utf-8")
                except UnicodeDecodeError as exc:
                    hint = " (Latin-1 or Windows-1252?)" if raw[exc.start:exc.start + 1] >= b"\x80" else ""
                    raise IngestError(name, f"not UTF-8 text: byte 0x{raw[exc.start]:02x} at column {exc.start + 1}"
                                      f"{hint}; save the file as UTF-8 (CSV UTF-8) and upload again",
                                      line=number) from None

    reader = csv.reader(lines(), delimiter=delim, quotechar='"', doublequote=True, strict=True)
    width, records, start = None, 0, 1
    while True:
        start = reader.line_num + 1
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            text = str(exc)
            if "eof" in text.lower() or "unexpected end of data" in text.lower():
                text = "a quoted value is never closed (an unbalanced \" quote)"
            elif "nul" in text.lower():
                text = "the line contains a NUL byte (binary data)"
            raise IngestError(name, f"not a readable CSV: {text}", line=start) from None
        if not row:
            continue  # a blank line
        if width is None:
            width = len(row)
            continue
        if len(row) != width:
            raise IngestError(name, f"expected {width} fields (as in the header), found {len(row)}; "
                              "check for a stray or missing delimiter", line=start)
        records += 1
    return records


def bill_header(keys: set[str]) -> bool:
    """A bill of actuals (:mod:`model.data.importers.bill_csv`): a model, a cost in dollars and a period
    (normalised header names)."""
    return "model" in keys and bool(keys & {"usd", "costusd"}) and bool(keys & {"date", "period", "month"})


def csv_kind(keys: set[str]) -> str:
    if bill_header(keys):   # actuals (model.data.actuals)
        return "actuals"
    if {"model", "usdperminput", "usdpermoutput"} <= keys:   # hosted API prices (model.data.api_prices)
        return "api_prices"
    if "usdpergpuhr" in keys or "usdpergpuhour" in keys:
        return "tco_rates"
    if "eval" in keys and any(k.endswith("score") for k in keys):
        return "evals"
    if any(k.endswith("usdperm") and k != "usdperm" and k != "publishedusdperm" for k in keys) and \
            ("toksuser" in keys or "interactivity" in keys):
        return "published_iso"
    return "points"


def stage_csv(con, path: Path, name: str, sha: str, headers: list[str], delim: str,
               records: int | None = None) -> str:
    """Read a points CSV into a temporary table (outside any transaction: a failed read must not abort one).

    Columns DuckDB types from its sample are kept typed (fast); if a value further down does not
    fit the guessed type, the file is read again as text so the pipeline names the line and field.
    """
    raw_ids = [f"c{i}" for i in range(len(headers))]
    raw_table = f"raw_{abs(hash(sha)) % 10**9}"
    con.execute(f"DROP TABLE IF EXISTS {raw_table}")
    sql = (f"CREATE TEMP TABLE {raw_table} AS SELECT * FROM read_csv(?, header = true, names = ?, delim = ?, "
           "all_varchar = {}, sample_size = 20480, null_padding = false, encoding = 'utf-8', "
           "quote = '\"', escape = '\"')")
    try:
        con.execute(sql.format("false"), [str(path), raw_ids, delim])
    except duckdb.ConversionException:
        try:
            con.execute(sql.format("true"), [str(path), raw_ids, delim])
        except duckdb.Error as exc:
            scan_csv(path, name, delim)   # names the line when the structure is at fault
            raise IngestError(name, f"not a readable CSV: {duck_msg(exc).replace(str(path), name)}") from None
    except duckdb.Error as exc:
        scan_csv(path, name, delim)
        raise IngestError(name, f"not a readable CSV: {duck_msg(exc).replace(str(path), name)}") from None
    try:
        rows = con.execute(f"SELECT count(*) FROM {raw_table}").fetchone()[0]
        if records is not None and rows != records:
            scan_csv(path, name, delim)   # names the line when the structure is at fault
            raise IngestError(name, f"not a readable CSV: the reader found {rows} rows but the file has {records} "
                              "records; check its quoting and delimiters")
        if rows == 0:
            raise IngestError(name, "the file has a header but no data rows", line=2)
    except BaseException:
        con.execute(f"DROP TABLE IF EXISTS {raw_table}")
        raise
    return raw_table


def read_small_csv(path: Path, name: str, delim: str) -> pd.DataFrame:
    try:
        return pd.read_csv(path, sep=delim, dtype=str, keep_default_na=False, encoding="utf-8-sig")
    except (pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise IngestError(name, f"not a readable CSV: {exc}") from None


def matches(header: list[str], head: str = "") -> bool:
    """A canonical CSV: some column is a known field or alias, or the header is a rates, evals or
    published-table header (:func:`csv_kind`)."""
    keys = {normalise_header(h) for h in header}
    return any(resolve_column(h) is not None for h in header) or csv_kind(keys) != "points"


#: registered last among the CSV formats: the tools' CSVs are told apart first
FORMATS = (Format("csv", "csv", matches),)
