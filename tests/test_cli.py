"""The costfrontier command line, in process and as the installed console script."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from model.data.store import connect
from tests.checksums import table_checksums
from tests.kit import cli, cli_json


def test_iso_json_rows(sample_db):
    out = cli_json(sample_db, "iso", "--by", "hardware", "--where", "model=GLM-5",
                   "--where", "spec_decoding=mtp", "--at", "24,55")
    rows = {(r["series"], r["interactivity"]): r for r in out["rows"]}
    # published oracle (InferenceX GLM-5 blog, MTP table): B200 $0.34 and MI355X $0.24 at 24 tok/s/user
    assert rows[("B200", 24.0)]["usd_per_mtok"] == pytest.approx(0.34, abs=0.015)
    assert rows[("MI355X", 24.0)]["usd_per_mtok"] == pytest.approx(0.24, abs=0.015)
    assert all({"series", "interactivity", "usd_per_mtok", "clamped"} <= set(r) for r in out["rows"])


def test_iso_out_of_reach_is_null(sample_db):
    out = cli_json(sample_db, "iso", "--by", "hardware", "--where", "model=GLM-5",
                   "--where", "spec_decoding=mtp", "--at", "150")
    assert all(r["usd_per_mtok"] is None and r["status"] == "unreachable" and r["side"] == "above" for r in out["rows"])


def test_iso_of_a_view_asking_for_50_has_rows_at_50_as_the_page_and_the_report(sample_db, monkeypatch):
    """Issue 50: ``iso --link '...&x=50'`` printed rows at the targets 20-40 and none at 50, the interactivity the view
    asks for. It now answers there too, as the Matched interactivity page's table and the report's do."""
    from model.core.view import View
    from model.present.report_sections import report_parts
    from model.present.tables import table_of
    from model.present.view_answer import answer_of_view
    from tests.kit import open_page

    link = "http://localhost:8501/Matched_interactivity?wl=GLM-5|8192|1024&x=50"
    out = cli_json(sample_db, "iso", "--link", link)
    at50 = {r["series"]: r for r in out["rows"] if r["interactivity"] == 50}
    assert sorted({r["interactivity"] for r in out["rows"]}) == [20, 25, 30, 35, 40, 50]
    assert at50["MI355X · sglang · fp8 · mtp"]["usd_per_mtok"] == pytest.approx(0.4226, abs=5e-4)
    base = at50["B200 · sglang · fp8 · mtp"]["usd_per_mtok"]      # the baseline: the first series by name
    assert at50["MI355X · sglang · fp8 · mtp"]["ratio_to_baseline"] == pytest.approx(0.4226 / base, rel=1e-3)
    assert at50["MI355X · sglang · fp8 · no spec"]["status"] == "unreachable"
    code, text, _ = cli(sample_db, "iso", "--link", link)
    assert code == 0 and "MI355X · sglang · fp8 · mtp             50        0.4226" in text
    con = connect(sample_db)
    try:
        view = View.from_query({"wl": "GLM-5|8192|1024", "x": "50"})[0]
        frame, _ = table_of(answer_of_view(con, view, report_parts(view)), "Cost at matched interactivity")
    finally:
        con.close()
    shown = frame[frame["interactivity"] == 50].set_index("series")["usd_per_mtok"].dropna()
    assert shown.to_dict() == pytest.approx({s: r["usd_per_mtok"] for s, r in at50.items() if r["usd_per_mtok"]})
    monkeypatch.setenv("COSTFRONTIER_DB", str(sample_db))
    page = open_page("views/matched_interactivity.py", {"wl": "GLM-5|8192|1024", "x": "50"}).table[0].value
    assert page.loc["MI355X · sglang · fp8 · mtp", "50.0 tok/s/user"].startswith("$0.42/M")


def test_rate_override_moves_the_crossover(sample_db):
    base = cli_json(sample_db, "crossover", "--by", "hardware", "--where",
                    "spec_decoding=mtp", "--where", "model=GLM-5", "--method", "linear")
    assert [r["interactivity"] for r in base["rows"]] == [pytest.approx(89.39, abs=0.01)]
    cheaper = cli_json(sample_db, "crossover", "--by", "hardware", "--where",
                       "spec_decoding=mtp", "--where", "model=GLM-5", "--rate", "B200=1.2", "--method", "linear")
    assert cheaper["usd_per_gpu_hour"]["B200"] == 1.2
    assert [r["interactivity"] for r in cheaper["rows"]] != [r["interactivity"] for r in base["rows"]]
    assert {"series_a", "series_b", "interactivity", "usd_per_mtok"} <= set(base["rows"][0])


def test_crossover_text_says_each_pair_as_intervals(sample_db):
    argv = ["crossover", "--by", "hardware", "--where", "spec_decoding=mtp", "--where", "model=GLM-5", "--rate",
            "B200=1.6"]
    out = cli_json(sample_db, *argv)
    code, text, _ = cli(sample_db, *argv)
    assert code == 0
    from model.present.answers import pair_intervals

    said = pair_intervals(pd.DataFrame(out["rows"]), pd.DataFrame(out["reach"]))
    assert len(out["rows"]) > len(said) == 1    # several crossings of one pair, one sentence
    block = text.split("\nby pair:\n")[1].split("\n\n")[0]
    assert block == f"  B200 and MI355X: {said['text'].iloc[0]}" or block == f"  MI355X and B200: {said['text'].iloc[0]}"
    assert block.count(" cheaper from ") == 2 and " and from " in block


def test_frontier_json_has_config(sample_db):
    out = cli_json(sample_db, "frontier", "--where", "hardware=mi355x")
    row = out["rows"][0]
    assert {"series", "interactivity", "tokens_per_second_per_gpu", "usd_per_mtok", "tp", "concurrency"} <= set(row)
    assert all(r["series"].startswith("MI355X") for r in out["rows"])


def test_bad_file_exits_nonzero_and_changes_nothing(sample_db, tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("hardware,tput_per_gpu,tok_s_user\nB200,12x,40\n")
    con = connect(sample_db)
    before = table_checksums(con)
    con.close()
    code, _, err = cli(sample_db, "ingest", bad)
    assert code == 1
    assert "bad.csv, line 2, field 'tput_per_gpu'" in err
    con = connect(sample_db)
    assert table_checksums(con) == before
    con.close()


def test_console_script_is_installed(sample_db):
    # installed beside the interpreter that runs the tests (.venv/bin under make test)
    exe = Path(sys.executable).parent / "costfrontier"
    assert exe.exists(), "pyproject's [project.scripts] entry should install costfrontier"
    done = subprocess.run([exe, "--db", str(sample_db), "crossover", "--where", "spec_decoding=mtp", "--method",
                           "linear"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "89.39" in done.stdout


def ingest_our_quote(db, tmp_path) -> None:
    """A TCO price set '2027-01' / 'sales_quote': B200 $1.50, MI355X $1.10 per GPU-hour."""
    rates = tmp_path / "our_quote.csv"
    rates.write_text("gpu,tier,usd_per_gpu_hr,all_in_kw_per_gpu,as_of,source\n"
                     "B200,sales_quote,1.50,2.17,2027-01,our proposal\nMI355X,sales_quote,1.10,2.65,2027-01,our proposal\n")
    assert cli(db, "ingest", rates).code == 0


def test_an_ingested_price_set_prices_cli_queries(sample_db, tmp_path):
    ingest_our_quote(sample_db, tmp_path)
    out = cli_json(sample_db, "iso", "--by", "hardware", "--where", "model=GLM-5",
                   "--where", "spec_decoding=mtp", "--price-set", "2027-01", "--tier", "sales_quote", "--at", "24")
    assert out["usd_per_gpu_hour"] == {"B200": 1.5, "MI355X": 1.1}
    # cost is linear in the rate: the published $0.34/M at $1.95 becomes 0.34 * 1.50 / 1.95
    b200 = next(r for r in out["rows"] if r["series"] == "B200")
    assert b200["usd_per_mtok"] == pytest.approx(0.337 * 1.50 / 1.95, abs=0.01)


# --------------------------------------------------------------------------- issue 10: a Unix tool

def test_db_is_accepted_after_the_subcommand(tmp_path):
    csv = tmp_path / "x.csv"
    csv.write_text("hardware,gpus,tok_s_user,tput_per_gpu\nB200,8,40,1000\nB200,8,60,700\n")
    db = tmp_path / "my.duckdb"
    assert cli(None, "ingest", csv, "--db", db).code == 0
    assert cli(None, "frontier", "--db", db, "--json").code == 0
    out = cli(None, "frontier", "--json", "--db", db)
    assert out.code == 0, out.err
    assert len(json.loads(out.out)["rows"]) == 2
    # a read on a path with no database says so and creates nothing (issue 11)
    other = tmp_path / "other.duckdb"
    code, _, err = cli(other, "sources")
    assert code == 2 and not other.exists()
    assert "no database there" in err


def test_by_and_where_take_the_header_aliases(sample_db):
    aliased = cli_json(sample_db, "iso", "--by", "hw,spec_decode", "--where", "spec_decode=mtp",
                       "--where", "model_name=GLM-5", "--at", "24")
    plain = cli_json(sample_db, "iso", "--by", "hardware,spec_decoding", "--where",
                     "spec_decoding=mtp", "--where", "model=GLM-5", "--at", "24")
    assert aliased["rows"] == plain["rows"] and aliased["scenario"]["by"] == ["hardware", "spec_decoding"]
    assert {r["series"] for r in plain["rows"]} == {"B200 · mtp", "MI355X · mtp"}


@pytest.mark.parametrize("argv,words", [
    (["iso", "--by", "colour"], "--by: unknown field 'colour'"),
    (["iso", "--where", "colour=red"], "--where: unknown field 'colour'"),
    (["iso", "--basis", "blended", "--w-input", "-3"], "--w-input: a token weight must be in [0, 10]"),
    (["iso", "--sla", "ttft=2"], "name a percentile"),
    (["capacity", "--by", "bogus"], "--by: unknown field 'bogus'"),
])
def test_a_bad_option_value_is_one_clean_line(sample_db, argv, words):
    captured = cli(sample_db, *argv)
    assert captured.code == 2
    lines = [ln for ln in captured.err.splitlines() if not ln.startswith("note:")]
    assert len(lines) == 1 and lines[0].startswith("error: ") and words in lines[0], captured.err
    assert "pydantic" not in captured.err and "http" not in captured.err


def test_output_cut_short_by_head_ends_quietly(tmp_path):
    # 3,000 series of one point each: the JSON is far larger than a pipe's buffer
    csv = tmp_path / "many.csv"
    csv.write_text("hardware,framework,gpus,tok_s_user,tput_per_gpu\n"
                   + "".join(f"B200,fw{i},8,{40 + i % 7},{1000 + i}\n" for i in range(3000)))
    db = tmp_path / "many.duckdb"
    assert cli(db, "ingest", csv).code == 0
    exe = Path(sys.executable).parent / "costfrontier"
    done = subprocess.run(f"'{exe}' --db '{db}' frontier --json | head -c 100", shell=True, capture_output=True,
                          text=True, timeout=120)
    assert len(done.stdout) == 100
    assert done.stderr == "", done.stderr


def test_mixed_workloads_are_split_not_pooled(sample_db, tmp_path):
    llama = tmp_path / "llama.csv"
    llama.write_text("hardware,model,isl,osl,gpus,tok_s_user,tput_per_gpu\n"
                     "H200,Llama-3.3-70B,1024,1024,8,30,2500\nH200,Llama-3.3-70B,1024,1024,8,60,1200\n"
                     "B200,Llama-3.3-70B,1024,1024,8,30,5000\nB200,Llama-3.3-70B,1024,1024,8,60,2400\n")
    assert cli(sample_db, "ingest", llama).code == 0
    code, _, err = cli(sample_db, "iso", "--by", "hardware", "--at", "30")
    assert code == 0
    assert "note: the selection holds 3 workloads: series are split by model, isl, osl" in err
    out = cli_json(sample_db, "iso", "--by", "hardware", "--at", "30")
    series = {r["series"] for r in out["rows"]}
    assert "B200 · Llama-3.3-70B · ISL 1024 · OSL 1024" in series
    assert "B200 · GLM-5 · ISL 8192 · OSL 1024" in series
    assert out["scenario"]["by"] == ["hardware", "model", "isl", "osl"]
    assert any("split by model, isl, osl" in note for note in out["notes"])
    # the Llama B200 point at 30 tok/s/user is its own series' cost, not pooled with GLM-5's
    llama_b200 = next(r for r in out["rows"] if r["series"].startswith("B200 · Llama"))
    assert llama_b200["tokens_per_second_per_gpu"] == pytest.approx(5000.0)
    # crossovers only within a workload: no Llama series against a GLM series
    rows = cli_json(sample_db, "crossover", "--by", "hardware")["rows"]
    assert rows and all(r["series_a"].split(" · ", 1)[1] == r["series_b"].split(" · ", 1)[1] for r in rows)
    # asked for explicitly, they pool (and no note)
    captured = cli(sample_db, "iso", "--by", "hardware", "--at", "30", "--mix-workloads", "--json")
    assert captured.code == 0
    assert "split" not in captured.err
    assert {r["series"] for r in json.loads(captured.out)["rows"]} == {"B200", "H200", "MI355X"}


def test_an_ingested_price_set_prices_capacity_and_compare(sample_db, tmp_path):
    ingest_our_quote(sample_db, tmp_path)
    for command in ("capacity", "compare"):
        out = cli_json(sample_db, command, "--by", "hardware", "--price-set", "2027-01",
                       "--tier", "sales_quote")
        assert out["usd_per_gpu_hour"] == {"B200": 1.5, "MI355X": 1.1}, command
    # compare at the ramp peaks: MI355X's price is 1.10 / 1.50 of B200's
    assert out["rows"][0]["price_ratio_gpu"] == pytest.approx(1.10 / 1.50)
