"""Ingest against a real DuckDB file: samples, aliases, --set, duplicates, atomic refusal."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from model.core.schema import BenchmarkPoint
from model.data.ingest import IngestError, ingest_file, parse_set_fields
from model.data.samples import sample_files
from model.data.store import connect, list_sources, load_points
from tests.checksums import table_checksums


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("path", sample_files(), ids=lambda p: p.name)
def test_every_reference_file_ingests_as_is(con, path):
    result = ingest_file(con, path)
    assert result.rows_added > 0 and result.duplicate_of is None


def test_samples_land_in_their_tables(sample_con):
    counts = {k: v[0] for k, v in table_checksums(sample_con).items()}
    # 29 InferenceX + 7 ramp + 3 other points; 30 published iso values; 45 + 7 (2026-09) rates; 6 eval scores
    assert counts["points"] == 39 and counts["published_iso"] == 30
    assert counts["tco_rates"] == 52 and counts["evals"] == 6


def test_wafer_ramp_units_and_provenance(sample_con):
    ramp = load_points(sample_con, {"hardware": ["MI355X"], "request_rate_rps": ["2.4"]})
    row = ramp.iloc[0]
    # 2626 generated tok/s per 8-GPU node -> 328.25 tok/s/GPU
    assert row["output_tokens_per_second"] == 2626 and row["output_tokens_per_second_per_gpu"] == 2626 / 8
    assert (row["tp"], row["dp"]) == (4, 2)
    assert row["ttft_p95_s"] == 2.22 and row["prefix_cache_hit_rate"] == 0.6
    assert row["source_file"] == "wafer_glm52_mxfp4_ramp.csv" and row["source_line"] == 7


def test_long_format_value_unit_and_workload_text(sample_con):
    other = load_points(sample_con, {"scenario": ["10k in / 1.5k out single stream"]})
    row = other.iloc[0]
    assert row["interactivity"] == 213 and (row["isl"], row["osl"]) == (10000, 1500)
    assert row["spec_decoding"] == "mtp" and "5/1/6" not in row["spec_decoding"]


def test_aliases_units_and_derivations(con, tmp_path):
    path = write(tmp_path, "mine.csv",
                 "GPU,Num GPUs,Conc,Total Token Throughput,Median TPOT ms,Median TTFT ms,Spec Decode,mystery\n"
                 "AMD Instinct MI355X,8,16,8000,20,1500,MTP,42\n")
    result = ingest_file(con, path)
    assert result.unknown_columns == ["mystery"]
    row = load_points(con, full=True).iloc[0]
    assert row["hardware"] == "MI355X" and row["spec_decoding"] == "mtp"
    assert row["total_tokens_per_second_per_gpu"] == 1000     # 8000 tok/s over 8 GPUs
    assert row["interactivity"] == 50                         # 1000 / 20 ms
    assert row["ttft_p50_s"] == 1.5                           # 1500 ms
    assert json.loads(row["extra"]) == {"mystery": 42}


def test_set_fills_what_a_file_lacks(con, tmp_path):
    path = write(tmp_path, "nohw.csv", "conc,tok/s,tok_s_user\n4,4000,80\n")
    with pytest.raises(IngestError) as err:
        ingest_file(con, path)
    assert err.value.line == 2 and err.value.field == "hardware"
    result = ingest_file(con, path, ["hardware=h200", "gpus=4"])
    assert result.rows_added == 1
    row = load_points(con, full=True).iloc[0]
    assert row["hardware"] == "H200" and row["total_tokens_per_second_per_gpu"] == 1000


def test_reingest_adds_nothing_and_says_so(con):
    path = sample_files()[0]
    first = ingest_file(con, path)
    before = table_checksums(con)
    again = ingest_file(con, path)
    assert again.duplicate_of == first.source_id and again.rows_added == 0
    assert "already ingested" in again.summary
    assert table_checksums(con) == before


@pytest.mark.parametrize("text,line,field,words", [
    ("hardware,tok_s_user,tput_per_gpu\nB200,50,1000\nB200,abc,900\n", 3, "tok_s_user", "not a number"),
    ("hardware,tok_s_user,tput_per_gpu\nB200,50,1000\nB200,40,-5\n", 3, "tput_per_gpu", "greater than 0"),
    ("hardware,tok_s_user,tput_per_gpu\nB200,50,1000\nB200,40,1e30\n", 3, "tput_per_gpu", "implausible"),
    ("hardware,tok_s_user,tput_per_gpu\nB200,50,1000\nB200,inf,900\n", 3, "tok_s_user", "finite"),
    ("hardware,tp,tput_per_gpu,tok_s_user\nB200,2.5,1000,50\n", 2, "tp", "whole number"),
    ("hardware,tok_s_user,tput_per_gpu\n,50,1000\n", 2, "hardware", "missing"),
    ("hardware,conc,tput_per_gpu\nB200,4,\n", 2, "throughput", "no measurement"),
    # issue 10: a canonical CSV with no throughput column at all is refused, naming what a frontier needs
    ("hardware,framework,conc,tok_s_user\nB200,vllm,4,50\nB200,vllm,8,40\n", 1, "throughput",
     "no throughput column: a frontier needs tok/s per GPU"),
    # issue 10: a part above its total is impossible (a per-request rate stored as a system rate)
    ("hardware,gpus,tok_s_user,total_token_throughput,input_throughput\nB200,8,50,181.6,170\n"
     "B200,8,40,181.6,1411168\n", 3, "input_throughput", "input tok/s exceeds total tok/s"),
    ("hardware,gpus,tok_s_user,total_token_throughput,output_throughput\nB200,8,50,1000,1200\n", 2,
     "output_throughput", "output tok/s exceeds total tok/s"),
])
def test_bad_rows_name_line_and_field_and_change_nothing(sample_con, tmp_path, text, line, field, words):
    before = table_checksums(sample_con)
    path = write(tmp_path, "bad.csv", text)
    with pytest.raises(IngestError) as err:
        ingest_file(sample_con, path)
    assert (err.value.line, err.value.field) == (line, field)
    assert words in str(err.value) and "bad.csv" in str(err.value)
    assert table_checksums(sample_con) == before


@pytest.mark.parametrize("content,words", [
    (b"", "empty"),
    (b"hardware,tput_per_gpu,tok_s_user\n", "no data rows"),
    (b"\xff\xfeh\x00w\x00", "UTF-16"),
    (b"\x00\x01\x02garbage", "binary"),
])
def test_unreadable_files_are_refused_cleanly(sample_con, tmp_path, content, words):
    before = table_checksums(sample_con)
    path = tmp_path / "broken.csv"
    path.write_bytes(content)
    with pytest.raises(IngestError, match=words):
        ingest_file(sample_con, path)
    assert table_checksums(sample_con) == before


def test_bom_and_semicolons_are_read(con, tmp_path):
    path = tmp_path / "excel.csv"
    path.write_bytes("\ufeffhardware;tput_per_gpu;tok_s_user\nB300;1200;40\n".encode("utf-8"))
    ingest_file(con, path)
    assert load_points(con, full=True).iloc[0]["hardware"] == "B300"


def test_database_path_from_environment(tmp_path, monkeypatch):
    from tests.kit import cli

    target = tmp_path / "env.duckdb"
    monkeypatch.setenv("COSTFRONTIER_DB", str(target))
    assert cli(None, "ingest", sample_files()[0]).code == 0
    con = connect(target)
    assert len(list_sources(con)) == 1
    con.close()


def test_not_our_database_is_refused_and_untouched(tmp_path):
    import duckdb

    from model.data.store import StoreError

    other = tmp_path / "other.duckdb"
    raw = duckdb.connect(str(other))
    raw.execute("CREATE TABLE invoices (id INT)")
    raw.close()
    before = other.read_bytes()
    with pytest.raises(StoreError, match="not a Cost Frontier database"):
        connect(other)
    assert other.read_bytes() == before
    text = tmp_path / "notes.duckdb"
    text.write_text("hello")
    with pytest.raises(StoreError):
        connect(text)
    assert text.read_text() == "hello"


# The bulk SQL path and the pydantic model must agree: same derivations, same refusals.
_row = st.fixed_dictionaries({
    "hardware": st.sampled_from(["b200", "MI355X", "h100-sxm", "AMD Instinct MI300X"]),
    "gpus": st.one_of(st.none(), st.integers(1, 16)),
    "tpot_median_ms": st.one_of(st.none(), st.floats(0.5, 500)),
    "total_tokens_per_second": st.one_of(st.none(), st.floats(-10, 1e5)),
    "concurrency": st.one_of(st.none(), st.integers(-1, 512)),
})


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(row=_row)
def test_sql_pipeline_agrees_with_pydantic_model(tmp_path_factory, row):
    tmp = tmp_path_factory.mktemp("agree")
    con = connect(tmp / "a.duckdb")
    header = ",".join(row)
    values = ",".join("" if v is None else repr(v) for v in row.values())
    path = write(tmp, "one.csv", f"{header}\n{values}\n")
    try:
        model = BenchmarkPoint(**{k: v for k, v in row.items() if v is not None})
    except Exception:
        model = None
    try:
        ingest_file(con, path)
        stored = load_points(con, full=True).iloc[0]
    except IngestError:
        stored = None
    if model is not None:
        assert stored is not None, row
        assert stored["hardware"] == model.hardware
        for name in ("interactivity", "total_tokens_per_second_per_gpu"):
            expected = getattr(model, name)
            assert (expected is None and stored[name] != stored[name]) or stored[name] == pytest.approx(expected)
    if model is None:
        assert stored is None, row
    con.close()


def test_set_values_are_typed_and_checked():
    assert parse_set_fields(["hardware=mi355x", "gpus=8", "disaggregated=true"]) == \
        {"hardware": "MI355X", "gpus": 8, "disaggregated": True}
    with pytest.raises(IngestError, match="gpus"):
        parse_set_fields(["gpus=-1"])
    with pytest.raises(IngestError, match="unknown field"):
        parse_set_fields(["colour=red"])
