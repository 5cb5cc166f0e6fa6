"""Benchmark-tool importers: detection, hand-computed normalised values, refusals.

Every expected number below is worked out by hand from the fixture in
tests/fixtures/formats/ (see SOURCES.md there); the arithmetic is in the comment.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest

from model.core.columns import resolve_column
from model.core.schema import POINT_FIELDS
from model.data import importers
from model.data.ingest import IngestError, ingest_file
from model.data.store import connect, list_sources, load_points
from tests.checksums import table_checksums
from tests.conftest import FIXTURES
from tests.kit import cli, cli_json

FORMATS_DIR = FIXTURES / "formats"
H100_ONE = ["hardware=H100", "gpus=1"]

DETECTED = {
    "vllm_serve.json": "vllm",
    "vllm_legacy_benchmark_serving.json": "vllm",
    "vllm_reduced_seconds.json": "vllm",
    "sglang_bench_serving.jsonl": "sglang",
    "sglang_bench_serving_old.jsonl": "sglang",
    "inferencex_agg.json": "inferencex_agg",
    "inferencex_agg_bmk.json": "inferencex_agg",
    "inferencex_api.json": "inferencex_api",
    "inferencex_api_disagg.json": "inferencex_api",
    "aiperf_profile_export.json": "aiperf",
    "aiperf_profile_export_records_v0.json": "aiperf",
    "aiperf_profile_export.csv": "aiperf_csv",
    "genai_perf_profile_export.json": "genai_perf",
    "genai_perf_profile_export.csv": "genai_perf_csv",
    "trtllm_bench_report.json": "trtllm_bench",
    "llmperf_summary.json": "llmperf",
    "guidellm_benchmarks.json": "guidellm",
    "guidellm_benchmarks_v03.json": "guidellm",
    "guidellm_v05_token_totals.json": "guidellm",
    "guidellm_sweep_early_stop.json": "guidellm",
    "aiperf_agentic_trace_replay.json": "aiperf",
    "aiperf_agentic_trace_replay.csv": "aiperf_csv",
    "sglang_bench_serving_2024.jsonl": "sglang",
    "llmperf_summary_mostly_failed.json": "llmperf",
}


def approx(value):
    return pytest.approx(value, rel=1e-9)


def isnull(value) -> bool:
    return bool(pd.isna(value))


def ingest(con, fixture, sets=None):
    """Ingest one fixture; return its stored rows ordered by source_line, and the result."""
    result = ingest_file(con, FORMATS_DIR / fixture, sets)
    assert result.rows_added > 0, result.summary
    rows = load_points(con, full=True).sort_values("source_line").reset_index(drop=True)
    return rows, result


def extra(row) -> dict:
    return json.loads(row["extra"]) if isinstance(row["extra"], str) else {}


# --------------------------------------------------------------------------- detection

def test_every_fixture_has_an_expected_format():
    on_disk = {p.name for p in FORMATS_DIR.iterdir() if p.suffix in (".json", ".jsonl", ".csv")}
    assert on_disk == set(DETECTED)


@pytest.mark.parametrize("fixture,fmt", sorted(DETECTED.items()))
def test_detect(fixture, fmt):
    assert fmt in importers.FORMATS
    assert importers.detect(FORMATS_DIR / fixture, fixture) == fmt


def test_detection_is_by_content_not_name(tmp_path):
    path = tmp_path / "results.csv"  # an SGLang JSONL under a misleading name
    path.write_bytes((FORMATS_DIR / "sglang_bench_serving.jsonl").read_bytes())
    assert importers.detect(path, path.name) == "sglang"


def test_canonical_csv_is_csv(tmp_path):
    path = tmp_path / "mine.csv"
    path.write_text("hardware,gpus,conc,tok/s,tpot_ms\nH200,8,16,8000,20\n")
    assert importers.detect(path, path.name) == "csv"


def test_a_gpus_per_node_column_is_the_node_not_the_gpus_a_point_ran_on(con, tmp_path):
    """Issue 50: a plain CSV's ``gpus_per_node`` was read as ``gpus``. It is the node's size, kept in extra; only a
    file that states no GPU count takes gpus from it (one whole node), and the row's notes say so."""
    both = tmp_path / "tp8_on_4gpu_nodes.csv"
    both.write_text("model,hardware,gpus,gpus_per_node,isl,osl,conc,tput_per_gpu,intvty\n"
                    "M,H100,8,4,1000,100,8,1000,50\n")
    result = ingest_file(con, both)
    node = tmp_path / "one_node.csv"
    node.write_text("model,hardware,gpus_per_node,isl,osl,conc,tok/s,intvty\nM,H200,4,1000,100,8,4000,50\n")
    ingest_file(con, node)
    rows = load_points(con, full=True).set_index("hardware")
    assert rows.loc["H100", "gpus"] == 8 and json.loads(rows.loc["H100", "extra"]) == {"gpus_per_node": 4}
    assert not [w for w in result.warnings if "gpus_per_node" in w]
    assert rows.loc["H200", "gpus"] == 4 and rows.loc["H200", "total_tokens_per_second_per_gpu"] == 1000
    assert "gpus = gpus_per_node: the file states no GPU count" in rows.loc["H200", "notes"]
    assert resolve_column("gpus_per_node") is None


# --------------------------------------------------------------------------- vLLM

def test_vllm_serve(con):
    rows, result = ingest(con, "vllm_serve.json", ["hardware=H100", "gpus=8"])
    row = rows.iloc[0]
    assert len(rows) == 1 and result.format == "vllm" and row["source_line"] == 1
    assert row["total_tokens_per_second_per_gpu"] == approx(1916.337479 / 8)   # 1916.337479 tok/s / 8 GPUs = 239.542 tok/s/GPU
    assert row["output_tokens_per_second_per_gpu"] == approx(319.38958 / 8)    # 319.38958 / 8 = 39.924 tok/s/GPU
    assert row["input_tokens_per_second_per_gpu"] == approx(40000 / 25.04778 / 8)  # 40000 tok / 25.04778 s / 8 = 199.62
    assert row["interactivity"] == approx(1000 / 12.1277)       # 1000 / median_tpot_ms 12.1277 = 82.456 tok/s/user
    assert row["tpot_median_ms"] == approx(12.1277)
    assert row["ttft_p50_s"] == approx(0.0590848)               # median_ttft_ms 59.0848 / 1000
    assert row["ttft_p90_s"] == approx(0.0660831)               # p90_ttft_ms 66.0831 / 1000
    assert row["ttft_p99_s"] == approx(0.0718503)               # p99_ttft_ms 71.8503 / 1000
    assert isnull(row["ttft_p95_s"])                            # --metric-percentiles 50,90,99: no p95
    assert row["e2e_latency_median_s"] == approx(2.4693635)     # median_e2el_ms 2469.3635 / 1000
    assert row["concurrency"] == 4                              # max_concurrency
    assert isnull(row["request_rate_rps"])                      # "inf" -> unbounded
    assert (row["isl"], row["osl"]) == (1000, 200)              # 40000 / 40 requests, 8000 / 40
    assert (row["requests_completed"], row["requests_failed"], row["success_rate"]) == (40, 0, 1.0)
    assert str(row["run_date"])[:10] == "2025-09-12"            # "20250912-141503"
    assert row["model"] == "meta-llama/Llama-3.1-8B-Instruct"
    assert row["hardware"] == "H100" and row["gpus"] == 8       # from --set
    kept = extra(row)
    assert kept["client_backend"] == "openai" and kept["num_prompts"] == 40
    assert "latencies" not in kept and "queue_times" not in kept  # per-request arrays are not kept
    assert "unbounded" in list_sources(con).iloc[0]["notes"]


def test_vllm_legacy_request_rate_and_arrays(con):
    rows, _ = ingest(con, "vllm_legacy_benchmark_serving.json", H100_ONE)
    row = rows.iloc[0]
    assert row["request_rate_rps"] == 2.0 and isnull(row["concurrency"])  # max_concurrency null
    assert row["total_tokens_per_second_per_gpu"] == approx(558.963164)  # 558.963164 tok/s / 1 GPU
    assert row["ttft_p50_s"] == approx(0.0478906)               # 47.8906 ms / 1000
    assert row["interactivity"] == approx(1000 / 14.31)         # 1000 / 14.31 ms = 69.88 tok/s/user
    assert row["e2e_latency_median_s"] == approx(2.4315332)     # 2431.5332 ms / 1000
    assert (row["isl"], row["osl"]) == (488, 156)               # 3907 / 8 = 488.4, 1247 / 8 = 155.9, rounded
    assert row["requests_failed"] == 0                          # num_prompts 8 - completed 8
    assert "itls" not in extra(row) and "generated_texts" not in extra(row)


def test_vllm_reduced_seconds_keys_are_seconds(con):
    rows, _ = ingest(con, "vllm_reduced_seconds.json", ["hardware=H100", "gpus=8"])
    row = rows.iloc[0]
    assert row["tpot_median_ms"] == approx(12.128)              # median_tpot 0.012128 s * 1000
    assert row["interactivity"] == approx(1000 / 12.128)        # = 82.45 tok/s/user, same run as vllm_serve
    assert row["ttft_p50_s"] == approx(0.059085)                # median_ttft already in s
    assert row["e2e_latency_median_s"] == approx(2.469364)
    assert row["total_tokens_per_second_per_gpu"] == approx(1916.337479 / 8)  # = 239.54 tok/s/GPU
    assert "seconds" in list_sources(con).iloc[0]["notes"]


def test_vllm_append_result_several_objects(con, tmp_path):
    one = json.loads((FORMATS_DIR / "vllm_serve.json").read_text())
    two = dict(one, max_concurrency=8, output_throughput=600.0, total_token_throughput=2200.0)
    path = tmp_path / "appended.json"
    path.write_text(json.dumps(one) + "\n" + json.dumps(two))   # what --append-result writes
    assert importers.detect(path, path.name) == "vllm"
    ingest_file(con, path, ["hardware=H100", "gpus=8"])
    rows = load_points(con, full=True).sort_values("source_line")
    assert list(rows["source_line"]) == [1, 2] and list(rows["concurrency"]) == [4, 8]
    assert rows.iloc[1]["total_tokens_per_second_per_gpu"] == approx(2200.0 / 8)  # 2200 tok/s / 8 = 275


def test_vllm_metadata_fields_fill_in(con, tmp_path):
    obj = json.loads((FORMATS_DIR / "vllm_serve.json").read_text())
    obj.update({"hardware": "NVIDIA H200", "gpus": "4", "run_owner": "me"})  # --metadata KEY=VALUE pairs
    path = tmp_path / "meta.json"
    path.write_text(json.dumps(obj))
    ingest_file(con, path)
    row = load_points(con, full=True).iloc[0]
    assert row["hardware"] == "H200" and row["gpus"] == 4
    assert row["total_tokens_per_second_per_gpu"] == approx(1916.337479 / 4)  # 1916.34 / 4 GPUs = 479.08
    assert extra(row)["run_owner"] == "me"


# --------------------------------------------------------------------------- SGLang

def test_sglang_jsonl_with_infinity(con):
    rows, result = ingest(con, "sglang_bench_serving.jsonl", H100_ONE)
    assert len(rows) == 3 and list(rows["source_line"]) == [1, 2, 3]  # one row per JSONL line
    assert list(rows["concurrency"]) == [16, 32, 64]            # max_concurrency, not the achieved mean
    assert rows["request_rate_rps"].isna().all()                # Infinity -> unbounded
    first = rows.iloc[0]
    assert extra(first)["achieved_concurrency"] == 15.138072    # 'concurrency' = sum(e2e) / duration
    assert first["total_tokens_per_second_per_gpu"] == approx(2124.389889)  # total_throughput / 1 GPU
    assert first["input_tokens_per_second_per_gpu"] == approx(1062.194944)
    assert first["interactivity"] == approx(1000 / 14.0801)     # 1000 / 14.0801 ms = 71.02 tok/s/user
    assert first["ttft_p50_s"] == approx(0.2068705)             # 206.8705 ms / 1000
    assert first["ttft_p99_s"] == approx(0.250888)              # 250.888 ms / 1000
    assert first["e2e_latency_median_s"] == approx(14.607229)   # 14607.229 ms / 1000
    assert (first["isl"], first["osl"]) == (1024, 1024)         # random 1024/1024, range ratio 1.0
    assert first["framework"] == "sglang" and first["framework_version"] == "0.4.9.post2"
    assert first["model"] == "Qwen/Qwen2.5-7B-Instruct" and first["tp"] == 1  # from server_info
    assert rows.iloc[2]["total_tokens_per_second_per_gpu"] == approx(4876.776811)
    assert result.format == "sglang" and "unbounded" in list_sources(con).iloc[0]["notes"]


def test_sglang_old_lines_sum_total(con):
    rows, _ = ingest(con, "sglang_bench_serving_old.jsonl", ["hardware=H100", "gpus=2"])
    first, second = rows.iloc[0], rows.iloc[1]
    assert first["request_rate_rps"] == 2.0 and isnull(first["concurrency"])
    assert isnull(second["request_rate_rps"]) and second["concurrency"] == 32
    # no total_throughput in this version: 1184.90744 + 592.45372 = 1777.36116 tok/s; / 2 GPUs = 888.68058
    assert first["total_tokens_per_second_per_gpu"] == approx(1777.36116 / 2)
    assert first["output_tokens_per_second_per_gpu"] == approx(592.45372 / 2)  # = 296.22686
    assert second["interactivity"] == approx(1000 / 17.5868)    # = 56.86 tok/s/user
    assert first["model"] is None or isnull(first["model"])     # old lines do not name the model


# --------------------------------------------------------------------------- InferenceX

def test_inferencex_agg_single_node(con):
    rows, _ = ingest(con, "inferencex_agg.json")                # hardware and GPU count are in the file
    row = rows.iloc[0]
    assert row["hardware"] == "B200" and row["gpus"] == 8 and row["tp"] == 8  # gpus = tp (process_result divisor)
    assert row["total_tokens_per_second_per_gpu"] == approx(1484.19)         # as given
    assert row["total_tokens_per_second"] == approx(1484.19 * 8)             # 1484.19 * 8 GPUs = 11873.52 tok/s
    assert row["output_tokens_per_second_per_gpu"] == approx(745.30125)
    assert row["interactivity"] == approx(98.3284)              # median_intvty
    assert row["tpot_median_ms"] == approx(10.17)               # median_tpot 0.01017 s * 1000
    assert row["ttft_p50_s"] == approx(0.3719) and row["ttft_p99_s"] == approx(0.9054)  # already seconds
    assert row["e2e_latency_median_s"] == approx(10.8122)
    assert row["concurrency"] == 64 and (row["isl"], row["osl"]) == (1024, 1024)
    assert (row["framework"], row["precision"], row["spec_decoding"]) == ("sglang", "fp8", "none")
    assert row["disaggregated"] == False  # noqa: E712 (numpy bool)
    assert "std_intvty" not in extra(row)                       # 1000 / std(TPOT) is meaningless
    assert extra(row)["dp_attention"] == "false"


def test_inferencex_agg_bmk_array_and_disagg(con):
    rows, _ = ingest(con, "inferencex_agg_bmk.json")
    assert list(rows["source_line"]) == [1, 2, 3]               # array elements, numbered from 1
    v1, _single, disagg = rows.iloc[0], rows.iloc[1], rows.iloc[2]
    assert v1["hardware"] == "H200" and v1["gpus"] == 4         # legacy row: gpus = tp 4
    assert v1["total_tokens_per_second"] == approx(2280.1 * 4)  # 2280.1 tok/s/GPU * 4 = 9120.4 tok/s
    assert isnull(v1["input_tokens_per_second_per_gpu"]) and isnull(v1["isl"])  # v1 rows lack both
    assert disagg["hardware"] == "GB200" and disagg["disaggregated"] == True  # noqa: E712
    assert (disagg["gpus_prefill"], disagg["gpus_decode"], disagg["gpus"]) == (8, 8, 16)  # 8 + 8
    assert disagg["total_tokens_per_second_per_gpu"] == approx(5294.5875)
    assert disagg["total_tokens_per_second"] == approx(5294.5875 * 16)      # over all 16 GPUs = 84713.4
    assert disagg["output_tokens_per_second"] == approx(1176.575 * 8)       # over 8 decode GPUs = 9412.6
    assert disagg["input_tokens_per_second"] == approx(9412.6 * 8)          # over 8 prefill GPUs = 75300.8
    # the three denominators agree: 9412.6 + 75300.8 = 84713.4 tok/s
    assert disagg["input_tokens_per_second"] + disagg["output_tokens_per_second"] == approx(84713.4)
    assert (disagg["framework"], disagg["precision"], disagg["spec_decoding"]) == ("dynamo-trt", "fp4", "mtp")
    assert disagg["framework_version"] == "nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:0.5.1"  # '#' -> '/'
    assert disagg["interactivity"] == approx(42.0168) and disagg["tpot_median_ms"] == approx(23.8)  # 0.0238 s


def test_inferencex_api_rows(con):
    rows, _ = ingest(con, "inferencex_api.json")
    first, second, disagg = rows.iloc[0], rows.iloc[1], rows.iloc[2]
    # aggregated rows: num_prefill_gpu 8 + num_decode_gpu 8 is NOT 16 GPUs; tp 8 is the divisor
    assert first["gpus"] == 8 and isnull(first["gpus_prefill"])
    assert second["concurrency"] == 32 and second["total_tokens_per_second_per_gpu"] == approx(865.225)
    assert second["total_tokens_per_second"] == approx(865.225 * 8)          # = 6921.8 tok/s
    assert second["interactivity"] == approx(115.0748)
    assert second["ttft_p50_s"] == approx(0.1397)
    assert str(first["run_date"])[:10] == "2025-11-03"
    assert first["url"] == "https://github.com/SemiAnalysisAI/InferenceX/actions/runs/19012345678"
    assert (disagg["gpus"], disagg["gpus_decode"]) == (16, 8)   # 8 prefill + 8 decode
    assert disagg["output_tokens_per_second"] == approx(1176.575 * 8)        # = 9412.6 tok/s
    assert extra(first)["benchmark_type"] == "single_turn"


def test_inferencex_ten_thousand_rows_is_fast(con, tmp_path):
    template = json.loads((FORMATS_DIR / "inferencex_agg.json").read_text())
    rows = [dict(template, conc=1 + i % 512, tput_per_gpu=1000.0 + i) for i in range(10_000)]
    path = tmp_path / "agg_bmk.json"
    path.write_text(json.dumps(rows))
    assert ingest_file(con, path).rows_added == 10_000
    assert table_checksums(con)["points"][0] == 10_000


# --------------------------------------------------------------------------- AIPerf / GenAI-Perf

def test_aiperf_json(con):
    rows, _ = ingest(con, "aiperf_profile_export.json", H100_ONE)
    row = rows.iloc[0]
    assert row["output_tokens_per_second_per_gpu"] == approx(822.2294)
    assert row["input_tokens_per_second"] == approx(81920 / 49.8158)         # total_isl / duration = 1644.46 tok/s
    assert row["total_tokens_per_second_per_gpu"] == approx(81920 / 49.8158 + 822.2294)  # = 2466.69
    assert row["ttft_p50_s"] == approx(0.0443971)               # 44.3971 ms / 1000
    assert row["ttft_p95_s"] == approx(0.0563694)               # 56.3694 ms / 1000
    assert row["tpot_median_ms"] == approx(9.4693)              # inter_token_latency p50
    assert row["interactivity"] == approx(1000 / 9.4693)        # = 105.60 tok/s/user
    assert row["e2e_latency_median_s"] == approx(2.4608563)     # 2460.8563 ms / 1000
    assert row["concurrency"] == 8 and (row["isl"], row["osl"]) == (512, 256)
    assert (row["requests_completed"], row["requests_failed"], row["success_rate"]) == (160, 0, 1.0)
    assert row["model"] == "Qwen/Qwen3-8B" and str(row["run_date"])[:10] == "2025-10-21"


def test_aiperf_records_v0(con):
    rows, _ = ingest(con, "aiperf_profile_export_records_v0.json", H100_ONE)
    row = rows.iloc[0]
    assert row["ttft_p50_s"] == approx(0.0443971)               # tag 'ttft', 44.3971 ms / 1000
    assert row["tpot_median_ms"] == approx(9.4693)
    assert row["output_tokens_per_second_per_gpu"] == approx(822.229352)
    assert isnull(row["total_tokens_per_second"])               # no ISL, no total in this file
    assert row["requests_completed"] == 160 and row["concurrency"] == 8


def test_aiperf_csv(con):
    rows, _ = ingest(con, "aiperf_profile_export.csv", ["hardware=H100", "gpus=2"])
    row = rows.iloc[0]
    assert row["total_tokens_per_second_per_gpu"] == approx(2466.69 / 2)     # 2466.69 tok/s / 2 GPUs = 1233.345
    assert row["output_tokens_per_second_per_gpu"] == approx(822.23 / 2)     # = 411.115
    assert row["ttft_p50_s"] == approx(0.0444)                  # "Time to First Token (ms)" p50 44.40 / 1000
    assert row["ttft_p99_s"] == approx(0.05865)                 # 58.65 / 1000
    assert row["interactivity"] == approx(1000 / 9.47)          # ITL p50 9.47 ms -> 105.60 tok/s/user
    assert row["e2e_latency_median_s"] == approx(2.46086)       # 2460.86 ms / 1000
    assert row["requests_completed"] == 160 and (row["isl"], row["osl"]) == (512, 256)


def test_genai_perf_json_ignores_unit_bug(con):
    rows, _ = ingest(con, "genai_perf_profile_export.json", H100_ONE)
    row = rows.iloc[0]
    assert row["output_tokens_per_second"] == approx(1047.209158)  # labelled "requests/sec", really tok/s
    assert row["input_tokens_per_second"] == approx(550.4125 * 3.486194)  # mean ISL * req/s = 1918.84 tok/s
    assert row["total_tokens_per_second_per_gpu"] == approx(550.4125 * 3.486194 + 1047.209158)  # = 2966.05
    assert row["ttft_p50_s"] == approx(0.179518913)             # 179.518913 ms / 1000
    assert row["interactivity"] == approx(1000 / 14.18273)      # ITL p50 14.18273 ms -> 70.51 tok/s/user
    assert row["e2e_latency_median_s"] == approx(4.463453627)
    assert row["concurrency"] == 16 and (row["isl"], row["osl"]) == (550, 300)  # synthetic means from input_config
    assert isnull(row["framework"])                             # service_kind openai: 'backend' is a default


def test_genai_perf_csv_thousands_and_na(con):
    rows, _ = ingest(con, "genai_perf_profile_export.csv", H100_ONE)
    row = rows.iloc[0]
    assert row["output_tokens_per_second"] == approx(1047.21)   # "1,047.21"
    assert row["e2e_latency_median_s"] == approx(4.46345)       # "4,463.45" ms / 1000
    assert row["ttft_p50_s"] == approx(0.17952)                 # 179.52 ms / 1000
    assert row["interactivity"] == approx(1000 / 14.18)         # = 70.52 tok/s/user
    assert row["input_tokens_per_second"] == approx(550.41 * 3.49)  # mean ISL * req/s (2 decimals) = 1920.93
    assert row["requests_completed"] == 160 and (row["isl"], row["osl"]) == (550, 300)  # 550.41, 300.39 rounded


# --------------------------------------------------------------------------- trtllm-bench, LLMPerf, GuideLLM

def test_trtllm_bench(con):
    rows, _ = ingest(con, "trtllm_bench_report.json")           # machine.name and world_size are in the file
    row = rows.iloc[0]
    assert row["hardware"] == "H100" and row["gpus"] == 2       # "NVIDIA H100 80GB HBM3", world_size 2
    assert row["total_tokens_per_second_per_gpu"] == approx(6668.6512 / 2)  # = 3334.3256 tok/s/GPU
    assert row["output_tokens_per_second_per_gpu"] == approx(1667.1628)    # 3334.3256 / 2, = the file's per-GPU value
    assert row["tpot_median_ms"] == approx(17.7016)             # tpot_percentiles.p50 [ms]
    assert row["interactivity"] == approx(1000 / 17.7016)       # = 56.49 tok/s/user
    assert row["ttft_p50_s"] == approx(0.1676055)               # 167.6055 ms / 1000
    assert row["ttft_p99_s"] == approx(0.3842273)
    assert row["e2e_latency_median_s"] == approx(2.4267962)     # request_latency_percentiles_ms.p50 / 1000
    assert (row["framework"], row["precision"], row["tp"]) == ("trt", "bf16", 2)  # dtype bfloat16, no quantization
    assert (row["isl"], row["osl"], row["requests_completed"]) == (128, 128, 1000)
    assert isnull(row["concurrency"]) and extra(row)["achieved_concurrency"] == 63.2


def test_llmperf(con):
    rows, _ = ingest(con, "llmperf_summary.json", H100_ONE)
    row = rows.iloc[0]
    assert row["output_tokens_per_second_per_gpu"] == approx(659.886645)
    # input: 551.683333 mean tokens * 263.530082 req/min / 60 = 2423.086 tok/s
    assert row["input_tokens_per_second"] == approx(551.683333 * 263.530082 / 60)
    assert row["total_tokens_per_second"] == approx(551.683333 * 263.530082 / 60 + 659.886645)  # = 3082.97
    assert row["tpot_median_ms"] == approx(11.218)              # ITL p50 0.011218 s * 1000
    assert row["interactivity"] == approx(1000 / 11.218)        # = 89.14 tok/s/user
    assert row["ttft_p50_s"] == approx(0.081751) and row["ttft_p95_s"] == approx(0.151555)  # seconds already
    assert row["e2e_latency_median_s"] == approx(1.767284)
    assert row["concurrency"] == 8 and (row["isl"], row["osl"]) == (550, 150)
    assert (row["requests_completed"], row["requests_failed"], row["success_rate"]) == (120, 0, 1.0)
    assert str(row["run_date"])[:10] == "2024-06-10"            # unix 1718032145 = 2024-06-10 15:09 UTC


def test_guidellm_v04(con):
    rows, _ = ingest(con, "guidellm_benchmarks.json", H100_ONE)
    row = rows.iloc[0]
    assert row["total_tokens_per_second_per_gpu"] == approx(1989.999)  # tokens_per_second = prompt + output
    assert row["output_tokens_per_second_per_gpu"] == approx(665.95)
    assert row["tpot_median_ms"] == approx(11.799)              # inter_token_latency_ms median
    assert row["interactivity"] == approx(1000 / 11.799)        # = 84.75 tok/s/user
    assert row["ttft_p50_s"] == approx(0.045883) and row["ttft_p90_s"] == approx(0.068514)  # ms / 1000
    assert row["e2e_latency_median_s"] == approx(3.055)         # request_latency is already seconds
    assert row["concurrency"] == 8 and (row["isl"], row["osl"]) == (512, 256)  # streams 8; prompt_tokens=512,...
    assert (row["requests_completed"], row["success_rate"]) == (240, 1.0)
    assert str(row["run_date"])[:10] == "2025-10-21"            # unix 1761040000 = 2025-10-21 09:46 UTC


def test_guidellm_v03(con):
    rows, _ = ingest(con, "guidellm_benchmarks_v03.json", H100_ONE)
    row = rows.iloc[0]
    assert row["output_tokens_per_second_per_gpu"] == approx(665.95)
    assert isnull(row["total_tokens_per_second"])               # v0.3 fixture has no tokens_per_second
    assert isnull(row["interactivity"])                         # nor ITL/TPOT
    assert row["ttft_p50_s"] == approx(0.045883)                # no p50 percentile: median 45.883 ms / 1000
    assert row["concurrency"] == 8 and row["model"] == "Qwen/Qwen2.5-7B-Instruct"


# --------------------------------------------------------------------------- refusals

def test_unknown_json_lists_formats_tried(con, tmp_path):
    path = tmp_path / "weird.json"
    path.write_text('{"speed": 12, "colour": "red"}')
    with pytest.raises(IngestError) as err:
        ingest_file(con, path)
    text = str(err.value)
    assert "weird.json" in text and "tried formats" in text
    assert all(fmt in text for fmt in ("vllm", "sglang", "inferencex_agg", "aiperf", "guidellm", "llmperf"))


def test_unknown_csv_lists_formats_tried(con, tmp_path):
    path = tmp_path / "weird.csv"
    path.write_text("colour,flavour\nred,sweet\n")
    with pytest.raises(IngestError) as err:
        ingest_file(con, path)
    assert "tried formats" in str(err.value) and "aiperf_csv" in str(err.value) and "genai_perf_csv" in str(err.value)


def test_array_of_wrong_objects_is_refused(con, tmp_path):
    path = tmp_path / "list.json"
    path.write_text('[{"a": 1}, {"b": 2}]')
    with pytest.raises(IngestError, match="tried formats"):
        ingest_file(con, path)
    mixed = tmp_path / "mixed.json"
    mixed.write_text(json.dumps([json.loads((FORMATS_DIR / "inferencex_agg.json").read_text()), 7]))
    with pytest.raises(IngestError) as err:
        ingest_file(con, mixed)
    assert err.value.line == 2                                  # the second element is not an agg row


def test_truncated_json_names_the_line(con, tmp_path):
    text = (FORMATS_DIR / "trtllm_bench_report.json").read_text()
    path = tmp_path / "cut.json"
    path.write_text(text[: len(text) // 2])
    with pytest.raises(IngestError) as err:
        ingest_file(con, path)
    assert err.value.line is not None and err.value.line > 1 and "line" in str(err.value)
    lines = (FORMATS_DIR / "sglang_bench_serving.jsonl").read_text().splitlines()
    cut = tmp_path / "cut.jsonl"
    cut.write_text("\n".join(lines[:2] + [lines[2][:200]]))    # the last run was interrupted
    with pytest.raises(IngestError) as err:
        ingest_file(con, cut, H100_ONE)
    assert err.value.line == 3


def test_invalid_unknown_json_names_the_line(con, tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{\n  "a": 1,\n  "b": \n')
    with pytest.raises(IngestError) as err:
        ingest_file(con, path)
    assert err.value.line == 4 and "invalid JSON" in str(err.value)


def test_deep_nesting_is_refused(con, tmp_path):
    path = tmp_path / "deep.json"
    path.write_text("[" * 200_000 + "]" * 200_000)
    with pytest.raises(IngestError):
        ingest_file(con, path)
    obj = json.loads((FORMATS_DIR / "vllm_serve.json").read_text())
    nested = tmp_path / "nested.json"
    nested.write_text(json.dumps(obj)[:-1] + ', "x": ' + "[" * 200_000 + "]" * 200_000 + "}")
    assert importers.detect(nested, nested.name) == "vllm"
    with pytest.raises(IngestError, match="nested too deeply"):
        ingest_file(con, nested, H100_ONE)


def test_forced_wrong_format_is_refused(con):
    with pytest.raises(IngestError, match="trtllm-bench"):
        ingest_file(con, FORMATS_DIR / "vllm_serve.json", H100_ONE, fmt="trtllm_bench")
    with pytest.raises(IngestError, match="unknown format"):
        importers.parse(FORMATS_DIR / "vllm_serve.json", "vllm_serve.json", "nope")


def test_missing_gpus_refused_and_nothing_stored(con):
    before = table_checksums(con)
    with pytest.raises(IngestError) as err:
        ingest_file(con, FORMATS_DIR / "sglang_bench_serving.jsonl", ["hardware=H100"])
    assert err.value.field == "gpus" and "--set gpus=N" in str(err.value)
    assert table_checksums(con) == before


def test_missing_hardware_refused(con):
    before = table_checksums(con)
    with pytest.raises(IngestError) as err:
        ingest_file(con, FORMATS_DIR / "llmperf_summary.json", ["gpus=1"])
    assert err.value.field == "hardware"
    assert table_checksums(con) == before


def test_extra_columns_never_shadow_fields():
    for fixture, fmt in DETECTED.items():
        frame, _, _ = importers.parse(FORMATS_DIR / fixture, fixture, fmt)
        for col in frame.columns:
            assert col in POINT_FIELDS or resolve_column(col) is None, (fixture, col)


# --------------------------------------------------------------------------- the whole directory

def test_cli_ingests_the_whole_directory(db_path):
    code, out, _ = cli(db_path, "ingest", FORMATS_DIR, "--set", "hardware=H100", "--set", "gpus=8")
    assert code == 0
    # issue 29: each AIPerf CSV export is the same run as the JSON export beside it, stored once (from the JSON)
    same = ["aiperf_agentic_trace_replay.csv: the same run as aiperf_agentic_trace_replay.json (AIPerf writes both; "
            "the CSV has no run id), not stored again",
            "aiperf_profile_export.csv: the same run as aiperf_profile_export.json (AIPerf writes both; the CSV has "
            "no run id), not stored again"]
    assert [line for line in out.splitlines() if "the same run as" in line] == same
    assert out.count(" added as ") == len(DETECTED) - 2
    con = connect(db_path)
    try:
        sources = list_sources(con)
        assert len(sources) == len(DETECTED) - 2
        # files' own hardware wins over --set: InferenceX B200/H200/GB200, trtllm-bench H100
        assert {"B200", "GB200", "H200", "H100"} == set(load_points(con, full=True)["hardware"])
    finally:
        con.close()


# --------------------------------------------------------------------------- issue 10: values files state

@pytest.mark.parametrize("fixture,sets", [
    ("aiperf_agentic_trace_replay.json", ["hardware=B200", "gpus=8"]),
    ("aiperf_agentic_trace_replay.csv", ["hardware=B200", "gpus=8", "concurrency=16"]),
])
def test_aiperf_input_throughput_and_prefix_cache_hit_are_stored(con, fixture, sets):
    rows, _ = ingest(con, fixture, sets)
    row = rows.iloc[0]
    # stated: input_token_throughput 40,000 = total_isl 20,000,000 / 500 s; total 40,400; output 400
    assert row["input_tokens_per_second"] == approx(40000.0)
    assert row["input_tokens_per_second_per_gpu"] == approx(5000.0)       # / 8 GPUs
    assert row["total_tokens_per_second"] == approx(40400.0)
    assert row["output_tokens_per_second"] == approx(400.0)
    # stated: theoretical_prefix_cache_hit 92.5 % -> 0.925
    assert row["prefix_cache_hit_rate"] == approx(0.925)
    assert row["interactivity"] == approx(1000 / 25.0)                   # ITL p50 25 ms
    notes = list_sources(con).iloc[0]["notes"]
    assert "theoretical_prefix_cache_hit" in notes and "input tok/s =" not in notes  # nothing derived


def test_aiperf_input_and_blended_bases_find_the_agentic_rows(db_path):
    con = connect(db_path)
    ingest(con, "aiperf_agentic_trace_replay.json", ["hardware=B200", "gpus=8"])
    con.close()
    for basis in ("input", "blended"):
        argv = ["frontier", "--basis", basis]
        if basis == "blended":
            argv += ["--w-input", "0.25", "--w-cached", "0.1"]
        out = cli_json(db_path, *argv)
        assert len(out["rows"]) == 1, (basis, out["notes"])


def test_guidellm_rates_are_the_stated_ones_and_input_comes_from_token_totals(con):
    rows, _ = ingest(con, "guidellm_v05_token_totals.json", ["hardware=ArcProB60", "gpus=1"])
    row = rows.iloc[0]
    # stated: the means of the successful output_tokens_per_second and tokens_per_second
    assert row["output_tokens_per_second"] == approx(121.3)
    assert row["total_tokens_per_second"] == approx(181.6)
    # derived (not stated): 8,192 prompt tokens over the 128.0 s requests ran
    assert row["input_tokens_per_second"] == approx(64.0)   # not the 1,411,168 prompt_tokens_per_second mean
    assert row["interactivity"] == approx(1000 / 31.25) and row["concurrency"] == 4
    assert extra(row)["prompt_tokens_per_second_mean"] == 1411168.0   # kept for reference, not as a rate
    notes = list_sources(con).iloc[0]["notes"]
    assert "input tok/s derived" in notes and "output and total tok/s as stated" in notes


def test_guidellm_without_totals_leaves_input_empty(con):
    rows, _ = ingest(con, "guidellm_benchmarks.json", H100_ONE)
    assert isnull(rows.iloc[0]["input_tokens_per_second"])
    assert "input tok/s left empty" in list_sources(con).iloc[0]["notes"]


def test_guidellm_spike_as_input_is_refused_with_line_and_field(con, tmp_path):
    report = json.loads((FORMATS_DIR / "guidellm_v05_token_totals.json").read_text())
    metrics = report["benchmarks"][0]["metrics"]
    del metrics["prompt_token_count"], metrics["output_token_count"]
    # a tool version that reported the per-request prompt rate as its input throughput
    report["benchmarks"][0]["metrics"]["tokens_per_second"]["successful"]["mean"] = 181.6
    path = tmp_path / "spike.json"
    path.write_text(json.dumps(report))
    frame = importers.parse(path, path.name, "guidellm")[0]
    frame["input_tokens_per_second"] = 1411168.0
    from model.data.ingest import ingest_frame
    before = table_checksums(con)
    with pytest.raises(IngestError) as err:
        ingest_frame(con, frame, "spike.json", "guidellm", "sha-spike", {"hardware": "B200", "gpus": 1})
    assert (err.value.file, err.value.line, err.value.field) == ("spike.json", 1, "input_tokens_per_second")
    assert "input tok/s exceeds total tok/s" in str(err.value) and "1411168" in str(err.value)
    assert table_checksums(con) == before


def test_sglang_2024_lines_use_median_itl_as_tpot(con):
    rows, _ = ingest(con, "sglang_bench_serving_2024.jsonl", ["hardware=H200", "gpus=8"])
    assert rows["request_rate_rps"].tolist() == [1.0, 2.0, 4.0]
    # TPOT = median_itl_ms: 20, 25, 40 ms -> interactivity 50, 40, 25 tok/s/user
    assert rows["tpot_median_ms"].tolist() == [20.0, 25.0, 40.0]
    assert rows["interactivity"].tolist() == [approx(50.0), approx(40.0), approx(25.0)]
    # input tok/s = total_input_tokens 102,400 / duration 100, 50, 25.6 s
    assert rows["input_tokens_per_second"].tolist() == [approx(1024.0), approx(2048.0), approx(4000.0)]
    assert rows["total_tokens_per_second"].tolist() == [approx(1536.0), approx(3072.0), approx(6000.0)]
    notes = list_sources(con).iloc[0]["notes"]
    assert "TPOT = median_itl_ms" in notes and "total_input_tokens / duration" in notes


def test_jsonl_broken_line_is_named(con, tmp_path):
    lines = (FORMATS_DIR / "sglang_bench_serving_2024.jsonl").read_text().splitlines()
    lines[2] = lines[2][: len(lines[2]) // 2]          # line 3 cut in half
    path = tmp_path / "broken.jsonl"
    path.write_text("\n".join(lines + [lines[0]]) + "\n")
    with pytest.raises(IngestError) as err:
        ingest_file(con, path, ["hardware=H200", "gpus=8"])
    assert err.value.line == 3 and "broken.jsonl, line 3" in str(err.value)


def test_pretty_printed_json_error_keeps_its_own_line(con, tmp_path):
    path = tmp_path / "pretty.json"
    path.write_text('{\n  "model_id": "x",\n  "completed": 3,\n  "duration": oops\n}\n')
    with pytest.raises(IngestError) as err:
        ingest_file(con, path)
    assert err.value.line == 4


def test_llmperf_low_success_rate_warns_and_the_sla_sees_it(con):
    rows, result = ingest(con, "llmperf_summary_mostly_failed.json", ["hardware=H100", "gpus=1"])
    assert rows.iloc[0]["success_rate"] == approx(0.13)            # 1 - results_error_rate 0.87
    assert any("success rate below 95%" in w and "13.0%" in w and "line 1" in w for w in result.warnings)
    from model.core.analysis import prepare
    kept, _ = prepare(load_points(con), "success=0.95", "output")
    assert kept.empty
    kept, _ = prepare(load_points(con), "success=0.1", "output")
    assert len(kept) == 1


def test_llmperf_success_rate_from_counts_when_error_rate_missing(con, tmp_path):
    summary = json.loads((FORMATS_DIR / "llmperf_summary_mostly_failed.json").read_text())
    del summary["results_error_rate"]
    path = tmp_path / "old_summary.json"
    path.write_text(json.dumps(summary))
    result = ingest_file(con, path, ["hardware=H100", "gpus=1"])
    row = load_points(con).iloc[0]
    assert row["success_rate"] == approx(13 / 100)                  # 13 completed, 87 errors
    assert any("success rate below 95%" in w for w in result.warnings)


def test_success_rate_from_request_counts_in_a_csv(con, tmp_path):
    path = tmp_path / "counts.csv"
    path.write_text("hardware,gpus,tok_s_user,output_tok/s,completed,failed\nH100,1,40,500,90,10\n")
    ingest_file(con, path)
    assert load_points(con).iloc[0]["success_rate"] == approx(0.9)


def test_unknown_hardware_keeps_its_spelling_and_filters_ignore_case(con, tmp_path):
    path = tmp_path / "arc.csv"
    path.write_text("hardware,gpus,tok_s_user,output_tok/s\nArcProB60,1,30,150\nArcProB60,1,20,250\n")
    ingest_file(con, path)
    assert set(load_points(con)["hardware"]) == {"ArcProB60"}
    for spelling in ("ArcProB60", "arcprob60", "ARCPROB60"):
        assert len(load_points(con, {"hardware": [spelling]})) == 2


# --------------------------------------------------------------------------- issue 10: the structure

def test_importers_never_import_the_pipeline():
    """One way: model.data.ingest imports model.data.importers, never the reverse (errors live in importers.base)."""
    import ast

    package = FORMATS_DIR.parent.parent.parent / "model" / "importers"
    for path in sorted(package.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module]
        names += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
        assert not [n for n in names if n == "model.data.ingest" or n.startswith("model.data.ingest.")], path.name
        assert "streamlit" not in names


def test_one_registry_names_every_format():
    names = [f.name for f in importers.REGISTRY]
    assert len(names) == len(set(names)) and names[-1] == "csv"
    assert set(names) == set(importers.FORMATS)
    assert set(DETECTED.values()) <= set(names)


def test_a_canonical_csv_header_is_read_once(con, tmp_path, monkeypatch):
    from model.data.importers import canonical_csv

    calls = []
    real = canonical_csv.read_header
    monkeypatch.setattr(canonical_csv, "read_header", lambda *a: calls.append(a) or real(*a))
    path = tmp_path / "points.csv"
    path.write_text("hardware,gpus,tok_s_user,tput_per_gpu\nB200,8,40,1000\n")
    assert ingest_file(con, path).rows_added == 1
    assert len(calls) == 1
