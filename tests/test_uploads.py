"""Bounds on one upload: the column limit, the sampled preview, and file names that are not UTF-8."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from model.cli import main
from model.data.ingest import IngestError
from model.data.preview import preview
from model.data.snapshot import open_snapshot
from model.data.uploads import DEFAULT_MAX_COLUMNS, PREVIEW_ROWS, check_upload_shape

HEADER = "hardware,gpus,tput_per_gpu,tok_s_user"


def wide_csv(path: Path, columns: int) -> Path:
    """A header of ``columns`` columns (the four we read, then c4, c5, ...) and two data rows."""
    names = HEADER.split(",") + [f"c{i}" for i in range(4, columns)]
    row = ["B200", "8", "1000", "50"] + ["1"] * (columns - 4)
    path.write_text(",".join(names) + "\n" + ",".join(row) + "\n" + ",".join(row).replace("1000", "900", 1) + "\n",
                    encoding="utf-8")
    return path


def test_a_100000_column_csv_is_refused_at_once_and_changes_nothing(sample_db, tmp_path, capsys):
    wide = wide_csv(tmp_path / "wide.csv", 100_000)
    assert 1_000_000 < wide.stat().st_size < 3_000_000  # the 2.4 MB file of the issue, give or take
    before = sample_db.read_bytes()
    assert main(["--db", str(sample_db), "ingest", str(wide)]) == 1
    err = capsys.readouterr().err
    assert f"wide.csv, line 1: 100,000 columns, over the limit of {DEFAULT_MAX_COLUMNS:,} (COSTFRONTIER_MAX_COLUMNS)" \
        in err, err
    assert sample_db.read_bytes() == before
    result = preview(wide)
    assert not result.ok and "100,000 columns" in result.error


def test_the_column_limit_counts_columns_not_quoted_commas(tmp_path, monkeypatch):
    at_limit = wide_csv(tmp_path / "at.csv", DEFAULT_MAX_COLUMNS)
    assert check_upload_shape(at_limit) == DEFAULT_MAX_COLUMNS
    with pytest.raises(IngestError, match=f"{DEFAULT_MAX_COLUMNS + 1:,} columns"):
        check_upload_shape(wide_csv(tmp_path / "over.csv", DEFAULT_MAX_COLUMNS + 1))
    quoted = tmp_path / "quoted.csv"
    quoted.write_text('"a,' + "," * 2000 + '",b,c\n1,2,3\n', encoding="utf-8")
    assert check_upload_shape(quoted) == 3
    monkeypatch.setenv("COSTFRONTIER_MAX_COLUMNS", "3")
    with pytest.raises(IngestError, match="4 columns, over the limit of 3"):
        check_upload_shape(wide_csv(tmp_path / "four.csv", 4))


def test_a_file_name_that_is_not_utf8_is_ingested_under_a_readable_name(sample_db, tmp_path):
    name = b"r\xe9sultat_latin1.csv"  # Latin-1 "résultat": not valid UTF-8
    path = Path(os.fsdecode(os.path.join(os.fsencode(tmp_path), name)))
    path.write_text(HEADER + "\nB200,8,1000,50\nB200,8,900,60\n", encoding="utf-8")
    assert main(["--db", str(sample_db), "ingest", str(path)]) == 0
    con = open_snapshot(sample_db)
    stored = con.execute("SELECT file_name, rows FROM sources WHERE file_name LIKE 'r%sultat_latin1.csv'").fetchall()
    con.close()
    assert stored == [("r\ufffdsultat_latin1.csv", 2)]
    assert preview(path).ok


def test_the_preview_checks_a_bounded_sample_as_the_ingest_would(tmp_path):
    rows = PREVIEW_ROWS * 3
    big = tmp_path / "big.csv"
    big.write_text(HEADER + "\n" + "".join(f"B200,8,{1000 + i},{50 + i % 40}\n" for i in range(rows)),
                   encoding="utf-8")
    result = preview(big)
    assert result.ok and result.sampled and result.rows_checked == PREVIEW_ROWS and result.records is None
    assert len(result.points) == 20 and result.points["hardware"].eq("B200").all()
    small = tmp_path / "small.csv"
    small.write_text(HEADER + "\nB200,8,1000,50\nB200,8,-5,60\n", encoding="utf-8")
    refused = preview(small)
    assert not refused.ok and "line 3" in refused.error and "greater than 0" in refused.error
    whole = preview(tmp_path / "big.csv", sample_rows=rows)
    assert whole.ok and not whole.sampled and whole.records == rows


def test_the_data_age_text():
    from datetime import datetime, timedelta, timezone

    from model.data.snapshot import changed_text

    at = datetime(2026, 5, 20, 14, 3, tzinfo=timezone.utc)
    assert changed_text(at, at + timedelta(seconds=30)) == "Data last changed 2026-05-20 14:03 UTC (just now)"
    assert changed_text(at, at + timedelta(minutes=3, seconds=59)).endswith("(3 min ago)")
    assert changed_text(at, at + timedelta(hours=5)).endswith("(5 h ago)")
    assert changed_text(at, at + timedelta(days=2, hours=1)).endswith("(2 days ago)")
    assert changed_text(None) == "No data yet"
