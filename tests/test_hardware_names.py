"""Issue 38: a hardware name that no option, link or page could name is refused at ingest, naming file, row and
field. Ingest stored such names (a zero-width space, a bell, a name with '='), and then ``report --rate NAME=USD``
exited 2 ("--rate: the hardware name '' is empty"): the rows could never be priced. A stored name is printable text
of 1 to 120 characters without '=' (the rule ``--rate``, links and the rates page apply,
:func:`model.core.names.name_problem`), as canonical names are.

The real CLI (``model.cli.main``) on real DuckDB files: one file alone, ``--set``, and a directory of small files
on the bulk path (only the bad file is refused)."""

from __future__ import annotations

import pytest

from tests.conftest import reading
from tests.kit import cli, cli_json

HEADER = "hardware,model,tp,gpus,concurrency,tput_per_gpu,tok_s_user\n"


def _csv(path, hardware: str, rows: int = 1, first: int = 300):
    path.write_text(HEADER + "".join(f"{hardware},GLM-5,8,8,{4 * (k + 1)},{first + k},{50 - k}\n"
                                     for k in range(rows)), encoding="utf-8")
    return path


def _hardware(db) -> list[str]:
    with reading(db) as con:
        return sorted(r[0] for r in con.execute("SELECT DISTINCT hardware FROM points").fetchall())


@pytest.mark.parametrize("name, said", [
    ("\u200b", "'\\u200b' holds a control or invisible character"),
    ("\x07", "'\\x07' holds a control or invisible character"),
    ("\ufeffGPU", "'\\ufeffGPU' holds a control or invisible character"),
    ("=", "'=' holds '=', which --rate HW=USD cannot name"),
    ("x" * 121, "is longer than 120 characters"),
])
def test_an_unnameable_hardware_name_is_refused_naming_file_row_and_field(tmp_path, name, said):
    db = tmp_path / "h.duckdb"
    good = _csv(tmp_path / "good.csv", "B200", rows=2)
    bad = tmp_path / "bad.csv"
    bad.write_text(HEADER + "B200,GLM-5,8,8,4,300,50\n" + f"{name},GLM-5,8,8,8,310,45\n", encoding="utf-8")
    assert cli(db, "ingest", good).code == 0
    code, _, err = cli(db, "ingest", bad)
    assert code == 1
    assert "error: bad.csv, line 3, field 'hardware': the hardware name " in err and said in err, err
    assert "a hardware name is printable text of 1 to 120 characters" in err
    assert _hardware(db) == ["B200"]                                   # nothing of the bad file
    with reading(db) as con:
        assert con.execute("SELECT count(*) FROM sources").fetchone()[0] == 1


def test_an_unnameable_set_hardware_is_refused_and_a_nameable_one_is_priced(tmp_path):
    db = tmp_path / "s.duckdb"
    file = tmp_path / "nohw.csv"
    file.write_text("model,tp,gpus,concurrency,tput_per_gpu,tok_s_user\nGLM-5,8,8,4,300,50\nGLM-5,8,8,16,700,35\n")
    code, _, err = cli(db, "ingest", file, "--set", "hardware=\u200b")
    assert code == 1
    assert "nohw.csv, field 'hardware': the hardware name '\\u200b' holds a control" in err
    assert cli(db, "ingest", file, "--set", "hardware=ArcProB60").code == 0
    out = tmp_path / "r.html"
    code, printed, _ = cli(db, "report", "--rate", "ArcProB60=1.5", "--out", out)
    assert code == 0                                                                     # priced by name
    assert "ArcProB60 is the only series priced" in printed
    assert cli_json(db, "iso", "--rate", "ArcProB60=1.5")["usd_per_gpu_hour"] == {"ArcProB60": 1.5}


def test_on_the_bulk_path_only_the_file_with_the_bad_name_is_refused(tmp_path):
    folder = tmp_path / "sweep"
    folder.mkdir()
    for k in range(6):      # a canonical name found inside an odd spelling is fine: '\u200bMI355X' is MI355X
        _csv(folder / f"run{k}.csv", ("MI355X", "\u200bMI355X", "Arc\u200b")[min(k // 2, 2) if k != 5 else 0],
             rows=3, first=300 + 10 * k)
    db = tmp_path / "b.duckdb"
    code, _, err = cli(db, "ingest", folder)
    assert code == 1
    assert "run4.csv, line 2, field 'hardware': the hardware name 'Arc\\u200b' holds a control" in err
    with reading(db) as con:
        stored = sorted(r[0] for r in con.execute("SELECT file_name FROM sources").fetchall())
    assert stored == [f"run{k}.csv" for k in (0, 1, 2, 3, 5)] and _hardware(db) == ["MI355X"]
