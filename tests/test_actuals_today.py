"""Actuals as today's OpenCost writes them (issue 51) and imports that stay linear (issue 53).

Fixtures (``tests/fixtures/actuals_today``, made from OpenCost's ``docs/inference-cost-tracking.md`` in both of its
versions and ``core/pkg/model/kubemodel/inference.go``): the doc's worked example (one hour, $3.20, 12 M prompt and
3 M generated tokens, 800,000 of them cached, prefill and decode 600 s each) as the earlier release wrote it
(``/inferenceCost/total`` in the envelope; ``/timeseries`` without it) and as the revised one does (``total``
without the envelope, ``timeseries`` in it and on one line), and OpenCost's per-engine saturation figures in both
of its layouts (a set keyed by pod UID; the earlier one keyed by model:namespace with the pods under ``replicas``).
The worked example is an oracle: the doc prints input $0.143/M before and $0.133/M after, blended $0.213/M and output
$0.533/M in both.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from model.core.actuals import INPUT_DENOMINATORS, input_denominator
from model.core.saturation import summary
from model.data.actuals import actuals_frame, ingest_actuals_file, saturation_frame
from model.data.importers import bill_csv
from model.data.importers.base import IngestError
from tests.checksums import table_checksums
from tests.kit import cli, cli_json

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "actuals_today"
PLAN = "http://localhost:8501/Buy_rent_or_API?wl=GLM-5.2|20000|1000&hw=MI355X&tpm=3.65e10&v=8"
#: the worked example of OpenCost's inference-cost-tracking.md
COST, PROMPT, GENERATED, CACHED = 3.20, 12_000_000, 3_000_000, 800_000


def _entries(document) -> list[dict]:
    sets = document if isinstance(document, list) else [document]
    out = []
    for one in sets:
        body = one.get("data", one)
        for s in body.get("inferenceCostSets", [body]):
            out.extend((s.get("inferenceCosts") or {}).items())
    return out


def _key_lines(path: Path, keys: list[str]) -> list[int]:
    """The line of each ``"key":`` in order, found by walking the file's lines (independent of the importer)."""
    lines, out, at = path.read_text().split("\n"), [], (0, 0)
    for key in keys:
        needle = re.compile(re.escape(json.dumps(key)) + r"\s*:")
        row, col = at
        while True:
            found = needle.search(lines[row], col)
            if found:
                out.append(row + 1)
                at = (row, found.end())
                break
            row, col = row + 1, 0
    return out


@pytest.mark.parametrize("name, rows, counts", [
    ("opencost_earlier_total.json", 1, ["computed"]),
    ("opencost_revised_total.json", 1, ["delivered"]),
    ("opencost_earlier_timeseries.json", 3, ["computed", "computed", "delivered"]),
    ("opencost_revised_timeseries.json", 3, ["delivered", "delivered", "delivered"]),
])
def test_both_opencost_versions_import_value_by_value_and_say_what_their_input_cost_counts(con, name, rows, counts):
    result = ingest_actuals_file(con, FIXTURES / name)
    assert result.rows_added == rows
    stored = actuals_frame(con).sort_values(["period_start"]).to_dict("records")
    entries = _entries(json.loads((FIXTURES / name).read_text()))
    lines = _key_lines(FIXTURES / name, [key for key, _ in entries])
    for row, (_, entry), line, kind in zip(stored, entries, lines, counts):
        assert row["source_line"] == line        # each value traced to its file and line
        for column, key in (("usd", "totalCost"), ("input_tokens", "promptTokens"), ("output_tokens", "generationTokens"),
                            ("usd_per_mtok", "costPerMillionTokens"), ("input_usd", "inputCost"),
                            ("usd_per_m_input", "inputCostPerMillionTokens"),
                            ("usd_per_m_output", "outputCostPerMillionTokens")):
            assert row[column] == entry[key], column
        assert row["allocation_method"] == entry["allocationMethod"]
        # what the input $/M divided by, from the row's own numbers, and said in its notes
        divided_by = entry["inputCost"] / entry["inputCostPerMillionTokens"] * 1e6
        assert input_denominator(row)[0] == kind
        if kind == "computed":
            assert divided_by == pytest.approx(entry["promptTokens"] - CACHED)
            assert row["cached_input_tokens"] == CACHED
            assert "earlier inputCostPerMillionTokens" in row["notes"] and "cached_input_tokens derived" in row["notes"]
        else:
            assert divided_by == pytest.approx(entry["promptTokens"])
            assert math.isnan(row["cached_input_tokens"])
            assert "revised inputCostPerMillionTokens" in row["notes"]
    notes = con.execute("SELECT notes FROM sources").fetchone()[0]
    assert "input $/M counts" in notes and "each row's notes say which" in notes


def test_the_worked_example_gives_each_release_its_own_input_cost(con):
    """Oracle: OpenCost's doc prints $0.143/M (earlier: prompt less cached) and $0.133/M (revised: delivered)."""
    ingest_actuals_file(con, FIXTURES / "opencost_earlier_total.json")
    earlier = actuals_frame(con).iloc[0].to_dict()
    from model.data.store import connect

    with connect(":memory:") as other:
        ingest_actuals_file(other, FIXTURES / "opencost_revised_total.json")
        revised = actuals_frame(other).iloc[0].to_dict()
    half = COST * 600 / (600 + 600)                       # prefill and decode 600 s each: half the cost each
    assert round(earlier["usd_per_m_input"], 3) == 0.143 == round(half / (PROMPT - CACHED) * 1e6, 3)
    assert round(revised["usd_per_m_input"], 3) == 0.133 == round(half / PROMPT * 1e6, 3)
    for row in (earlier, revised):                       # the same in both
        assert round(row["usd_per_mtok"], 3) == 0.213 == round(COST / (PROMPT + GENERATED) * 1e6, 3)
        assert round(row["usd_per_m_output"], 3) == 0.533 == round(half / GENERATED * 1e6, 3)
    assert input_denominator(earlier)[0] == "computed" and input_denominator(revised)[0] == "delivered"
    assert INPUT_DENOMINATORS["computed"] in "the prompt tokens that needed compute (KV-cache hits taken out)"
    assert revised["cache_savings_fraction"] == pytest.approx(CACHED / PROMPT)


def test_saturation_figures_import_in_both_layouts(con):
    assert ingest_actuals_file(con, FIXTURES / "opencost_saturation_q1.json").rows_added == 6
    assert ingest_actuals_file(con, FIXTURES / "opencost_saturation_replicas.json").rows_added == 2
    stored = saturation_frame(con)
    q1 = json.loads((FIXTURES / "opencost_saturation_q1.json").read_text())
    expected = [(one["window"], uid, e) for one in q1 for uid, e in one["inferenceServers"].items()]
    mine = stored[stored["file_name"] == "opencost_saturation_q1.json"].sort_values(["period_start", "pod"])
    for (window, uid, entry), row in zip(expected, mine.to_dict("records")):
        assert row["pod"] == uid and row["model"] == entry["modelName"] and row["engine"] == "vllm"
        assert row["period_start"].isoformat() + "Z" == window["start"]
        for field, column in (("kvCacheUsageAvg", "kv_cache_usage_avg"), ("kvCacheUsageP95", "kv_cache_usage_p95"),
                              ("kvCacheUsageMax", "kv_cache_usage_max"), ("queueDepthMax", "queue_depth_max"),
                              ("runningRequestsMax", "running_requests_max"), ("preemptions", "preemptions")):
            assert row[column] == entry[field], column
        assert json.loads(row["extra"]) == {"namespaceUid": "ns-uid-prod"}
    replicas = stored[stored["file_name"] == "opencost_saturation_replicas.json"].sort_values("pod")
    assert list(replicas["pod"]) == ["qwen-decode-0", "qwen-decode-1"]
    assert list(replicas["namespace"]) == ["llm-d-namespace"] * 2
    assert replicas.iloc[0]["queue_depth_p95"] == 5 and math.isnan(replicas.iloc[0]["running_requests_max"])
    assert list(replicas["source_line"]) == _key_lines(FIXTURES / "opencost_saturation_replicas.json",
                                                       ["qwen-decode-0", "qwen-decode-1"])


@pytest.mark.parametrize("change, field, words", [
    ({"kvCacheUsageMax": 97}, "kvCacheUsageMax", "fraction of the KV-cache blocks"),
    ({"queueDepthAvg": 7.0}, "queueDepthAvg", "is above queueDepthMax"),
    ({"preemptions": -1}, "preemptions", "cannot be negative"),
    ({"runningRequestsAvg": "31"}, "runningRequestsAvg", "finite JSON number"),
])
def test_bad_saturation_figures_are_refused_naming_line_and_field(con, tmp_path, change, field, words):
    document = json.loads((FIXTURES / "opencost_saturation_q1.json").read_text())
    document[1]["inferenceServers"]["7f3c2a10-0002"].update(change)
    path = tmp_path / "bad_saturation.json"
    path.write_text(json.dumps(document, indent=2))
    before = table_checksums(con)
    with pytest.raises(IngestError) as refused:
        ingest_actuals_file(con, path)
    assert refused.value.field == field and words in refused.value.message
    assert refused.value.line == _key_lines(path, ["7f3c2a10-0001", "7f3c2a10-0002"] * 2)[3]
    assert table_checksums(con) == before


def test_one_engines_windows_counted_once(con, tmp_path):
    document = json.loads((FIXTURES / "opencost_saturation_q1.json").read_text())
    document[2]["window"]["start"] = "2026-02-20T00:00:00Z"           # March's set now starts in February
    path = tmp_path / "overlap.json"
    path.write_text(json.dumps(document, indent=2))
    with pytest.raises(IngestError) as refused:
        ingest_actuals_file(con, path)
    assert refused.value.field == "period" and "(pod 7f3c2a10-0001) overlaps line" in refused.value.message


def test_plan_vs_actual_shows_how_close_the_fleet_ran_to_its_limits(sample_db):
    db = str(sample_db)
    assert cli(db, "actual", Path(__file__).parent / "fixtures" / "actuals" / "bill_q1.csv",
               FIXTURES / "opencost_saturation_q1.json").code == 0
    payload = cli_json(db, "plan-vs-actual", "--plan", PLAN)
    sat = payload["saturation"]["total"]
    document = json.loads((FIXTURES / "opencost_saturation_q1.json").read_text())
    engines = [(one["window"], e) for one in document for e in one["inferenceServers"].values()]
    hours = [(np.datetime64(w["end"][:-1]) - np.datetime64(w["start"][:-1])) / np.timedelta64(1, "h")
             for w, _ in engines]
    # computed here from the file: hour-weighted mean of the windows' averages, highest p95 and maximum
    assert sat["kv_cache_usage_mean"] == pytest.approx(
        sum(h * e["kvCacheUsageAvg"] for h, (_, e) in zip(hours, engines)) / sum(hours))
    assert sat["kv_cache_usage_p95"] == max(e["kvCacheUsageP95"] for _, e in engines) == 0.83
    assert sat["kv_cache_usage_max"] == 0.97
    assert sat["hours_with_queue"] == sum(h for h, (_, e) in zip(hours, engines) if e["queueDepthMax"] > 0) == 1344
    assert sat["running_ceiling_seen"] == 64 and sat["preemptions"] == 6 and sat["engines"] == 2
    assert sat["plan_utilization"] == pytest.approx(payload["plan"]["utilization"]) and sat["at_limit"] is True
    assert sat["text"] in payload["sentences"]
    assert "requests waited in 1,344 of 4,320 engine-hours" in sat["text"]
    assert f"{payload['plan']['utilization']:.1%} of its capacity" in sat["text"]
    months = payload["saturation"]["periods"]
    assert [m["queue_depth_max"] for m in months] == [0, 6, 0]
    assert sat["text"] in cli(db, "plan-vs-actual", "--plan", PLAN).out


def test_the_summary_counts_a_window_for_the_hours_it_shares_with_the_period():
    import pandas as pd

    rows = pd.DataFrame({"model": ["m", "m"], "pod": ["a", "b"],
                         "period_start": pd.to_datetime(["2026-01-01 00:00", "2026-01-01 00:00"]),
                         "period_end": pd.to_datetime(["2026-01-01 10:00", "2026-01-01 05:00"]),
                         "kv_cache_usage_avg": [0.2, 0.8], "kv_cache_usage_p95": [0.3, 0.9],
                         "kv_cache_usage_max": [0.4, 0.95], "queue_depth_avg": [0.0, 0.0],
                         "queue_depth_p95": [0.0, 0.0], "queue_depth_max": [0.0, 0.0],
                         "running_requests_avg": [10.0, 20.0], "running_requests_p95": [12.0, 25.0],
                         "running_requests_max": [15.0, 30.0], "preemptions": [np.nan, np.nan]})
    s = summary(rows, "2026-01-01 05:00", "2026-01-02 00:00", 0.5)
    assert s["engine_hours"] == 5 and s["windows"] == 1           # b ended when the period began
    assert s["kv_cache_usage_mean"] == 0.2 and s["preemptions"] is None and s["at_limit"] is False
    assert "stayed below their limits" in s["text"]
    assert summary(rows, "2026-02-01", "2026-03-01") is None


# ------------------------------------------------------------------------------------ imports that stay linear

_CELLS = st.one_of(
    st.integers(0, 10**12).map(str), st.floats(0, 1e9, allow_nan=False).map(lambda v: f"{v:.2f}"),
    st.integers(1000, 10**9).map(lambda v: f"{v:,}"), st.integers(1000, 10**9).map(lambda v: f"${v:,}.50"),
    st.sampled_from(["", " 12 ", "1,480", "1,48", "-4", "nan", "inf", "1e5", "1E00005", "$12", "1.000.000,5",
                     "12 345", "1_000", "+7", "5.", ".5", "0x10", "1,000", "$1,480", "１２"]),
)


@settings(max_examples=150, deadline=None)
@given(cell=_CELLS, tokens=st.sampled_from(["10", "10.5", "", "1,000,000"]))
def test_a_bill_read_column_by_column_reads_as_cell_by_cell(tmp_path_factory, cell, tokens):
    """The column read (what makes a 60,000-row bill take a fraction of a second) refuses what the cell-by-cell read
    refuses, with the same message, and reads the same value otherwise."""
    path = tmp_path_factory.mktemp("bill") / "one.csv"
    quoted = '"' + cell.replace('"', '""') + '"'
    path.write_text(f'period,model,usd,input_tokens,output_tokens\n2026-01,m,{quoted},"{tokens}",3\n')
    record = {"period": "2026-01", "model": "m", "usd": cell, "input_tokens": tokens, "output_tokens": "3"}
    found = {"period": "period", "model": "model", "usd": "usd", "input_tokens": "input_tokens",
             "cached_input_tokens": None, "output_tokens": "output_tokens", "gpu_hours": None, "hardware": None}
    try:
        slow = bill_csv._row(record, found, "one.csv", 2)
    except IngestError as exc:
        with pytest.raises(IngestError) as refused:
            bill_csv.read(path, "one.csv")
        assert str(refused.value) == str(exc)
        return
    cols, _, _ = bill_csv.read(path, "one.csv")
    for column in ("usd", "input_tokens", "output_tokens"):
        assert cols[column][0] == slow[column]


def test_a_long_timeseries_names_every_windows_line_and_refuses_an_overlap_by_line(con, tmp_path):
    from bench.bench_actuals import opencost_timeseries

    path = tmp_path / "hourly.json"
    text = opencost_timeseries(300)
    path.write_text(text)
    assert ingest_actuals_file(con, path).rows_added == 300
    stored = actuals_frame(con).sort_values("period_start")
    assert list(stored["source_line"]) == _key_lines(path, ["Qwen/Qwen3-32B:llm-d-prod"] * 300)
    # window 250 made to start inside window 249: refused naming its line and the earlier window's
    document = json.loads(text)
    sets = document["data"]["inferenceCostSets"]
    entry = sets[250]["inferenceCosts"]["Qwen/Qwen3-32B:llm-d-prod"]
    entry["window"]["start"] = sets[249]["window"]["start"].replace(":00:00Z", ":30:00Z")
    bad = tmp_path / "hourly_overlap.json"
    bad.write_text(json.dumps(document, indent=2))
    lines = _key_lines(bad, ["Qwen/Qwen3-32B:llm-d-prod"] * 300)
    with pytest.raises(IngestError) as refused:
        ingest_actuals_file(con, bad)
    assert refused.value.line == lines[250] and refused.value.field == "period"
    assert f"overlaps line {lines[249]}'s" in refused.value.message
