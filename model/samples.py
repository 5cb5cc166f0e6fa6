"""The bundled sample datasets (``data/samples/``): published tables with their sources."""

from __future__ import annotations

from pathlib import Path

import duckdb

from model.ingest import IngestResult, ingest_file

__all__ = ["SAMPLE_DIR", "sample_files", "load_samples"]

SAMPLE_DIR = Path(__file__).resolve().parent.parent / "data" / "samples"


def sample_files() -> list[Path]:
    return sorted(SAMPLE_DIR.glob("*.csv"))


def load_samples(con: duckdb.DuckDBPyConnection) -> list[IngestResult]:
    """Ingest every bundled sample (already-ingested ones are skipped, not duplicated)."""
    return [ingest_file(con, path) for path in sample_files()]
