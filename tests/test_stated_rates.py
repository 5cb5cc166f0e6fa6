"""A value a file states is stored as stated; a missing one is derived by the rule the manual names (docs/reference/data-formats.md), and the notes say so."""

from __future__ import annotations

import json

import pytest

from model.data.importers.base import IngestError
from model.data.ingest import ingest_file
from model.data.store import connect, list_sources, load_points
from tests.conftest import ROOT

FORMATS = ROOT / "tests/fixtures/formats"


@pytest.fixture
def con(tmp_path):
    con = connect(tmp_path / "s.duckdb")
    yield con
    con.close()


def test_guidellm_early_stopped_run_keeps_its_stated_rate(con):
    """``guidellm_sweep_early_stop.json``: Qwen3-4B, 25 requests of 256 in / 1,024 out per benchmark, 720 s windows.

    Synchronous: one stream, 20.48 s per answer, so requests ran 512 s and stopped on max_requests;
    the file states 25,600 / 512 = 50.0 output tok/s. The whole window would give 25,600 / 720 = 35.56
    (29 % low, $/M 41 % high). Input is not stated: 6,400 prompt tokens / 512 s = 12.5 tok/s.
    """
    ingest_file(con, FORMATS / "guidellm_sweep_early_stop.json", ["hardware=H100", "gpus=2"])
    rows = load_points(con).sort_values("source_line").reset_index(drop=True)
    sync, burst, constant = rows.iloc[0], rows.iloc[1], rows.iloc[2]
    assert sync["concurrency"] == 1
    assert sync["output_tokens_per_second"] == pytest.approx(50.0)          # stated, not 35.56
    assert sync["total_tokens_per_second"] == pytest.approx(62.5)           # stated: 32,000 / 512
    assert sync["input_tokens_per_second"] == pytest.approx(12.5)           # derived: 6,400 / 512
    assert sync["output_tokens_per_second_per_gpu"] == pytest.approx(25.0)  # 50 / 2 GPUs
    # throughput strategy: 25 parallel requests, the window ends with them: 6,400 / 31.0 s
    assert burst["concurrency"] == 25 and burst["input_tokens_per_second"] == pytest.approx(206.4516129)
    # constant 0.04 req/s: the last request ends at 620.48 s of 720: 6,400 / 620.48 = 10.3146
    assert constant["request_rate_rps"] == 0.04
    assert constant["input_tokens_per_second"] == pytest.approx(6400 / 620.48)
    assert constant["output_tokens_per_second"] == pytest.approx(25600 / 620.48, rel=1e-6)   # stated, rounded
    notes = list_sources(con).iloc[0]["notes"]
    assert "clipped to the first request's start and the last one's end" in notes


def test_vllm_derived_input_is_said_in_the_notes(con):
    ingest_file(con, FORMATS / "vllm_serve.json", ["hardware=H100", "gpus=1"])
    notes = list_sources(con).iloc[0]["notes"] or ""
    assert "input tok/s derived: total_input_tokens / duration" in notes


def test_cancelled_aiperf_run_is_called_that(con, tmp_path):
    report = json.loads((FORMATS / "aiperf_profile_export.json").read_text())
    report["was_cancelled"] = True
    for key, value in list(report.items()):
        # every request failed: AIPerf exports no request metric, only counts and errors
        if isinstance(value, dict) and "unit" in value and key not in ("error_request_count",):
            del report[key]
    report["error_request_count"] = {"unit": "requests", "avg": 160.0}
    # AIPerf's ErrorDetailsCount entries (aiperf common/models: error_details {code, type, message}, count)
    report["error_summary"] = [{"error_details": {"code": 503, "type": "ServiceUnavailable",
                                                  "message": "Service Unavailable"}, "count": 160}]
    path = tmp_path / "cancelled_profile_export_aiperf.json"
    path.write_text(json.dumps(report))
    with pytest.raises(IngestError) as err:
        ingest_file(con, path, ["hardware=H100", "gpus=1"])
    assert "an AIPerf export with no successful request (the run was cancelled): 160 failed" in str(err.value)
    assert "Service Unavailable" in str(err.value) and err.value.field == "request_count"
    assert list_sources(con).empty


@pytest.mark.parametrize("fixture, derived", [
    ("trtllm_bench_report.json", "input tok/s derived: system total - system output"),
    ("sglang_bench_serving_2024.jsonl", "total tok/s derived: input + output"),
    ("llmperf_summary.json", "input tok/s derived: mean input tokens x completed requests/s"),
    ("genai_perf_profile_export.json", "input tok/s = mean ISL x request throughput (not stated)"),
])
def test_every_derived_rate_is_named_in_the_notes(con, fixture, derived):
    ingest_file(con, FORMATS / fixture, ["hardware=H100", "gpus=1"])
    assert derived in (list_sources(con).iloc[0]["notes"] or "")
