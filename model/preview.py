"""The upload preview: a file checked exactly as the ingest will check it, with nothing stored.

Used by the Data page before its "Ingest" button; the messages speak the form's language
("the Hardware field"), not the CLI's (``--set hardware=NAME``).
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

import pandas as pd

from model.ingest import IngestError, ingest_file
from model.store import connect, load_points, workloads

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


def dry_run(name: str, content: bytes, set_fields: tuple[str, ...], rows: int = 20) -> dict:
    """Ingest ``content`` into a throw-away in-memory database and report what would be stored.

    Returns ``ok``; then either ``error`` (a form-worded message) or ``summary``, ``kind``,
    ``format``, ``rows``, ``warnings``, ``preview`` (first ``rows`` rows, the columns that have
    values) and ``workloads`` (``model|isl|osl`` keys the file adds).
    """
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / (Path(name).name or "upload")
        path.write_bytes(content)
        con = connect(":memory:")
        try:
            result = ingest_file(con, path, list(set_fields), display_name=name)
            frame = load_points(con, full=True).head(rows) if result.kind == "points" else pd.DataFrame()
            keys = ["|".join(w[:3]) for w in workloads(con)] if result.kind == "points" else []
        except IngestError as exc:
            return {"ok": False, "error": for_form(str(exc))}
        finally:
            con.close()
    columns = [c for c in _PREVIEW_COLUMNS if c in frame and frame[c].notna().any()]
    return {"ok": True, "summary": result.summary, "kind": result.kind, "format": result.format,
            "rows": result.rows_added, "warnings": [for_form(w) for w in result.warnings],
            "preview": frame[columns], "workloads": keys}
