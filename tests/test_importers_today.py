"""Issue 29: result files as tools write them today (tests/fixtures/formats_today/, sources in
tests/fixtures/formats/SOURCES.md). Values typed from public files are facts; the expected numbers below are
what each file states, or the arithmetic in the comment; every stored value and the exact notes are asserted.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest

from model.data import importers
from model.data.importers.base import NotResults
from model.data.ingest import IngestError, ingest_file
from model.data.preview import dry_run
from model.data.store import connect, list_sources, load_points
from tests.conftest import FIXTURES
from tests.kit import cli

TODAY = FIXTURES / "formats_today"

#: the columns load_points gives that say where a row came from, not what it measured
_PROVENANCE = {"point_id", "source_id", "source_file", "source_format", "extra"}


def stored(con) -> list[dict]:
    """Every stored row: its non-empty values (provenance left out) and its extra as a dict."""
    frame = load_points(con, full=True).sort_values("source_line")
    rows = []
    for _, row in frame.iterrows():
        values = {k: v for k, v in row.items() if k not in _PROVENANCE and not pd.isna(v)}
        if "run_date" in values:
            values["run_date"] = str(pd.Timestamp(values["run_date"]).date())
        values["extra"] = json.loads(row["extra"]) if isinstance(row["extra"], str) else {}
        rows.append(values)
    return rows


def source_notes(con) -> str | None:
    return con.execute("SELECT notes FROM sources").fetchone()[0]


def check(row: dict, expected: dict) -> None:
    """``row`` holds exactly ``expected`` (floats to 1e-9 relative), nothing more."""
    assert set(row) == set(expected), (sorted(set(row) - set(expected)), sorted(set(expected) - set(row)))
    for key, value in expected.items():
        if isinstance(value, float):
            assert row[key] == pytest.approx(value, rel=1e-9), key
        else:
            assert row[key] == value, key


# --------------------------------------------------------------------------- InferenceX nested agentic aggregate

NESTED_NOTES = ("InferenceX agentic aggregate (nested): success is over the measured (profiling) window only; "
                "requests failed derived from request_accounting (records_total - records_warmup_dropped - "
                "num_requests_successful); each row's notes give its counts")
NESTED_ROW_TAIL = ("interactivity = intvty.p50 as stated (1 / p50 ITL); p75/p90/p95 interactivity (1 / the matching "
                   "ITL percentile, the slow tail) kept in extra as intvty_p75/intvty_p90/intvty_p95; TPOT = ITL (the "
                   "agentic aggregation writes tpot from the inter-token latencies); ISL/OSL = measured mean "
                   "input/output tokens, rounded (the agentic trace has no fixed length); gpus derived: tp x pp x "
                   "pcp_size, the aggregation's per-GPU denominator")
NESTED_COMMON = {
    "hardware": "MI355X",                       # hw cluster:mi355x-amds
    "model": "deepseek-ai/DeepSeek-R1-0528", "framework": "vllm", "framework_version": "rocm/vllm-dev:nightly",
    "precision": "fp8", "spec_decoding": "none", "scenario": "agentic-coding",
    "tp": 8, "ep": 1, "pp": 1, "gpus": 8,       # tp x pp x pcp_size = 8 x 1 x 1
    "disaggregated": False, "concurrency": 64.0,
    "interactivity": 45.4545,                   # intvty.p50 as stated
    "tpot_median_ms": 22.0,                     # tpot.p50 0.022 s
    "ttft_p50_s": 1.8, "ttft_p90_s": 5.2, "ttft_p95_s": 7.0, "e2e_latency_median_s": 15.0,
    "isl": 45000, "osl": 600,                   # tokens.input.mean, tokens.output_actual.mean
    "prefix_cache_hit_rate": 0.912,             # server_metrics.cache.gpu_cache_hit_rate
    "source_line": 1,
}
NESTED_EXTRA = {"intvty_mean": 40.0, "intvty_p75": 35.7143, "intvty_p90": 25.0, "intvty_p95": 20.0,
                "theoretical_cache_hit_rate": 0.94, "src_hw": "cluster:mi355x-amds", "infmax_model_prefix": "dsr1",
                "dp_attention": "false", "kv_offloading": "none", "allocated_cpu_dram_gb": 0, "dcp_size": 1,
                "kv_cache_pool_tokens": 5200000}


def test_inferencex_nested_agentic_aggregate_success_is_over_the_measured_window(con):
    assert importers.detect(TODAY / "inferencex_agentic_nested.json", "x") == "inferencex_agentic"
    result = ingest_file(con, TODAY / "inferencex_agentic_nested.json")
    assert result.rows_added == 1 and result.warnings == []
    [row] = stored(con)
    check(row, {
        **NESTED_COMMON,
        "total_tokens_per_second_per_gpu": 4560.0, "output_tokens_per_second_per_gpu": 60.0,
        "input_tokens_per_second_per_gpu": 4500.0,          # per_gpu as stated
        "total_tokens_per_second": 36480.0, "output_tokens_per_second": 480.0, "input_tokens_per_second": 36000.0,
        "requests_completed": 720,
        "requests_failed": 0,                               # 1607 - 887 - 720
        "success_rate": 1.0,                                # 720 / (1607 - 887), not 720 / 1607 = 0.45
        "power_per_gpu_w": 812.4,                           # avg_power_w, power_valid 1, schema 2
        "notes": "success over the measured (profiling) window only: 720 of 720 measured requests succeeded; 887 "
                 "warm-up records (14 of them errors) are not requests of that window; requests failed derived: "
                 "records_total - records_warmup_dropped - num_requests_successful = 0 (the file states no failed "
                 "count); success rate from it; " + NESTED_ROW_TAIL,
        "extra": {**NESTED_EXTRA, "num_requests_total": 1607, "warmup_requests": 887, "warmup_errors": 14,
                  "error_categories": "HTTPStatusError: 14", "avg_total_gpu_power_w": 6499.2,
                  "total_gpu_energy_j": 5849280.0, "joules_per_successful_query": 8124.0,
                  "joules_per_input_token": 0.1805, "joules_per_output_token": 13.54,
                  "joules_per_total_token": 0.1782, "duration_s": 900.0},
    })
    assert source_notes(con) == NESTED_NOTES


def test_inferencex_nested_errors_in_both_phases(con):
    ingest_file(con, TODAY / "inferencex_agentic_nested_measured_errors.json")
    [row] = stored(con)
    check(row, {
        **NESTED_COMMON,
        "total_tokens_per_second_per_gpu": 3657.5, "output_tokens_per_second_per_gpu": 48.125,
        "input_tokens_per_second_per_gpu": 3609.375,
        "total_tokens_per_second": 29260.0, "output_tokens_per_second": 385.0, "input_tokens_per_second": 28875.0,
        "requests_completed": 77,
        "requests_failed": 3,                               # records_total 100 - warm-up 20 - successful 77
        "success_rate": 0.9625,                             # 77 / 80
        "notes": "success over the measured (profiling) window only: 77 of 80 measured requests succeeded; 20 "
                 "warm-up records (2 of them errors) are not requests of that window; requests failed derived: "
                 "records_total - records_warmup_dropped - num_requests_successful = 3 (the file states no failed "
                 "count); success rate from it; " + NESTED_ROW_TAIL,
        "extra": {**NESTED_EXTRA, "num_requests_total": 100, "warmup_requests": 20,
                  "warmup_errors": 2,                       # 5 errors, 3 of them measured
                  "error_categories": "TimeoutError: 5", "duration_s": 120.0},
    })


# --------------------------------------------------------------------------- an array with a row that measured nothing

FLAT_ROW_NOTE = ("ISL/OSL = measured mean input/output tokens, rounded; no median stated: interactivity, TPOT, "
                 "TTFT p50 and E2E empty (mean/p75/p90/p95 interactivity are percentiles of per-request "
                 "interactivity, p90 = the fast tail, kept in extra); requests failed not stated")


def test_an_array_with_an_empty_row_stores_the_measured_rows_and_says_which_was_left_out(con):
    path = TODAY / "inferencex_agg_bmk_empty_row.json"
    assert importers.detect(path, path.name) == "inferencex_agg"
    result = ingest_file(con, path)
    assert result.rows_added == 2
    first, third = stored(con)
    common = {"hardware": "B200", "model": "moonshotai/Kimi-K2.5", "precision": "fp4", "framework": "vllm",
              "framework_version": "vllm/vllm-openai:v0.11.2", "spec_decoding": "none", "scenario": "agentic-coding",
              "gpus": 8, "tp": 8, "ep": 1, "disaggregated": False, "ttft_p90_s": 4.1, "ttft_p95_s": 5.3,
              "isl": 40000, "osl": 500, "prefix_cache_hit_rate": 0.88, "notes": FLAT_ROW_NOTE}
    flat_extra = {"infmax_model_prefix": "kimik2.5", "is_multinode": False, "dp_attention": "false",
                  "kv_offloading": "none", "kv_offload_backend": "", "mean_ttft": 1.9, "p75_ttft": 2.6,
                  "std_ttft": 1.2, "mean_e2el": 14.2, "p75_e2el": 17.0, "p90_e2el": 23.5, "p95_e2el": 28.0,
                  "std_e2el": 6.0, "p75_qps": 2.0, "p90_qps": 3.0, "p95_qps": 3.0, "std_qps": 0.9,
                  "mean_input_tokens": 40000.0, "p75_input_tokens": 52000.0, "p90_input_tokens": 64000.0,
                  "p95_input_tokens": 72000.0, "std_input_tokens": 16000.0, "mean_output_tokens_actual": 500.0,
                  "p75_output_tokens_actual": 650.0, "p90_output_tokens_actual": 1000.0,
                  "p95_output_tokens_actual": 1250.0, "std_output_tokens_actual": 350.0,
                  "gpu_kv_cache_usage_pct": 0.64}
    check(first, {**common, "source_line": 1, "concurrency": 16.0,
                  "total_tokens_per_second_per_gpu": 4050.0, "output_tokens_per_second_per_gpu": 50.0,
                  "input_tokens_per_second_per_gpu": 4000.0, "total_tokens_per_second": 32400.0,
                  "output_tokens_per_second": 400.0, "input_tokens_per_second": 32000.0, "requests_completed": 480,
                  "extra": {**flat_extra, "num_requests_total": 480, "mean_qps": 0.8, "mean_itl": 0.0125,
                            "p75_itl": 0.015, "p90_itl": 0.02, "p95_itl": 0.025, "std_itl": 0.005,
                            "mean_tpot": 0.0125, "p75_tpot": 0.015, "p90_tpot": 0.02, "p95_tpot": 0.025,
                            "std_tpot": 0.005, "mean_intvty": 83.2, "p75_intvty": 92.0, "p90_intvty": 104.0,
                            "p95_intvty": 112.0, "std_intvty": 24.0, "total_prompt_tokens": 19200000,
                            "total_generation_tokens": 240000, "total_requests_completed": 480,
                            "duration_seconds": 600.0}})
    check(third, {**common, "source_line": 3, "concurrency": 64.0,
                  "total_tokens_per_second_per_gpu": 8100.0, "output_tokens_per_second_per_gpu": 100.0,
                  "input_tokens_per_second_per_gpu": 8000.0, "total_tokens_per_second": 64800.0,
                  "output_tokens_per_second": 800.0, "input_tokens_per_second": 64000.0, "requests_completed": 1280,
                  "extra": {**flat_extra, "num_requests_total": 1280, "mean_qps": 1.6, "mean_itl": 0.02,
                            "p75_itl": 0.024, "p90_itl": 0.032, "p95_itl": 0.04, "std_itl": 0.008,
                            "mean_tpot": 0.02, "p75_tpot": 0.024, "p90_tpot": 0.032, "p95_tpot": 0.04,
                            "std_tpot": 0.008, "mean_intvty": 52.0, "p75_intvty": 57.5, "p90_intvty": 65.0,
                            "p95_intvty": 70.0, "std_intvty": third["extra"]["std_intvty"],
                            "total_prompt_tokens": 51200000, "total_generation_tokens": 640000,
                            "total_requests_completed": 1280, "duration_seconds": 800.0}})
    assert third["extra"]["std_intvty"] == json.loads((path).read_text())[2]["std_intvty"]
    assert source_notes(con) == (
        "line 2 (conc 32) left out: it measured nothing (num_requests_total 0: no throughput or latency, only "
        "config and cache fields); InferenceX flat agentic rows: no median is stated, so interactivity, TPOT, "
        "TTFT p50 and E2E are left empty; mean/p75/p90/p95 interactivity are statistics of per-request "
        "interactivity (p90 = the fast tail), kept in extra as mean_intvty/p75_intvty/p90_intvty/p95_intvty; "
        "ISL/OSL = measured mean input/output tokens, rounded; requests failed not stated (this writer drops "
        "errors and warm-up before counting)")


def test_an_array_whose_every_row_measured_nothing_is_refused_with_that_cause(con, tmp_path):
    rows = json.loads((TODAY / "inferencex_agg_bmk_empty_row.json").read_text())
    path = tmp_path / "agg_bmk.json"
    path.write_text(json.dumps([rows[1], {**rows[1], "conc": 48}]))
    with pytest.raises(IngestError) as err:
        ingest_file(con, path)
    assert str(err.value) == (
        "agg_bmk.json: no element measured anything (all 2: line 1 (conc 32) left out: it measured nothing "
        "(num_requests_total 0: no throughput or latency, only config and cache fields); line 2 (conc 48) left "
        "out: it measured nothing (num_requests_total 0: no throughput or latency, only config and cache fields))")
    assert list_sources(con).empty


# --------------------------------------------------------------------------- inference-perf

IP_NOTES = ("inference-perf stage {n}: rate = the achieved rate (the requested rate kept in extra as "
            "requested_rate_rps); concurrency empty (a rate stage); median inter_token_latency not used as TPOT: it pools every token gap (zero gaps "
            "within a chunk); ISL/OSL = the run's mean prompt/output length (summary_lifecycle_metrics.json beside it: "
            "every stage's successful requests), rounded, so every stage of the run is one workload; the stage's own "
            "means kept in extra (prompt_len_mean, output_len_mean)")


def test_inference_perf_two_stages_and_a_summary(db_path):
    # the real A100 demo of kubernetes-sigs/inference-perf: stages 0 and 1 are stored, the summary is not
    code, out, _ = cli(db_path, "ingest", TODAY / "inference_perf_vllm_a100", "--set", "hardware=A100",
                       "--set", "gpus=1", "--set", "model=meta-llama/Meta-Llama-3-8B")
    assert code == 0
    assert "summary_lifecycle_metrics.json: summary of all stages (inference-perf), not stored (the stages are)" \
        in out.splitlines()
    con = connect(db_path)
    try:
        sources = list_sources(con).sort_values("file_name")
        assert list(sources["file_name"]) == ["stage_0_lifecycle_metrics.json", "stage_1_lifecycle_metrics.json"]
        assert list(sources["notes"]) == [IP_NOTES.format(n=0), IP_NOTES.format(n=1)]
        stage0, stage1 = sorted(stored(con), key=lambda r: r["request_rate_rps"])
    finally:
        con.close()
    common = {"hardware": "A100", "gpus": 1, "model": "meta-llama/Meta-Llama-3-8B", "source_line": 1,
              "requests_failed": 0, "success_rate": 1.0}
    # ISL/OSL: the run's, from the real summary beside the stages (217.87 / 209.92 over its 6,720 requests), where
    # each stage's own would give 207/229 and 279/181: one run, one workload
    check(stage0, {**common, "request_rate_rps": 1.0028744334871, "isl": 218, "osl": 210,
                   "total_tokens_per_second": 401.98618610218887, "total_tokens_per_second_per_gpu": 401.98618610218887,
                   "output_tokens_per_second": 211.50695628503055,
                   "output_tokens_per_second_per_gpu": 211.50695628503055,
                   "input_tokens_per_second": 190.4792298171583, "input_tokens_per_second_per_gpu": 190.4792298171583,
                   "tpot_median_ms": 7.365180665650136,                              # 0.007365... s
                   "interactivity": 1000 / 7.365180665650136,                        # 135.774
                   "ttft_p50_s": 0.054611469531664625, "ttft_p90_s": 0.08116110803093761,
                   "e2e_latency_median_s": 3.355497678014217, "requests_completed": 60,
                   "notes": IP_NOTES.format(n=0),
                   "extra": {"requested_rate_rps": 1.0, "saturated": False, "send_duration_s": 59.82802831195295,
                             "requests_per_second": 0.9222687047312378, "ntpot_median_s": 0.015495510019001986,
                             "stage": 0, "prompt_len_mean": 206.53333333333333,
                             "output_len_mean": 229.33333333333334}})
    check(stage1, {**common, "request_rate_rps": 6.003018621313889, "isl": 218, "osl": 210,
                   "total_tokens_per_second": 2374.775345126581, "total_tokens_per_second_per_gpu": 2374.775345126581,
                   "output_tokens_per_second": 933.4760937046922,
                   "output_tokens_per_second_per_gpu": 933.4760937046922,
                   "input_tokens_per_second": 1441.2992514218893,
                   "input_tokens_per_second_per_gpu": 1441.2992514218893,
                   "tpot_median_ms": 9.195015911600416, "interactivity": 1000 / 9.195015911600416,
                   "ttft_p50_s": 0.06059830402955413, "ttft_p90_s": 0.09404300908790901,
                   "e2e_latency_median_s": 1.7224479744909331, "requests_completed": 360,
                   "notes": IP_NOTES.format(n=1),
                   "extra": {"requested_rate_rps": 6.0, "saturated": False,
                             "send_duration_s": stage1["extra"]["send_duration_s"],
                             "requests_per_second": stage1["extra"]["requests_per_second"],
                             "ntpot_median_s": 0.019918538765237366, "stage": 1,
                             "prompt_len_mean": 279.1361111111111, "output_len_mean": 180.7861111111111}})


def test_inference_perf_summary_alone_is_refused_naming_the_tool(con):
    with pytest.raises(NotResults) as err:
        ingest_file(con, TODAY / "inference_perf_vllm_a100" / "summary_lifecycle_metrics.json")
    assert str(err.value) == ("summary_lifecycle_metrics.json: summary of all stages (inference-perf), not a result "
                              "to store: ingest the stage_N_lifecycle_metrics.json files, one point per stage")


def test_inference_perf_stage_without_tpot(con):
    # the real H100 vllm+flashinfer demo: TPOT/TTFT/ITL are null, only NTPOT
    ingest_file(con, TODAY / "inference_perf_flashinfer_h100" / "stage_0_lifecycle_metrics.json",
                ["hardware=nvidia-h100-80gb", "gpus=1"])
    [row] = stored(con)
    notes = ("inference-perf stage 0: rate = the achieved rate (the requested rate kept in extra as requested_rate_rps); "
             "concurrency empty (a rate stage); stage 0 states no TPOT/TTFT (non-token-timed responses): no interactivity; NTPOT (request "
             "latency / output tokens) kept in extra, not used as TPOT; ISL/OSL = mean prompt/output length of the "
             "stage's successful requests, rounded (no summary or other stage beside it: ingest the run's folder so its "
             "stages share one workload, or give the ISL and OSL the run asked for)")
    check(row, {"hardware": "H100", "gpus": 1, "source_line": 1, "request_rate_rps": 1.0138792757712132, "isl": 133, "osl": 126,
                "total_tokens_per_second": 254.4663801393914, "total_tokens_per_second_per_gpu": 254.4663801393914,
                "output_tokens_per_second": 123.42077580963408,
                "output_tokens_per_second_per_gpu": 123.42077580963408,
                "input_tokens_per_second": 131.0456043297573, "input_tokens_per_second_per_gpu": 131.0456043297573,
                "e2e_latency_median_s": 1.9606433369917795, "requests_completed": 60, "requests_failed": 0,
                "success_rate": 1.0, "notes": notes,
                "extra": {"requested_rate_rps": 1.0, "saturated": False, "send_duration_s": 59.17864329001168,
                          "requests_per_second": 0.9817375776982692, "ntpot_median_s": 0.015214480405997299,
                          "stage": 0, "prompt_len_mean": 133.48333333333332, "output_len_mean": 125.71666666666667}})
    assert source_notes(con) == notes


# --------------------------------------------------------------------------- an AIPerf folder

AIPERF_ROW_NOTE = "ISL/OSL = measured mean input/output tokens, rounded (no configured length stated)"


def test_an_aiperf_folder_is_one_point_and_one_line_per_file_not_stored(db_path):
    folder = TODAY / "aiperf_artifacts"
    done = cli(db_path, "ingest", folder, "--set", "hardware=H100", "--set", "gpus=1")
    assert done.code == 0
    lines = done.lines
    assert lines[0] == ("profile_export.jsonl: per-request records (AIPerf), read with profile_export_aiperf.json "
                        "beside it (for goodput), not stored on its own")
    assert lines[1] == ("profile_export_aiperf.csv: the same run as profile_export_aiperf.json (AIPerf writes both; "
                        "the CSV has no run id), not stored again")
    assert lines[2].startswith("profile_export_aiperf.json: 1 row added as points (aiperf, source #1)")
    assert lines[3:] == ["profile_export_aiperf_timeslices.json: time slices (AIPerf), skipped",
                         "profile_export_console.txt: console text (AIPerf), skipped",
                         "published: files 1-5 of 5"]
    con = connect(db_path)
    try:
        # its 3 records are not the summary's 10 requests: not paired (tests/test_goodput_aiperf.py)
        assert source_notes(con) == (AIPERF_ROW_NOTE + "; input tok/s = total ISL / benchmark duration (not stated); "
                                     "total tok/s = input + output (not stated); profile_export.jsonl beside it holds "
                                     "3 completed requests where the summary counts 10: not this run's records, so no "
                                     "per-request data were kept; goodput uses the summary values")
        [row] = stored(con)
    finally:
        con.close()
    check(row, {"model": "Qwen/Qwen3-0.6B", "hardware": "H100", "gpus": 1, "concurrency": 2.0, "source_line": 1,
                "output_tokens_per_second": 527.06, "output_tokens_per_second_per_gpu": 527.06,
                "input_tokens_per_second": 50 / 15.8123, "input_tokens_per_second_per_gpu": 50 / 15.8123,
                "total_tokens_per_second": 527.06 + 50 / 15.8123,
                "total_tokens_per_second_per_gpu": 527.06 + 50 / 15.8123,
                "tpot_median_ms": 3.5, "interactivity": 1000 / 3.5,
                "ttft_p50_s": 0.01393, "ttft_p90_s": 0.04224, "ttft_p99_s": 0.04889,
                "e2e_latency_median_s": 2.23967,
                "requests_completed": 10, "requests_failed": 0, "success_rate": 1.0,
                "isl": 5, "osl": 833,                   # measured means 5.00 and 833.40, rounded
                "run_date": "2026-02-02", "notes": AIPERF_ROW_NOTE,
                "extra": {"ttft_mean_ms": 19.99, "itl_p99_ms": 3.63, "per_user_tok_s_p50": 285.38,
                          "request_throughput_rps": 0.6324, "mean_input_tokens": 5.0, "mean_output_tokens": 833.4,
                          "benchmark_duration_s": 15.8123, "endpoint_type": "chat", "streaming": True,
                          "aiperf_version": "0.5.0"}})


@pytest.mark.parametrize("name,message", [
    ("profile_export.jsonl", "per-request records (AIPerf), not a result to store: ingest profile_export_aiperf.json "
     "(the run's aggregate) instead: with this file beside it, its completed requests' TTFT and TPOT are kept for "
     "goodput (the records state no model or configured load, and their run's point is the summary's)"),
    ("profile_export_aiperf_timeslices.json", "time slices (AIPerf), not a result to store: ingest "
     "profile_export_aiperf.json (the run's aggregate) instead"),
    ("profile_export_console.txt", "console text (AIPerf), not a result to store: the table of "
     "profile_export_aiperf.json; ingest that file instead"),
])
def test_an_aiperf_companion_file_alone_is_refused_naming_the_tool(con, name, message):
    with pytest.raises(NotResults) as err:
        ingest_file(con, TODAY / "aiperf_artifacts" / name)
    assert str(err.value) == f"{name}: {message}"


def test_a_text_file_whose_first_line_is_blank_never_reaches_unexpected_problem(con, tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("\n\nsome table\nhardware,gpus\nH100,1\n")
    with pytest.raises(IngestError) as err:
        ingest_file(con, path)
    assert str(err.value) == ("notes.txt, line 1: the first line is blank: a CSV's first line must be its header "
                              "row (the column names); remove the blank lines above it")
    # the real AIPerf console text (two blank lines first) is named for its tool, never "unexpected problem"
    copy = tmp_path / "console.txt"
    copy.write_bytes((TODAY / "aiperf_artifacts" / "profile_export_console.txt").read_bytes())
    with pytest.raises(IngestError) as err:
        ingest_file(con, copy)
    assert "unexpected problem" not in str(err.value) and "console text (AIPerf)" in str(err.value)


def test_a_csv_and_json_of_different_runs_are_both_stored(db_path, tmp_path):
    folder = tmp_path / "run"
    folder.mkdir()
    source = TODAY / "aiperf_artifacts"
    (folder / "profile_export_aiperf.json").write_bytes((source / "profile_export_aiperf.json").read_bytes())
    csv = (source / "profile_export_aiperf.csv").read_bytes().replace(b"Request Count,10.00", b"Request Count,12.00")
    assert csv != (source / "profile_export_aiperf.csv").read_bytes()
    (folder / "profile_export_aiperf.csv").write_bytes(csv)
    code, out, _ = cli(db_path, "ingest", folder, "--set", "hardware=H100", "--set", "gpus=1")
    assert code == 0
    assert out.count(" added as points") == 2


# --------------------------------------------------------------------------- vLLM

def test_vllm_without_failed_says_it_was_derived(con):
    ingest_file(con, TODAY / "vllm_no_failed.json", ["hardware=H100", "gpus=1"])
    [row] = stored(con)
    check(row, {"model": "meta-llama/Llama-3.1-8B-Instruct", "hardware": "H100", "gpus": 1, "concurrency": 16.0,
                "source_line": 1, "isl": 1024, "osl": 1000,                  # 201728 / 197, 197000 / 197
                "output_tokens_per_second": 2000.0, "output_tokens_per_second_per_gpu": 2000.0,
                "total_tokens_per_second": 4048.0, "total_tokens_per_second_per_gpu": 4048.0,
                "input_tokens_per_second": 2048.0, "input_tokens_per_second_per_gpu": 2048.0,   # 201728 / 98.5
                "tpot_median_ms": 13.9, "interactivity": 1000 / 13.9, "ttft_p50_s": 0.095, "ttft_p99_s": 0.24,
                "itl_median_ms": 13.9, "e2e_latency_median_s": 14.6, "requests_completed": 197,
                "requests_failed": 3, "success_rate": 0.985,                 # 200 - 197; 197 / 200
                "run_date": "2025-09-12",
                "notes": "requests failed derived: num_prompts - completed = 200 - 197 (the file states no "
                         "'failed'); success rate from it",
                "extra": {"client_backend": "vllm", "num_prompts": 200, "duration_s": 98.5,
                          "request_throughput_rps": 2.0, "burstiness": 1.0, "mean_ttft_ms": 110.0,
                          "std_ttft_ms": 31.0, "mean_tpot_ms": 14.2, "std_tpot_ms": 1.1, "p99_tpot_ms": 19.8,
                          "mean_itl_ms": 14.2, "std_itl_ms": 2.0, "p99_itl_ms": 31.68,
                          "mean_e2el_ms": 14295.8, "std_e2el_ms": 900.0, "p99_e2el_ms": 17200.0}})
    assert source_notes(con) == ("input tok/s derived: total_input_tokens / duration (not stated); request_rate "
                                 "'inf' means unbounded: request_rate_rps left empty; requests failed derived: "
                                 "num_prompts - completed (the file states no 'failed'); success rate from it")


def test_one_model_under_two_paths_is_one_model(con):
    for name in ("vllm_qwen3_14b_root.json", "vllm_qwen3_14b_workspace.json"):
        ingest_file(con, TODAY / name, ["hardware=H100", "gpus=1"])
    root, workspace = sorted(stored(con), key=lambda r: r["run_date"])
    note = "model given as a path: stored as its last component 'Qwen3-14B'; the path kept in extra as model_dir"
    common = {"model": "Qwen3-14B", "hardware": "H100", "gpus": 1, "concurrency": 32.0, "source_line": 1,
              "isl": 2048, "osl": 1024, "tpot_median_ms": 13.9, "interactivity": 1000 / 13.9, "ttft_p50_s": 0.095,
              "ttft_p99_s": 0.24, "e2e_latency_median_s": 14.6, "requests_completed": 320, "requests_failed": 0,
              "success_rate": 1.0, "notes": note, "itl_median_ms": 13.9}
    extra = {"client_backend": "openai-chat", "num_prompts": 320, "burstiness": 1.0, "mean_ttft_ms": 110.0,
             "std_ttft_ms": 31.0, "mean_tpot_ms": 14.2, "std_tpot_ms": 1.1, "p99_tpot_ms": 19.8, "mean_itl_ms": 14.2,
             "std_itl_ms": 2.0, "p99_itl_ms": 31.68, "mean_e2el_ms": 14636.6,
             "std_e2el_ms": 900.0, "p99_e2el_ms": 17200.0}
    check(root, {**common, "run_date": "2025-09-12",
                 "total_tokens_per_second": 6144.0, "total_tokens_per_second_per_gpu": 6144.0,
                 "output_tokens_per_second": 2048.0, "output_tokens_per_second_per_gpu": 2048.0,
                 "input_tokens_per_second": 4096.0, "input_tokens_per_second_per_gpu": 4096.0,   # 655360 / 160
                 "extra": {**extra, "duration_s": 160.0, "request_throughput_rps": 2.0,
                           "model_dir": "/root/models/Qwen3-14B"}})
    check(workspace, {**common, "run_date": "2025-09-13",
                      "total_tokens_per_second": 6553.6, "total_tokens_per_second_per_gpu": 6553.6,
                      "output_tokens_per_second": 2184.5333, "output_tokens_per_second_per_gpu": 2184.5333,
                      "input_tokens_per_second": 655360 / 150, "input_tokens_per_second_per_gpu": 655360 / 150,
                      "extra": {**extra, "duration_s": 150.0, "request_throughput_rps": 2.1333,
                                "model_dir": "/workspace/models/Qwen3-14B"}})
    note_file = ("input tok/s derived: total_input_tokens / duration (not stated); request_rate 'inf' means "
                 "unbounded: request_rate_rps left empty; model given as a path: stored as its last component (the "
                 "path kept in extra as model_dir)")
    assert [r[0] for r in con.execute("SELECT notes FROM sources ORDER BY source_id").fetchall()] == [note_file] * 2


@pytest.mark.parametrize("value,expected", [
    ("/root/models/Qwen3-14B", ("Qwen3-14B", "/root/models/Qwen3-14B")),
    ("./models/Qwen3-14B/", ("Qwen3-14B", "./models/Qwen3-14B/")),
    ("~/m/Llama", ("Llama", "~/m/Llama")),
    ("C:\\models\\Phi-4", ("Phi-4", "C:\\models\\Phi-4")),
    ("Qwen/Qwen3-14B", None),           # a Hugging Face id is no path
    ("/", None),
])
def test_model_from_path(value, expected):
    from model.data.importers._common import model_from_path

    assert model_from_path(value) == expected


def test_a_run_where_every_request_failed_is_refused_by_its_cause(con):
    with pytest.raises(IngestError) as err:
        ingest_file(con, TODAY / "vllm_all_failed.json", ["hardware=H100", "gpus=1"])
    assert str(err.value) == ("vllm_all_failed.json, line 1, field 'completed': all 640 requests failed "
                              "(0 completed in 0.7 s): nothing was measured")
    assert list_sources(con).empty


# --------------------------------------------------------------------------- a CSV without interactivity

NO_INTERACTIVITY = ("no interactivity or TPOT column: these 8 rows cannot reach a frontier until one is supplied: "
                    "add a column, or give one with --set interactivity=N or --set tpot_median_ms=N")


def test_a_csv_without_interactivity_is_taken_with_a_warning(con):
    # NVIDIA's published max-throughput table (TensorRT-LLM 0.19.0 perf overview): output tok/s as stated
    result = ingest_file(con, TODAY / "throughput_only_no_interactivity.csv")
    assert result.rows_added == 8 and result.warnings == [NO_INTERACTIVITY]
    assert source_notes(con) == NO_INTERACTIVITY
    output = [11253.28, 17867.66, 24944.50, 27471.49, 9925.00, 15459.71, 23608.58, 30742.86]
    for i, row in enumerate(stored(con)):
        gpus = [1, 2, 4, 8][i % 4]
        check(row, {"hardware": "B200", "gpus": gpus, "tp": gpus, "model": "nvidia/Llama-3.3-70B-Instruct-FP4",
                    "precision": "fp4", "framework": "tensorrt-llm", "isl": 128, "osl": 128 if i < 4 else 2048,
                    "output_tokens_per_second": output[i], "output_tokens_per_second_per_gpu": output[i] / gpus,
                    "source_line": i + 2, "extra": {}})


def test_the_preview_says_it_before_ingest(tmp_path):
    checked = dry_run(TODAY / "throughput_only_no_interactivity.csv", ())
    assert checked["ok"] and checked["rows"] == 8
    assert checked["warnings"] == ["no interactivity or TPOT column: these 8 rows cannot reach a frontier until one "
                                   "is supplied: add a column, or give one with a 'interactivity' value or a "
                                   "'tpot_median_ms' value"]


def test_set_interactivity_supplies_it_and_the_warning_goes(con):
    result = ingest_file(con, TODAY / "throughput_only_no_interactivity.csv", ["interactivity=50"])
    assert result.warnings == [] and source_notes(con) is None
    assert {row["interactivity"] for row in stored(con)} == {50.0}


def test_inferencex_nested_multinode_and_stated_gpu_count(con, tmp_path):
    # the aggregation's other layouts: multinode (GPUs = prefill + decode, every rate per GPU of both roles),
    # and a newer file stating num_gpus (then used as stated, no note), power marked invalid (not stored)
    base = json.loads((TODAY / "inferencex_agentic_nested.json").read_text())
    base["request_metrics"]["throughput"]["per_gpu"] = {"total_tput_tps": 2280.0, "output_tput_tps": 30.0,
                                                        "input_tput_tps": 2250.0}   # 36480 / 16 ...
    multinode = {**base, "disagg": True, "is_multinode": True, "num_prefill_gpu": 8, "num_decode_gpu": 8,
                 "decode_tp": 8, "decode_ep": 8, "power_valid": 0}
    for key in ("avg_power_w", "avg_total_gpu_power_w", "total_gpu_energy_j", "joules_per_successful_query",
                "joules_per_input_token", "joules_per_output_token", "joules_per_total_token"):
        multinode.pop(key)
    stated = {**base, "num_gpus": 16, "conc": 128}
    path = tmp_path / "agg_bmk.json"
    path.write_text(json.dumps([multinode, stated]))
    ingest_file(con, path)
    first, second = stored(con)
    assert (first["gpus"], first["gpus_prefill"], first["gpus_decode"], first["disaggregated"]) == (16, 8, 8, True)
    assert (first["tp"], first["ep"]) == (8, 8)
    assert first["total_tokens_per_second_per_gpu"] == 2280.0
    assert first["output_tokens_per_second_per_gpu"] == pytest.approx(480.0 / 16)   # system / all GPUs
    assert first["input_tokens_per_second_per_gpu"] == pytest.approx(36000.0 / 16)
    assert "power_per_gpu_w" not in first
    assert first["notes"] == (
        "success over the measured (profiling) window only: 720 of 720 measured requests succeeded; 887 warm-up "
        "records (14 of them errors) are not requests of that window; requests failed derived: records_total - "
        "records_warmup_dropped - num_requests_successful = 0 (the file states no failed count); success rate from "
        "it; power not stored: the file marks it invalid (power_valid 0); interactivity = intvty.p50 as stated (1 / "
        "p50 ITL); p75/p90/p95 interactivity (1 / the matching ITL percentile, the slow tail) kept in extra as "
        "intvty_p75/intvty_p90/intvty_p95; TPOT = ITL (the agentic aggregation writes tpot from the inter-token "
        "latencies); ISL/OSL = measured mean input/output tokens, rounded (the agentic trace has no fixed length); "
        "gpus derived: num_prefill_gpu + num_decode_gpu, the aggregation's per-GPU denominator")
    assert (second["gpus"], second["tp"], second["concurrency"], second["power_per_gpu_w"]) == (16, 8, 128.0, 812.4)
    assert not any(n.startswith("gpus derived") for n in second["notes"].split("; "))
