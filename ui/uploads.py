"""The Data page's upload preview, kept in the session while the user types (ui is the only layer that touches
the session)."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import streamlit as st

from model.data.preview import dry_run

__all__ = ["preview", "drop_previews"]


def preview(upload, set_fields: tuple[str, ...]) -> tuple[dict, Path]:
    """The upload preview (:func:`model.data.preview.dry_run` on a bounded sample), kept per upload and form
    values while the user types; the upload is copied to a temporary file once, without reading it
    into memory."""
    store = st.session_state.setdefault("_previews", {})
    key = (upload.file_id, set_fields)
    if key not in store:
        spool = Path(tempfile.mkdtemp(prefix="costfrontier-upload-")) / (Path(upload.name).name or "upload")
        upload.seek(0)
        with open(spool, "wb") as out:
            shutil.copyfileobj(upload, out)
        while len(store) >= 16:            # the oldest previews go, with their copies
            _, old = store.pop(next(iter(store)))
            shutil.rmtree(old.parent, ignore_errors=True)
        store[key] = (dry_run(spool, set_fields, display_name=upload.name), spool)
    return store[key]


def drop_previews() -> None:
    """After an ingest: the previews and their temporary copies go."""
    for _, spool in st.session_state.pop("_previews", {}).values():
        shutil.rmtree(spool.parent, ignore_errors=True)
