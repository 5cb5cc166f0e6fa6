"""Goodput from AIPerf's per-request records (``profile_export.jsonl``), read with the run's summary; and the
cheapest as the TTFT cap moves in the answer's tables, the report and ``crossover --json``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from model.core.goodput import Caps, good_fraction
from model.core.view import View
from model.data.database import connect
from model.data.importers.base import NotResults
from model.data.ingest import IngestError, ingest_file
from model.data.requests import load_samples
from model.present.report import build_report
from model.present.tables import CAPS_SPEC, CAPS_TABLE, rounded, table_of, tables
from model.present.view_answer import answer_of_view
from tests.kit import cli, cli_json

ROOT = Path(__file__).resolve().parents[1]
RUN = ROOT / "tests" / "fixtures" / "goodput" / "aiperf"
SUMMARY = RUN / "profile_export_aiperf.json"
RECORDS = RUN / "profile_export.jsonl"
H100 = ["hardware=H100", "gpus=1"]


def _raw(path: Path = RECORDS) -> tuple[list[float], list[float]]:
    """(TTFT s, TPOT ms) of the completed requests, counted straight from the records: error null, TTFT and
    latency in ms, TPOT = (latency - TTFT) / (OSL - 1)."""
    ttft, tpot = [], []
    for text in path.read_text().splitlines():
        record = json.loads(text)
        if record["error"] is not None:
            continue
        m = record["metrics"]
        first, total, n = (m["time_to_first_token"]["value"], m["request_latency"]["value"],
                           m["output_sequence_length"]["value"])
        ttft.append(first * 1e-3)
        tpot.append((total * 1e-3 - first * 1e-3) / (n - 1) * 1000.0)
    return ttft, tpot


@pytest.fixture(scope="module")
def run():
    con = connect(":memory:")
    ingest_file(con, SUMMARY, H100)
    yield con
    con.close()


def test_the_summary_keeps_its_records_completed_requests(run):
    (pid, sample), = load_samples(run).items()
    ttft, tpot = _raw()
    summary = json.loads(SUMMARY.read_text())
    assert sample.requests == sample.kept == 16 == summary["request_count"]["avg"]    # the failed one is not read
    assert sample.ttft_s.tolist() == pytest.approx(ttft, rel=1e-12)
    assert sample.tpot_ms.tolist() == pytest.approx(tpot, rel=1e-9)
    # AIPerf's own per-request inter_token_latency is the same TPOT
    stated = [json.loads(t)["metrics"]["inter_token_latency"]["value"] for t in RECORDS.read_text().splitlines()
              if json.loads(t)["error"] is None]
    assert sample.tpot_ms.tolist() == pytest.approx(stated, rel=1e-6)
    notes = run.execute("SELECT notes FROM points WHERE point_id = ?", [pid]).fetchone()[0]
    assert "per-request TTFT and TPOT of the 16 completed requests from profile_export.jsonl (TPOT = " \
           "(request_latency - time_to_first_token) / (output_sequence_length - 1)" in notes


@pytest.mark.parametrize("ttft_cap,tpot_cap", [(0.5, 30.0), (1.0, None), (None, 20.0), (2.0, 25.0), (0.3, 18.0),
                                               (3.0, 40.0), (0.05, 10.0)])
def test_stored_fraction_equals_a_count_over_the_raw_records(run, ttft_cap, tpot_cap):
    (sample,) = load_samples(run).values()
    ttft, tpot = _raw()
    good = sum(1 for a, b in zip(ttft, tpot) if (ttft_cap is None or a <= ttft_cap) and (tpot_cap is None or b <= tpot_cap))
    assert good_fraction(sample, Caps(ttft_cap, tpot_cap)) == good / 16


def test_good_throughput_is_throughput_times_the_share_and_never_more(run):
    plain = answer_of_view(run, View(), None)
    ttft, tpot = _raw()
    base = float(plain.rows.rows["total_tokens_per_second_per_gpu"].iloc[0])
    summary = json.loads(SUMMARY.read_text())    # output tok/s as AIPerf states it; input = total ISL / duration
    assert base == pytest.approx(summary["output_token_throughput"]["avg"]
                                 + summary["total_isl"]["avg"] / summary["benchmark_duration"]["avg"])
    for caps in ("ttft=0.5,tpot=30", "ttft=2,tpot=25", "ttft=10,tpot=100"):
        capped = answer_of_view(run, View(goodput=caps), None)
        c = Caps(*(float(v.split("=")[1]) for v in caps.split(",")))
        share = sum(1 for a, b in zip(ttft, tpot) if a <= c.ttft_s and b <= c.tpot_ms) / 16
        good = float(capped.rows.rows["total_tokens_per_second_per_gpu"].iloc[0])
        assert good == pytest.approx(base * share) and good <= base
    assert share == 1.0 and good == base           # every request met the loosest caps


def test_a_folder_ingest_reads_the_records_with_the_summary(db_path):
    done = cli(db_path, "ingest", RUN, "--set", "hardware=H100", "--set", "gpus=1")
    assert done.code == 0
    lines = done.lines
    assert lines[0] == ("profile_export.jsonl: per-request records (AIPerf), read with profile_export_aiperf.json "
                        "beside it (for goodput), not stored on its own")
    assert lines[1].startswith("profile_export_aiperf.json: 1 row added as points (aiperf, source #1)")
    con = connect(db_path)
    try:
        (sample,) = load_samples(con).values()
        assert sample.kept == 16
    finally:
        con.close()


def test_records_alone_are_refused_naming_the_summary(con):
    with pytest.raises(NotResults, match="ingest profile_export_aiperf.json .* its completed requests' TTFT and "
                                         "TPOT are kept for goodput"):
        ingest_file(con, RECORDS, H100)
    assert con.execute("SELECT count(*) FROM points").fetchone()[0] == 0


def _copy(tmp_path: Path, edit=None, stem: str = "profile_export") -> Path:
    """The run in ``tmp_path`` (records named ``stem``.jsonl), each record passed through ``edit(i, record)``
    (returning the record, a line of text, or None to drop it); returns the summary's path."""
    summary = tmp_path / ("profile_export_aiperf.json" if stem == "profile_export" else f"{stem}.json")
    shutil.copy(SUMMARY, summary)
    out = []
    for i, text in enumerate(RECORDS.read_text().splitlines(), 1):
        record = json.loads(text)
        record = edit(i, record) if edit else record
        if record is not None:
            out.append(record if isinstance(record, str) else json.dumps(record))
    (tmp_path / f"{stem}.jsonl").write_text("\n".join(out) + "\n")
    return summary


def _set(line: int, tag: str, **values):
    def edit(i, record):
        if i == line:
            record["metrics"][tag].update(values)
        return record
    return edit


@pytest.mark.parametrize("edit,where,words", [
    (_set(5, "time_to_first_token", value="fast"), "line 5, field 'metrics.time_to_first_token'",
     "'fast' is not a time of at least 0"),
    (_set(2, "request_latency", value=-3.0), "line 2, field 'metrics.request_latency'", "not a time of at least 0"),
    (_set(7, "time_to_first_token", unit="fortnights"), "line 7, field 'metrics.time_to_first_token.unit'",
     "unknown time unit 'fortnights'"),
    (_set(3, "request_latency", value=1.0), "line 3, field 'metrics.request_latency'", "is below its time_to_first"),
    (lambda i, r: '{"metadata": {"benchmark_phase": "profiling"}, "metrics": {' if i == 9 else r, "line 9",
     "not a JSON record"),
    (lambda i, r: {**r, "metrics": []} if i == 4 else r, "line 4, field 'metrics'", "needs a 'metrics' object"),
])
def test_a_malformed_record_is_refused_and_nothing_stored(con, tmp_path, edit, where, words):
    summary = _copy(tmp_path, edit)
    with pytest.raises(IngestError) as err:
        ingest_file(con, summary, H100)
    assert str(err.value).startswith(f"profile_export.jsonl, {where}: ") and words in str(err.value)
    assert con.execute("SELECT count(*) FROM points").fetchone()[0] == 0
    assert not load_samples(con)


def test_failed_and_warm_up_records_are_not_read(con, tmp_path):
    """A failed record's metrics are never read (even nonsense); a warm-up record is not the run's."""
    failed = next(i for i, t in enumerate(RECORDS.read_text().splitlines(), 1) if json.loads(t)["error"])

    def edit(i, record):
        if i == failed:
            record["metrics"] = {"time_to_first_token": {"value": "n/a", "unit": "parsecs"}}
        return record
    summary = _copy(tmp_path, edit)
    lines = (tmp_path / "profile_export.jsonl").read_text()
    warm = json.loads(lines.splitlines()[0])
    warm["metadata"]["benchmark_phase"] = "warmup"
    warm["metrics"]["time_to_first_token"]["value"] = 0.001
    (tmp_path / "profile_export.jsonl").write_text(json.dumps(warm) + "\n" + lines)
    ingest_file(con, summary, H100)
    (sample,) = load_samples(con).values()
    assert sample.kept == 16 and sample.ttft_s.tolist() == pytest.approx(_raw()[0])


def test_records_of_another_run_are_not_kept_and_said(con, tmp_path):
    summary = _copy(tmp_path, lambda i, r: None if i == 1 else r)     # 15 completed records, the summary says 16
    ingest_file(con, summary, H100)
    assert not load_samples(con)
    notes = con.execute("SELECT notes FROM sources").fetchone()[0]
    assert ("profile_export.jsonl beside it holds 15 completed requests where the summary counts 16: not this run's "
            "records, so no per-request data were kept") in notes


def test_a_custom_prefix_pairs_its_files(con, tmp_path):
    ingest_file(con, _copy(tmp_path, stem="h100_c4"), H100)            # --profile-export-prefix h100_c4
    (sample,) = load_samples(con).values()
    assert sample.kept == 16


def test_a_non_streaming_run_keeps_no_records_and_says_why(con, tmp_path):
    def edit(i, record):
        record["metrics"].pop("time_to_first_token", None)
        return record
    ingest_file(con, _copy(tmp_path, edit), H100)
    assert not load_samples(con)
    assert "no completed record states time_to_first_token (a non-streaming run)" in \
        con.execute("SELECT notes FROM sources").fetchone()[0]


# --------------------------------------------------------------------------- the caps table everywhere


@pytest.fixture(scope="module")
def flip_db(tmp_path_factory) -> Path:
    """tests/test_goodput.py's store where the cheapest flips with the TTFT cap, written once for this module."""
    from tests.test_goodput import _flip_store

    folder = tmp_path_factory.mktemp("flip")
    _flip_store(connect(str(folder / "flip.duckdb")), folder).close()
    return folder / "flip.duckdb"


FLIP = View(rates=(("A100", 2.0), ("H100", 2.0)), interactivity_needed=40.0, goodput="tpot=100")


def test_the_caps_table_is_in_the_tables_the_report_and_its_downloads(flip_db):
    con = connect(str(flip_db))
    answer = answer_of_view(con, FLIP, None)
    page = answer.goodput_caps                                   # what the Crossovers page and the CLI show
    frame, spec = tables(answer)[CAPS_TABLE]
    assert spec == CAPS_SPEC and len(frame) == len(page) == 5
    for column in page.columns:
        assert frame[column].tolist() == page[column].tolist()
    assert set(frame["interactivity"]) == {40.0}
    down = rounded(answer, CAPS_TABLE)
    assert [c.split(" ")[0] for c in down["Cheapest"]] == ["H100", "H100", "H100", "A100", "A100"]
    assert down["TTFT cap [s]"].tolist() == [0.5, 1.0, 2.0, 5.0, 10.0] and set(down["TPOT cap [ms]"]) == {100.0}
    # $/good M at 2 s: H100 keeps every request, so its $/M is the rate over its throughput at 40 tok/s/user
    h100 = answer.cost.iso[(answer.cost.iso["series"].str.startswith("H100")) & (answer.cost.iso["interactivity"] == 40.0)]
    assert page.loc[page["ttft_cap_s"] == 2.0, "usd_per_good_mtok"].iloc[0] == pytest.approx(
        float(h100["usd_per_mtok"].iloc[0]))
    report = build_report(answer)
    assert f"<h3>{CAPS_TABLE}</h3>" in report.html and 'id="goodput-caps"' in report.html
    assert report.tables[CAPS_TABLE].equals(down)               # the report's CSV/XLSX table is the download
    con.close()


def test_a_view_without_caps_has_no_caps_table_in_its_report(flip_db):
    con = connect(str(flip_db))
    answer = answer_of_view(con, FLIP.replace(goodput=""), None)
    assert CAPS_TABLE not in tables(answer)                     # the report does not price good tokens
    assert table_of(answer, CAPS_TABLE) is not None             # the page's download still has it
    con.close()


def test_crossover_json_rows_equal_the_tables(tmp_path):
    from tests.test_goodput import _flip_store

    db = tmp_path / "flip.duckdb"

    _flip_store(connect(str(db)), tmp_path).close()
    command = ["crossover", "--rate", "A100=2", "--rate", "H100=2", "--interactivity", "40", "--goodput", "tpot=100"]
    payload = cli_json(db, *command)["goodput_caps"]
    code, text, _ = cli(db, *command)
    assert code == 0                        # no two curves cross here: the table is printed all the same
    table = text.split("as the TTFT cap moves [$ per good M tokens]:\n")[1].split("\n\n")[0].splitlines()[1:]
    assert [line.split()[2] for line in table] == [r["cheapest"] for r in payload]
    con = connect(str(db))
    frame, _ = tables(answer_of_view(con, FLIP, None))[CAPS_TABLE]
    con.close()
    assert [r["cheapest"] for r in payload] == frame["cheapest"].tolist()
    assert [r["usd_per_good_mtok"] for r in payload] == pytest.approx(frame["usd_per_good_mtok"].tolist())


def test_the_csv_summary_reads_its_records_too(con, tmp_path):
    """AIPerf's CSV summary (statistics, then ``Metric,Value``) beside the records: the same 16 requests."""
    _copy(tmp_path).unlink()                                   # the records only; the CSV stands for the JSON
    s = json.loads(SUMMARY.read_text())
    (tmp_path / "profile_export_aiperf.csv").write_text(
        "Metric,avg,min,max,p50,p90,p99\n"
        + "".join(f"{label} (ms),{s[tag]['avg']},{s[tag]['min']},{s[tag]['max']},{s[tag]['p50']},{s[tag]['p90']},"
                  f"{s[tag]['p99']}\n" for label, tag in (("Time to First Token", "time_to_first_token"),
                                                          ("Inter Token Latency", "inter_token_latency"),
                                                          ("Request Latency", "request_latency")))
        + f"\nMetric,Value\nBenchmark Duration (sec),{s['benchmark_duration']['avg']}\n"
          f"Output Token Throughput (tokens/sec),{s['output_token_throughput']['avg']}\nRequest Count,16.00\n")
    ingest_file(con, tmp_path / "profile_export_aiperf.csv", [*H100, "concurrency=4"])
    (sample,) = load_samples(con).values()
    assert sample.kept == 16 and sample.ttft_s.tolist() == pytest.approx(_raw()[0])
