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

import pytest

from model.cli import main
from model.data.ingest import ingest_file
from model.data.store import connect, load_points
from tests.conftest import FIXTURES

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
def sweep_db(db_path, capsys):
    assert main(["--db", str(db_path), "ingest", str(SWEEP), *SWEEP_SET]) == 0
    capsys.readouterr()
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


def capacity(db_path, capsys, *argv) -> dict:
    assert main(["--db", str(db_path), "capacity", "--json", *argv]) == 0
    return json.loads(capsys.readouterr().out)


def test_capacity_never_reports_a_rate_above_the_one_achieved(sweep_db, capsys):
    highest = max(achieved(n) for n in range(7))               # 79.2 (stage 3)
    # every stage meets E2E <= 2 s: the knee is the highest rate measured, stage 3's achieved 79.2, not 236
    [knee] = capacity(sweep_db, capsys, "--sla", "e2e=2")["rows"]
    assert knee["request_rate"] == pytest.approx(achieved(3)) == pytest.approx(79.2)
    assert knee["max_rate_measured"] == pytest.approx(highest)
    # E2E <= 1.35 s: stage 6 (1.356 s, achieved 78.7) breaks it first on the way up, so the knee is stage 2's 59.98
    [knee] = capacity(sweep_db, capsys, "--sla", "e2e=1.35")["rows"]
    assert knee["request_rate"] == pytest.approx(achieved(2))
    assert knee["first_failing_rate"] == pytest.approx(achieved(6))
    assert knee["highest_passing_rate"] == pytest.approx(achieved(3))
    # the highest passing rate anywhere is still an achieved one
    [knee] = capacity(sweep_db, capsys, "--sla", "e2e=1.35", "--rule", "highest_pass")["rows"]
    assert knee["request_rate"] == pytest.approx(achieved(3)) and knee["request_rate"] <= highest


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
