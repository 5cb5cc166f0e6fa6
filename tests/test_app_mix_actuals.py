"""The GPU mix and Plan vs actual pages under AppTest: what their uploads store and answer (issues 43 and 42).

- GPU mix: a request trace bucketed on the page, on the bundled samples (GLM-5 measured at 8192/1024 on B200 and
  MI355X): 600 requests over 10 minutes, 480 of 8,000 + 1,000 tokens and 120 of 100,000 + 500. The long-context
  bucket (ISL ≥ 16,384) is ×12.2 from the nearest measured 8192/1024: named, and the answer covers the other 80 %
  of requests; the page's nodes and $/month are ``costfrontier mix``'s for the page's link and for the trace file.
- Plan vs actual: a bill uploaded on the page (tests/fixtures/actuals/bill_q1.csv: three months at half the plan's
  volume, tests/test_actuals.py's hand-computed case) against the pinned plan typed as its link: the page's total
  is ``plan-vs-actual --json``'s; a file that overlaps a stored period is refused naming its line and field.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from model.core.links import view_url
from tests.conftest import FIXTURES
from tests.kit import cli_json, open_page
from tests.test_actuals import PLAN
from tests.test_app import _db

MIX_VIEW = {"wl": "GLM-5|8192|1024", "x": "40"}


@pytest.fixture
def opened(tmp_path, monkeypatch):
    """Factory: the app on one page over this test's own copy of the samples, already run."""
    monkeypatch.setenv("COSTFRONTIER_DB", str(_db(tmp_path, True)))
    return open_page


def _trace() -> bytes:
    rows = ["timestamp,input_tokens,output_tokens"]
    rows += [f"{i},{100_000 if i % 5 == 0 else 8_000},{500 if i % 5 == 0 else 1_000}" for i in range(600)]
    return "\n".join(rows).encode()


def _copy(db: str, folder: Path) -> Path:
    """A copy of the page's store for the CLI (DuckDB lets one process attach a file once; AppTest holds it)."""
    out = folder / "cli.duckdb"
    shutil.copy(db, out)
    return out


def _texts(at, kind: str) -> list[str]:
    return [e.value.replace("\\", "") for e in getattr(at, kind)]


def test_a_trace_bucketed_on_the_gpu_mix_page_names_the_bucket_no_hardware_measured(opened, tmp_path, capsys):
    at = opened("views/gpu_mix.py", MIX_VIEW)
    assert not at.exception and any("Type the request mix" in t for t in _texts(at, "info"))
    at.text_input(key="mix_isl_edges").set_value("1024,abc")
    at.file_uploader(key="mix_trace_file").set_value(("agents.csv", _trace(), "text/csv")).run()
    assert any("Not read: ISL edges '1024,abc'" in t for t in _texts(at, "error")), _texts(at, "error")
    assert not at.session_state["_view"].request_mix          # nothing applied
    at.text_input(key="mix_isl_edges").set_value("1024,4096,16384")
    at.file_uploader(key="mix_trace_file").set_value(("agents.csv", _trace() + b"\n", "text/csv")).run()
    assert not at.exception, at.exception
    state = at.session_state["_view"]
    assert state.request_mix == "8000:1000:0.8,100000:500:0.2" and state.trace.startswith("s1;")
    verdict = next(t for t in _texts(at, "info") + _texts(at, "success") if "nodes" in t)
    assert "for the 80.0% of requests measured" in verdict, verdict
    captions = " ".join(_texts(at, "caption"))
    assert "100000/500 (20.0% of requests); the fleet covers the rest, 80.0% of requests" in captions
    assert "bucketed at ISL edges [1024, 4096, 16384] and OSL edges [256, 1024]" in captions
    assert "ISL ≥16,384 · OSL 256–1,023 20.0%" in captions
    fleet = at.dataframe[0].value
    nodes = dict(zip(fleet["GPU type"], fleet["Nodes"].astype(int)))
    buckets = at.dataframe[1].value
    assert list(buckets.loc[buckets["Measured"] != "yes", "Bucket"]) == ["100000/500"]

    db = _copy(os.environ["COSTFRONTIER_DB"], tmp_path)
    link = view_url(state.to_query(), "GPU_mix", "http://localhost:8501")
    by_link = cli_json(db, "mix", "--link", link)
    trace = tmp_path / "agents.csv"
    trace.write_bytes(_trace())
    by_file = cli_json(db, "mix", "--trace", str(trace), "--where", "model=GLM-5", "--interactivity", "40")
    for out in (by_link, by_file):
        assert {r["type"]: r["nodes"] for r in out["fleet"]} == nodes
        assert f"${out['usd_per_month']:,.0f} a month" in verdict
        assert out["covered_share"] == pytest.approx(0.8)
    assert by_link["verdict"] == verdict


def test_actuals_uploaded_on_the_plan_page_meet_the_plan(opened, tmp_path, capsys):
    at = opened("views/plan_vs_actual.py")
    assert any("Paste below the share link" in t for t in _texts(at, "info"))
    at.text_input(key="plan").set_value(PLAN).run()
    assert any("No comparison yet: no actuals are stored" in t for t in _texts(at, "warning")), _texts(at, "warning")
    at.file_uploader(key="actuals_upload_0").set_value(("bill_q1.csv", (FIXTURES / "actuals" / "bill_q1.csv")
                                                        .read_bytes(), "text/csv")).run()
    at.button(key="actuals_store").click().run()
    assert not at.exception, at.exception
    assert any("3 rows added as actuals" in t for t in _texts(at, "success")), _texts(at, "success")
    table = at.dataframe[0].value
    total = table[table["Period"] == "total"].iloc[0]
    # the hand-computed case (tests/test_actuals.py): $153,446.40 for 54 B output tokens, $2.84/M against $1.42/M
    assert (total["Realised $"], total["Planned $"], total["Realised [$/M]"], total["Planned [$/M]"]) == (
        "$153,446.40", "$153,446.40", "$2.84", "$1.42")
    assert (total["Output tokens"], total["Of plan"], total["Utilisation"]) == (
        "54,000,000,000", "50.0%", "44.1%")
    out = cli_json(_copy(os.environ["COSTFRONTIER_DB"], tmp_path), "plan-vs-actual",
                    "--plan", PLAN)
    assert out["sentences"][0] in _texts(at, "info")
    assert out["total"]["usd_per_mtok"]["output"]["realised"] == pytest.approx(2.8416)

    # a second bill over February is refused, naming its line and field; nothing is stored
    again = "date,model,input_tokens,cached_input_tokens,output_tokens,usd\n2026-02-10,glm-5.2,1000,0,10,1.5\n"
    at.file_uploader(key="actuals_upload_1").set_value(("february_again.csv", again.encode(), "text/csv")).run()
    at.button(key="actuals_store").click().run()
    errors = _texts(at, "error")
    assert any("february_again.csv, line 2, field 'period'" in t and "overlaps one already stored" in t
               for t in errors), errors
    assert "Stored actuals (3 rows)" in [e.label for e in at.expander]


def build_up_profile():
    """tests/test_actuals.py's BUILD_UP (the issue-6 worked example) as the TCO builder's on-prem profile."""
    from model.core.cost_profiles import cost_profile

    return cost_profile(name="H200 on-prem 5y", hardware="H200", onprem={
        "server_usd": 300_000, "gpus_per_node": 8, "network_pct": 15, "install_usd": 0, "years": 5, "rate_pct": 10,
        "kw_per_gpu": 1.37, "pue": 1.3, "usd_per_kwh": 0.08, "colo_usd_per_kw_month": 184, "maintenance_pct": 3})


def test_the_tco_builder_offers_an_onprem_profile_as_opencost_pricing(opened):
    """The issue-6 worked build-up (H200, $300,000 per 8-GPU node, ...: tests/test_actuals.py's BUILD_UP) pays
    $1.9341/GPU-hour at full use (README, "On-prem TCO"); bought on 15 January 2026 and depreciated over 5 years,
    the page offers its price file and says its rate and dates."""
    from datetime import date

    from model.core.cost_profiles import profiles_to_text

    profile = build_up_profile()
    at = opened("views/tco_builder.py", {"prof": profiles_to_text([profile]), "use": profile.name})
    at.date_input(key="opencost_purchase_date").set_value(date(2026, 1, 15)).run()
    assert not at.exception, at.exception
    said = next(t for t in _texts(at, "caption") if "per GPU-hour paid" in t)
    assert said.startswith("$1.934144 per GPU-hour paid") and "from 2026-01-15 to 2031-01-15" in said, said
    (button,) = [b for b in at.main.get("download_button") if b.key == "opencost_download"]
    assert button.label == "OpenCost price file (CSV)"     # its file: tests/test_e2e_mix_actuals.py
