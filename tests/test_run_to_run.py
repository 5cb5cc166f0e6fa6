"""AIPerf's multi-run confidence (issue 51): the aggregate imported, its intervals checked and carried into $/M and
fleets as a band of their own.

Fixtures: ``tests/fixtures/formats_today/aiperf_multirun`` (``make_fixtures.py`` writes them as AIPerf's
``ConfidenceAggregation`` computes and its JSON and CSV exporters write: four configurations of five runs, one of
three runs where one succeeded) and ``aiperf_aggregate_tutorial.json`` (AIPerf's own tutorial's worked examples, as
printed: two of them state t = 2.776 with intervals that imply t ≈ 2.22). Every expected value here is computed
from the run files, not read back from the importer.
"""

from __future__ import annotations

import json
import math
import statistics
from pathlib import Path

import pytest
from scipy import stats

from model.core.run_to_run import band_at, check, combine, half_unit, usd_band
from model.data.importers import detect, parse
from model.data.ingest import ingest_file
from model.data.intervals import load_intervals
from tests.kit import cli, cli_json, open_page

ROOT = Path(__file__).resolve().parent / "fixtures" / "formats_today"
MULTI = ROOT / "aiperf_multirun"
SAMPLE = Path(__file__).resolve().parents[1] / "data" / "samples" / "inferencex_glm5_fp8_2026-05-20.csv"
TUTORIAL = ROOT / "aiperf_aggregate_tutorial.json"
CONFIGS = (4, 8, 16, 32)


def _folder(concurrency: int) -> Path:
    return MULTI / f"llama-3.1-8b-openai-chat-concurrency_{concurrency}"


def _runs(concurrency: int) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((_folder(concurrency) / "profile_runs").glob("*/*.json"))]


def _interval(values: list[float], level: float = 0.95) -> tuple[float, float, float]:
    """(mean, ci_low, ci_high) of run values, as the t-interval is defined (not as the importer reads it)."""
    n, mean = len(values), statistics.fmean(values)
    half = stats.t.ppf((1 + level) / 2, n - 1) * statistics.stdev(values) / math.sqrt(n)
    return mean, mean - half, mean + half


@pytest.fixture(scope="module")
def multirun_db(tmp_path_factory):
    db = tmp_path_factory.mktemp("multirun") / "store.duckdb"
    done = cli(db, "ingest", MULTI, "--set", "hardware=H100", "--set", "gpus=1")
    assert done.code == 0, done.err
    return db, done.out


def test_a_multirun_folder_stores_one_point_per_configuration_from_its_aggregate(multirun_db):
    db, out = multirun_db
    assert out.count("rows added" if "rows added" in out else "row added") == 5      # 4 configurations + 1 single
    assert out.count("stored as that aggregate's point, not on its own") == 21        # 4 x 5 runs + 1
    assert "profile_export_aiperf_aggregate.csv: the same run as profile_export_aiperf_aggregate.json" in out
    rows = cli_json(db, "frontier", "--by", "hardware", "--basis", "output")["rows"]
    by_conc = {r["concurrency"]: r for r in rows}
    assert set(by_conc) == {*CONFIGS, 64}                # every configuration is a frontier point
    for concurrency in CONFIGS:
        runs = _runs(concurrency)
        mean, low, high = _interval([r["output_token_throughput"]["avg"] for r in runs])
        row = by_conc[concurrency]
        assert row["tokens_per_second_per_gpu"] == pytest.approx(mean, rel=1e-12)
        assert row["run_to_run_low"] == pytest.approx(low / mean, rel=1e-9)
        assert row["run_to_run_high"] == pytest.approx(high / mean, rel=1e-9)
        assert "output_token_throughput_avg over 5 runs, 95% interval" in row["run_to_run_from"]
        # TPOT is the runs' mean median inter-token latency; the model and load come from the first run
        tpot = statistics.fmean(r["inter_token_latency"]["p50"] for r in runs)
        assert row["interactivity"] == pytest.approx(1000 / tpot, rel=1e-12)
        assert row["model"] == runs[0]["input_config"]["endpoint"]["model_names"][0]
    single = by_conc[64]                             # one run of three: a point, and no interval
    assert single["run_to_run_low"] is None and "one run" in single["run_to_run_from"]


def test_iso_json_names_the_run_to_run_band_beside_the_interpolation_one(multirun_db):
    db, _ = multirun_db
    payload = cli_json(db, "iso", "--by", "hardware", "--basis", "output", "--at", "40,60")
    assert payload["run_to_run"]["any_interval"] is True and "wider end" in payload["run_to_run"]["rule"]
    frontier = {r["concurrency"]: r for r in cli_json(db, "frontier", "--by", "hardware", "--basis", "output")["rows"]}
    for row in payload["rows"]:
        # the two measured points around the target, from the frontier: their relative bands, the wider end
        left, right = sorted((r for r in frontier.values() if r["run_to_run_low"] is not None),
                             key=lambda r: abs(r["interactivity"] - row["interactivity"]))[:2]
        assert min(left["interactivity"], right["interactivity"]) < row["interactivity"] \
            < max(left["interactivity"], right["interactivity"])
        low = min(left["run_to_run_low"], right["run_to_run_low"])
        high = max(left["run_to_run_high"], right["run_to_run_high"])
        assert row["run_to_run_low"] == pytest.approx(row["usd_per_mtok"] / high)
        assert row["run_to_run_high"] == pytest.approx(row["usd_per_mtok"] / low)
        assert row["run_to_run_from"].startswith("the wider of the two bracketing points")
        # this store alone has too few interior points for an interpolation range: that band says so, by name
        assert row["usd_per_mtok_low"] is None and row["error_from"] == "none"
    text = cli(db, "iso", "--by", "hardware", "--basis", "output", "--at", "40,60").out
    assert "run_to_run_low" in text and "run_to_run_from" in text


def test_both_bands_each_named_when_the_store_calibrates_the_interpolation(tmp_path):
    """With the bundled sample beside the aggregates the store has enough interior points for issue 47's range:
    the AIPerf series then has both bands at each target, each with its own source, neither changing the other."""
    db = tmp_path / "both.duckdb"
    for source, *sets in ((MULTI, "--set", "hardware=H100", "--set", "gpus=1"),
                          (SAMPLE,)):
        done = cli(db, "ingest", source, *sets)
        assert done.code == 0, done.err
    alone = {r["interactivity"]: r for r in cli_json(db, "iso", "--by", "hardware", "--basis", "output",
                                                     "--at", "40,60", "--where", "hardware=H100")["rows"]}
    assert set(alone) == {40.0, 60.0}
    for row in alone.values():
        assert row["usd_per_mtok_low"] < row["usd_per_mtok"] < row["usd_per_mtok_high"] and row["error_from"] == "store"
        assert row["run_to_run_low"] < row["usd_per_mtok"] < row["run_to_run_high"]
        assert "over 5 runs, 95% interval" in row["run_to_run_from"]
        # the run-to-run band is the same as in the store without the sample: the two do not touch each other
    single = {r["interactivity"]: r for r in cli_json(
        _multirun_only(tmp_path), "iso", "--by", "hardware", "--basis", "output", "--at", "40,60")["rows"]}
    for x, row in alone.items():
        assert row["run_to_run_low"] == pytest.approx(single[x]["run_to_run_low"], rel=1e-12)
        assert row["run_to_run_high"] == pytest.approx(single[x]["run_to_run_high"], rel=1e-12)


def _multirun_only(tmp_path):
    db = tmp_path / "alone.duckdb"
    assert cli(db, "ingest", MULTI, "--set", "hardware=H100", "--set", "gpus=1").code == 0
    return db


def test_size_sizes_again_on_the_capacity_points_band(multirun_db):
    db, _ = multirun_db
    payload = cli_json(db, "size", "--demand-rps", "2000", "--by", "hardware", "--basis", "output")
    row, band = payload["rows"][0], payload["run_to_run"]["rows"][0]
    capacity = row["per_node_rps"]
    point = next(r for r in cli_json(db, "frontier", "--by", "hardware", "--basis", "output")["rows"]
                 if f"line {r['source_line']}" in " ".join(payload["capacity_from"])
                 and r["run_to_run_low"] is not None)
    # nodes for the peak at the capacity scaled by the point's band (the fleet's own rule: ceil(peak / per node))
    assert band["nodes_run_to_run_low"] == math.ceil(2000 / (capacity * point["run_to_run_high"]))
    assert band["nodes_run_to_run_high"] == math.ceil(2000 / (capacity * point["run_to_run_low"]))
    assert band["nodes"] == row["nodes"] == math.ceil(2000 / capacity)
    out = cli(db, "size", "--demand-rps", "2000", "--by", "hardware", "--basis", "output").out
    assert f"run-to-run: H100: {row['nodes']:,.0f} nodes" in out


def test_the_tutorials_own_intervals_are_checked_and_two_flagged(con):
    """Oracle: AIPerf's multi-run tutorial prints t = 2.776 (5 runs, 95 %) beside intervals that imply t ≈ 2.22 for
    request_throughput_avg and ttft_p99_ms; its TTFT example (CI [148.0, 154.4]) agrees."""
    assert detect(TUTORIAL, TUTORIAL.name) == "aiperf_aggregate"
    result = ingest_file(con, TUTORIAL, ["hardware=H100", "gpus=1"])
    assert result.rows_added == 1
    stored = {r["metric"]: r for r in load_intervals(con).to_dict("records")}
    document = json.loads(TUTORIAL.read_text())["metrics"]
    assert stored["request_throughput_avg"]["status"] == "differs"
    assert stored["time_to_first_token_p99"]["status"] == "differs"           # the tutorial's "ttft_p99_ms"
    assert stored["output_token_throughput_avg"]["status"] == "differs"
    assert stored["time_to_first_token_p50"]["status"] == "agrees"
    assert stored["inter_token_latency_p50"]["status"] == "agrees"
    tput = document["request_throughput_avg"]
    implied = (tput["ci_high"] - tput["ci_low"]) / 2 / tput["se"]
    assert round(implied, 2) == 2.22 == round(stored["request_throughput_avg"]["t_implied"], 2)
    assert stored["request_throughput_avg"]["t_expected"] == pytest.approx(stats.t.ppf(0.975, 4))
    notes = con.execute("SELECT notes FROM points").fetchone()[0]
    assert "interval of output_token_throughput_avg flagged, not used" in notes
    assert "implies t ≈ 2.22" in notes


def test_a_flagged_interval_gives_no_band(db_path):
    assert cli(db_path, "ingest", TUTORIAL, "--set", "hardware=H100", "--set", "gpus=1").code == 0
    row = cli_json(db_path, "frontier", "--basis", "output")["rows"][0]
    assert row["run_to_run_low"] is None and "flagged, not used" in row["run_to_run_from"]


def test_the_csv_aggregate_reads_as_its_json(tmp_path):
    folder = _folder(8) / "aggregate"
    frame_json, _, _ = parse(folder / "profile_export_aiperf_aggregate.json", "a.json", "aiperf_aggregate")
    path = folder / "profile_export_aiperf_aggregate.csv"
    assert detect(path, path.name) == "aiperf_aggregate_csv"
    frame_csv, _, notes = parse(path, "a.csv", "aiperf_aggregate_csv")
    for field in ("output_tokens_per_second", "total_tokens_per_second", "tpot_median_ms", "ttft_p50_s"):
        assert frame_csv[field].iloc[0] == pytest.approx(frame_json[field].iloc[0], abs=0.006), field
    assert frame_csv["model"].iloc[0] == frame_json["model"].iloc[0]                 # from the first run beside it
    csv_intervals = {i["metric"]: i for i in frame_csv.attrs["_intervals"][0]}
    # printed to 2 decimals (cv, se, t to 4), every interval still agrees within that rounding
    assert {i["status"] for i in csv_intervals.values()} == {"agrees"}
    assert csv_intervals["output_token_throughput_avg"]["runs"] == 5


def test_one_run_gives_no_interval_not_a_zero_width_one():
    path = _folder(64) / "aggregate" / "profile_export_aiperf_aggregate.json"
    frame, _, _ = parse(path, path.name, "aiperf_aggregate")
    assert {i["status"] for i in frame.attrs["_intervals"][0]} == {"one run, no interval"}
    assert "one run, no interval" in frame["notes"].iloc[0]


@pytest.mark.parametrize("stated, status", [
    ({"mean": 151.2, "std": 2.59, "se": 1.16, "ci_low": 148.0, "ci_high": 154.4, "t_critical": 2.776}, "agrees"),
    ({"mean": 255.4, "std": 12.3, "se": 5.5, "ci_low": 243.2, "ci_high": 267.6, "t_critical": 2.776}, "differs"),
    ({"mean": 100.0, "std": 10.0, "se": 4.47, "ci_low": 87.59, "ci_high": 112.41, "t_critical": 2.776}, "agrees"),
    ({"mean": 100.0, "std": 10.0, "se": 4.0, "ci_low": 88.9, "ci_high": 111.1, "t_critical": 2.776}, "differs"),
])
def test_check_recomputes_within_the_printed_rounding(stated, status):
    assert check("m", stated, 5, 0.95).status == status
    assert half_unit(5.5) == pytest.approx(0.05, rel=1e-6) and half_unit(2.776) == pytest.approx(0.0005, rel=1e-4)


def test_band_rules():
    assert usd_band(2.0, 0.9, 1.1) == pytest.approx((2.0 / 1.1, 2.0 / 0.9))
    low, high = combine(2.0, 1.9, 2.2, 1.95, 2.08)
    assert low == pytest.approx(2.0 * math.exp(-math.hypot(math.log(2.0 / 1.9), math.log(2.0 / 1.95))))
    assert high == pytest.approx(2.0 * math.exp(math.hypot(math.log(2.2 / 2.0), math.log(2.08 / 2.0))))
    assert combine(2.0, 2.0, 2.0, 1.95, 2.08) == pytest.approx((1.95, 2.08))      # a measured point: run-to-run alone
    assert math.isnan(combine(2.0, None, None, 1.95, 2.08)[0])                   # no range: no combined band
    import pandas as pd

    frontier = pd.DataFrame({"series": ["s"] * 3, "interactivity": [10.0, 20.0, 30.0],
                             "run_to_run_low": [0.95, 0.97, math.nan], "run_to_run_high": [1.04, 1.02, math.nan],
                             "run_to_run_from": ["a", "b", "one run"]})
    assert band_at(frontier, "s", 15.0)[:2] == (0.95, 1.04)
    assert band_at(frontier, "s", 20.0)[:2] == (0.97, 1.02)
    assert math.isnan(band_at(frontier, "s", 25.0)[0]) and "one run" in band_at(frontier, "s", 25.0)[2]
    assert "beyond" in band_at(frontier, "s", 35.0)[2]


def test_the_pages_show_both_bands(multirun_db, monkeypatch):
    db, _ = multirun_db
    monkeypatch.setenv("COSTFRONTIER_DB", str(db))
    at = open_page("views/matched_interactivity.py", {"by": "hardware", "basis": "output", "at": "40,60"})
    assert not at.exception
    assert any("Run-to-run" in m.value for m in at.markdown)
    assert any("run_to_run_table" == (d.key or "") for d in at.dataframe) or any(
        "Run-to-run" in str(d.value.columns) for d in at.dataframe)
    at = open_page("views/data.py")
    assert not at.exception and "Run-to-run intervals" in [s.value for s in at.subheader]


def test_a_bundle_of_a_report_with_run_to_run_verifies(multirun_db, tmp_path):
    """The report's Run-to-run table is rebuilt from the bundle's own store (its intervals travel with its points)."""
    db, _ = multirun_db
    bundle = tmp_path / "bundle"
    done = cli(db, "report", "--by", "hardware", "--basis", "output", "--at", "40,60", "--bundle", bundle)
    assert done.code == 0, done.err
    assert "Run-to-run" in next(bundle.glob("*.html")).read_text(encoding="utf-8")
    checked = cli(db, "verify", bundle)
    assert checked.code == 0 and "verified" in checked.out, checked.out + checked.err
