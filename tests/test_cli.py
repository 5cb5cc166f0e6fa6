"""The costfrontier command line, in process and as the installed console script."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from model.cli import main
from model.store import connect, table_checksums


def run_json(capsys, *argv):
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


def test_iso_json_rows(sample_db, capsys):
    out = run_json(capsys, "--db", str(sample_db), "iso", "--by", "hardware", "--where", "spec_decoding=mtp",
                   "--at", "24,55", "--json")
    rows = {(r["series"], r["interactivity"]): r for r in out["rows"]}
    # published oracle (InferenceX GLM-5 blog, MTP table): B200 $0.34 and MI355X $0.24 at 24 tok/s/user
    assert rows[("B200", 24.0)]["usd_per_mtok"] == pytest.approx(0.34, abs=0.015)
    assert rows[("MI355X", 24.0)]["usd_per_mtok"] == pytest.approx(0.24, abs=0.015)
    assert all({"series", "interactivity", "usd_per_mtok", "clamped"} <= set(r) for r in out["rows"])


def test_iso_out_of_reach_is_null(sample_db, capsys):
    out = run_json(capsys, "--db", str(sample_db), "iso", "--by", "hardware", "--where", "spec_decoding=mtp",
                   "--at", "150", "--json")
    assert all(r["usd_per_mtok"] is None and r["status"] == "above reach" for r in out["rows"])


def test_rate_override_moves_the_crossover(sample_db, capsys):
    base = run_json(capsys, "--db", str(sample_db), "crossover", "--by", "hardware", "--where",
                    "spec_decoding=mtp", "--json")
    assert [r["interactivity"] for r in base["rows"]] == [pytest.approx(89.39, abs=0.01)]
    cheaper = run_json(capsys, "--db", str(sample_db), "crossover", "--by", "hardware", "--where",
                       "spec_decoding=mtp", "--rate", "B200=1.2", "--json")
    assert cheaper["usd_per_gpu_hour"]["B200"] == 1.2
    assert [r["interactivity"] for r in cheaper["rows"]] != [r["interactivity"] for r in base["rows"]]
    assert {"series_a", "series_b", "interactivity", "usd_per_mtok"} <= set(base["rows"][0])


def test_frontier_json_has_config(sample_db, capsys):
    out = run_json(capsys, "--db", str(sample_db), "frontier", "--where", "hardware=mi355x", "--json")
    row = out["rows"][0]
    assert {"series", "interactivity", "tokens_per_second_per_gpu", "usd_per_mtok", "tp", "concurrency"} <= set(row)
    assert all(r["series"].startswith("MI355X") for r in out["rows"])


def test_bad_file_exits_nonzero_and_changes_nothing(sample_db, tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text("hardware,tput_per_gpu,tok_s_user\nB200,12x,40\n")
    con = connect(sample_db)
    before = table_checksums(con)
    con.close()
    assert main(["--db", str(sample_db), "ingest", str(bad)]) == 1
    err = capsys.readouterr().err
    assert "bad.csv, line 2, field 'tput_per_gpu'" in err
    con = connect(sample_db)
    assert table_checksums(con) == before
    con.close()


def test_console_script_is_installed(sample_db):
    # installed beside the interpreter that runs the tests (.venv/bin under make test)
    exe = Path(sys.executable).parent / "costfrontier"
    assert exe.exists(), "pyproject's [project.scripts] entry should install costfrontier"
    done = subprocess.run([exe, "--db", str(sample_db), "crossover", "--where", "spec_decoding=mtp"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "89.39" in done.stdout


def test_an_ingested_price_set_prices_cli_queries(sample_db, tmp_path, capsys):
    rates = tmp_path / "our_quote.csv"
    rates.write_text("gpu,tier,usd_per_gpu_hr,all_in_kw_per_gpu,as_of,source\n"
                     "B200,sales_quote,1.50,2.17,2027-01,our proposal\nMI355X,sales_quote,1.10,2.65,2027-01,our proposal\n")
    assert main(["--db", str(sample_db), "ingest", str(rates)]) == 0
    capsys.readouterr()
    out = run_json(capsys, "--db", str(sample_db), "iso", "--by", "hardware", "--where", "spec_decoding=mtp",
                   "--price-set", "2027-01", "--tier", "sales_quote", "--at", "24", "--json")
    assert out["usd_per_gpu_hour"] == {"B200": 1.5, "MI355X": 1.1}
    # cost is linear in the rate: the published $0.34/M at $1.95 becomes 0.34 * 1.50 / 1.95
    b200 = next(r for r in out["rows"] if r["series"] == "B200")
    assert b200["usd_per_mtok"] == pytest.approx(0.337 * 1.50 / 1.95, abs=0.01)
