"""The bundled sample datasets (``data/samples/``): published tables with their sources."""

from __future__ import annotations

from pathlib import Path

import duckdb

from model.data.ingest import IngestResult, ingest_file
from model.data.versions import acting

__all__ = ["SAMPLE_DIR", "SAMPLE_METADATA", "sample_files", "load_samples"]

SAMPLE_DIR = Path(__file__).resolve().parents[2] / "data" / "samples"

_INFERENCEX = ("SemiAnalysis InferenceX blog: AMD MI355X GLM-5 Inference: Up to 40% Cheaper per Million Tokens "
               "than B200 on SGLang FP8 (run of 2026-05-20)")
_WAFER = "Wafer: GLM5.2 on AMD MI355X at 2626 tok/s/node at over 2x lower cost than Blackwell"

#: What the sources say about a sample that its file does not (the same as ``--set`` on the CLI).
#: Taken from data/samples/README.md; fills only empty cells.
SAMPLE_METADATA: dict[str, dict[str, object]] = {
    "inferencex_glm5_fp8_2026-05-20.csv": {
        "model": "GLM-5", "run_date": "2026-05-20", "kv_cache_dtype": "fp8", "disaggregated": False,
        "notes": _INFERENCEX,
    },
    "wafer_glm52_mxfp4_ramp.csv": {"notes": _WAFER},
    "wafer_glm52_other_points.csv": {"notes": _WAFER},
}


#: bundled files that are read where they lie, not ingested (model.data.presets.REFERENCE_CSV)
NOT_INGESTED = ("tco_reference_values.csv",)


#: bundled files ingested after the others, in this order (added later: the older samples keep their source ids)
INGESTED_LAST = ("api_prices_usd_per_mtok.csv", "tco_presets_2026-09.csv")


def sample_files() -> list[Path]:
    return sorted((p for p in SAMPLE_DIR.glob("*.csv") if p.name not in NOT_INGESTED),
                  key=lambda p: (INGESTED_LAST.index(p.name) + 1 if p.name in INGESTED_LAST else 0, p.name))


def load_samples(con: duckdb.DuckDBPyConnection) -> list[IngestResult]:
    """Ingest every bundled sample (already-ingested ones are skipped, not duplicated): a data version per file,
    each saying ``load-samples``."""
    with acting("load-samples"):
        return [ingest_file(con, path, [f"{k}={v}" for k, v in SAMPLE_METADATA.get(path.name, {}).items()])
                for path in sample_files()]
