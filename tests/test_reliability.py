"""Reliability for a shared deployment (issue 32): no traceback from a value the view or the store accepts,
dates people mistype, a view that survives a missing store, a read-only file system said in words (the operator's
other edges: tests/test_operator_edges.py).

Real DuckDB files, the ``costfrontier`` commands run in this process (tests/kit.py's ``cli``: an exception would
fail the test where a process would print its traceback), Streamlit's AppTest for the pages (one session, reruns
between which the store file moves), and a read-only bind mount (``unshare``) for the read-only file system, where
the installed ``costfrontier`` script runs as a process of its own.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from datetime import date, timedelta
from pathlib import Path

import duckdb
import pandas as pd
import pytest

from model.core.view import View
from tests.conftest import ROOT, samples_copy
from tests.kit import OVERVIEW, Run, cli, cli_json, open_page

EXE = str(Path(sys.executable).with_name("costfrontier"))
HISTORY = Path(__file__).resolve().parent / "fixtures" / "history"
HEADER = "hardware,model,framework,precision,spec_decode,tp,gpus,isl,osl,concurrency,{tput},tok_s_user,run_date\n"


def _csv(path: Path, rows: list[str], tput: str = "tput_per_gpu") -> Path:
    path.write_text(HEADER.format(tput=tput) + "".join(r + "\n" for r in rows))
    return path


def _app(db: Path, monkeypatch, query: dict | None = None, page: str = OVERVIEW):
    """The app over the store ``db``, opened on ``page`` from a link carrying ``query``."""
    monkeypatch.setenv("COSTFRONTIER_DB", str(db))
    return open_page(page, query)


def assert_no_traceback(done: Run) -> None:
    assert "Traceback" not in done.out + done.err, done.err


# ------------------------------------------------------------------ targets that round to one label

def test_targets_in_one_tenth_get_their_own_columns(sample_db, monkeypatch):
    """``at=50,50.01`` once crashed the page (``Duplicate column names found``): the columns now read with as
    many decimals as tell them apart, and each holds its own target's cost."""
    at = _app(sample_db, monkeypatch, {"at": "50,50.01"}, "views/matched_interactivity.py")
    assert not at.exception, at.exception
    costs = at.table[0].value
    assert list(costs.columns) == ["50.00 tok/s/user", "50.01 tok/s/user"]
    assert costs.index.name == "Series" and len(costs) >= 2


def test_iso_pivot_labels_and_merges():
    """A 60-series workload's default targets 41.27–41.30 are four columns of two decimals; targets within
    1e-6 tok/s/user are one column (the first row's cell)."""
    from model.present.answers import iso_pivot

    targets = [41.27, 41.28, 41.29, 41.3, 50.0, 50.0000001]
    iso = pd.DataFrame([{"series": s, "interactivity": x, "usd_per_mtok": 1.0 + i / 100, "status": "interpolated",
                         "ratio_to_baseline": 1.0} for s in ("a", "b") for i, x in enumerate(targets)])
    costs, ratios = iso_pivot(iso)
    assert list(costs.columns) == ["41.27 tok/s/user", "41.28 tok/s/user", "41.29 tok/s/user",
                                   "41.30 tok/s/user", "50.00 tok/s/user"]
    assert costs.loc["a", "50.00 tok/s/user"] == "$1.04/M"
    assert list(ratios.columns) == list(costs.columns)
    one = iso_pivot(iso[iso["interactivity"].isin([41.27, 50.0])])[0]
    assert list(one.columns) == ["41.3 tok/s/user", "50.0 tok/s/user"]   # one decimal when that is enough


# ------------------------------------------------------------------ one limit for peak demand

def test_peak_demand_limit_is_the_views_and_the_sizings(sample_db, monkeypatch):
    """The view refused nothing up to 1e12 req/s while sizing capped at 1e9 (a traceback on the Fleet page):
    the bound is declared once (MAX_DEMAND_RPS) and sizing takes everything the view takes."""
    from model.core.demand import demand
    from model.core.view_fields import MAX_DEMAND_RPS

    assert MAX_DEMAND_RPS == 1e9
    assert demand(requests_per_second=MAX_DEMAND_RPS).requests_per_second == 1e9
    state, notices = View.from_query({"rps": "5e9"})
    assert state.demand_rps is None
    assert notices == ["ignored link parameter rps='5e9': peak demand must be at least 1e-6 and at most 1e9 req/s"]
    at = _app(sample_db, monkeypatch, {"rps": "5e9"}, "views/fleet.py")
    assert not at.exception, at.exception
    assert any("at most 1e9 req/s" in w for w in at.link_warnings), at.link_warnings
    at = _app(sample_db, monkeypatch, {"rps": "1e9"}, "views/fleet.py")
    assert not at.exception, at.exception
    assert at.session_state["_view"].demand_rps == 1e9


# ------------------------------------------------------------------ a basis the samples cannot answer

@pytest.mark.parametrize("page", ["views/fleet.py", "views/buy_rent_or_api.py", "views/frontier.py"])
def test_a_blended_basis_opens_fleet_buy_and_frontier(sample_db, monkeypatch, page):
    """``basis=blended`` (the link takes it; the samples state no cached-token split) raised on Fleet and on Buy with
    a demand ("basis 'blended' needs w_input and w_cached": sizing dropped the view's weights) and on Frontier (an
    empty frontier table without its columns)."""
    at = _app(sample_db, monkeypatch, {"basis": "blended", "wl": "GLM-5.2|20000|1000", "rps": "5"}, page)
    assert not at.exception, at.exception
    if page == "views/frontier.py":
        assert any("No series in this view has a frontier" in i.value for i in at.info), [i.value for i in at.info]


def test_a_blended_basis_sizes_the_fleet_on_the_tokens_a_file_states(sample_db):
    """A node's requests per second do not depend on the token basis: under the blended basis (tokens weighted for
    pricing) `size` gives the fleet the stated tokens give."""
    def nodes(*extra: str) -> dict:
        out = cli_json(sample_db, "size", "--demand-rps", "5", "--where", "model=GLM-5.2", *extra)
        return {r["series"]: (r["nodes"], r["gpus"]) for r in out["rows"]}

    blended = nodes("--basis", "blended")
    assert blended == nodes() and blended["B200 · sglang"] == (2, 16)


# ------------------------------------------------------------------ throughput and rate floors

def test_a_throughput_below_the_floor_is_refused_naming_file_line_field(tmp_path):
    db = tmp_path / "t.duckdb"
    per_gpu = _csv(tmp_path / "tiny.csv", ["B200,GLM-5,sglang,fp8,none,8,8,8192,1024,4,300,50,2026-01-10",
                                           "B200,GLM-5,sglang,fp8,none,8,8,8192,1024,16,1e-300,35,2026-01-10"])
    done = cli(db, "ingest", per_gpu)
    assert done.code == 1
    assert "tiny.csv, line 3, field 'tput_per_gpu': must be at least 0.001 (got '1e-300')" in done.err
    system = _csv(tmp_path / "system.csv", ["B200,GLM-5,sglang,fp8,none,8,8,8192,1024,4,0.004,50,2026-01-10"],
                  tput="total_tokens_per_second")   # 0.0005 tok/s per GPU of 8
    done = cli(db, "ingest", system)
    assert done.code == 1
    assert "system.csv, line 2, field 'total_tokens_per_second': gives under 0.001 tok/s per GPU" in done.err
    assert_no_traceback(done)
    ok = _csv(tmp_path / "ok.csv", ["B200,GLM-5,sglang,fp8,none,8,8,8192,1024,4,0.001,50,2026-01-10"])
    assert cli(db, "ingest", ok).code == 0   # the floor itself is taken


@pytest.fixture
def tiny_store(tmp_path) -> Path:
    """A store written before the floor: a sweep and a load ramp measured at 1e-300 tok/s/GPU."""
    db = tmp_path / "tiny.duckdb"
    path = _csv(tmp_path / "ok.csv", ["B200,GLM-5,sglang,fp8,none,8,8,8192,1024,4,300,50,2026-01-10",
                                      "B200,GLM-5,sglang,fp8,none,8,8,8192,1024,16,700,35,2026-01-10"])
    assert cli(db, "ingest", path).code == 0
    con = duckdb.connect(str(db))
    con.execute("UPDATE points SET total_tokens_per_second_per_gpu = 1e-300, output_tokens_per_second_per_gpu = "
                "1e-300, total_tokens_per_second = 8e-300, output_tokens_per_second = 8e-300")
    con.close()
    return db


@pytest.mark.parametrize("args", [["size", "--demand-rps", "1e9"], ["size", "--budget-mw", "1e6"],
                                  ["size", "--tokens-per-day", "1e12", "--peak-to-average", "1000"],
                                  ["volume", "--tokens-per-month", "1e12"]], ids=" ".join)
def test_a_stored_near_zero_throughput_sizes_nothing_and_overflows_nothing(tiny_store, args):
    done = cli(tiny_store, *args)
    assert_no_traceback(done)
    assert done.code == 0, done.err
    assert not re.search(r"\d{25}", done.out.replace(",", "")), done.out   # no 10^300-node fleets
    if args[1] == "--demand-rps":
        assert "no point meets no SLA, interactivity >= 50 with 0.001 tok/s/GPU or more" in done.out


@pytest.mark.parametrize("page, query", [("views/fleet.py", {"rps": "1e9"}),
                                         ("views/buy_rent_or_api.py", {"tpm": "1e12"})])
def test_pages_on_a_near_zero_throughput_store(tiny_store, monkeypatch, page, query):
    at = _app(tiny_store, monkeypatch, query, page)
    assert not at.exception, at.exception


def test_sizing_never_counts_past_max_nodes():
    from model.core.demand import demand
    from model.core.fleet import MAX_NODES, size_for_budget, size_for_demand

    capacity = pd.DataFrame([{"series": "s", "hardware": "B200", "per_node_rps": 1e-300, "gpus_per_node": 8,
                              "tokens_per_second_per_node": 1e-297, "capacity_from": "x"}])
    sized = size_for_demand(capacity, demand(requests_per_second=1e9), {"B200": 2.0}, 1.0)
    assert sized["nodes"].isna().all()
    assert sized.loc[0, "note"].startswith(f"more than {MAX_NODES:,.0f} nodes")
    budget = size_for_budget(capacity, budget_mw=1e12, kw_per_gpu={"B200": 1e-300})
    assert budget["nodes"].isna().all()           # said, never the cap printed as a fleet
    assert budget.loc[0, "note"].startswith(f"more than {MAX_NODES:,.0f} nodes: the budget buys more")


SUBNORMAL = [("kwg", "1e-320", "all-in kW per GPU must be at least 0.005 (5 W)"),
             ("rack", "1e-320", "IT power per rack must be at least 1"),
             ("rps", "1e-320", "peak demand must be at least 1e-6"),
             ("tpm", "1e-320", "the volume must be at least 1 and"),
             ("tpd", "1e-3", "the demand must be at least 1 and"),
             ("mw", "1e-320", "the power budget must be at least 0.001 MW"),
             ("bud", "1e-300", "the money budget must be at least $1"),
             ("x", "1e-320", "interactivity must be at least 0.01"),
             ("apiusd", "1e-320,0,1e-320", "input and output at least 1e-6")]


@pytest.mark.parametrize("key, value, words", SUBNORMAL)
def test_a_subnormal_or_nonsense_value_is_refused_in_words(sample_db, key, value, words):
    """``size --link '...kwg=1e-320&mw=1'`` sized 10^12 nodes of 8e+12 GPUs at 7.99991e-308 kW; a volume or peak of
    1e-320 divided by zero (a traceback): each is refused by its bound, with a note, and the command sizes what
    the rest of the link asks (or says it has no demand)."""
    state, notices = View.from_query({key: value})
    from model.core.view_fields import BY_KEY

    assert getattr(state, BY_KEY[key].name) == BY_KEY[key].default      # not applied
    assert any(words in n for n in notices), notices
    link = f"http://localhost:8501/Fleet?wl=GLM-5|8192|1024&{key}={value}" + ("" if key in ("mw", "bud") else "&mw=1")
    code, out, err = cli(sample_db, "size", "--link", link)
    assert code in (0, 2) and words in err, err
    assert "1000000000000" not in out and "8e+12" not in out, out    # no fleet of 10^12
    assert not re.search(r"e-[1-9][0-9]{2}", out), out               # no subnormal kW


def test_a_load_too_small_to_round_still_takes_a_node():
    """1 token a month is ~1.5e-13 req/s, which rounded to 0 nodes and divided by zero."""
    from model.core.demand import demand
    from model.core.fleet import size_for_demand

    capacity = pd.DataFrame([{"series": "s", "hardware": "B200", "per_node_rps": 1.0, "gpus_per_node": 8,
                              "isl": 8192, "osl": 1024, "capacity_from": "x"}])
    sized = size_for_demand(capacity, demand(tokens_per_month=1.0), {"B200": 2.0}, 1.0)
    assert sized.loc[0, "nodes"] == 1 and sized.loc[0, "gpus"] == 8
    assert sized.loc[0, "usd_per_month"] == pytest.approx(8 * 2.0 * 730)


def test_rates_below_the_floor_are_refused_in_the_link_and_the_view(sample_db):
    from model.core.cost import usable_rate

    assert not usable_rate(5e-5) and usable_rate(1e-4)
    state, notices = View.from_query({"r": "B200:0.00001", "rent": "B200:5e-324"})
    assert state.rates == () and state.rent == ()
    assert any("must be in [0.0001, 1000], got 1e-05" in n for n in notices), notices
    done = cli(sample_db, "volume", "--tokens-per-month", "1e9", "--rent", "B200=5e-324")
    assert done.code == 2 and "must be in [0.0001, 1000]" in done.err


# ------------------------------------------------------------------ dates people mistype

def test_a_run_date_after_tomorrow_is_refused(tmp_path):
    db = tmp_path / "d.duckdb"
    typo = _csv(tmp_path / "typo.csv", ["B200,GLM-5,sglang,fp8,none,8,8,8192,1024,4,300,50,2026-01-10",
                                        "B200,GLM-5,sglang,fp8,none,8,8,8192,1024,16,700,35,2062-01-10"])
    done = cli(db, "ingest", typo)
    assert done.code == 1
    tomorrow = (pd.Timestamp.now(tz="UTC").date() + timedelta(days=1)).isoformat()
    assert (f"typo.csv, line 3, field 'run_date': is after {tomorrow} (tomorrow): a run cannot be dated in the "
            "future; a mistyped year?") in done.err
    ok = _csv(tmp_path / "ok.csv", ["B200,GLM-5,sglang,fp8,none,8,8,8192,1024,4,300,50,2026-01-10"])
    done = cli(db, "ingest", ok, "--set", "run_date=2200-01-01")
    assert done.code == 1 and "2200-01-01 is after" in done.err
    assert cli(db, "ingest", ok, "--set", f"run_date={tomorrow}").code == 0


def _latest_at(db: Path, x: str) -> pd.DataFrame:
    return pd.DataFrame(cli_json(db, "iso", "--at", x, "--repeats", "latest", "--where", "hardware=B200")["rows"])


def test_a_stored_future_date_never_wins_latest(tmp_path):
    """A store written before the refusal holding a run dated 2062 (a typo for 2026): under ``repeats latest``
    it once won; it now counts as undated, so the latest dated run decides (the history fixture's March run
    alone, as without the typo)."""
    base, typo = tmp_path / "base.duckdb", tmp_path / "typo.duckdb"
    files = sorted(str(p) for p in HISTORY.glob("runs_2026-*.csv"))
    assert cli(base, "ingest", *files).code == 0
    slow = _csv(tmp_path / "slow.csv", ["B200,GLM-5,sglang,fp8,none,8,8,8192,1024,4,28,49,2026-03-11",
                                        "B200,GLM-5,sglang,fp8,none,8,8,8192,1024,16,68,34,2026-03-11",
                                        "B200,GLM-5,sglang,fp8,none,8,8,8192,1024,64,110,20,2026-03-11"])
    shutil.copy(base, typo)
    assert cli(typo, "ingest", slow).code == 0
    con = duckdb.connect(str(typo))
    con.execute("UPDATE points SET run_date = DATE '2062-03-11' WHERE run_date = DATE '2026-03-11'")
    con.close()
    want, got = _latest_at(base, "30"), _latest_at(typo, "30")
    assert got["usd_per_mtok"].tolist() == pytest.approx(want["usd_per_mtok"].tolist())
    assert got["usd_per_mtok"].notna().all()


def test_today_is_not_refused():
    from model.core.repeats import latest_run_date

    assert latest_run_date() >= date.today()


# ------------------------------------------------------------------ a view survives a missing store

def test_a_view_survives_a_missing_store(tmp_path, monkeypatch):
    """The store file moves away for one rerun (a redeploy swapping it) and back: the session's rates and
    filters are kept, and reapplied; a store that comes back without B200 says so."""
    db = samples_copy(tmp_path / "live.duckdb")
    at = _app(db, monkeypatch, {"r": "B200:1.5", "hw": "B200", "at": "30,40"})
    want = at.session_state["_view"]
    assert want.rates == (("B200", 1.5),) and want.hardware == ("B200",)
    away = tmp_path / "away.duckdb"
    shutil.move(db, away)
    at.run()
    assert not at.exception, at.exception
    assert [w.value for w in at.warning] == [
        "The data are away for a moment (the store is being replaced). Your view, its rates, filters and "
        "targets, is kept and comes back with the data: try again in a moment."]
    assert at.session_state["_view"] == want
    at.button(key="_store_away_retry").click().run()   # still away: still kept
    assert at.session_state["_view"] == want
    shutil.move(away, db)
    at.run()
    assert not at.exception and not at.warning, [w.value for w in at.warning]
    assert at.session_state["_view"] == want
    # away again, and back as a store without B200: the parts that no longer apply are named
    shutil.move(db, away)
    at.run()
    con = duckdb.connect(str(away))
    con.execute("DELETE FROM points WHERE hardware = 'B200'")
    con.close()
    shutil.move(away, db)
    at.run()
    assert not at.exception, at.exception
    warnings = " ".join(w.value for w in at.warning)
    assert "Ignored hardware filter 'B200'" in warnings and "Ignored the rate for 'B200'" in warnings


def test_a_new_deployment_without_a_store_still_opens_the_data_page(tmp_path, monkeypatch):
    at = _app(tmp_path / "none-yet.duckdb", monkeypatch, None, "views/data.py")
    assert not at.exception, at.exception
    assert not any("away" in w.value for w in at.warning)


# ------------------------------------------------------------------ a read-only file system

def _read_only_mount(folder: Path, script: str) -> subprocess.CompletedProcess:
    """``script`` (sh) run with ``folder`` bind-mounted read-only in a private mount namespace."""
    if shutil.which("unshare") is None:
        pytest.skip("unshare is not installed")
    probe = subprocess.run(["unshare", "-rm", "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip("user namespaces are not available here")
    wrap = f"mount --bind '{folder}' '{folder}' && mount -o remount,ro,bind '{folder}' && {script}"
    return subprocess.run(["unshare", "-rm", "sh", "-c", wrap], capture_output=True, text=True, timeout=180,
                          env={**os.environ, "COSTFRONTIER_DB": str(folder / "live.duckdb")})


def test_a_read_only_file_system_is_said_in_words(tmp_path, samples_template):
    """``OSError: [Errno 30] ... live.duckdb.lock`` once came out of ingest, ``tco --save`` and the dashboard's
    "Save price", with the path: now one sentence, no path, and the store unchanged."""
    folder = tmp_path / "ro"
    folder.mkdir()
    samples_copy(folder / "live.duckdb")
    csv = _csv(tmp_path / "ok.csv", ["B200,GLM-5,sglang,fp8,none,8,8,8192,1024,4,300,50,2026-01-10"])
    before = (folder / "live.duckdb").read_bytes()
    app = (f"'{sys.executable}' -c \"import sys; sys.path.insert(0, '{ROOT}'); "
           "from tests.test_reliability import save_price_on_the_dashboard as f; f()\"")
    done = _read_only_mount(folder, f"'{EXE}' ingest '{csv}'; echo rc=$?; "
                                    f"'{EXE}' tco --name q --hardware B200 --rate 2 --save; echo rc=$?; {app}")
    assert done.stdout.count("rc=2") == 2, done.stdout + done.stderr
    words = ("the file system holding the database is read-only, so this write was refused and nothing was "
             "changed; mount it writable, or serve the data read-only (COSTFRONTIER_READ_ONLY=1)")
    assert done.stderr.count(words) == 2, done.stderr
    assert "Could not save the API price: The file system holding the database is read-only on the server, so " \
           "nothing can be changed here; the data is unchanged." in done.stdout, done.stdout + done.stderr
    assert str(folder) not in done.stdout + done.stderr and "Errno" not in done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert (folder / "live.duckdb").read_bytes() == before


def save_price_on_the_dashboard() -> None:
    """(Run inside the read-only mount) the Buy, rent or API page's "Save price" form; prints its messages."""
    at = open_page("views/buy_rent_or_api.py", {"tpm": "1e9"})
    form = [t for t in at.text_input if t.label == "Model"][0]
    form.input("GLM-5")
    [t for t in at.text_input if t.label.startswith("Source")][0].input("a quote")
    for box in at.number_input:
        if box.label in ("Input [$/M]", "Output [$/M]"):
            box.set_value(1.0)
    [b for b in at.button if b.label == "Save price"][0].click().run()
    assert not at.exception, at.exception
    print("\n".join(e.value for e in at.error))
