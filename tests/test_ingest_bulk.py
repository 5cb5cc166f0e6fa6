"""Issue 32: many small files staged and validated together (model.data.bulk.ingest_many) store exactly what
ingest_file stores one file at a time, refuse a bad file alone naming its file, line and field, and keep
each run of files atomic (real DuckDB files)."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest

import model.data.bulk as bulk
from model.data.bulk import ingest_many
from model.data.ingest import IngestError, ingest_file
from model.data.store import connect

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_HEADER = (ROOT / "data" / "samples" / "inferencex_glm5_fp8_2026-05-20.csv").read_text().splitlines()[0]


def sweep(folder: Path, count: int, start: int = 0) -> list[Path]:
    """``count`` two-line CSVs with the bundled InferenceX sample's columns."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for f in range(start, start + count):
        path = folder / f"run{f:04d}.csv"
        path.write_text(f"{SAMPLE_HEADER}\nB200,sglang,fp8,mtp,8,8,8192,1024,{4 + f},{400 + f}.5,{90 - f / 10:g},9.9,1.3\n")
        paths.append(path)
    return paths


def mixed(folder: Path) -> list[Path]:
    """Clean files with bad, odd and repeated ones between them: every way out of the bulk path."""
    paths = sweep(folder, 3)
    extra = {
        "a_bad.csv": "hardware,tput_per_gpu,tok_s_user,gpus\nH100,100,20,8\nH100,-5,21,8\n",   # refused at line 3
        "b_warn.csv": "hardware,tput_per_gpu,tok_s_user,gpus,ttft_ms\nH100,100,20,8,900000\n",   # stored, warned
        "c_repeated_rows.csv": "hardware,tput_per_gpu,tok_s_user,gpus\nH100,100,20,8\nH100,100,20,8\n",
        "d_crlf.csv": "hardware,tput_per_gpu,tok_s_user,gpus\r\nH200,120,25,8\r\n",
        "e_quoted.csv": 'hardware,tput_per_gpu,tok_s_user,gpus,notes\nH200,130,26,8,"a, b"\n',
        "f_semicolon.csv": "hardware;tput_per_gpu;tok_s_user;gpus;run_date\nh100;1e2;20;8;20260105\n",
        "g_no_interactivity.csv": "hardware,tput_per_gpu,gpus\nH100,100,8\n",
        "h_future.csv": "hardware,tput_per_gpu,tok_s_user,gpus,run_date\nH100,100,20,8,2062-01-01\n",
        "i_text.csv": "hardware,tput_per_gpu,tok_s_user,gpus\nH100,fast,20,8\n",
        "j_header_only.csv": "hardware,tput_per_gpu,tok_s_user,gpus\n",
    }
    for name, text in extra.items():
        (folder / name).write_bytes(text.encode())
    shutil.copy(paths[1], folder / "k_same_bytes.csv")
    shutil.copy(ROOT / "tests" / "fixtures" / "formats" / "vllm_serve.json", folder / "l_vllm.json")
    return sorted([*paths, *(folder / n for n in extra), folder / "k_same_bytes.csv", folder / "l_vllm.json",
                   *sweep(folder, 2, start=10)])


def one_by_one(con, paths, set_fields=None):
    out = []
    for path in paths:
        try:
            out.append(ingest_file(con, path, set_fields))
        except IngestError as exc:
            out.append(exc)
    return out


def said(outcome) -> str:
    return f"{outcome}" if isinstance(outcome, IngestError) else f"{outcome.summary} {outcome.warnings}"


def tables(con) -> tuple[list, list]:
    """Every source and point as stored, but when and in which data version: a run of clean files is one
    transaction, so one version, where one file at a time makes one each (checked below)."""
    return (con.execute("SELECT * EXCLUDE (ingested_at, added_in) FROM sources ORDER BY source_id").fetchall(),
            con.execute("SELECT * FROM points ORDER BY point_id").fetchall())


def test_the_bulk_path_stores_and_says_what_one_file_at_a_time_does(tmp_path):
    paths = mixed(tmp_path / "in")
    alone, together = connect(tmp_path / "a.duckdb"), connect(tmp_path / "b.duckdb")
    expected = one_by_one(alone, paths, ["gpus=8"])
    got = ingest_many(together, paths, ["gpus=8"])
    assert [said(o) for o in got] == [said(o) for o in expected]
    assert tables(together) == tables(alone)
    # every file alone is a version; together, each run of clean files between two files that go alone is one
    versions_alone = alone.execute("SELECT count(DISTINCT added_in), count(*) FROM sources").fetchone()
    versions_together = together.execute("SELECT count(DISTINCT added_in), count(*) FROM sources").fetchone()
    assert versions_alone[0] == versions_alone[1] and versions_together[1] == versions_alone[1]
    assert versions_together[0] < versions_together[1]
    assert together.execute("SELECT count(*) FROM store_versions").fetchone()[0] == versions_together[0]
    by_name = {p.name: o for p, o in zip(paths, got)}
    bad = by_name["a_bad.csv"]
    assert isinstance(bad, IngestError) and (bad.file, bad.line, bad.field) == ("a_bad.csv", 3, "tput_per_gpu")
    assert by_name["k_same_bytes.csv"].duplicate_of == by_name["run0001.csv"].source_id
    assert by_name["b_warn.csv"].warnings and by_name["c_repeated_rows.csv"].warnings
    stored = [r[1] for r in tables(together)[0]]
    assert "a_bad.csv" not in stored and "h_future.csv" not in stored and "run0011.csv" in stored
    # source ids follow the files' order, bulk runs and files taken alone alike
    assert stored == sorted(stored)


def test_clean_files_take_the_bulk_path_and_a_rerun_adds_nothing(tmp_path, monkeypatch):
    paths = sweep(tmp_path / "in", 40)
    bad = tmp_path / "in" / "run0020.csv"
    bad.write_text(f"{SAMPLE_HEADER}\nB200,sglang,fp8,mtp,8,8,8192,1024,4,1e-9,90,9.9,1.3\n")
    alone: list[str] = []
    monkeypatch.setattr(bulk, "ingest_file", lambda con, path, *a, **k: alone.append(path.name) or
                        ingest_file(con, path, *a, **k))
    con = connect(tmp_path / "s.duckdb")
    got = ingest_many(con, paths)
    assert alone == ["run0020.csv"]   # only the bad file went alone, to be named
    assert str(got[20]).startswith("run0020.csv, line 2, field 'tput_per_gpu'")
    assert [o.source_id for o in got if not isinstance(o, IngestError)] == list(range(1, 40))
    assert con.execute("SELECT count(*), count(DISTINCT source_id) FROM points").fetchone() == (39, 39)
    # the file's values, converted as a one-file ingest converts them (system tok/s = per GPU x 8 GPUs)
    assert con.execute("SELECT interactivity, total_tokens_per_second_per_gpu, total_tokens_per_second, tp, "
                       "concurrency, source_line FROM points JOIN sources USING (source_id) "
                       "WHERE file_name = 'run0007.csv'").fetchone() == (89.3, 407.5, 3260.0, 8, 11.0, 2)
    again = ingest_many(con, paths)
    assert [o.duplicate_of for o in again if not isinstance(o, IngestError)] == list(range(1, 40))
    assert con.execute("SELECT count(*) FROM sources").fetchone() == (39,)


@pytest.mark.parametrize("failure", [KeyboardInterrupt, duckdb.ConversionException])
def test_a_run_is_stored_whole_or_not_at_all(tmp_path, monkeypatch, failure):
    paths = sweep(tmp_path / "in", 4)
    con = connect(tmp_path / "s.duckdb")
    calls = []

    def breaks(*args, **kw):
        calls.append(1)
        raise failure("query interrupted at the points insert")

    monkeypatch.setattr(bulk, "insert_points", breaks)
    if failure is KeyboardInterrupt:   # Ctrl-C: nothing of the run is stored, and it stops
        with pytest.raises(KeyboardInterrupt):
            ingest_many(con, paths)
        assert con.execute("SELECT count(*) FROM sources").fetchone() == (0,)
    else:   # anything else: the run is undone and each file goes alone
        got = ingest_many(con, paths)
        assert calls == [1] and [o.source_id for o in got] == list(range(1, 5))
        assert con.execute("SELECT count(*) FROM points").fetchone() == (4,)
