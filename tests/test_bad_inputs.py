"""Every broken input in tests/fixtures/bad/ (MANIFEST.csv), through the CLI and through ingest_file.

Refused files: a message naming the file (and line/field where the manifest gives them), CLI exit
code 1, and every table's checksum unchanged. Accepted files: stored, with the warning the manifest
names. Never a traceback. Plus the size limit, the catch-all for unexpected errors, and how text
carrying HTML, Markdown, formulas or SQL is stored (literally) and exported (neutralised).
"""

from __future__ import annotations

import csv
import json
import time
from pathlib import Path

import duckdb
import pytest

import model.data.importers.canonical_csv
import model.data.ingest
import model.data.pipeline
import model.data.uploads
from model.core.frontier import fit_frontiers
from model.data.export import neutralise_formula, safe_csv
from model.data.ingest import IngestError, ingest_file
from model.data.preview import preview
from model.data.store import connect, load_points
from model.data.uploads import line_ends, plain_line_ends
from tests.checksums import table_checksums
from tests.kit import cli, cli_process

BAD = Path(__file__).resolve().parent / "fixtures" / "bad"
MANIFEST = list(csv.DictReader(open(BAD / "MANIFEST.csv", newline="", encoding="utf-8")))
REFUSED = [e for e in MANIFEST if e["outcome"] == "refused"]


def test_manifest_covers_the_corpus():
    files = {p.name for p in BAD.iterdir() if p.name not in ("MANIFEST.csv", "make_corpus.py")}
    assert files == {e["file"] for e in MANIFEST}
    assert len(MANIFEST) >= 40
    assert {e["outcome"] for e in MANIFEST} == {"refused", "accepted", "warning"}
    assert all(e["expected_substring"] for e in MANIFEST)




def _checksums(path: Path) -> dict:
    con = connect(path)
    try:
        return table_checksums(con)
    finally:
        con.close()


@pytest.mark.parametrize("entry", MANIFEST, ids=lambda e: e["file"])
def test_through_the_cli(entry, sample_db):
    before = _checksums(sample_db)
    code, out, err = cli(sample_db, "ingest", BAD / entry["file"])
    assert "Traceback" not in out + err
    if entry["outcome"] == "refused":
        assert code == 1, out + err
        assert entry["expected_substring"] in err, err
        assert f"error: {entry['file']}" in err  # the message starts with the file's name
        if entry["line"]:
            assert f", line {entry['line']}" in err, err
        if entry["field"]:
            assert f"field '{entry['field']}'" in err, err
        assert "nothing from them was stored" in err
        assert _checksums(sample_db) == before
    else:
        assert code == 0, out + err
        assert f"{entry['file']}: " in out and " added as " in out
        assert entry["expected_substring"] in out, out
        if entry["outcome"] == "warning":
            assert "warning:" in out
        after = _checksums(sample_db)
        assert after["points"][0] > before["points"][0]
        assert after["store_versions"][0] == before["store_versions"][0] + 1     # the ingest is one data version
        assert {k: v for k, v in after.items() if k not in ("points", "sources", "store_versions")} == \
            {k: v for k, v in before.items() if k not in ("points", "sources", "store_versions")}


@pytest.mark.parametrize("entry", MANIFEST, ids=lambda e: e["file"])
def test_through_ingest_file(entry, sample_db):
    con = connect(sample_db)
    try:
        before = table_checksums(con)
        path = BAD / entry["file"]
        if entry["outcome"] == "refused":
            with pytest.raises(IngestError) as err:
                ingest_file(con, path)
            exc = err.value
            assert entry["expected_substring"] in exc.message, str(exc)
            assert exc.file == entry["file"] and str(exc).startswith(entry["file"])
            assert exc.line == (int(entry["line"]) if entry["line"] else None), str(exc)
            assert exc.field == (entry["field"] or None), str(exc)
            assert table_checksums(con) == before
            # the connection is still usable and not left inside a transaction
            con.execute("BEGIN")
            con.execute("ROLLBACK")
        else:
            result = ingest_file(con, path)
            assert result.rows_added > 0 and result.source_id is not None
            text = result.summary + "\n" + "\n".join(result.warnings)
            assert entry["expected_substring"] in text, text
            if entry["outcome"] == "warning":
                assert any(entry["expected_substring"] in w for w in result.warnings), result.warnings
            stored = con.execute("SELECT count(*) FROM points WHERE source_id = ?", [result.source_id]).fetchone()[0]
            assert stored == result.rows_added
    finally:
        con.close()


def test_whole_corpus_as_a_directory_in_a_subprocess(sample_db):
    """The installed entry point on the whole directory: one refusal per bad file, no traceback."""
    proc = cli_process(sample_db, "ingest", BAD, timeout=120)
    assert "Traceback" not in proc.stdout + proc.stderr
    assert proc.returncode == 1
    refused_lines = [ln for ln in proc.stderr.splitlines() if ln.startswith("error: ")]
    # every refused corpus file, plus MANIFEST.csv itself (not a benchmark file)
    assert len(refused_lines) == len(REFUSED) + 1, proc.stderr
    for entry in REFUSED:
        assert any(ln.startswith(f"error: {entry['file']}") and entry["expected_substring"] in ln
                   for ln in proc.stderr.splitlines()), entry["file"]


# --------------------------------------------------------------------------- accepted-as-data checks

def _ingested(con, name: str):
    ingest_file(con, BAD / name)
    points = load_points(con, full=True)
    return points[points["source_file"] == name]


def test_sql_in_names_is_stored_literally_and_runs_nothing(sample_db):
    con = connect(sample_db)
    rows = _ingested(con, "sql_in_names.csv")
    assert rows.iloc[0]["framework"] == "sglang'); drop table points; --"  # framework is lower-cased
    assert rows.iloc[0]["model"] == "x' OR '1'='1"
    tables = {r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
    assert {"points", "sources"} <= tables
    assert len(load_points(con)) == 39 + 1
    # the name works as a filter value: a parameter, not SQL
    assert len(load_points(con, {"model": ["x' OR '1'='1"]})) == 1
    con.close()


def test_html_and_markdown_are_stored_as_text(sample_db):
    con = connect(sample_db)
    html = _ingested(con, "html_in_names.csv").iloc[0]
    assert html["framework"] == "<script>alert(1)</script>" and html["notes"] == "<img src=x onerror=alert(1)>"
    md = _ingested(con, "markdown_in_names.csv").iloc[0]
    assert md["framework"] == "**bold** [click](javascript:alert(1))" and md["notes"] == "# Heading"
    ctl = _ingested(con, "control_characters.csv").iloc[0]
    assert ctl["framework"] == "\x1b[31mred\x1b[0m\x07"
    con.close()


def test_formulas_are_stored_literally_and_neutralised_on_export(sample_db):
    con = connect(sample_db)
    rows = _ingested(con, "spreadsheet_formulas.csv").sort_values("source_line")
    assert list(rows["framework"]) == ['=hyperlink("http://evil.example","click")', "@sum(a1:a9)"]
    assert list(rows["notes"]) == ["+cmd|' /C calc'!A0", "-2+3"]
    text = safe_csv(rows)
    exported = list(csv.DictReader(text.splitlines()))
    assert [r["framework"] for r in exported] == ["'" + v for v in rows["framework"]]
    assert [r["notes"] for r in exported] == ["'+cmd|' /C calc'!A0", "'-2+3"]
    # numbers stay numbers, including negative ones written as text
    assert neutralise_formula("-5") == "-5" and neutralise_formula("-1.5e3") == "-1.5e3"
    for value in ("=1+1", "+1+1", "@A1", "\t=1", "\r=1", "-1+1", "=HYPERLINK(\"x\")"):
        assert neutralise_formula(value).startswith("'"), value
    assert neutralise_formula(3.0) == 3.0 and neutralise_formula(None) is None
    con.close()


def test_bom_and_crlf_leave_no_trace_in_values(sample_db):
    con = connect(sample_db)
    bom = _ingested(con, "utf8_bom.csv").iloc[0]
    assert bom["hardware"] == "B200" and bom["gpus"] == 8
    crlf = _ingested(con, "crlf_line_endings.csv").sort_values("source_line")
    assert list(crlf["ttft_p50_s"]) == [0.8, 0.9] and list(crlf["source_line"]) == [2, 3]
    con.close()


def test_duplicated_rows_are_stored_but_count_once_on_the_frontier(sample_db):
    con = connect(sample_db)
    result = ingest_file(con, BAD / "duplicated_rows.csv")
    assert result.rows_added == 3
    assert result.warnings == [
        "1 duplicated row (line 4 repeats line 2): stored as in the file, but identical points count once on "
        "the frontier; remove them if they were pasted twice"]
    points = load_points(con)
    mine = points[points["source_file"] == "duplicated_rows.csv"]
    frontier = fit_frontiers(mine, ("hardware",))
    assert len(frontier) == 2  # (50 tok/s/user, 1000) once, and (40, 1500)
    assert sorted(frontier["interactivity"]) == [40, 50]
    con.close()


def test_unusual_ttft_is_accepted_with_a_visible_warning(sample_db):
    code, out, _ = cli(sample_db, "ingest", BAD / "ttft_800_seconds.csv")
    assert code == 0
    assert "warning: 1 rows have ttft_p50_s above 300 (first at line 2)" in out


def test_decimal_comma_is_refused_but_thousands_separators_are_read(con, tmp_path):
    path = tmp_path / "thousands.csv"
    path.write_text('hardware,gpus,tput_per_gpu,tok_s_user\nB200,8,"4,433.5",50\nB200,8,"1,000,000",20\n')
    ingest_file(con, path)
    assert sorted(load_points(con)["total_tokens_per_second_per_gpu"]) == [4433.5, 1_000_000]
    for bad in ('"1000,5"', '"1,5"', '"12,34,567"'):
        path = tmp_path / "comma.csv"
        path.write_text(f"hardware,gpus,tput_per_gpu,tok_s_user\nB200,8,{bad},50\n")
        with pytest.raises(IngestError, match="decimal comma"):
            ingest_file(con, path)


def test_a_ragged_row_deep_in_a_large_file_is_named(con, tmp_path):
    """DuckDB's reader guesses a dialect from a sample; a bad row far down must still be caught."""
    path = tmp_path / "long.csv"
    good = "B200,8,1000,50\n"
    path.write_text("hardware,gpus,tput_per_gpu,tok_s_user\n" + good * 30_000 + "B200,8,1000\n" + good * 10)
    before = table_checksums(con)
    with pytest.raises(IngestError, match="expected 4 fields") as err:
        ingest_file(con, path)
    assert err.value.line == 30_002
    assert table_checksums(con) == before
    path.write_bytes(("hardware,gpus,tput_per_gpu,tok_s_user\n" + good * 30_000).encode() + b"B200,8,1000,5\xff\n")
    with pytest.raises(IngestError, match="not UTF-8") as err:
        ingest_file(con, path)
    assert err.value.line == 30_002
    # a value that does not fit the type DuckDB guessed from the first rows: named, not a reader error
    path.write_text("hardware,gpus,tput_per_gpu,tok_s_user\n" + good * 30_000 + "B200,8,1000,fifty\n")
    with pytest.raises(IngestError, match="not a number") as err:
        ingest_file(con, path)
    assert (err.value.line, err.value.field) == (30_002, "tok_s_user")
    assert table_checksums(con) == before


def test_blank_lines_and_tabs_are_fine(con, tmp_path):
    path = tmp_path / "tabs.tsv"
    path.write_text("hardware\tgpus\ttput_per_gpu\ttok_s_user\nB200\t8\t1000\t50\n\nB200\t8\t1200\t40\n\n")
    assert ingest_file(con, path).rows_added == 2


# --------------------------------------------------------------------------- size limit

def test_a_1gb_file_is_refused_before_it_is_read(sample_db, tmp_path, monkeypatch):
    huge = tmp_path / "huge.csv"
    with open(huge, "wb") as handle:  # sparse: 1 GiB on paper, a few bytes on disk
        handle.write(b"hardware,gpus,tput_per_gpu,tok_s_user\n")
        handle.truncate(1 << 30)
    monkeypatch.delenv("COSTFRONTIER_MAX_FILE_MB", raising=False)

    def no_reading(*args, **kwargs):
        raise AssertionError("the file was read")

    monkeypatch.setattr(model.data.ingest, "file_facts", no_reading)  # the one read of the file (hash, lines)
    monkeypatch.setattr(model.data.importers.canonical_csv, "read_header", no_reading)
    before = _checksums(sample_db)
    con = connect(sample_db)
    started = time.perf_counter()
    with pytest.raises(IngestError) as err:
        ingest_file(con, huge)
    con.close()
    assert time.perf_counter() - started < 1.0
    assert err.value.message == ("the file is 1,024 MB, over the 512 MB limit (COSTFRONTIER_MAX_FILE_MB); "
                                 "split it into smaller files or raise the limit")
    code, _, err = cli(sample_db, "ingest", huge)
    assert code == 1
    assert "huge.csv: the file is 1,024 MB, over the 512 MB limit (COSTFRONTIER_MAX_FILE_MB)" in err
    assert _checksums(sample_db) == before


def test_the_size_limit_is_configurable(con, tmp_path, monkeypatch):
    path = tmp_path / "two_mb.csv"
    row = "B200,8,1000,50," + "x" * 200 + "\n"
    lines = ["hardware,gpus,tput_per_gpu,tok_s_user,notes\n"]
    lines += [row.replace("1000", str(1000 + i)) for i in range((2 << 20) // len(row) + 1)]
    path.write_text("".join(lines))
    monkeypatch.setenv("COSTFRONTIER_MAX_FILE_MB", "1.5")
    with pytest.raises(IngestError, match=r"over the 1.5 MB limit \(COSTFRONTIER_MAX_FILE_MB\)"):
        ingest_file(con, path)
    monkeypatch.setenv("COSTFRONTIER_MAX_FILE_MB", "3")
    assert ingest_file(con, path).rows_added == len(lines) - 1
    monkeypatch.setenv("COSTFRONTIER_MAX_FILE_MB", "not a number")
    assert model.data.uploads.max_file_mb() == model.data.uploads.DEFAULT_MAX_FILE_MB == 512


def test_the_upload_limit_counts_megabytes_as_streamlit_does(monkeypatch):
    """One unit for every size limit: 2**20 bytes, the megabyte of Streamlit's server.maxUploadSize (its server
    refuses an upload over maxUploadSize * 1024 * 1024 bytes: streamlit/web/server/starlette/starlette_routes.py),
    which .streamlit/config.toml sets to the app's own upload limit."""
    import tomllib

    from tests.conftest import ROOT

    monkeypatch.delenv("COSTFRONTIER_MAX_UPLOAD_MB", raising=False)
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["server"]["maxUploadSize"] == model.data.uploads.max_upload_mb() == 200
    assert model.data.uploads.BYTES_PER_MB == 1_048_576
    monkeypatch.setenv("COSTFRONTIER_MAX_UPLOAD_MB", "-5")
    assert model.data.uploads.max_upload_mb() == 200


# --------------------------------------------------------------------------- unexpected failures

GOOD = "hardware,gpus,tput_per_gpu,tok_s_user\nB200,8,1000,50\n"


@pytest.mark.parametrize("error,words", [
    (ValueError("boom"), "unexpected problem (ValueError: boom); nothing was stored"),
    (duckdb.ConstraintException("Constraint Error: duplicate key"),
     "the database could not store it (Constraint Error: duplicate key); nothing was stored"),
    (MemoryError(), "too large to read into memory"),
    (RecursionError(), "nested too deeply"),
    (PermissionError(13, "Permission denied"), "cannot read the file (Permission denied)"),
])
def test_unexpected_errors_become_ingest_errors_and_roll_back(sample_con, tmp_path, monkeypatch, error, words):
    path = tmp_path / "good.csv"
    path.write_text(GOOD)
    before = table_checksums(sample_con)
    real_insert = model.data.pipeline._insert

    def failing_insert(con, *args, **kwargs):
        real_insert(con, *args, **kwargs)  # the rows are in, inside the transaction...
        raise error                        # ...and then something goes wrong

    monkeypatch.setattr(model.data.pipeline, "_insert", failing_insert)
    with pytest.raises(IngestError) as err:
        ingest_file(sample_con, path)
    assert words in str(err.value) and err.value.file == "good.csv"
    assert table_checksums(sample_con) == before
    monkeypatch.setattr(model.data.pipeline, "_insert", real_insert)
    assert ingest_file(sample_con, path).rows_added == 1


def test_keyboard_interrupt_is_not_swallowed_and_still_rolls_back(sample_con, tmp_path, monkeypatch):
    path = tmp_path / "good.csv"
    path.write_text(GOOD)
    before = table_checksums(sample_con)
    real_insert = model.data.pipeline._insert

    def interrupted(con, *args, **kwargs):
        real_insert(con, *args, **kwargs)
        raise KeyboardInterrupt

    monkeypatch.setattr(model.data.pipeline, "_insert", interrupted)
    with pytest.raises(KeyboardInterrupt):
        ingest_file(sample_con, path)
    assert table_checksums(sample_con) == before


def test_a_json_importer_crash_is_an_ingest_error(sample_con, tmp_path, monkeypatch):
    from model.data import importers

    def broken(*args, **kwargs):
        raise KeyError("model_id")

    monkeypatch.setattr(importers, "parse", broken)
    before = table_checksums(sample_con)
    with pytest.raises(IngestError, match=r"vllm_serve.json: unexpected problem \(KeyError: 'model_id'\)"):
        ingest_file(sample_con, Path(__file__).parent / "fixtures" / "formats" / "vllm_serve.json",
                    ["hardware=H100", "gpus=1"])
    assert table_checksums(sample_con) == before


# --------------------------------------------------------------------------- line ends and repeated JSON keys

@pytest.mark.parametrize("name", ["crlf_last_line_lf.csv", "cr_only_line_endings.csv", "mixed_line_endings.csv"])
def test_every_line_end_reads_like_lf(sample_db, name):
    con = connect(sample_db)
    rows = _ingested(con, name).sort_values("source_line")
    assert list(rows["source_line"]) == [2, 3]
    assert list(rows["ttft_p50_s"]) == [0.8, 0.9] and list(rows["concurrency"]) == [4, 8]
    assert list(rows["hardware"]) == ["B200", "B200"]
    con.close()


@pytest.mark.parametrize("ends", ["\r", "\r\n", "mixed"])
def test_a_bad_value_deep_in_a_cr_or_mixed_file_is_named_by_line_without_a_path(con, tmp_path, monkeypatch, ends):
    monkeypatch.setattr(model.data.uploads, "_LINE_BLOCK", 4096)  # many blocks: CRs split across block edges
    rows = ["hardware,gpus,tput_per_gpu,tok_s_user"] + [f"B200,8,{1000 + i},{50 + i % 7}" for i in range(5000)]
    rows[4001] = "B200,8,fast,50"
    if ends == "mixed":
        text = "".join(r + ("\r\n", "\n", "\r")[i % 3] for i, r in enumerate(rows))
    else:
        text = ends.join(rows) + ends
    path = tmp_path / "mac.csv"
    path.write_bytes(text.encode())
    with pytest.raises(IngestError) as err:
        ingest_file(con, path)
    assert (err.value.line, err.value.field) == (4002, "tput_per_gpu"), str(err.value)
    assert str(tmp_path) not in str(err.value) and "/tmp" not in str(err.value)
    assert "universal-newline" not in str(err.value)
    del rows[4001]
    path.write_bytes(("\r".join(rows) + "\r").encode())
    assert ingest_file(con, path).rows_added == 4999


def test_line_ends_are_classified_by_streaming(tmp_path, monkeypatch):
    monkeypatch.setattr(model.data.uploads, "_LINE_BLOCK", 2)
    cases = {b"a,b\nc,d\n": "lf", b"a,b\r\nc,d\r\n": "crlf", b"a,b": "none", b"a,b\rc,d\r": "mixed",
             b"a,b\r\nc,d\n": "mixed", b"a,b\nc,d\r": "mixed", b"a\r\n\r\nb\r\n": "crlf"}
    for content, expected in cases.items():
        path = tmp_path / "f.csv"
        path.write_bytes(content)
        assert line_ends(path) == expected, content
        with plain_line_ends(path) as plain:
            assert (plain == path) == (expected != "mixed")
            if expected == "mixed":
                assert plain.read_bytes() == content.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        assert path.read_bytes() == content  # the original is never changed


def test_a_repeated_json_key_is_refused_naming_key_and_line(con, tmp_path):
    base = (BAD.parent / "formats" / "vllm_serve.json").read_text()
    pretty = json.dumps(json.loads(base), indent=2).splitlines()
    at = next(i for i, ln in enumerate(pretty) if ln.strip().startswith('"median_ttft_ms"'))
    pretty.insert(at + 1, '  "median_ttft_ms": 1.0,')
    path = tmp_path / "pretty.json"
    path.write_text("\n".join(pretty))
    with pytest.raises(IngestError) as err:
        ingest_file(con, path)
    assert (err.value.file, err.value.line, err.value.field) == ("pretty.json", at + 2, "median_ttft_ms")
    assert str(err.value).startswith("pretty.json, line") and "appears twice" in str(err.value)
    # JSON Lines: the record's own line
    line = json.dumps(json.loads(base))
    bad = line.replace('"duration": ', '"duration": 1, "duration": ', 1)
    path = tmp_path / "runs.jsonl"
    path.write_text("\n".join([line.replace('"max_concurrency": 4', '"max_concurrency": 8'), bad, line]) + "\n")
    with pytest.raises(IngestError) as err:
        ingest_file(con, path)
    assert (err.value.line, err.value.field) == (2, "duration")
    assert con.execute("SELECT count(*) FROM sources").fetchone()[0] == 0
    # the same key in two sibling objects is fine
    path = tmp_path / "siblings.json"
    path.write_text(json.dumps([json.loads(base), {**json.loads(base), "max_concurrency": 8}]))
    assert ingest_file(con, path, ["hardware=H200", "gpus=1"]).rows_added == 2


def test_a_cr_only_upload_previews_by_lines(tmp_path):
    rows = ["hardware,gpus,tput_per_gpu,tok_s_user"] + [f"B200,8,{1000 + i},50" for i in range(3000)]
    path = tmp_path / "mac.csv"
    path.write_bytes(("\r".join(rows) + "\r").encode())
    checked = preview(path, sample_rows=100)
    assert checked.ok, checked.error
    assert checked.sampled and checked.rows_checked == 100
