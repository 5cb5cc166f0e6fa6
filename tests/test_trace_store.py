"""Issue 38: traces within bounds. A request trace is read streaming (DuckDB's CSV reader, two aggregating passes),
aggregated to what sizing reads (requests per minute, token totals), and kept in the store: a view carries a
16-character reference (``s1;...``) instead of the trace (115,241 characters for the upload's largest); a link with
an inline trace (``t1;...``) keeps working; a reference this store does not hold is said, never a traceback. A
token count past the bound (10 M tokens a request) is refused naming file, row, field and the bound.

Oracles: a naive count, done here with Python's csv module and datetime arithmetic, of traces generated here with
random seeds (the streaming reader must agree on every one); the sizing of the bundled samples' MI355X ramp
(tests/test_cli_demand.py) on the same trace inline and stored. Peak memory and time are measured by
``bench/bench_trace.py``, not here."""

from __future__ import annotations

import csv
import io
import random
import warnings
from datetime import datetime, timedelta

import pytest

from model.core.trace import (
    MAX_TOKENS_PER_REQUEST,
    Trace,
    TraceError,
    is_reference,
)
from model.core.view import View
from model.data.snapshot import write
from model.data.store import connect
from model.data.trace_files import read_trace, read_trace_file
from model.data.traces import TraceNotStored, load_trace, store_trace, with_stored_trace
from model.data.versions import list_versions
from tests.kit import cli, cli_json, open_page
from tests.test_cli_demand import RAMP


def _generated(seed: int, dated: bool) -> str:
    rng = random.Random(seed)
    start = datetime(2023, 11, 16, 0, 0, 0)
    rows = ["TIMESTAMP,ContextTokens,GeneratedTokens" if dated else "timestamp,input_tokens,output_tokens"]
    for _ in range(rng.randint(1, 400)):
        t = rng.uniform(0, rng.choice([59, 600, 86_400]))
        stamp = f"{(start + timedelta(seconds=t)).strftime('%Y-%m-%d %H:%M:%S.%f')}0" if dated else f"{t + 1000:.3f}"
        rows.append(f"{stamp},{rng.randint(0, 30_000)},{rng.randint(0, 2_000)}")
    return "\n".join(rows) + "\n"


def _naive(text: str) -> tuple[tuple[int, ...], float, float]:
    """Requests per minute from the first request and the token totals, by hand."""
    rows = list(csv.reader(io.StringIO(text)))[1:]
    dated = "-" in rows[0][0]
    times = [datetime.strptime(r[0][:26], "%Y-%m-%d %H:%M:%S.%f").timestamp() if dated else float(r[0]) for r in rows]
    first = min(times)
    bins = [int((t - first) // 60) for t in times]
    counts = [0] * (max(bins) + 1)
    for b in bins:
        counts[b] += 1
    return tuple(counts), float(sum(int(r[1]) for r in rows)), float(sum(int(r[2]) for r in rows))


@pytest.mark.parametrize("seed", range(12))
def test_the_streaming_reader_agrees_with_a_naive_count(seed):
    text = _generated(seed, dated=seed % 2 == 0)
    trace = read_trace(text, "t.csv")
    assert (trace.counts, trace.input_tokens, trace.output_tokens) == _naive(text)


def test_absurd_token_counts_are_refused_naming_file_row_field_and_bound(tmp_path):
    path = tmp_path / "huge.csv"
    path.write_text("timestamp,input_tokens,output_tokens\n0,100,5\n1,1e308,5\n2,1e308,5\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")           # no NumPy overflow warning (it printed a library path)
        with pytest.raises(TraceError) as caught:
            read_trace_file(path, path.name)
    assert str(caught.value) == ("huge.csv, row 3, field input_tokens: '1e308' tokens is more than a request holds "
                                 f"(at most {MAX_TOKENS_PER_REQUEST:,} tokens a request, input or output)")
    at_bound = read_trace("timestamp,input_tokens,output_tokens\n0,10000000,10000000\n", "ok.csv")
    assert at_bound.input_tokens == at_bound.output_tokens == 1e7


def test_rows_the_reader_refuses_are_named(tmp_path):
    cases = {"timestamp,input_tokens,output_tokens\n0,1,2\n5,6,7,8\n": "t.csv: not a CSV file (Error tokenizing "
             "data. C error: Expected 3 fields in line 3, saw 4)",
             "timestamp,input_tokens,output_tokens\n0,nan,2\n": "t.csv, row 2, field input_tokens: 'nan' is not a "
             "token count", "timestamp,input_tokens,output_tokens\n0,1,2\n70,6\n": "t.csv, row 3, field "
             "output_tokens: an empty value is not a token count", "": "t.csv: not a CSV file (it is empty)"}
    for text, said in cases.items():
        with pytest.raises(TraceError) as caught:
            read_trace(text, "t.csv")
        assert str(caught.value).startswith(said), (text, str(caught.value))
        assert str(tmp_path.parent) not in str(caught.value) and "/tmp" not in str(caught.value)


def test_a_stored_trace_is_named_by_a_short_reference_once_per_content(tmp_path):
    trace = read_trace(_generated(3, dated=True), "azure.csv")
    db = tmp_path / "t.duckdb"
    reference = write(db, lambda con: store_trace(con, trace))
    assert is_reference(reference) and len(reference) == 19 and len(trace.to_text()) > 10 * len(reference)
    assert write(db, lambda con: store_trace(con, trace)) == reference                  # held: no second write
    con = connect(db)
    try:
        log = list_versions(con)
        assert log["action"].tolist() == ["trace"] and log["what"].tolist() == [f"azure.csv ({reference})"]
        assert load_trace(con, reference) == trace
        view = View().replace(trace=reference)
        assert view.to_query()["trace"] == reference
        assert with_stored_trace(con, view).trace == trace.to_text()
        with pytest.raises(TraceNotStored, match=r"request trace \(s1;0000000000000000\) is not in this store"):
            with_stored_trace(con, View().replace(trace="s1;0000000000000000"))
    finally:
        con.close()


def test_a_view_naming_a_stored_trace_sizes_as_the_trace_itself_and_an_inline_link_still_works(sample_db, tmp_path):
    text = _generated(5, dated=True)
    trace = read_trace(text, "azure.csv")
    reference = write(sample_db, lambda con: store_trace(con, trace))
    file = tmp_path / "azure.csv"
    file.write_text(text)

    def size(*argv) -> list[dict]:
        return cli_json(sample_db, "size", *argv, "--min-nodes", "0", *RAMP)["rows"]

    from_file = size("--trace", str(file))
    assert size("--trace", reference) == from_file
    assert size("--trace", trace.to_text()) == from_file                # an old-style inline trace
    assert from_file[0]["demand_rps"] > 0
    code, _, err = cli(sample_db, "size", "--trace", "s1;0123456789abcdef", *RAMP)
    assert code == 2
    assert "request trace (s1;0123456789abcdef) is not in this store" in err and "Traceback" not in err


def test_the_dashboard_opens_a_stored_trace_by_reference_and_says_when_it_is_not_held(sample_db, monkeypatch):
    monkeypatch.setenv("COSTFRONTIER_DB", str(sample_db))
    trace = read_trace(_generated(7, dated=False), "gen.csv")
    reference = write(sample_db, lambda con: store_trace(con, trace))
    at = open_page("views/fleet.py", {"trace": reference, "sla": "ttft_p95:5", "wl": "GLM-5.2|20000|1000",
                                      "hw": "MI355X"})
    assert not at.exception
    infos = [i.value.replace("\\", "") for i in at.info]          # the answer sized the stored trace's requests
    assert any(f"The trace's requests average ISL {trace.mean_isl:,.0f} (the view's 20,000)" in i for i in infos), infos
    captions = [c.value.replace("\\", "") for c in at.caption]          # as drawn: markdown escapes taken out
    assert any(trace.words() in c and "Kept in the data" in c for c in captions), captions
    missing = open_page("views/fleet.py", {"trace": "s1;0123456789abcdef"})
    assert not missing.exception
    said = [w.value.replace("\\", "") for w in missing.warning]
    assert any("request trace (s1;0123456789abcdef) is not in this store" in w and "opens without it" in w
               for w in said), said


def test_an_inline_trace_round_trips_as_before():
    trace = Trace("x.csv", (3, 0, 2), 500.0, 40.0)
    assert Trace.from_text(trace.to_text()) == trace and not is_reference(trace.to_text())
    assert is_reference(trace.reference) and not is_reference("s1;XYZ")
