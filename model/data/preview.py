"""The upload preview: a file checked exactly as the ingest will check it, with nothing stored.

Used by the Data page before its "Ingest" button; the messages speak the form's language
("the Hardware field"), not the CLI's (``--set hardware=NAME``).
"""

from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from model.data.ingest import ingest_file
from model.data.store import StoreError, connect, load_points
from model.data.uploads import (
    PREVIEW_MEMORY,
    PREVIEW_ROWS,
    IngestError,
    check_upload_shape,
    plain_line_ends,
    starts_json,
    utf8_name,
    utf8_path,
)

__all__ = ["FORM_FIELDS", "form_pairs", "for_form", "dry_run", "Preview", "preview"]

#: field -> label of the upload form's inputs (values fill only what a file leaves empty)
FORM_FIELDS = {
    "hardware": "Hardware (e.g. H200)", "gpus": "GPUs serving each point", "model": "Model",
    "framework": "Framework", "precision": "Precision", "spec_decoding": "Speculative decoding (e.g. mtp, none)",
    "tp": "Tensor parallel (TP)", "ep": "Expert parallel (EP)", "concurrency": "Concurrency",
    "isl": "Input length ISL [tokens]", "osl": "Output length OSL [tokens]",
}
_PREVIEW_COLUMNS = ("hardware", "gpus", "model", "framework", "precision", "spec_decoding", "tp", "isl", "osl",
                    "concurrency", "request_rate_rps", "interactivity", "total_tokens_per_second_per_gpu",
                    "output_tokens_per_second_per_gpu", "ttft_p50_s", "source_line")


def form_pairs(values: dict[str, str]) -> list[str]:
    """The form's non-empty inputs as ``field=value`` pairs for :func:`model.data.ingest.ingest_file`."""
    return [f"{name}={str(value).strip()}" for name, value in values.items() if str(value or "").strip()]


def for_form(message: str) -> str:
    """An ingest message with CLI syntax (``--set gpus=N``) said in the form's words."""
    def field(match: re.Match) -> str:
        label = FORM_FIELDS.get(match.group(1))
        return f"the form's '{label.split(' (')[0]}' field" if label else f"a '{match.group(1)}' value"
    return re.sub(r"--set (\w+)=\S+", field, message)


def dry_run(path: str | Path, set_fields: tuple[str, ...], display_name: str | None = None) -> dict:
    """Check an uploaded file exactly as the ingest will, on a bounded sample, and report what would be
    stored (:func:`model.data.uploads.preview`: the header and the first rows of a CSV, in a memory-capped
    in-memory database; nothing is stored).

    Returns ``ok``; then either ``error`` (a form-worded message) or ``summary``, ``kind``, ``format``,
    ``rows`` (the file's records when known, else those checked), ``sampled``, ``warnings``,
    ``preview`` (first rows, the columns that have values) and ``workloads`` (``model|isl|osl`` keys of
    the rows checked).
    """
    checked = preview(Path(path), list(set_fields), display_name=display_name)
    if not checked.ok:
        return {"ok": False, "error": for_form(checked.error or checked.summary)}
    frame = checked.points
    keys = []
    if not frame.empty:
        parts = [frame[c].astype("string").fillna("") if c in frame else pd.Series("", index=frame.index)
                 for c in ("model", "isl", "osl")]
        keys = list(dict.fromkeys(parts[0] + "|" + parts[1] + "|" + parts[2]))
    columns = [c for c in _PREVIEW_COLUMNS if c in frame and frame[c].notna().any()]
    return {"ok": True, "summary": checked.summary, "kind": checked.kind, "format": checked.format,
            "rows": checked.records if checked.records is not None else checked.rows_checked,
            "sampled": checked.sampled, "warnings": [for_form(w) for w in checked.warnings],
            "preview": frame[columns] if columns else frame, "workloads": keys}




@dataclass
class Preview:
    """What the dashboard shows before an ingest: the checks on a bounded sample, nothing stored."""

    ok: bool
    #: the ingest's summary of the sample, or the refusal
    summary: str
    error: str | None = None
    format: str = ""
    kind: str = ""
    #: records checked [rows]; ``records`` is the file's total when known
    rows_checked: int = 0
    records: int | None = None
    sampled: bool = False
    warnings: list[str] = field(default_factory=list)
    #: the first points as stored (at most 20)
    points: pd.DataFrame = field(default_factory=pd.DataFrame)


def _sample_csv(path: Path, target: Path, rows: int) -> tuple[bool, int]:
    """Copy the header and the first ``rows`` lines; (whether the file had more, lines copied)."""
    copied = 0
    with open(path, "rb") as src, open(target, "wb") as dst:
        dst.write(src.readline())
        for line in src:
            if copied >= rows:
                return True, copied
            dst.write(line)
            copied += 1
    return False, copied


def preview(path: str | os.PathLike, set_fields: list[str] | dict[str, Any] | None = None,
            display_name: str | None = None, sample_rows: int = PREVIEW_ROWS) -> Preview:
    """Dry-run an upload on a bounded sample: the exact checks of :func:`model.data.ingest.ingest_file` on the
    header and the first ``sample_rows`` records of a CSV (all of a JSON file), in a memory-capped
    in-memory DuckDB. Never raises for a bad file: ``Preview.ok`` is False and ``error`` says why.
    """
    path = Path(path)
    name = display_name or utf8_name(path)
    with tempfile.TemporaryDirectory(prefix="costfrontier-preview-") as tmp:
        try:
            check_upload_shape(path, name)
            sampled, target = False, path
            if not starts_json(path):  # JSON (any size, as the CLI reads it) is checked whole
                target = Path(tmp) / ("sample" + utf8_name(Path("x" + path.suffix)).removeprefix("x"))
                with plain_line_ends(path) as plain:  # a CR-only file samples by its lines too
                    sampled, _ = _sample_csv(plain, target, sample_rows)
            con = connect(":memory:")
            try:
                con.execute(f"SET memory_limit = '{PREVIEW_MEMORY}'")  # a constant of ours
                con.execute("SET temp_directory = '{}'".format(tmp.replace("'", "''")))  # our own temp dir
                with utf8_path(target) as readable:
                    result = ingest_file(con, readable, set_fields, display_name=name)
                points = load_points(con, full=True).head(20) if result.kind == "points" else pd.DataFrame()
            finally:
                con.close()
        except IngestError as exc:
            return Preview(False, str(exc), error=str(exc))
        except StoreError as exc:   # the server's disk is full: said without a path
            return Preview(False, exc.public, error=exc.public)
    records = None if sampled else result.rows_added
    return Preview(True, result.summary, format=result.format, kind=result.kind, rows_checked=result.rows_added,
                   records=records, sampled=sampled, warnings=list(result.warnings), points=points)
