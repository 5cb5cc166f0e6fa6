"""Bounds on one upload: the column limit, the sampled preview, and file names that are not UTF-8."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from model.data.ingest import IngestError
from model.data.preview import dry_run, preview
from model.data.snapshot import open_snapshot
from model.data.uploads import DEFAULT_MAX_COLUMNS, PREVIEW_ROWS, check_upload_shape, starts_json
from tests.kit import cli

HEADER = "hardware,gpus,tput_per_gpu,tok_s_user"


def wide_csv(path: Path, columns: int) -> Path:
    """A header of ``columns`` columns (the four we read, then c4, c5, ...) and two data rows."""
    names = HEADER.split(",") + [f"c{i}" for i in range(4, columns)]
    row = ["B200", "8", "1000", "50"] + ["1"] * (columns - 4)
    path.write_text(",".join(names) + "\n" + ",".join(row) + "\n" + ",".join(row).replace("1000", "900", 1) + "\n",
                    encoding="utf-8")
    return path


def test_a_100000_column_csv_is_refused_at_once_and_changes_nothing(sample_db, tmp_path):
    wide = wide_csv(tmp_path / "wide.csv", 100_000)
    assert 1_000_000 < wide.stat().st_size < 3_000_000  # the 2.4 MB file of the issue, give or take
    before = sample_db.read_bytes()
    code, _, err = cli(sample_db, "ingest", wide)
    assert code == 1
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
    assert cli(sample_db, "ingest", path).code == 0
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


def big_vllm_json(path: Path, megabytes: float = 5.0) -> Path:
    """A vLLM ``--save-result`` file on one line, made ``megabytes`` large by its per-request arrays
    (as ``--save-detailed`` writes them): no newline before the end, so no "header line"."""
    base = json.loads((Path(__file__).parent / "fixtures" / "formats" / "vllm_serve.json").read_text())
    count = int(megabytes * 1024 * 1024 / 36)  # two arrays of ~18-byte numbers
    base["latencies"] = [2.4787123456789 + i * 1e-9 for i in range(count)]
    base["queue_times"] = [0.0012345678912 + i * 1e-9 for i in range(count)]
    path.write_text(json.dumps(base))
    return path


def test_a_5mb_one_line_json_is_judged_as_json_not_by_a_header_line(sample_db, tmp_path):
    big = big_vllm_json(tmp_path / "vllm_5mb.json")
    size = big.stat().st_size
    assert 5 * 1024 * 1024 <= size < 6 * 1024 * 1024 and big.read_bytes().count(b"\n") == 0
    assert check_upload_shape(big) == 0  # JSON: not counted as columns
    checked = preview(big, ["hardware=H100", "gpus=8"])
    assert checked.ok, checked.error
    assert (checked.format, checked.rows_checked, checked.sampled) == ("vllm", 1, False)
    shown = dry_run(big, ("hardware=H100", "gpus=8"))
    assert shown["ok"] and shown["rows"] == 1, shown
    # the CLI and the upload agree
    code, out, _ = cli(sample_db, "ingest", big, "--set", "hardware=H100", "--set", "gpus=8")
    assert code == 0
    assert "vllm_5mb.json: 1 row added" in out
    # a leading BOM and blank lines do not hide the JSON
    padded = tmp_path / "padded.json"
    padded.write_bytes(b"\xef\xbb\xbf\n\n  " + big.read_bytes())
    assert check_upload_shape(padded) == 0 and starts_json(padded)


def test_a_wide_csv_is_still_refused_by_its_header(tmp_path):
    wide = wide_csv(tmp_path / "wide.json", 5000)  # the name does not matter: the content does
    assert not starts_json(wide)
    with pytest.raises(IngestError, match="5,000 columns"):
        check_upload_shape(wide)
