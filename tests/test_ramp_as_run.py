"""Issue 41, the importer's edges: a load ramp read as it ran (the achieved rate, saturated stages said), the
stages of one run as one workload, and one model under one name however it was given.

Fixtures (tests/fixtures/formats/SOURCES.md): ``inference_perf_saturated/`` is a synthetic seven-stage
inference-perf rate sweep in the writer's stage-report format whose last four stages ask for 90-236 req/s and
send about 79 (``achieved_rate`` = count / ``send_duration``, as ``reportgen/base.py`` computes it);
``inference_perf_vllm_stage6/`` is a real stage (kubernetes-sigs/inference-perf's KubeCon vLLM demo) that asked
for 112.55 req/s and sent 95.82: an oracle typed from the public file.
"""

from __future__ import annotations

import json
import shutil

import pandas as pd
import pytest

from model.data.ingest import ingest_file
from model.data.preview import dry_run
from model.data.store import connect, load_points, workloads
from tests.conftest import FIXTURES
from tests.kit import cli, cli_json

TODAY = FIXTURES / "formats_today"
SWEEP = TODAY / "inference_perf_saturated"
SWEEP_SET = ["--set", "hardware=H100", "--set", "gpus=1", "--set", "model=Qwen3-32B-FP8"]

#: stage: (requested [req/s], requests sent, send_duration [s], median E2E [s]), as the fixture states them
STAGES = [(10.0, 600, 59.91, 0.918), (30.0, 1800, 59.96, 0.951), (60.0, 3600, 60.02, 1.024),
          (90.0, 4752, 60.0, 1.312), (120.0, 4746, 60.0, 1.327), (180.0, 4740, 60.0, 1.338),
          (236.0, 4722, 60.0, 1.356)]


def achieved(stage: int) -> float:
    """The stage's achieved rate as inference-perf computes it: requests sent / send_duration [req/s]."""
    _, sent, duration, _ = STAGES[stage]
    return sent / duration


def stages(db_path) -> list[dict]:
    """The stored sweep, one dict per stage (by the stage number kept in extra), its extra parsed."""
    con = connect(db_path)
    try:
        frame = load_points(con, full=True)
    finally:
        con.close()
    rows = [dict(row, extra=json.loads(row["extra"])) for row in frame.to_dict("records")]
    return sorted(rows, key=lambda r: r["extra"]["stage"])


@pytest.fixture
def sweep_db(db_path):
    assert cli(db_path, "ingest", SWEEP, *SWEEP_SET).code == 0
    return db_path


# --------------------------------------------------------------------------- 1. the rate it ran at

def test_a_saturated_sweep_is_stored_at_the_rates_it_achieved(sweep_db):
    rows = stages(sweep_db)
    assert len(rows) == 7
    for n, row in enumerate(rows):
        requested = STAGES[n][0]
        assert row["request_rate_rps"] == pytest.approx(achieved(n), rel=1e-12), n
        assert row["extra"]["requested_rate_rps"] == requested
        assert row["extra"]["saturated"] is (achieved(n) < 0.95 * requested)
    # the last four ask for 90, 120, 180 and 236 req/s and send 79.2, 79.1, 79.0 and 78.7: none is stored above 80
    assert [round(r["request_rate_rps"], 2) for r in rows] == [10.02, 30.02, 59.98, 79.2, 79.1, 79.0, 78.7]
    assert [r["extra"]["saturated"] for r in rows] == [False, False, False, True, True, True, True]
    assert max(r["request_rate_rps"] for r in rows) < 80 < 236


def test_the_saturated_stages_say_so_in_their_notes(sweep_db):
    rows = stages(sweep_db)
    for row in rows[:3]:
        assert "saturated" not in row["notes"]
        assert row["notes"].startswith(f"inference-perf stage {row['extra']['stage']}: rate = the achieved rate "
                                       "(the requested rate kept in extra as requested_rate_rps)")
    said = {3: "achieved 79.2 req/s of the 90 requested (88%", 4: "achieved 79.1 req/s of the 120 requested (66%",
            5: "achieved 79 req/s of the 180 requested (44%", 6: "achieved 78.7 req/s of the 236 requested (33%"}
    for n, text in said.items():
        assert (f"inference-perf stage {n} saturated: {text}, under 95%): the point stands at the achieved rate, "
                "never at the requested one") in rows[n]["notes"]


def capacity(db_path, *argv) -> dict:
    return cli_json(db_path, "capacity", *argv)


def test_capacity_never_reports_a_rate_above_the_one_achieved(sweep_db):
    highest = max(achieved(n) for n in range(7))               # 79.2 (stage 3)
    # every stage meets E2E <= 2 s: the knee is the highest rate measured, stage 3's achieved 79.2, not 236
    [knee] = capacity(sweep_db, "--sla", "e2e=2")["rows"]
    assert knee["request_rate"] == pytest.approx(achieved(3)) == pytest.approx(79.2)
    assert knee["max_rate_measured"] == pytest.approx(highest)
    # E2E <= 1.35 s: stage 6 (1.356 s, achieved 78.7) breaks it first on the way up, so the knee is stage 2's 59.98
    [knee] = capacity(sweep_db, "--sla", "e2e=1.35")["rows"]
    assert knee["request_rate"] == pytest.approx(achieved(2))
    assert knee["first_failing_rate"] == pytest.approx(achieved(6))
    assert knee["highest_passing_rate"] == pytest.approx(achieved(3))
    # the highest passing rate anywhere is still an achieved one
    [knee] = capacity(sweep_db, "--sla", "e2e=1.35", "--rule", "highest_pass")["rows"]
    assert knee["request_rate"] == pytest.approx(achieved(3)) and knee["request_rate"] <= highest


# --------------------------------------------------------------------------- 2. one run, one workload

#: the stages' own mean output lengths round to 62 or 63; the run's (count-weighted over its 24,960 requests) is
#: 62.5193 -> 63, and its prompt length 128.1347 -> 128
OWN_OSL = [62.41, 62.58, 62.37, 62.66, 62.52, 62.71, 62.29]
RUN_NOTE = ("ISL/OSL = {whence}, rounded, so every stage of the run is one workload; the stage's own means kept in "
            "extra (prompt_len_mean, output_len_mean)")


def test_every_stage_of_one_sweep_is_one_workload(sweep_db):
    rows = stages(sweep_db)
    assert sorted({round(osl) for osl in OWN_OSL}) == [62, 63]        # what rounding each stage alone gave
    assert {(r["isl"], r["osl"]) for r in rows} == {(128, 63)}
    assert [r["extra"]["output_len_mean"] for r in rows] == OWN_OSL
    whence = "the run's mean prompt/output length (summary_lifecycle_metrics.json beside it: every stage's successful " \
        "requests)"
    assert all(r["notes"].endswith(RUN_NOTE.format(whence=whence)) for r in rows)
    con = connect(sweep_db)
    try:
        assert workloads(con) == [("Qwen3-32B-FP8", "128", "63", 0, 7)]
    finally:
        con.close()
    # capacity and size see one workload: one series of seven rates, no "the selection holds 2 workloads"
    payload = capacity(sweep_db, "--sla", "e2e=2")
    [knee] = payload["rows"]
    assert knee["rates_measured"] == 7 and not any("workloads" in note for note in payload["notes"])
    code, out, _ = cli(sweep_db, "size", "--json", "--demand-rps", "100", "--sla", "e2e=2")
    assert code == 0
    assert "workloads" not in out


def test_without_the_summary_the_stages_beside_it_give_the_run_s_lengths(db_path, tmp_path):
    folder = tmp_path / "run"
    folder.mkdir()
    for n in range(7):
        shutil.copy(SWEEP / f"stage_{n}_lifecycle_metrics.json", folder)
    assert cli(db_path, "ingest", folder, *SWEEP_SET).code == 0
    rows = stages(db_path)
    assert {(r["isl"], r["osl"]) for r in rows} == {(128, 63)}     # the same count-weighted means as the summary
    whence = ("the run's mean prompt/output length over the 7 stage files beside it (weighted by their successful "
              "requests)")
    assert all(r["notes"].endswith(RUN_NOTE.format(whence=whence)) for r in rows)


def test_a_stage_alone_keeps_its_own_lengths_and_says_how_to_share_them(con, tmp_path):
    alone = tmp_path / "stage_6_lifecycle_metrics.json"
    shutil.copy(SWEEP / alone.name, alone)
    ingest_file(con, alone, ["hardware=H100", "gpus=1"])
    [row] = load_points(con, full=True).to_dict("records")
    assert (row["isl"], row["osl"]) == (128, 62)                    # 128.41 / 62.29, its own
    assert row["notes"].endswith("ISL/OSL = mean prompt/output length of the stage's successful requests, rounded "
                                 "(no summary or other stage beside it: ingest the run's folder so its stages share "
                                 "one workload, or give the ISL and OSL the run asked for)")


def test_stages_uploaded_one_by_one_are_one_workload_named_by_what_the_run_asked_for(con, tmp_path):
    """Issue 50: a sweep's stages uploaded one by one (the Data page copies each upload alone: no summary or stage
    beside it) were stored as 62 and 63 output tokens, two workloads. The lengths the run asked for, given in the
    upload form or with --set (its config.yaml's, which no report file repeats), replace the lengths derived from
    the measured means in every stage: one workload, 128/64; each stage's measured means stay in extra."""
    for n in (0, 1, 6):                                     # own output means 62.41, 62.58, 62.29: 62, 63, 62
        alone = tmp_path / f"upload{n}" / f"stage_{n}_lifecycle_metrics.json"
        alone.parent.mkdir()
        shutil.copy(SWEEP / alone.name, alone)
        ingest_file(con, alone, ["hardware=H100", "gpus=1", "model=Qwen3-32B-FP8", "isl=128", "osl=64"])
    rows = load_points(con, full=True).sort_values("source_line").to_dict("records")
    assert {(r["isl"], r["osl"]) for r in rows} == {(128, 64)} and workloads(con) == [("Qwen3-32B-FP8", "128", "64",
                                                                                        0, 3)]
    assert sorted(json.loads(r["extra"])["output_len_mean"] for r in rows) == [62.29, 62.41, 62.58]
    assert all(r["notes"].endswith("osl = 64 as given, in place of the value derived from the file (which states no "
                                   "osl of its own)") for r in rows)
    # a value a file states still wins over --set: a plain CSV's osl is not replaced
    csv = tmp_path / "stated.csv"
    csv.write_text("model,hardware,gpus,isl,osl,conc,tok/s,intvty\nM,H200,8,1000,100,8,4000,50\n")
    ingest_file(con, csv, ["osl=64"])
    assert load_points(con).set_index("hardware").loc["H200", "osl"] == 100


def test_appended_vllm_runs_that_measure_one_workload_share_it(con, tmp_path):
    run = json.loads((TODAY / "vllm_no_failed.json").read_text())      # 197 completed, 1,024 in / 1,000 out each
    near = dict(run, total_output_tokens=197 * 1012)                    # 1,012 out: 1.2 % from 1,000
    other = dict(run, total_input_tokens=197 * 2048, total_token_throughput=6096.0)   # 2,048 in: another workload
    path = tmp_path / "appended.json"
    path.write_text("\n".join(json.dumps(r) for r in (run, near, other)) + "\n")
    ingest_file(con, path, ["hardware=H100", "gpus=1"])
    rows = load_points(con, full=True).sort_values("source_line").to_dict("records")
    # (1,000 x 197 + 1,012 x 197) / 394 = 1,006; the 2,048-token run keeps its own lengths
    assert [(r["isl"], r["osl"]) for r in rows] == [(1024, 1006), (1024, 1006), (2048, 1000)]
    assert [json.loads(r["extra"]).get("mean_output_tokens") for r in rows] == [1000.0, 1012.0, None]
    said = ("ISL/OSL = the mean over the 2 runs of this file whose measured mean lengths agree within 2% (weighted "
            "by completed requests), rounded, so they are one workload")
    assert [said in (r["notes"] or "") for r in rows] == [True, True, False]


def test_a_real_saturated_stage_is_stored_at_its_achieved_rate(con):
    # oracle: the real KubeCon vLLM demo's stage 6 states requested_rate 112.55 and achieved_rate 95.8235 req/s
    ingest_file(con, TODAY / "inference_perf_vllm_stage6" / "stage_6_lifecycle_metrics.json",
                ["hardware=A100", "gpus=1"])
    [row] = load_points(con, full=True).to_dict("records")
    assert row["request_rate_rps"] == 95.82350903624898
    extra = json.loads(row["extra"])
    assert extra["requested_rate_rps"] == 112.55 and extra["saturated"] is True     # 95.82 / 112.55 = 85 %
    assert ("inference-perf stage 6 saturated: achieved 95.82 req/s of the 112.55 requested (85%, under 95%)"
            in row["notes"])


# --------------------------------------------------------------------------- 3. one model, one name

MODEL_DIR = "/srv/models/Qwen3-32B-FP8"
PATH_NOTE = ("model given as a path: stored as its last component 'Qwen3-32B-FP8'; the path kept in extra as "
             "model_dir")


def test_the_json_and_csv_exports_of_one_aiperf_run_are_one_workload(db_path, tmp_path):
    # AIPerf writes the model as it was served (a path here) in the JSON; its CSV names none, so --set gives it
    report = json.loads((TODAY / "aiperf_artifacts" / "profile_export_aiperf.json").read_text())
    report["input_config"]["endpoint"]["model_names"] = [MODEL_DIR]
    for kind in ("json", "csv"):                 # each alone (in one folder the CSV is known as the same run)
        (tmp_path / kind).mkdir()
    (tmp_path / "json" / "profile_export_aiperf.json").write_text(json.dumps(report))
    shutil.copy(TODAY / "aiperf_artifacts" / "profile_export_aiperf.csv", tmp_path / "csv")
    for kind in ("json", "csv"):
        assert cli(db_path, "ingest", tmp_path / kind / f"profile_export_aiperf.{kind}",
                   "--set", "hardware=H100", "--set", "gpus=1", "--set", f"model={MODEL_DIR}").code == 0
    con = connect(db_path)
    try:
        rows = load_points(con, full=True).sort_values("source_id").to_dict("records")
        assert workloads(con) == [("Qwen3-32B-FP8", "5", "833", 2, 2)]      # ISL 5.00, OSL 833.40 in both files
        given = [json.loads(s) for (s,) in con.execute("SELECT set_fields FROM sources ORDER BY source_id").fetchall()]
    finally:
        con.close()
    assert [r["model"] for r in rows] == ["Qwen3-32B-FP8", "Qwen3-32B-FP8"]
    assert [json.loads(r["extra"])["model_dir"] for r in rows] == [MODEL_DIR, MODEL_DIR]
    assert all(r["notes"].endswith(PATH_NOTE) for r in rows)
    assert [g["model"] for g in given] == [MODEL_DIR, MODEL_DIR]        # the source records what was typed


def test_a_model_path_in_a_csv_column_and_through_the_upload_form_is_its_last_component(con, tmp_path):
    csv = tmp_path / "runs.csv"
    csv.write_text("hardware,gpus,model,isl,osl,concurrency,tput_per_gpu,tok_s_user\n"
                   f"H100,8,{MODEL_DIR},1024,1024,8,900,80\n"
                   "H100,8,Qwen/Qwen3-32B-FP8,1024,1024,8,900,80\n")
    ingest_file(con, csv)
    rows = load_points(con, full=True).sort_values("source_line").to_dict("records")
    assert [r["model"] for r in rows] == ["Qwen3-32B-FP8", "Qwen/Qwen3-32B-FP8"]   # a Hugging Face id is no path
    assert rows[0]["notes"] == PATH_NOTE and pd.isna(rows[1]["notes"])
    assert json.loads(rows[0]["extra"]) == {"model_dir": MODEL_DIR} and pd.isna(rows[1]["extra"])
    # the Data page's form: its "Model" field reaches the ingest as model=<value>, as --set does
    plain = tmp_path / "form.csv"
    plain.write_text("hardware,gpus,isl,osl,concurrency,tput_per_gpu,tok_s_user\nH100,8,1024,1024,8,900,80\n")
    checked = dry_run(plain, (f"model={MODEL_DIR}",), display_name="form.csv")
    assert checked["ok"] and checked["workloads"] == ["Qwen3-32B-FP8|1024|1024"]


def test_a_directory_of_small_csvs_given_a_model_path_stores_its_last_component(db_path, tmp_path):
    folder = tmp_path / "runs"
    folder.mkdir()
    for n in range(3):                           # small plain CSVs: the bulk path stages them together
        (folder / f"run{n}.csv").write_text("hardware,gpus,isl,osl,concurrency,tput_per_gpu,tok_s_user\n"
                                            f"H100,8,1024,1024,{8 * (n + 1)},{900 + n},80\n")
    assert cli(db_path, "ingest", folder, "--set", f"model={MODEL_DIR}").code == 0
    con = connect(db_path)
    try:
        rows = load_points(con, full=True).to_dict("records")
    finally:
        con.close()
    assert [r["model"] for r in rows] == ["Qwen3-32B-FP8"] * 3
    assert all(r["notes"] == PATH_NOTE and json.loads(r["extra"]) == {"model_dir": MODEL_DIR} for r in rows)
