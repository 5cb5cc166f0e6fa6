"""Ingest the small CSV tables that are not benchmark points: TCO price sets (``tco_rates``), eval scores
(``evals``) and published iso tables (``published_iso``). Each reads its file whole (they are small), checks
every value, and adds its rows with their ``sources`` entry (:func:`model.data.store.add_source`).
"""

from __future__ import annotations

import math
import re
from datetime import date
from pathlib import Path
from typing import Any

from model.core.columns import normalise_header
from model.core.cost import RATE_RANGE, usable_rate
from model.core.dated import read_on_of
from model.core.hardware import canonical_hardware
from model.core.schema import canonical_precision, canonical_spec_decoding
from model.data.importers.base import IngestError, IngestResult
from model.data.importers.canonical_csv import read_small_csv
from model.data.store import add_source

__all__ = ["ingest_rates_csv", "ingest_evals_csv", "ingest_published_csv"]


def _num(name: str, line: int, fld: str, text: Any, required: bool = True) -> float | None:
    text = "" if text is None else str(text).strip()
    if not text:
        if required:
            raise IngestError(name, "missing value", line=line, field=fld)
        return None
    try:
        value = float(text)
    except ValueError:
        raise IngestError(name, f"not a number (got {text!r})", line=line, field=fld) from None
    if not math.isfinite(value):
        raise IngestError(name, f"must be finite (got {text!r})", line=line, field=fld)
    return value


def ingest_rates_csv(con, path: Path, name: str, sha: str, delim: str) -> IngestResult:
    frame = read_small_csv(path, name, delim)
    cols = {normalise_header(c): c for c in frame.columns}
    hw_col = cols.get("gpu") or cols.get("hardware")
    rate_col = cols.get("usdpergpuhr") or cols.get("usdpergpuhour")
    if hw_col is None:
        raise IngestError(name, "a rates file needs a 'gpu' (or 'hardware') column", field="gpu")
    rows = []
    for i, rec in enumerate(frame.to_dict("records")):
        line = i + 2
        hardware = canonical_hardware(rec[hw_col])
        if not hardware:
            raise IngestError(name, "missing hardware", line=line, field=hw_col)
        rate = _num(name, line, rate_col, rec[rate_col])
        if not usable_rate(rate):
            raise IngestError(name, f"$/GPU-hour must be in {RATE_RANGE} (got {rate:g})", line=line, field=rate_col)
        kw = _num(name, line, "all_in_kw_per_gpu", rec.get(cols.get("allinkwpergpu", ""), ""), required=False)
        price_set = str(rec.get(cols.get("asof", ""), "") or "custom").strip()
        read_on = _read_on(name, line, cols.get("readon"), rec, price_set)
        rows.append([line, price_set, str(rec.get(cols.get("tier", ""), "") or "custom").strip(), hardware, rate, kw,
                     str(rec.get(cols.get("source", ""), "") or "").strip() or None, read_on])
    if not rows:
        raise IngestError(name, "the file has a header but no data rows", line=2)
    source_id = add_source(con, name, "csv", "tco_rates", sha, len(rows))
    con.executemany("INSERT INTO tco_rates VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", [[source_id, *r] for r in rows])
    return IngestResult(name, "csv", "tco_rates", len(rows), None, source_id)


def _read_on(name: str, line: int, column: str | None, rec: dict, price_set: str):
    """The date a rate was read: the ``read_on`` column, else its price set's month (model.core.dated.read_on_of);
    a stated value that is not a date, or a day after today, is refused naming file, row and field. A price set
    named for a month still to come (a quote for next year) is a label, not a reading: left undated."""
    stated = rec.get(column) if column else None
    try:
        read_on = read_on_of(stated, price_set)
    except ValueError as exc:
        raise IngestError(name, str(exc), line=line, field=column) from None
    if read_on is not None and read_on > date.today():
        if str(stated or "").strip():
            raise IngestError(name, f"read_on {read_on.isoformat()} is after today", line=line, field=column)
        return None
    return read_on


def ingest_evals_csv(con, path: Path, name: str, sha: str, delim: str) -> IngestResult:
    frame = read_small_csv(path, name, delim)
    cols = {normalise_header(c): c for c in frame.columns}
    precisions = [k[: -len("score")] for k in cols if k.endswith("score")]
    rows = []
    for i, rec in enumerate(frame.to_dict("records")):
        line = i + 2
        for prec in precisions:
            score_col = cols[prec + "score"]
            score = _num(name, line, score_col, rec[score_col], required=False)
            if score is None:
                continue
            stderr_col = cols.get(prec + "stderr")
            stderr = _num(name, line, stderr_col, rec.get(stderr_col), required=False) if stderr_col else None
            rows.append([line, (rec.get(cols.get("model", ""), "") or None), str(rec[cols["eval"]]).strip(),
                         (rec.get(cols.get("setting", ""), "") or None), canonical_precision(prec), score, stderr])
    if not rows:
        raise IngestError(name, "no scores found (expected columns like 'fp8_score')", field="score")
    source_id = add_source(con, name, "csv", "evals", sha, len(rows))
    con.executemany("INSERT INTO evals VALUES (?, ?, ?, ?, ?, ?, ?, ?)", [[source_id, *r] for r in rows])
    return IngestResult(name, "csv", "evals", len(rows), None, source_id)


#: columns of an iso table stating what its $/M cells were computed from (normalised suffix -> metric)
_ISO_STATED = (("tputpergpu", "tokens_per_second_per_gpu"), ("tokspergpu", "tokens_per_second_per_gpu"),
               ("toksgpu", "tokens_per_second_per_gpu"), ("usdpergpuhr", "usd_per_gpu_hour"),
               ("usdpergpuhour", "usd_per_gpu_hour"))


def _raw_suffix_len(col: str, normalised_len: int) -> int:
    """How many characters of the raw header ``col`` its last ``normalised_len`` letters and digits span."""
    seen = 0
    for i in range(len(col) - 1, -1, -1):
        if col[i].isalnum():
            seen += 1
            if seen == normalised_len:
                return len(col) - i
    return len(col)


def ingest_published_csv(con, path: Path, name: str, sha: str, delim: str) -> IngestResult:
    frame = read_small_csv(path, name, delim)
    cols = {normalise_header(c): c for c in frame.columns}
    x_col = cols.get("toksuser") or cols.get("interactivity")
    spec_col = cols.get("specdecode") or cols.get("specdecoding")
    rows = []
    for i, rec in enumerate(frame.to_dict("records")):
        line = i + 2
        x = _num(name, line, x_col, rec[x_col])
        spec = canonical_spec_decoding(rec[spec_col]) if spec_col else None
        for key, col in cols.items():
            stated = next(((metric, len(suffix)) for suffix, metric in _ISO_STATED if key.endswith(suffix)
                           and len(key) > len(suffix)), None)
            if stated is not None:   # the throughput or rate a cell was computed from, as the table states it
                value = _num(name, line, col, rec[col], required=False)
                head = re.sub(r"[^a-z0-9]+$", "", col[: len(col) - _raw_suffix_len(col, stated[1])].lower())
                if value is not None:
                    rows.append([line, spec, x, stated[0], canonical_hardware(head), None, value])
            elif key.endswith("usdperm"):
                value = _num(name, line, col, rec[col], required=False)
                if value is not None:
                    rows.append([line, spec, x, "usd_per_mtok", canonical_hardware(col[: -len("_usd_per_m")]), None, value])
            elif "over" in key:
                a, b = col.split("_over_") if "_over_" in col else (None, None)
                value = _num(name, line, col, rec[col], required=False)
                if a and value is not None:
                    rows.append([line, spec, x, "ratio", canonical_hardware(a), canonical_hardware(b), value])
    source_id = add_source(con, name, "csv", "published_iso", sha, len(rows))
    con.executemany("INSERT INTO published_iso VALUES (?, ?, ?, ?, ?, ?, ?, ?)", [[source_id, *r] for r in rows])
    return IngestResult(name, "csv", "published_iso", len(rows), None, source_id)
