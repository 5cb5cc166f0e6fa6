"""Max load under an SLO, shown (issue 51): every ceiling read from a sweep names the measured points around it,
the interpolation used and the crossing; a ceiling its own sweep contradicts is named.

The bundled Wafer GLM-5.2 ramp (``data/samples/wafer_glm52_mxfp4_ramp.csv``) is the oracle: its published claim
("2626 tok/s/node") is its 2.4 req/s row, which its own 1,000 output tokens a request cap at 2,400 tok/s. The
expected values are computed here from the sample's CSV.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from tests.kit import cli, cli_json, open_page

RAMP = Path(__file__).resolve().parent.parent / "data" / "samples" / "wafer_glm52_mxfp4_ramp.csv"
MI355X = "MI355X · sglang · mxfp4 · mtp"


def _ramp() -> list[dict]:
    with open(RAMP, newline="") as handle:
        return [r for r in csv.DictReader(handle) if r["hardware"] == "MI355X"]


def _knee(db, sla: str) -> dict:
    rows = cli_json(db, "capacity", "--where", "model=GLM-5.2", "--sla", sla)["rows"]
    return next(r for r in rows if r["series"] == MI355X)


def test_a_bracketed_knee_names_both_rates_the_binding_limit_and_its_crossing(sample_db):
    knee = _knee(sample_db, "ttft_p95=1.1")
    rows = _ramp()
    passing = [r for r in rows if float(r["ttft_p95_s"]) <= 1.1]
    low = max(passing, key=lambda r: float(r["sustained_rps"]))
    high = min((r for r in rows if float(r["sustained_rps"]) > float(low["sustained_rps"])),
               key=lambda r: float(r["sustained_rps"]))
    r1, r2, v1, v2 = (float(low["sustained_rps"]), float(high["sustained_rps"]), float(low["ttft_p95_s"]),
                      float(high["ttft_p95_s"]))
    assert (knee["bracket_low"], knee["bracket_high"]) == (r1, r2) == (2.0, 2.25)
    assert knee["request_rate"] == r1                       # the capacity reads the measured knee
    assert knee["binding"] == "ttft_p95_s"
    assert knee["crossing_rate"] == pytest.approx(r1 + (1.1 - v1) / (v2 - v1) * (r2 - r1))
    assert f"ttft_p95_s reaches 1.1 at {knee['crossing_rate']:.3g} req/s" in knee["bracket_text"]
    assert "no interpolation" in knee["bracket_text"] and knee["contradiction"] is None


def test_a_published_ceiling_its_own_sweep_contradicts_is_named(sample_db):
    knee = _knee(sample_db, "ttft_p95=5")
    top = max(_ramp(), key=lambda r: float(r["sustained_rps"]))
    most = float(top["sustained_rps"]) * float(top["osl"])            # 2.4 req/s x 1,000 tokens
    assert knee["request_rate"] == 2.4 and knee["tokens_per_second_per_node"] == float(top["aggregate_tok_s_node"])
    assert knee["bracket_high"] is None                               # nothing measured above: not bracketed
    assert knee["bracket_text"].startswith("not bracketed")
    assert f"{most:,.0f} output tok/s at most" in knee["contradiction"]
    assert f"states {float(top['aggregate_tok_s_node']):,.0f}" in knee["contradiction"]
    # size says it beside the capacity it reads, and in its notes
    run = cli(sample_db, "size", "--demand-rps", "10", "--sla", "ttft_p95=5", "--where", "hardware=MI355X",
              "--where", "precision=mxfp4", "--by", "hardware")
    assert "its own sweep contradicts its throughput" in run.out
    assert "the capacity rests on a measured point" in run.err


def test_size_names_the_points_around_a_sweeps_capacity(sample_db):
    payload = cli_json(sample_db, "size", "--peak-rps", "6", "--x", "40", "--where", "model=GLM-5", "--by",
                       "hardware")
    lines = [line for line in payload["capacity_from"] if line.startswith("B200")]
    assert lines and "between the measured" in lines[0] and "the capacity reads the measured point" in lines[0]
    import re

    found = re.search(r"between the measured ([\d,.]+) tok/s/GPU at ([\d.]+) tok/s/user \(read\) and the next higher, "
                      r"([\d,.]+) tok/s/GPU at ([\d.]+) tok/s/user \(([^)]+)\); linear between them, 40 tok/s/user "
                      r"is reached at ([\d,.]+) tok/s/GPU", lines[0])
    assert found, lines[0]
    t1, x1, t2, x2 = (float(found[i].replace(",", "")) for i in (1, 2, 3, 4))
    assert x2 < 40 <= x1 and found[5] == "below the interactivity you need"
    assert float(found[6].replace(",", "")) == pytest.approx(t1 + (x1 - 40) / (x1 - x2) * (t2 - t1), rel=2e-3)


def test_the_ramps_page_shows_the_bracket_and_the_contradiction(sample_db, monkeypatch):
    monkeypatch.setenv("COSTFRONTIER_DB", str(sample_db))
    at = open_page("views/ramps.py", {"wl": "GLM-5.2|20000|1000", "sla": "ttft_p95=1.1"})
    assert not at.exception
    assert any("between the measured 2 req/s" in m.value.replace("\\", "") for m in at.markdown)
    at = open_page("views/ramps.py", {"wl": "GLM-5.2|20000|1000", "sla": "ttft_p95=5"})
    assert any("its own sweep contradicts its throughput" in w.value.replace("\\", "") for w in at.warning)
