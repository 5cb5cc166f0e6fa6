"""Issue 19: the ingest reads a file once for its hash, line ends and record count, and stores exactly
what it stored when it read the file three times (real DuckDB files, no mocks of DuckDB)."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import model.data.ingest as ingest_module
from model.data.importers.canonical_csv import quick_records
from model.data.ingest import FileFacts, IngestError, file_facts, ingest_file, sha256_of
from model.data.samples import sample_files
from model.data.snapshot import write
from model.data.store import connect
from model.data.uploads import line_ends
from tests.checksums import table_checksums

EDGES = [b"", b"a", b"a,b\n", b"a,b\nc,d", b"a,b\r\nc,d\r\n", b"a,b\rc,d\r", b"a,b\r\nc,d\n", b"a,b\nc,d\r",
         b"a\r\n\r\nb\r\n", b"a\n\nb\n", b'a,"b\nc"\n', b"\xef\xbb\xbfa,b\n1,2\n", b"a,b\n\xff,1\n",
         b"a,\xc3\xa9\n1,2\n", b"\r", b"\n", b"\r\n", b"\n\r\n", b"x\r\r\n"]


def _three_reads(path) -> FileFacts:
    return FileFacts(sha256_of(path), line_ends(path), quick_records(path))


def test_one_read_agrees_with_the_three_on_edge_cases(tmp_path):
    path = tmp_path / "f.csv"
    for content in EDGES:
        path.write_bytes(content)
        expected = _three_reads(path)
        assert expected.sha256 == hashlib.sha256(content).hexdigest()
        for block in (1, 2, 3, 5, 1 << 23):  # every block boundary a pattern can straddle
            assert file_facts(path, block) == expected, (content, block)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([b"a", b",", b"1", b"\n", b"\r", b"\r\n", b'"', b"\xc3\xa9", b"\xc3", b"\xff"]),
                max_size=40), st.integers(1, 9))
def test_one_read_agrees_with_the_three_on_random_bytes(tmp_path_factory, parts, block):
    path = tmp_path_factory.mktemp("facts") / "f.csv"
    path.write_bytes(b"".join(parts))
    assert file_facts(path, block) == _three_reads(path)


def _stored(db) -> list[tuple]:
    con = connect(db)
    try:
        return con.execute("SELECT * FROM points ORDER BY point_id").fetchall()
    finally:
        con.close()


def test_rows_stored_from_the_one_read_equal_those_from_the_full_scan(tmp_path, monkeypatch):
    """The record count from the one read lets the CSV skip the full Python scan; the rows stored, the
    warnings and the count are the same as when the scan is forced (the path every quoted file takes)."""
    rows = ["hardware,framework,precision,gpus,tp,concurrency,isl,osl,tput_per_gpu,tok_s_user,ttft_ms,tpot_ms"]
    rows += [f"{hw},vllm,fp8,8,{tp},{c},8192,1024,{700 + 3 * c + tp}.5,{90 / (1 + c / 100):.3f},{100 + c},{11 + c / 50:.2f}"
             for hw in ("H100", "B200", "MI355X") for tp in (1, 2, 4, 8) for c in range(1, 1500)]
    rows.append(rows[7])   # line 8 again: a duplicate warning naming both lines
    generated = tmp_path / "generated.csv"
    generated.write_text("\r\n".join(rows) + "\r\n", encoding="utf-8")
    files = [*sample_files(), generated]
    quick_db, scanned_db = tmp_path / "quick.duckdb", tmp_path / "scanned.duckdb"

    con = connect(quick_db)
    quick = [ingest_file(con, f) for f in files]
    con.close()
    assert quick[-1].rows_added == len(rows) - 1
    assert quick[-1].warnings == [f"1 duplicated row (line {len(rows)} repeats line 8): stored as in the file, but "
                                  "identical points count once on the frontier; remove them if they were pasted twice"]
    counted = file_facts(generated)
    assert counted.records == len(rows) - 1 and counted.line_ends == "crlf"

    real = ingest_module.file_facts
    monkeypatch.setattr(ingest_module, "file_facts", lambda path: real(path)._replace(records=None))
    con = connect(scanned_db)
    scanned = [ingest_file(con, f) for f in files]
    con.close()

    assert [(r.rows_added, r.warnings, r.unknown_columns) for r in quick] == \
        [(r.rows_added, r.warnings, r.unknown_columns) for r in scanned]
    stored = _stored(quick_db)
    assert len(stored) == sum(r.rows_added for r in quick if r.kind == "points") > len(rows)
    assert stored == _stored(scanned_db)


def test_a_bad_last_row_found_after_the_one_read_leaves_the_store_unchanged(sample_db, tmp_path):
    """The one read counts the records and lets DuckDB's reader through; a bad value on the last line
    is still named by line and field, and the published store is what it was (nothing stored)."""
    rows = ["hardware,gpus,concurrency,tput_per_gpu,tok_s_user"]
    rows += [f"B200,8,{c},{900 + c}.5,{50 + c / 100:.2f}" for c in range(1, 30_000)]
    rows.append("B200,8,30000,lots,12.5")
    path = tmp_path / "late_error.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    assert file_facts(path).records == 30_000
    con = connect(sample_db)
    before = table_checksums(con)
    con.close()
    with pytest.raises(IngestError) as err:
        write(sample_db, lambda con: ingest_file(con, path))
    assert (err.value.line, err.value.field) == (30_001, "tput_per_gpu")
    assert err.value.message == "not a number (got 'lots')"
    con = connect(sample_db)
    assert table_checksums(con) == before
    con.close()
