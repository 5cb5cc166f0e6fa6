"""A projected load (``load_points(columns=)``, issue 19) answers the analysis exactly as the full load does.

What an answer reads is derived from the parts asked for (:func:`model.present.view_answer.reading`): the ``iso``
and ``crossover`` commands load only the analysis's columns of the view;
every view option that reads a column (basis, disaggregation mode, SLA, as-of, the series keys, a workload
split) is tried on the bundled samples and on a generated store with several workloads, disaggregated rows,
latency columns, run dates and exact duplicates, against the answer of the full load.
"""

from __future__ import annotations

import json
from datetime import date

import numpy as np
import pandas as pd
import pytest

from model.core.repeats import CONFIG_KEYS
from model.core.schema import POINT_FIELDS
from model.core.view import View
from model.data.ingest import ingest_file
from model.data.inputs import READS, load_inputs, reading_of, with_workload
from model.data.store import connect, load_points, points_by_id
from model.present.answers import summary_of
from model.present.parts import PartNotAsked
from model.present.view_answer import PARTS, answer_of_view, build_answer, reading
from tests.kit import cli_json

#: what ``iso`` and ``crossover`` ask for (model.cli.query.PARTS, without the recommendation's demand)
ANALYSIS_PARTS = ("cost", "crossed", "rates", "notes")


def analysis_columns(view: View, parts=ANALYSIS_PARTS):
    """The columns the ``parts`` of ``view``'s answer load."""
    return reading(view, parts).columns


def full_answer(con, view: View, parts=None):
    """The answer of ``view`` from a load of every column of the store (no projection) and every stored input."""
    view = with_workload(con, view)
    return build_answer(view, load_inputs(con, reading_of(view, None, READS)), parts)

BY4 = ("hardware", "framework", "precision", "spec_decoding")


def generated_rows(seed: int = 5) -> pd.DataFrame:
    """~1,900 rows: 2 workloads x 3 hardware x 2 frameworks x 2 precisions, concurrency sweeps over tp and run
    dates; a third of one framework's rows disaggregated with per-role rates; latencies; 40 exact duplicates."""
    rng = np.random.default_rng(seed)
    parts = []
    for (model, isl, osl), hw, fw, prec in [(w, h, f, p) for w in (("GLM-5", 8192, 1024), ("GLM-5.2", 1024, 1024))
                                            for h in ("H100", "B200", "MI355X") for f in ("sglang", "dynamo")
                                            for p in ("fp8", "fp4")]:
        n = 80
        conc = 2.0 ** rng.integers(0, 9, n)
        tp = 2 ** rng.integers(0, 3, n)
        peak = {"H100": 900, "B200": 1700, "MI355X": 1500}[hw] * (1.3 if prec == "fp4" else 1.0) * (1 + 0.02 * tp)
        tput = peak * conc / (conc + 20) * rng.lognormal(0, 0.1, n)
        speed = (70 if fw == "sglang" else 60) * (1.2 if prec == "fp8" else 1.0)
        intvty = speed / (1 + conc / 40) * rng.lognormal(0, 0.1, n)
        disagg = (fw == "dynamo") & (rng.random(n) < 0.35)
        share_in = isl / (isl + osl)
        parts.append(pd.DataFrame({
            "model": model, "isl": isl, "osl": osl, "hardware": hw, "framework": fw, "precision": prec,
            "spec_decoding": "none", "tp": tp, "gpus": tp * np.where(disagg, 2, 1), "concurrency": conc,
            "disaggregated": disagg,
            "gpus_prefill": np.where(disagg, tp, np.nan), "gpus_decode": np.where(disagg, tp, np.nan),
            "total_tokens_per_second_per_gpu": tput.round(3),
            "output_tokens_per_second_per_gpu": (tput * (1 - share_in)).round(3),
            "input_tokens_per_second_per_gpu": (tput * share_in).round(3),
            "total_tokens_per_second": (tput * tp).round(3),
            "output_tokens_per_second": (tput * tp * (1 - share_in)).round(3),
            "input_tokens_per_second": (tput * tp * share_in).round(3),
            "input_tokens_per_second_per_prefill_gpu": np.where(disagg, (2 * tput * share_in).round(3), np.nan),
            "output_tokens_per_second_per_decode_gpu": np.where(disagg, (2 * tput * (1 - share_in)).round(3), np.nan),
            "interactivity": intvty.round(3), "tpot_median_ms": (1000 / intvty).round(3),
            "ttft_p95_s": (0.3 + conc / 100 * rng.lognormal(0, 0.3, n)).round(3),
            "success_rate": np.where(rng.random(n) < 0.1, 0.95, 1.0),
            "prefix_cache_hit_rate": np.where(rng.random(n) < 0.5, 0.3, np.nan),
            "run_date": (np.datetime64("2026-01-01") + rng.integers(0, 120, n).astype("timedelta64[D]")).astype(str),
        }))
    frame = pd.concat(parts, ignore_index=True)
    frame = pd.concat([frame, frame.sample(40, random_state=seed)], ignore_index=True)   # exact duplicates
    return frame


@pytest.fixture(scope="module")
def generated_db(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("projection")
    csv = tmp / "sweeps.csv"
    generated_rows().to_csv(csv, index=False)
    path = tmp / "generated.duckdb"
    con = connect(path)
    ingest_file(con, csv)
    con.close()
    return path


VIEWS = [
    {},
    {"workload": "all"},
    {"workload": "all", "mix_workloads": True},
    {"by": ("hardware",)},
    {"by": ("hardware", "framework", "source_file")},
    {"by": ("framework", "precision")},                       # series mix hardware: fitted on tokens per dollar
    {"basis": "output"},
    {"basis": "input"},
    {"basis": "output", "disagg": "share"},
    {"basis": "input", "disagg": "share"},
    {"basis": "blended"},
    {"basis": "blended", "w_input": 0.5, "w_cached": 0.5},
    {"sla": "ttft_p95=2,success=0.99"},
    {"sla": "tpot=30"},
    {"as_of": date(2026, 2, 15)},
    {"method": "monotone"},
    {"targets": (5.0, 20.0, 40.0), "baseline": "B200 · sglang · fp8 · no spec"},
    {"repeats": "latest"},
    {"repeats": "median", "as_of": date(2026, 3, 1)},
]


def _same(a: pd.DataFrame, b: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(a.reset_index(drop=True), b.reset_index(drop=True), check_dtype=True)


def _compare(con, state: View):
    """The projected load's answer against the full load's, part by part; the full answer, for the caller's
    checks of what it holds."""
    full = full_answer(con, state, ANALYSIS_PARTS)
    part = answer_of_view(con, state, ANALYSIS_PARTS)
    assert set(part.rows.rows.columns) < set(full.rows.rows.columns)
    assert part.cost.analysis.curves.keys() == full.cost.analysis.curves.keys()
    _same(part.cost.iso_error, full.cost.iso_error)
    _same(part.crossed.marked, full.crossed.marked)
    _same(part.crossed.analysis.envelope.changes, full.crossed.analysis.envelope.changes)
    _same(part.crossed.analysis.reach, full.crossed.analysis.reach)
    _same(part.rates, full.rates)
    assert part.notes == full.notes and part.crossed.analysis.notes == full.crossed.analysis.notes
    assert part.interactivity_needed == full.interactivity_needed and part.rows.usd_per_gpu_hour == full.rows.usd_per_gpu_hour
    for name in ("loo", "by_method"):
        _same(getattr(part.cost.uncertainty, name), getattr(full.cost.uncertainty, name))
    _same(part.cost.uncertainty.calibration.table, full.cost.uncertainty.calibration.table)
    # the frontier's numbers are the full load's (its provenance columns were not loaded)
    keep = [c for c in ("series", "interactivity", "tokens_per_second_per_gpu", "hardware", "usd_per_mtok")
            if c in full.cost.analysis.frontier.columns]
    assert len(keep) == 5 or full.cost.analysis.frontier.empty
    _same(part.cost.analysis.frontier[keep], full.cost.analysis.frontier[keep])
    return full


@pytest.mark.parametrize("view", VIEWS, ids=lambda v: ",".join(f"{k}={v[k]}" for k in v) or "default")
def test_a_projected_load_answers_the_generated_store_as_the_full_load(generated_db, view):
    con = connect(generated_db, read_only=True)
    try:
        assert len(_compare(con, View(**view)).cost.analysis.curves) > 0
    finally:
        con.close()


#: the samples' views, each with the number of series it fits and, where it fits none, the note that says why:
#: only the first workload (GLM-5 8192/1024, every row run on 2026-05-20) has interactivity, and it states no
#: output or input rate, no prefix-cache hit rate and no TTFT, so those views are empty on the samples (the
#: generated store above answers them with curves)
NO_RATE = "no rows have both interactivity and {}-token throughput per GPU"
TWO_WORKLOADS = ("the selection holds 2 workloads: series are split by model, isl, osl and compared only within a "
                 "workload (narrow the selection, or pool them with --mix-workloads)")
SAMPLE_VIEWS = [
    ({}, 4, None),
    ({"workload": "all"}, 4, TWO_WORKLOADS),
    ({"workload": "all", "mix_workloads": True}, 4, None),
    ({"basis": "output"}, 0, NO_RATE.format("output")),
    ({"basis": "input"}, 0, NO_RATE.format("input")),
    ({"basis": "output", "disagg": "share"}, 0, NO_RATE.format("output")),
    ({"basis": "input", "disagg": "share"}, 0, NO_RATE.format("input")),
    ({"basis": "blended"}, 0, NO_RATE.format("blended")),
    ({"basis": "blended", "w_input": 0.5, "w_cached": 0.5}, 4, None),
    ({"sla": "ttft_p95=2,success=0.99"}, 0, "the SLA (TTFT p95 <= 2 s, success rate >= 0.99) leaves out 29 of 29 rows; "
                                            "the frontier is fitted on the 0 that meet it"),
    ({"sla": "tpot=30"}, 4, "the SLA (TPOT <= 30 ms) leaves out 15 of 29 rows; the frontier is fitted on the 14 "
                            "that meet it"),
    ({"as_of": date(2026, 2, 15)}, 0, "as of 2026-02-15: 0 of 29 rows; 29 run later left out"),
    ({"as_of": date(2026, 5, 20)}, 4, "as of 2026-05-20: 29 of 29 rows"),   # the day the rows ran: all are in
    ({"method": "monotone"}, 4, None),
    ({"repeats": "latest"}, 4, None),
    ({"repeats": "median", "as_of": date(2026, 3, 1)}, 0, "as of 2026-03-01: 0 of 29 rows; 29 run later left out"),
    ({"repeats": "median", "as_of": date(2026, 6, 1)}, 4, "as of 2026-06-01: 29 of 29 rows"),
    ({"workload": "all", "by": ("hardware",)}, 2, TWO_WORKLOADS),
    ({"by": ("hardware", "source_file")}, 2, None),
]


@pytest.mark.parametrize("view, curves, note", SAMPLE_VIEWS,
                         ids=[",".join(f"{k}={v[k]}" for k in v) or "default" for v, _, _ in SAMPLE_VIEWS])
def test_a_projected_load_answers_the_samples_as_the_full_load(sample_db, view, curves, note):
    con = connect(sample_db, read_only=True)
    try:
        full = _compare(con, View(**view))
    finally:
        con.close()
    assert len(full.cost.analysis.curves) == curves
    assert (len(full.cost.iso_error) > 0) == (curves > 0)
    if note is None:
        assert full.notes == ()
    else:
        assert note in full.notes, full.notes


def test_the_projection_is_the_columns_the_view_reads():
    assert analysis_columns(View()) == (
        "hardware", "interactivity", "tpot_median_ms", "itl_median_ms", "disaggregated", "model", "isl", "osl", "scenario",
        "prefix_cache_hit_rate", "framework", "precision", "spec_decoding", "total_tokens_per_second_per_gpu")
    assert "ttft_p95_s" in analysis_columns(View(sla="ttft_p95=2"))
    assert "run_date" in analysis_columns(View(as_of=date(2026, 1, 1)))
    assert "output_tokens_per_second_per_decode_gpu" in analysis_columns(View(basis="output"))
    latest = analysis_columns(View(repeats="latest"))              # configurations are told apart by their keys
    assert set(CONFIG_KEYS) | {"run_date", "source_file", "source_line"} <= set(latest)
    assert "success_rate" not in latest and "requests_completed" not in latest
    with pytest.raises(ValueError, match="unknown answer parts"):
        analysis_columns(View(), ("cost", "no-such-part"))
    dashboard = analysis_columns(View(), None)                     # every part: what the dashboard loads
    assert {"tp", "concurrency", "request_rate_rps", "ttft_p99_s", "source_line"} <= set(dashboard)
    left_out = set(POINT_FIELDS) - set(dashboard)
    assert left_out == {"tags", "url", "notes", "extra", "requests_completed", "requests_failed", "published_usd_per_mtok",
                        "power_per_gpu_w", "success_rate", "e2e_latency_median_s", "total_tokens_per_second",
                        "output_tokens_per_second", "input_tokens_per_second",
                        "input_tokens_per_second_per_prefill_gpu", "output_tokens_per_second_per_decode_gpu"}
    assert "success_rate" in analysis_columns(View(sla="success=0.99"), None)
    # a demand asks the recommendation for the capacity's columns; no demand, none
    assert "request_rate_rps" not in analysis_columns(View(), ("recommendation",))
    assert "request_rate_rps" in analysis_columns(View(tokens_per_month=1e9), ("recommendation",))


def test_the_dashboards_projection_changes_only_with_what_changes_the_fit():
    """The dashboard caches one fit per frontier key and the rows per projection: a field that does not change the fit
    (the interactivity you need, rates, a demand) loads the same columns."""
    base = View()
    for change in ({"interactivity_needed": 33.0}, {"rates": (("B200", 3.0),)}, {"tokens_per_month": 1e12},
                   {"targets": (5.0, 10.0)}, {"baseline": "B200"}):
        other = base.replace(**change)
        assert other.frontier_key() == base.frontier_key()
        assert analysis_columns(other, None) == analysis_columns(base, None)
        assert reading(other) == reading(base)          # one read of the rows for every view of those filters


def test_a_projected_load_holds_the_full_loads_values_in_its_columns(generated_db):
    con = connect(generated_db, read_only=True)
    try:
        full = load_points(con)
        part = load_points(con, columns=("hardware", "interactivity", "isl", "disaggregated", "run_date"))
        assert list(part.columns) == ["point_id", "source_id", "isl", "hardware", "disaggregated", "interactivity",
                                      "run_date"]
        _same(part, full[list(part.columns)])
        with pytest.raises(ValueError, match="unknown field 'nonsense'"):
            load_points(con, columns=("nonsense",))
    finally:
        con.close()


def test_frontier_rows_provenance_fetched_by_id_is_the_full_loads(generated_db):
    con = connect(generated_db, read_only=True)
    try:
        state = View(workload="all")
        full = full_answer(con, state, ANALYSIS_PARTS)
        part = answer_of_view(con, state, ANALYSIS_PARTS)
        frontier = part.cost.analysis.frontier
        assert "source_line" not in frontier.columns and len(frontier) > 50
        provenance = points_by_id(con, frontier["point_id"])
        assert list(provenance["point_id"]) == list(frontier["point_id"])
        expected = full.cost.analysis.frontier
        _same(provenance[["point_id", "source_file", "source_line", "run_date", "tp", "concurrency"]],
              expected[["point_id", "source_file", "source_line", "run_date", "tp", "concurrency"]])
        assert points_by_id(con, [10 ** 9]).empty
    finally:
        con.close()


def test_a_projected_answer_refuses_the_parts_it_was_not_asked_for(sample_db):
    con = connect(sample_db, read_only=True)
    try:
        state = View()
        part = answer_of_view(con, state, ANALYSIS_PARTS)
        assert not part.cost.iso.empty
        for name in ("frontier_table", "history", "capacity"):
            with pytest.raises(PartNotAsked, match=name):
                len(getattr(part, name))
    finally:
        con.close()


@pytest.mark.parametrize("command", ["iso", "crossover"])
def test_the_cli_prints_the_full_loads_answer(generated_db, command):
    """``iso`` and ``crossover`` load the projection; their JSON is the full load's answer."""
    from model.cli.as_json import records

    baseline = "B200 · sglang · fp8 · no spec · GLM-5 · ISL 8192"      # the view holds both workloads (wl=all)
    args = [command, "--by", ",".join(BY4), "--at", "10,20,40"]
    out = cli_json(generated_db, *args, *(["--baseline", baseline] if command == "crossover" else []))
    con = connect(generated_db, read_only=True)
    try:
        state = View(workload=out["view"]["wl"], targets=(10.0, 20.0, 40.0),
                          baseline=baseline if command == "crossover" else None)
        full = full_answer(con, state, ANALYSIS_PARTS)
        frame = full.crossed.marked if command == "crossover" else full.cost.iso_error
        rows = out["rows"]
        if command == "iso":          # iso's rows also carry their run-to-run band (none here: no repeated runs)
            assert all(r["run_to_run_low"] is None and r["run_to_run_from"] for r in rows)
            rows = [{k: v for k, v in r.items() if not k.startswith("run_to_run")} for r in rows]
        assert rows == json.loads(json.dumps(records(frame)))
        assert len(out["rows"]) > 10
    finally:
        con.close()


#: the dashboard's views of the generated store: each option that reads a column, with a demand (fleet, volume); of
#: two hardware in one precision (the history refits every run date: a second a view on the whole store)
_TWO = {"hardware": ("B200", "MI355X"), "precision": ("fp8",)}
DASHBOARD_VIEWS = [{**_TWO, **view} for view in (
    {"tokens_per_month": 2e11},
    {"basis": "output", "disagg": "share", "demand_rps": 40.0},
    {"basis": "input", "by": ("hardware", "framework", "source_file")},
    {"sla": "ttft_p95=2,success=0.99", "repeats": "latest"},
    {"repeats": "median"},
    {"as_of": date(2026, 1, 25), "framework": ("sglang",)},
)]


@pytest.mark.parametrize("view", DASHBOARD_VIEWS, ids=lambda v: ",".join(f"{k}={v[k]}" for k in v if k not in _TWO))
def test_the_dashboards_projected_load_answers_every_page_as_the_full_load(generated_db, view):
    """The dashboard loads every part's columns (a third of the store's fewer): every table its pages and report show,
    the Frontier chart's points, the fleet, the ramps and the history hold the full load's values."""
    from model.present.tables import tables
    from model.present.view_answer import CLOUD_COLUMNS

    con = connect(generated_db, read_only=True)
    try:
        state = View(**view)
        # every part but the history, which refits every run date (a second or more here): on the as-of view only
        parts = [p for p in PARTS if p != "history" or state.as_of]
        full, part = full_answer(con, state, parts), answer_of_view(con, state, parts)
        assert part.inputs.reading.columns is not None and reading(state) == reading(state, parts)
        assert len(part.rows.rows.columns) <= len(full.rows.rows.columns) - 8
        shown, expected = tables(part), tables(full)
        assert list(shown) == list(expected) and len(shown) >= 4
        for name, (frame, spec) in expected.items():
            assert shown[name][1] == spec, name          # what a table shows: its spec's columns
            columns = [column for _, column, _ in spec if column in frame.columns]
            assert len(columns) >= 3 or frame.empty, name
            _same(shown[name][0][columns], frame[columns])
        cloud = [c for c in CLOUD_COLUMNS if c in full.cloud.points.columns]
        _same(part.cloud.points[cloud], full.cloud.points[cloud])
        # the history refits every run date (a second or more here): checked on the view that stops at an as-of date
        for name in ("frontier_table", "capacity"):
            mine = getattr(part, name)
            _same(mine, getattr(full, name)[list(mine.columns)])
        if state.as_of:     # the history refits every run date (a second or more here)
            _same(part.history.table, full.history.table[list(part.history.table.columns)])
        _same(part.ramps.knees, full.ramps.knees)
        assert part.recommendation.headline == full.recommendation.headline
        assert summary_of(part) == summary_of(full)
        assert part.notes == full.notes and (not state.as_of or part.history.notes == full.history.notes)
        assert not state.as_of or len(part.history.table) > 10
        if state.tokens_per_month or state.demand_rps:
            assert not part.capacity.empty and part.fleet is not None
    finally:
        con.close()
