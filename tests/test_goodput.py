"""Goodput: per-request data kept at ingest, the good fraction under TTFT and TPOT caps, good throughput, the
``--goodput`` option and link key, and the cheapest series as the TTFT cap moves."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from model.core.goodput import (
    MAX_PAIRS,
    Caps,
    Sample,
    apply_goodput,
    caps_from_text,
    check_goodput,
    compact,
    good_fraction,
)
from model.core.view import View
from model.data.database import connect
from model.data.ingest import IngestError, ingest_file
from model.data.requests import load_samples
from model.data.store import load_points, remove_source
from model.present.fmt import for_people
from model.present.view_answer import answer_of_view
from tests.kit import cli, cli_json

ROOT = Path(__file__).resolve().parents[1]
DETAILED = ROOT / "tests" / "fixtures" / "goodput" / "vllm_serve_detailed.json"


def _raw_pairs(path: Path) -> tuple[list[float], list[float]]:
    """(TTFT s, TPOT ms) of the completed requests, counted straight from the file's arrays (vLLM's formula)."""
    obj = json.loads(path.read_text())
    ttft, tpot = [], []
    for t, n, lat, err in zip(obj["ttfts"], obj["output_lens"], obj["latencies"], obj["errors"]):
        if err:
            continue
        ttft.append(t)
        tpot.append((lat - t) / (n - 1) * 1000.0 if n > 1 else 0.0)
    return ttft, tpot


@pytest.fixture(scope="module")
def detailed():
    con = connect(":memory:")
    result = ingest_file(con, DETAILED, ["hardware=H100", "gpus=1"])
    yield con, result
    con.close()


def test_ingest_keeps_the_completed_requests(detailed):
    con, result = detailed
    samples = load_samples(con)
    assert len(samples) == 1
    (sample,) = samples.values()
    obj = json.loads(DETAILED.read_text())
    assert sample.requests == obj["completed"] == 23 and sample.kept == 23   # the failed request is not kept
    ttft, tpot = _raw_pairs(DETAILED)
    assert np.allclose(sample.ttft_s, ttft, rtol=1e-6) and np.allclose(sample.tpot_ms, tpot, rtol=1e-5)


@pytest.mark.parametrize("ttft_cap,tpot_cap", [(0.2, 30.0), (0.5, None), (None, 25.0), (0.48403099, 48.4332),
                                               (10.0, 1000.0), (0.01, 5.0)])
def test_fraction_from_the_store_equals_a_count_over_the_raw_arrays(detailed, ttft_cap, tpot_cap):
    con, _ = detailed
    (sample,) = load_samples(con).values()
    ttft, tpot = _raw_pairs(DETAILED)
    good = sum(1 for a, b in zip(ttft, tpot)
               if (ttft_cap is None or a <= ttft_cap) and (tpot_cap is None or b <= tpot_cap))
    assert good_fraction(sample, Caps(ttft_cap, tpot_cap)) == good / len(ttft)


def test_answer_prices_good_tokens(detailed):
    con, _ = detailed
    plain = answer_of_view(con, View(), None)
    capped = answer_of_view(con, View(goodput="ttft=0.2,tpot=30"), None)
    ttft, tpot = _raw_pairs(DETAILED)
    share = sum(1 for a, b in zip(ttft, tpot) if a <= 0.2 and b <= 30.0) / len(ttft)
    assert 0 < share < 1
    base = float(plain.rows.rows["total_tokens_per_second_per_gpu"].iloc[0])
    assert float(capped.rows.rows["total_tokens_per_second_per_gpu"].iloc[0]) == pytest.approx(base * share)
    assert any("per good M tokens" in n for n in capped.notes)


def test_a_removed_source_hides_its_requests_and_purge_takes_them(tmp_path):
    """``remove`` hides a source from the next data version on (an earlier version, or a link pinned to it, still
    prices its good tokens); ``purge`` deletes its per-request rows with its points."""
    from model.data.versions import purge

    con = connect(str(tmp_path / "s.duckdb"))
    result = ingest_file(con, DETAILED, ["hardware=H100", "gpus=1"])
    assert con.execute("SELECT count(*) FROM point_requests").fetchone()[0] == 1
    assert remove_source(con, result.source_id) == 1      # the point; its requests go uncounted
    assert load_points(con).empty                         # the latest version shows neither
    assert con.execute("SELECT count(*) FROM point_requests").fetchone()[0] == 1   # kept for version 1
    purge(con)
    assert con.execute("SELECT count(*) FROM point_requests").fetchone()[0] == 0
    con.close()


def test_subsample_is_bounded_deterministic_and_said():
    n = MAX_PAIRS * 3 + 7
    ttft = np.arange(n, dtype=float) / n
    sample, note = compact(ttft, ttft * 100)
    again, _ = compact(ttft, ttft * 100)
    assert sample.kept == MAX_PAIRS and sample.requests == n and np.array_equal(sample.ttft_s, again.ttft_s)
    assert "10,000 of 30,007 requests kept" in note
    assert abs(good_fraction(sample, Caps(0.5, None)) - 0.5) < 1e-3      # evenly spaced: the share holds
    assert compact([0.1], [10.0])[1] is None


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 30, allow_nan=False), st.floats(0, 300, allow_nan=False)), min_size=1,
                max_size=40),
       st.floats(0.05, 20), st.floats(1, 200), st.floats(1, 5000))
def test_good_throughput_at_most_throughput(pairs, ttft_cap, tpot_cap, tput):
    sample = Sample(np.array([p[0] for p in pairs], np.float32), np.array([p[1] for p in pairs], np.float32), len(pairs))
    rows = pd.DataFrame({"point_id": [1, 2], "total_tokens_per_second_per_gpu": [tput, tput]})
    out, _ = apply_goodput(rows, {1: sample}, Caps(ttft_cap, tpot_cap))
    good = out["total_tokens_per_second_per_gpu"]
    assert pd.isna(good.iloc[0]) or good.iloc[0] <= tput            # NaN: no request met the caps
    assert good.iloc[1] == tput                                     # no per-request data: its summary value
    loose = Caps(max(p[0] for p in pairs) + 1, max(p[1] for p in pairs) + 1)
    assert apply_goodput(rows, {1: sample}, loose)[0]["total_tokens_per_second_per_gpu"].iloc[0] == tput


@pytest.mark.parametrize("text,words", [("ttft=-1", "more than 0"), ("ttft=fast", "not a number"),
                                        ("latency=2", "ttft=SECONDS"), ("ttft=2,ttft=3", "given twice"),
                                        ("tpot=1e9", "at most 60000 ms"), (",", "ttft=SECONDS")])
def test_bad_caps_refused(text, words):
    with pytest.raises(ValueError, match=words):
        caps_from_text(text)


def test_caps_text_round_trip():
    assert check_goodput(" TTFT=2 , tpot=50.0") == "ttft=2,tpot=50" and check_goodput("") == ""
    assert View.from_query({"good": "tpot=40"})[0].goodput == "tpot=40"
    view, notices = View.from_query({"good": "ttft=0"})
    assert view.goodput == "" and any("TTFT cap must be more than 0" in n for n in notices)


@pytest.mark.parametrize("text,words", [("ttft=soon", "--goodput: goodput caps are ttft=SECONDS"),
                                        ("tpot=0", "--goodput: a TPOT cap must be more than 0")])
def test_cli_refuses_bad_goodput(sample_db, text, words):
    captured = cli(sample_db, "crossover", "--goodput", text)
    assert captured.code == 2
    lines = [ln for ln in captured.err.splitlines() if not ln.startswith("note:")]
    assert len(lines) == 1 and lines[0].startswith("error: ") and words in lines[0], captured.err


def test_samples_have_no_per_request_data_and_say_so(sample_db):
    payload = cli_json(sample_db, "crossover", "--goodput", "ttft=2,tpot=50")
    assert payload["goodput_caps"] == []      # nothing to move: no point in view has per-request data
    assert any("have no per-request data: priced at their summary throughput" in n for n in payload["notes"])


def _point(conc: int, tput: float, tpot_ms: float, ttfts: list[float]) -> dict:
    n = len(ttfts)
    out = [21] * n
    lat = [t + tpot_ms / 1000 * 20 for t in ttfts]
    return {"date": "20251104-101500", "backend": "openai", "model_id": "m", "num_prompts": n, "request_rate": "inf",
            "max_concurrency": conc, "duration": 10.0, "completed": n, "failed": 0, "total_input_tokens": 1000 * n,
            "total_output_tokens": 21 * n, "request_throughput": n / 10, "output_throughput": tput / 2,
            "total_token_throughput": tput, "median_tpot_ms": tpot_ms, "median_ttft_ms": 1000 * sorted(ttfts)[n // 2],
            "input_lens": [1000] * n, "output_lens": out, "ttfts": ttfts, "latencies": lat, "errors": [""] * n}


def _flip_store(con, tmp_path):
    """A100: 1.5x H100's throughput, but 60 % of its requests wait 3 s for a first token; H100's all 0.3 s."""
    for hw, scale, slow in (("A100", 1.5, 6), ("H100", 1.0, 0)):
        lines = [json.dumps(_point(conc, tput * scale, tpot, [3.0] * slow + [0.3] * (10 - slow)))
                 for conc, tput, tpot in ((8, 4000, 20.0), (16, 6000, 30.0), (32, 8000, 45.0))]
        (tmp_path / f"{hw}.jsonl").write_text("\n".join(lines) + "\n")
        ingest_file(con, tmp_path / f"{hw}.jsonl", [f"hardware={hw}", "gpus=1"])
    return con


def test_cheapest_flips_as_the_ttft_cap_moves(tmp_path):
    """A (fast, with a TTFT tail: 60 % of requests wait 3 s) against B (two thirds A's throughput, all under
    0.4 s): under a 2 s cap B is cheapest, under 5 s and above A, as in a published write-up's flip."""
    con = _flip_store(connect(":memory:"), tmp_path)
    view = View(rates=(("A100", 2.0), ("H100", 2.0)), interactivity_needed=40.0)
    table = answer_of_view(con, view, None).goodput_caps
    winners = dict(zip(table["ttft_cap_s"], table["cheapest"].str.split(" ").str[0]))
    assert winners[0.5] == winners[1.0] == winners[2.0] == "H100"
    assert winners[5.0] == winners[10.0] == "A100"
    # at 2 s A keeps 40 % of its throughput: $/M = rate / (3600 x good tok/s/GPU / 1e6)
    row = table[table["ttft_cap_s"] == 2.0].iloc[0]
    assert row["runner_up"].startswith("A100") and row["points_with_requests"] == 6
    assert math.isfinite(row["usd_per_good_mtok"]) and row["usd_per_good_mtok"] < row["runner_up_usd_per_good_mtok"]
    shown = for_people(table)     # as the Crossovers page draws it
    assert "Cost [$ per good M tokens]" in shown.columns and "TTFT cap [s]" in shown.columns
    con.close()


def test_crossovers_page_shows_the_caps_table(tmp_path, monkeypatch):
    from tests.test_app import open_page

    db = tmp_path / "good.duckdb"
    _flip_store(connect(str(db)), tmp_path).close()
    monkeypatch.setenv("COSTFRONTIER_DB", str(db))
    at = open_page("views/crossovers.py", {"r": "A100:2,H100:2", "x": "40", "good": "tpot=100"})
    assert not at.exception
    assert any("as the TTFT cap moves" in m.value for m in at.markdown)
    table = next(df.value for df in at.dataframe if "TTFT cap [s]" in df.value.columns)
    assert list(table["Cheapest"].str.split(" ").str[0]) == ["H100", "H100", "H100", "A100", "A100"]
    chart = json.loads(at.get("plotly_chart")[0].proto.spec)            # the chart's axis names the basis too
    assert chart["layout"]["yaxis"]["title"]["text"] == "Cost [$ per good million tokens]"
    box = at.text_input(key="good")
    assert box.value == "tpot=100"
    box.set_value("ttft=soon").run()                   # refused with a notice; the view keeps its caps
    assert not at.exception and any("goodput caps are ttft=SECONDS" in w.value for w in at.warning)
    assert at.text_input(key="good").value == "tpot=100"


def test_guidellm_listed_requests_are_kept(tmp_path):
    """GuideLLM lists (a sample of) each benchmark's successful requests with its computed per-request fields."""
    report = json.loads((ROOT / "tests" / "fixtures" / "formats" / "guidellm_benchmarks.json").read_text())
    ttft_ms = [120.0, 480.0, 2600.0, 90.0, 1500.0]
    itl_ms = [22.0, 41.0, 35.0, 70.0, 18.0]
    report["benchmarks"][0]["requests"]["successful"] = [
        {"time_to_first_token_ms": a, "inter_token_latency_ms": b, "output_tokens": 128} for a, b in zip(ttft_ms, itl_ms)]
    path = tmp_path / "benchmarks.json"
    path.write_text(json.dumps(report))
    con = connect(":memory:")
    ingest_file(con, path, ["hardware=H100", "gpus=1"])
    (pid, sample), = load_samples(con).items()
    assert sample.kept == 5 and sample.requests == 240     # the fixture's successful total
    assert good_fraction(sample, Caps(2.0, 40.0)) == sum(a <= 2000 and b <= 40 for a, b in zip(ttft_ms, itl_ms)) / 5
    notes = con.execute("SELECT notes FROM points WHERE point_id = ?", [pid]).fetchone()[0] or ""
    assert "GuideLLM's file lists 5 of its 240 successful requests (its own sampling)" in notes
    con.close()


def test_a_bad_per_request_value_is_refused_naming_the_request(tmp_path):
    obj = json.loads(DETAILED.read_text())
    obj["ttfts"][17] = None                # the failed request's values are not read
    obj["latencies"][4] = -1.0
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(obj))
    con = connect(":memory:")
    with pytest.raises(IngestError, match=r"line 1, field 'latencies': request 5: '-1\.0' is not a time"):
        ingest_file(con, path, ["hardware=H100", "gpus=1"])
    assert con.execute("SELECT count(*) FROM points").fetchone()[0] == 0
    con.close()


def test_legacy_itls_file_keeps_tpot_from_the_gaps():
    """The legacy benchmark_serving fixture has no latencies: TPOT = sum(itls) / (output tokens - 1)."""
    con = connect(":memory:")
    path = ROOT / "tests" / "fixtures" / "formats" / "vllm_legacy_benchmark_serving.json"
    ingest_file(con, path, ["hardware=H100", "gpus=1"])
    (sample,) = load_samples(con).values()
    obj = json.loads(path.read_text())
    want = [sum(g) / (n - 1) * 1000 for g, n in zip(obj["itls"], obj["output_lens"])]
    assert sample.kept == 8 and np.allclose(sample.tpot_ms, want) and np.allclose(sample.ttft_s, obj["ttfts"])
    con.close()
