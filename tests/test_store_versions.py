"""Schema versions and files that are not ours: migrate, or refuse and leave the file byte-identical."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import duckdb
import pytest

from model.core.schema import POINT_FIELDS, SCHEMA_VERSION
from model.data.export import safe_csv
from model.data.ingest import ingest_file
from model.data.snapshot import open_reader, open_snapshot
from model.data.store import (
    StoreError,
    StoreNeedsMigration,
    connect,
    list_sources,
    load_points,
    remove_source,
)
from tests.checksums import table_checksums
from tests.conftest import ROOT
from tests.kit import cli, open_page


def _points(con) -> int:
    return con.execute("SELECT count(*) FROM points").fetchone()[0]


@pytest.fixture
def template(samples_template) -> Path:
    return samples_template


@pytest.fixture
def db(sample_db) -> Path:
    return sample_db


def snapshot(path: Path) -> dict[str, bytes | None]:
    wal = Path(str(path) + ".wal")
    return {"db": path.read_bytes(), "wal": wal.read_bytes() if wal.exists() else None}


def refused(path: Path, words: str, read_only: bool = False) -> str:
    before = snapshot(path)
    with pytest.raises(StoreError, match=words) as err:
        connect(path, read_only=read_only)
    assert snapshot(path) == before, "a refused file must be left byte-identical"
    return str(err.value)


def raw(path: Path, *sql: str) -> None:
    con = duckdb.connect(str(path))
    for statement in sql:
        con.execute(statement)
    con.close()


def version_of(path: Path) -> int:
    con = connect(path)
    try:
        return int(con.execute("SELECT value FROM costfrontier_meta WHERE key = 'schema_version'").fetchone()[0])
    finally:
        con.close()


def test_a_new_database_gets_the_current_version(tmp_path):
    assert version_of(tmp_path / "new.duckdb") == SCHEMA_VERSION == 5


def test_version_1_disaggregated_rows_get_their_role_columns(tmp_path):
    """Up to version 1 a disaggregated row kept input per prefill GPU and output per decode GPU in the
    per-GPU columns; the migration moves them to the role columns and makes the per-GPU columns per
    GPU of both roles (system / gpus). Row: 8 prefill + 8 decode GPUs, input 9412.6 tok/s per prefill
    GPU (75,300.8 tok/s), output 1176.575 per decode GPU (9412.6 tok/s), total 5294.5875 per GPU."""
    path = tmp_path / "v1.duckdb"
    con = connect(path)
    ingest_file(con, ROOT / "tests/fixtures/formats/inferencex_agg_bmk.json")
    con.close()
    raw(path, "UPDATE points SET input_tokens_per_second_per_gpu = input_tokens_per_second_per_prefill_gpu, "
              "output_tokens_per_second_per_gpu = output_tokens_per_second_per_decode_gpu WHERE disaggregated",
        "ALTER TABLE points DROP COLUMN itl_median_ms",      # schema 5's, after the role columns
        "ALTER TABLE points DROP COLUMN input_tokens_per_second_per_prefill_gpu",
        "ALTER TABLE points DROP COLUMN output_tokens_per_second_per_decode_gpu",
        "UPDATE costfrontier_meta SET value = '1'")
    assert version_of(path) == SCHEMA_VERSION
    con = connect(path)
    rows = load_points(con, full=True).sort_values("source_line")
    con.close()
    disagg, single = rows[rows["disaggregated"]].iloc[0], rows[~rows["disaggregated"].astype(bool)].iloc[-1]
    assert disagg["input_tokens_per_second_per_prefill_gpu"] == pytest.approx(9412.6)
    assert disagg["output_tokens_per_second_per_decode_gpu"] == pytest.approx(1176.575)
    assert disagg["input_tokens_per_second_per_gpu"] == pytest.approx(75300.8 / 16)     # 4706.3
    assert disagg["output_tokens_per_second_per_gpu"] == pytest.approx(9412.6 / 16)     # 588.2875
    assert disagg["total_tokens_per_second_per_gpu"] == pytest.approx(5294.5875)
    assert single["output_tokens_per_second_per_decode_gpu"] != single["output_tokens_per_second_per_decode_gpu"]


#: a store as schema version 2 wrote it: no data versions (model.data.versions), no profile history, no pins
UNVERSIONED = ("DROP TABLE store_versions", "DROP TABLE cost_profile_versions", "DROP TABLE pins",
               *(f"ALTER TABLE sources DROP COLUMN {c}" for c in ("purged_in", "removed_in", "added_in")))


def test_version_0_without_the_marker_is_migrated_in_place(db):
    """Version 0: our tables, written before costfrontier_meta existed, and without what was added
    since (here: the last two points columns, sources.set_fields and the published_iso table)."""
    dropped = POINT_FIELDS[-2:]
    con = connect(db)
    before = load_points(con, full=True)
    con.close()
    raw(db, "DROP TABLE costfrontier_meta", "DROP TABLE published_iso", *UNVERSIONED,
        "ALTER TABLE sources DROP COLUMN set_fields", *(f"ALTER TABLE points DROP COLUMN {c}" for c in dropped))
    assert version_of(db) == SCHEMA_VERSION
    con = connect(db)
    columns = [r[0] for r in con.execute("DESCRIBE points").fetchall()]
    assert columns[2:] == list(POINT_FIELDS)
    after = load_points(con, full=True)
    assert len(after) == len(before) == 39
    assert after[list(dropped)].isna().all().all()
    same = [c for c in before.columns if c not in dropped]
    assert after[same].equals(before[same])
    assert table_checksums(con)["published_iso"] == (0, 0)
    # and it works as a database again: ingest, list, remove
    path = db.parent / "new.csv"
    path.write_text("hardware,gpus,tput_per_gpu,tok_s_user,mystery\nB200,8,1000,50,42\n")
    source = ingest_file(con, path, ["notes=after migration"]).source_id
    points = load_points(con, full=True)
    row = points[points["source_id"] == source].iloc[0]
    assert row["notes"] == "after migration" and row["extra"] == '{"mystery":42}'
    assert remove_source(con, source) == 1
    con.close()


def test_version_0_marker_row_is_migrated(db):
    raw(db, "UPDATE costfrontier_meta SET value = '0'")
    assert version_of(db) == SCHEMA_VERSION
    raw(db, "DELETE FROM costfrontier_meta")
    assert version_of(db) == SCHEMA_VERSION


def test_an_old_version_opened_read_only_says_what_to_do(db):
    raw(db, "UPDATE costfrontier_meta SET value = '0'")
    message = refused(db, "needs a migration", read_only=True)
    assert f"costfrontier --db {db} sources" in message
    # which is what that command does, through the write path: migrated once, then read
    assert cli(db, "sources").code == 0
    assert version_of(db) == SCHEMA_VERSION


def test_an_old_layout_that_cannot_be_migrated_is_refused_untouched(db):
    raw(db, "DROP TABLE costfrontier_meta", "ALTER TABLE points ALTER COLUMN hardware TYPE INTEGER USING 1")
    message = refused(db, "cannot migrate")
    assert "table points" in message and "costfrontier export" in message
    raw(db, "ALTER TABLE points DROP COLUMN hardware")
    refused(db, "cannot migrate")


def test_a_newer_version_is_refused_untouched(db):
    raw(db, f"UPDATE costfrontier_meta SET value = '{SCHEMA_VERSION + 1}'")
    message = refused(db, "newer than this Cost Frontier")
    assert "upgrade" in message
    refused(db, "newer", read_only=True)


def test_a_damaged_version_marker_is_refused(db):
    raw(db, "UPDATE costfrontier_meta SET value = 'two'")
    refused(db, "damaged: its schema version is 'two'")


def test_foreign_duckdb_files_are_refused_untouched(tmp_path):
    other = tmp_path / "other.duckdb"
    raw(other, "CREATE TABLE invoices (id INT)", "INSERT INTO invoices VALUES (1)")
    refused(other, "holds other tables \\(invoices\\) and is not a Cost Frontier database")
    # our table names beside a foreign one are not enough to be ours
    mixed = tmp_path / "mixed.duckdb"
    raw(mixed, "CREATE TABLE points (x DOUBLE, y DOUBLE)", "CREATE TABLE sources (id INT)", "CREATE TABLE roads (id INT)")
    refused(mixed, "not a Cost Frontier database")
    # ...and our names with someone else's columns are not migrated over
    lookalike = tmp_path / "lookalike.duckdb"
    raw(lookalike, "CREATE TABLE points (x DOUBLE, y DOUBLE)", "CREATE TABLE sources (id INT)")
    refused(lookalike, "cannot migrate")


@pytest.mark.parametrize("content,words", [
    (b"hello, I am a text file\n", "not a DuckDB database"),
    (b"SQLite format 3\x00" + bytes(4080), "a SQLite database"),
    (b"", "an empty file"),
    (b"\x89PNG\r\n\x1a\n" + bytes(100), "not a DuckDB database"),
])
def test_non_duckdb_files_are_refused_untouched(tmp_path, content, words):
    path = tmp_path / "costfrontier.duckdb"
    path.write_bytes(content)
    refused(path, words)


def test_a_damaged_database_is_refused_untouched(template, tmp_path):
    data = template.read_bytes()
    cases = {
        "truncated": data[: len(data) // 2],
        "header": data[:4096] + bytes(b ^ 0x5A for b in data[4096:4296]) + data[4296:],
        "middle": data[: len(data) // 2] + bytes(b ^ 0xFF for b in data[len(data) // 2: len(data) // 2 + 5000])
        + data[len(data) // 2 + 5000:],
        "tiny": data[:4096],
    }
    for label, content in cases.items():
        path = tmp_path / f"{label}.duckdb"
        path.write_bytes(content)
        refused(path, "damaged|not a Cost Frontier database")


def test_the_cli_reports_a_refused_database_without_a_traceback(tmp_path):
    path = tmp_path / "notes.duckdb"
    path.write_text("my notes")
    code, _, err = cli(path, "sources")
    assert code == 2
    assert err.startswith(f"error: {path}: not a DuckDB database") and "Traceback" not in err
    assert path.read_text() == "my notes"


# --------------------------------------------------------------------------- export / remove / re-ingest

_PROVENANCE = ["point_id", "source_id", "source_file", "source_format", "source_line", "extra"]


def test_export_remove_reingest_round_trips_the_rows(db, tmp_path):
    con = connect(db)
    sources = list_sources(con)
    before = load_points(con, full=True)
    con.close()
    export = tmp_path / "all_points.csv"
    assert cli(db, "export", export).code == 0
    point_sources = sources[sources["kind"] == "points"]["source_id"].tolist()
    for source_id in point_sources:
        assert cli(db, "remove", source_id).code == 0
    con = connect(db)
    assert len(load_points(con)) == 0
    con.close()
    code, out, _ = cli(db, "ingest", export)
    assert code == 0
    assert f"{len(before)} rows added" in out
    con = connect(db)
    after = load_points(con, full=True)
    con.close()
    keep = [c for c in before.columns if c not in _PROVENANCE]

    def canonical(frame):
        return frame[keep].sort_values(["hardware", "interactivity", "total_tokens_per_second_per_gpu"],
                                       na_position="last").reset_index(drop=True)

    left, right = canonical(before), canonical(after)
    for column in keep:
        a, b = left[column], right[column]
        if a.dtype.kind == "f" or str(a.dtype) == "Float64":
            assert ((a - b).abs().fillna(0) <= 1e-9 * a.abs().fillna(0)).all() and a.isna().equals(b.isna()), column
        else:
            assert a.astype(object).where(a.notna(), None).tolist() == \
                b.astype(object).where(b.notna(), None).tolist(), column
    # the export of the re-ingested rows is the same CSV apart from provenance
    drop = [c for c in _PROVENANCE if c in before.columns]
    assert safe_csv(canonical(before.drop(columns=drop))) == safe_csv(canonical(after.drop(columns=drop)))


# --------------------------------------------------------------------------- read-only mode writes nothing

def folder_state(folder: Path) -> dict[str, tuple[bytes, int]]:
    """Every file in the folder (hidden ones too): its bytes and mode."""
    return {p.name: (p.read_bytes(), p.stat().st_mode) for p in sorted(folder.iterdir())}


def _leftover_wal(db: Path, csv: Path) -> None:
    """Ingest ``csv`` and die before the checkpoint: the rows are only in ``db.wal`` (what a killed
    writer of an older version leaves)."""
    code = ("import os, sys; from model.data.store import connect; from model.data.ingest import ingest_file\n"
            "con = connect(sys.argv[1]); con.execute(\"SET checkpoint_threshold = '1TB'\")\n"
            "ingest_file(con, sys.argv[2], ['model=GLM-5']); os._exit(0)")
    subprocess.run([sys.executable, "-c", code, str(db), str(csv)], cwd=ROOT, check=True)
    assert Path(str(db) + ".wal").stat().st_size > 0


def _points_csv(path: Path) -> Path:
    path.write_text("hardware,gpus,tput_per_gpu,tok_s_user\nB200,8,1000,50\nB200,8,900,60\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("case", ["missing", "older_schema", "leftover_wal", "chmod_444"])
def test_read_only_mode_writes_nothing(case, template, tmp_path, monkeypatch):
    folder = tmp_path / "store"
    folder.mkdir()
    db = folder / "costfrontier.duckdb"
    sample_points = 39  # every points row of data/samples (29 InferenceX + 7 + 3 Wafer)
    expect = {"missing": 0, "older_schema": None, "leftover_wal": sample_points + 2, "chmod_444": sample_points}[case]
    if case != "missing":
        shutil.copy(template, db)
    if case == "older_schema":
        raw(db, "DROP TABLE costfrontier_meta", "DROP TABLE published_iso")
    if case == "leftover_wal":
        _leftover_wal(db, _points_csv(tmp_path / "in_wal.csv"))
    if case == "chmod_444":
        db.chmod(0o444)
    before = folder_state(folder)
    monkeypatch.setenv("COSTFRONTIER_READ_ONLY", "1")
    monkeypatch.setenv("COSTFRONTIER_DB", str(db))

    # the dashboard's way in: a Reader, and connect() (which gives a read-only live connection in this mode)
    reader = open_reader(db)
    if expect is None:
        with pytest.raises(StoreNeedsMigration, match="needs a migration") as err:
            reader.current()
        assert "upgrade" in err.value.public and str(folder) not in err.value.public
    else:
        snap = reader.current()
        assert (snap.changed_at is None) == (case == "missing")
        assert _points(snap.con.cursor()) == expect
        assert _points(connect(db).cursor()) == expect
    reader.close()

    # the command line: read commands read (or say why not), write commands refuse
    code, _, err = cli(db, "sources")
    if case == "missing":
        assert code == 2 and "no database there, and a read does not create one" in err
    elif case == "older_schema":
        assert code == 2 and "needs a migration" in err and "without COSTFRONTIER_READ_ONLY" in err
    else:
        assert code == 0, err
    code, _, err = cli(db, "ingest", _points_csv(tmp_path / "new.csv"))
    assert code == 2
    assert "COSTFRONTIER_READ_ONLY is set, so this command, which writes, was refused" in err
    assert cli(db, "remove", "1").code == 2

    assert folder_state(folder) == before, "read-only mode must leave the database and its folder byte-identical"


def test_read_only_dashboard_serves_a_chmod_444_database_and_explains_a_missing_one(template, tmp_path, monkeypatch):
    db = tmp_path / "ro.duckdb"
    shutil.copy(template, db)
    db.chmod(0o444)
    before = folder_state(tmp_path)
    monkeypatch.setenv("COSTFRONTIER_READ_ONLY", "1")
    monkeypatch.setenv("COSTFRONTIER_DB", str(db))
    at = open_page()
    assert not at.exception
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Rows in view"] == "29"  # the InferenceX table: 29 rows in the default workload
    monkeypatch.setenv("COSTFRONTIER_DB", str(tmp_path / "nothing_here.duckdb"))
    at = open_page()
    assert not at.exception and "Rows in view" not in {m.label for m in at.metric}
    assert folder_state(tmp_path) == before


def test_a_writer_absorbs_a_leftover_wal_and_publishes_one_file(template, tmp_path):
    db = tmp_path / "w.duckdb"
    shutil.copy(template, db)
    _leftover_wal(db, _points_csv(tmp_path / "in_wal.csv"))
    other = tmp_path / "other.csv"
    other.write_text("hardware,gpus,tput_per_gpu,tok_s_user\nMI355X,8,1100,40\n", encoding="utf-8")
    assert cli(db, "ingest", other).code == 0
    assert not Path(str(db) + ".wal").exists()
    con = open_snapshot(db)
    assert _points(con) == 39 + 2 + 1
    con.close()


def test_permission_denied_is_called_that(template):
    """An unreadable file, and a read-only file in a folder this user cannot write: "permission denied",
    never "damaged". Root reads and writes anything, so as root the command runs without the capabilities
    that bypass file permissions: it is then held to the permission bits like any user, and can still read
    a checkout and a virtualenv in a private mode-700 directory (mktemp -d), which another user could not."""
    folder = Path(tempfile.mkdtemp(prefix="cf-perm-"))
    try:
        db = folder / "costfrontier.duckdb"
        shutil.copy(template, db)
        as_root = os.geteuid() == 0
        if as_root and not shutil.which("setpriv"):
            pytest.skip("running as root and util-linux's setpriv is missing: cannot drop the DAC capabilities")
        limited = ["setpriv", "--bounding-set", "-dac_override,-dac_read_search"] if as_root else []
        env = {**os.environ, "HOME": str(folder), "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1"}
        if as_root:
            probe = subprocess.run([*limited, sys.executable, "-c", "import duckdb, pandas, model.cli"], cwd=ROOT,
                                   text=True, capture_output=True, env=env)
            if probe.returncode:
                pytest.skip(f"cannot run without the DAC capabilities here: {probe.stderr.strip().splitlines()[-1:]}")
        db.chmod(0o000)

        def run(*argv: str) -> subprocess.CompletedProcess:
            return subprocess.run([*limited, sys.executable, "-m", "model.cli", "--db", str(db), *argv], cwd=ROOT,
                                  text=True, capture_output=True, env=env)

        unreadable = run("sources")
        assert unreadable.returncode == 2 and "permission denied" in unreadable.stderr, unreadable.stderr
        assert "damaged" not in unreadable.stderr
        db.chmod(0o444)
        folder.chmod(0o555)          # a read-only file in a folder this user cannot write
        served = run("sources")
        assert served.returncode == 0 and "inferencex_glm5_fp8_2026-05-20.csv" in served.stdout, served.stderr
        refused_write = run("remove", "1")
        assert refused_write.returncode == 2 and "permission denied" in refused_write.stderr, refused_write.stderr
        assert sorted(p.name for p in folder.iterdir()) == ["costfrontier.duckdb"]
    finally:
        folder.chmod(0o755)
        shutil.rmtree(folder, ignore_errors=True)
