"""The upload preview: a file checked exactly as the ingest will check it, with nothing stored.

Used by the Data page before its "Ingest" button; the messages speak the form's language
("the Hardware field"), not the CLI's (``--set hardware=NAME``).
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from model.uploads import preview

__all__ = ["FORM_FIELDS", "form_pairs", "for_form", "dry_run"]

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
    """The form's non-empty inputs as ``field=value`` pairs for :func:`model.ingest.ingest_file`."""
    return [f"{name}={str(value).strip()}" for name, value in values.items() if str(value or "").strip()]


def for_form(message: str) -> str:
    """An ingest message with CLI syntax (``--set gpus=N``) said in the form's words."""
    def field(match: re.Match) -> str:
        label = FORM_FIELDS.get(match.group(1))
        return f"the form's '{label.split(' (')[0]}' field" if label else f"a '{match.group(1)}' value"
    return re.sub(r"--set (\w+)=\S+", field, message)


def dry_run(path: str | Path, set_fields: tuple[str, ...], display_name: str | None = None) -> dict:
    """Check an uploaded file exactly as the ingest will, on a bounded sample, and report what would be
    stored (:func:`model.uploads.preview`: the header and the first rows of a CSV, in a memory-capped
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
