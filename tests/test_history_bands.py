"""History agrees with ``--as-of`` date by date, with its range, under every method, and steps only below the
previous best's range (issue 47); an interactivity moved into reach is named; a range prints its two ends apart."""

from __future__ import annotations

import math

import pytest

from model.present import fmt
from tests.conftest import FIXTURES
from tests.kit import cli, cli_json

#: the bundled samples and three dated runs of the same workload (tests/fixtures/history): B200 and MI355X without
#: MTP have rows on 2026-01-10, 02-10, 03-10 (B200 only) and 05-20; the store's ranges are calibrated on all of them
VIEW = ("--by", "hardware", "--where", "model=GLM-5", "--where", "spec_decoding=none")

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def dated(tmp_path_factory, samples_template):
    from tests.conftest import samples_copy

    db = samples_copy(tmp_path_factory.mktemp("dated") / "dated.duckdb")
    assert cli(db, "ingest", str(FIXTURES / "history")).code == 0
    return db


@pytest.mark.parametrize("method", ["auto", "linear", "monotone"])
def test_every_as_of_value_is_what_iso_as_of_gives_that_date(dated, method):
    history = cli_json(dated, "history", *VIEW, "--at", "30", "--method", method)
    rows = history["rows"]
    assert {r["run_date"] for r in rows} >= {"2026-01-10", "2026-02-10", "2026-03-10", "2026-05-20"}
    compared = 0
    for day in sorted({r["run_date"] for r in rows}):      # one iso --as-of per date, every series of it
        iso = cli_json(dated, "iso", *VIEW, "--at", "30", "--x", "30", "--method", method, "--as-of", day)
        cells = {c["series"]: c for c in iso["rows"]}
        for row in (r for r in rows if r["run_date"] == day):
            cell = cells.get(row["series"])
            if cell is None or cell["status"] not in ("measured", "interpolated"):
                assert row["as_of_usd_per_mtok"] is None
                continue
            compared += 1
            assert row["as_of_usd_per_mtok"] == pytest.approx(cell["usd_per_mtok"], rel=1e-12), row
            assert row["as_of_usd_per_mtok_low"] == pytest.approx(cell["usd_per_mtok_low"], rel=1e-12), row
            assert row["as_of_usd_per_mtok_high"] == pytest.approx(cell["usd_per_mtok_high"], rel=1e-12), row
    assert compared >= 6


def test_a_step_is_a_new_best_only_below_the_previous_bests_range(dated):
    rows = cli_json(dated, "history", *VIEW, "--at", "30")["rows"]
    for series in {r["series"] for r in rows}:
        mine = sorted((r for r in rows if r["series"] == series), key=lambda r: r["run_date"])
        best = None
        for r in mine:
            v = r["as_of_usd_per_mtok"]
            if v is None:
                continue
            if best is None or v < (best["best_usd_per_mtok_low"] if best["best_usd_per_mtok_low"] is not None
                                    else best["best_usd_per_mtok"]):
                assert r["best_usd_per_mtok"] == v and r["best_from"].startswith(r["run_date"])
                best = r
            else:
                assert r["best_usd_per_mtok"] == best["best_usd_per_mtok"]
                if v < best["best_usd_per_mtok"]:
                    assert "inside its range" in r["note"]
            assert r["best_usd_per_mtok"] <= mine[0]["as_of_usd_per_mtok"] + 1e-12     # it never rises


def test_an_interactivity_outside_every_reach_is_named_not_moved_silently(sample_db):
    # the MTP series reach from 11.9 tok/s/user: half of that is the lowest the answer is read at
    done = cli(sample_db, "history", "--by", "hardware", "--where", "model=GLM-5", "--where", "spec_decoding=mtp",
               "--at", "2")
    assert done.code == 0
    assert "the interactivity you need, 2 tok/s/user, is outside where this view's series can be read" in done.err
    assert "the answer is given at 5.9 tok/s/user" in done.err
    iso = cli_json(sample_db, "iso", "--by", "hardware", "--where", "spec_decoding=mtp", "--x", "2")
    assert any("is outside where this view's series can be read" in n for n in iso["notes"])


def test_a_range_prints_its_two_ends_apart():
    assert fmt.usd_span(0.4012, 0.4049) == "$0.401 to $0.405/M"
    assert fmt.usd_span(0.40, 0.43) == "$0.40 to $0.43/M"
    assert fmt.usd_span(0.4, 0.4) == "$0.40 to $0.40/M"                       # one value is one value
    low, high = 0.40001, 0.40002
    a, b = fmt.usd_span(low, high).removesuffix("/M").split(" to ")
    assert a != b and math.isclose(float(a.lstrip("$")), low, rel_tol=1e-4)
    assert fmt.band(0.37, 0.37 * 0.94, 0.37 * 1.06) == "± 6 %"
    assert fmt.band(0.37, 0.34, 0.41) == "−8/+11 %"
    assert fmt.band(0.37, math.nan, 0.41) == "± ?" and fmt.band(0.37, 0.37, 0.37, "measured") == "(measured)"
