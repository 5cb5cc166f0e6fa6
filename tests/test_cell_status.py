"""Every priced cell's status (model.core.status), the same in the iso table, ``iso --json``, the report and the
workbook; no winner on a clamped or missing cell; a series without a rate answered by its break-even rates.

ORACLES: the frontier points are the published InferenceX GLM-5 FP8 MTP rows of
``/work/shared/reference/inferencex_glm5_fp8_2026-05-20.csv`` (bundled as data/samples/), read here from the CSV,
never from our code: B200's frontier runs from 11.88 to 100.85 tok/s/user with a point at 23.56 (1619.3 tok/s/GPU)
and the next at 38.16 (1296.8); MI355X's from 18.05 to 90.43 with a point at 24.83 (1707.4). B200 is priced at the
blog's $1.95/GPU-hour.
"""

from __future__ import annotations

import io

import pandas as pd
import pytest

from model.core.status import PRICED, STATUSES, series_without_curve, status_words
from model.core.view import View
from model.data.store import connect
from model.present.report import build_report
from model.present.report_sections import report_parts
from model.present.view_answer import answer_of_view
from model.present.workbook import report_xlsx
from tests.conftest import ROOT
from tests.kit import cli_json
from tests.test_report import parse

REFERENCE = pd.read_csv(ROOT / "data" / "samples" / "inferencex_glm5_fp8_2026-05-20.csv")
MTP = REFERENCE[REFERENCE["spec_decode"] == "mtp"]
#: below both ranges, at a B200 point, between points, just below MI355X's first point (within 1 %: clamped low),
#: just past B200's last point (within 1 %: clamped), past both
TARGETS = (10.0, 23.56, 30.0, 17.95, 101.0, 150.0)
VIEW = ["--by", "hardware", "--where", "model=GLM-5", "--where", "spec_decoding=mtp",
        "--at", ",".join(f"{t:g}" for t in TARGETS)]
EXPECTED = {("B200", 10.0): ("unreachable", "below"), ("MI355X", 10.0): ("unreachable", "below"),
            ("B200", 23.56): ("measured", ""), ("MI355X", 23.56): ("interpolated", ""),
            ("B200", 30.0): ("interpolated", ""), ("MI355X", 30.0): ("interpolated", ""),
            ("B200", 17.95): ("interpolated", ""), ("MI355X", 17.95): ("clamped", "below"),
            ("B200", 101.0): ("clamped", "above"), ("MI355X", 101.0): ("unreachable", "above"),
            ("B200", 150.0): ("unreachable", "above"), ("MI355X", 150.0): ("unreachable", "above")}


def _json(capsys, db, *argv) -> dict:
    """``iso --json`` by linear interpolation, as the hand-made oracles below (and InferenceX) interpolate."""
    return cli_json(db, "iso", "--method", "linear", *argv)


def test_the_reference_rows_put_the_targets_where_the_test_says():
    b200 = MTP[MTP["hardware"] == "B200"]["tok_s_user"]
    mi355x = MTP[MTP["hardware"] == "MI355X"]["tok_s_user"]
    assert (b200.min(), b200.max(), mi355x.min(), mi355x.max()) == (11.88, 100.85, 18.05, 90.43)
    assert 23.56 in set(b200) and 100.85 < 101.0 <= 100.85 * 1.01 and 18.05 * 0.99 <= 17.95 < 18.05


def test_every_status_in_iso_json_and_the_recommendation(sample_db, capsys):
    out = _json(capsys, sample_db, *VIEW, "--interactivity", "101")
    got = {(r["series"], r["interactivity"]): (r["status"], r["side"]) for r in out["rows"]}
    assert got == EXPECTED
    rows = {(r["series"], r["interactivity"]): r for r in out["rows"]}
    # a clamped cell keeps its value (the frontier's end, the published $1.30/M at 100.85), with no ±
    assert rows[("B200", 101.0)]["usd_per_mtok"] == pytest.approx(1.30, abs=0.005)
    assert rows[("B200", 101.0)]["usd_per_mtok_error"] is None
    assert rows[("B200", 23.56)]["error_from"] == "measured"
    assert all(r["usd_per_mtok"] is None for r in out["rows"] if r["status"] == "unreachable")
    assert all(r["break_even_usd_per_gpu_hour"] is None for r in out["rows"] if r["status"] not in PRICED)
    # at 101 tok/s/user B200 is clamped and MI355X out of reach: nothing is priced, no winner is named
    rec = out["recommendation"]
    assert rec["winner"] is None and rec["series"] == []
    assert rec["headline"].startswith("At 101.0 tok/s/user, no series is named cheapest: B200 lies just outside its "
                                      "measured range, so its $1.30/M is held at its fastest measured point, not priced")
    assert rec["text"][1] == "At 101.0 tok/s/user, no series in this view can be priced."


def test_no_winner_past_a_clamped_series_that_may_be_cheaper(sample_db, capsys):
    rec = _json(capsys, sample_db, *VIEW, "--interactivity", "17.95")["recommendation"]
    # B200 is interpolated ($0.30/M); MI355X is clamped at its first point, the published $0.22/M: never ranked
    assert [c["name"] for c in rec["series"]] == ["B200"] and rec["series"][0]["status"] == "interpolated"
    assert rec["winner"] is None
    assert rec["held"] == [{"series": "MI355X", "usd_per_mtok": pytest.approx(0.2151, abs=1e-4), "side": "below"}]
    assert rec["headline"].startswith("At 17.9 tok/s/user, no series is named cheapest: MI355X lies just outside")
    assert "of the priced series, B200 is the only series priced" in rec["text"][1]


def test_the_report_and_the_workbook_show_each_status(sample_db):
    from openpyxl import load_workbook

    con = connect(sample_db, read_only=True)
    try:
        view, _ = View.from_query({"spec": "mtp", "by": "hardware", "f": "model=GLM-5",
                                   "at": ",".join(f"{t:g}" for t in TARGETS)})
        report = build_report(answer_of_view(con, view, report_parts(view)))
    finally:
        con.close()
    words = {key: status_words(*value) for key, value in EXPECTED.items()}
    shown = {(r["Series"], float(r["Interactivity [tok/s/user]"])): r for r in parse(report.html).tables["iso"]}
    for (series, x), text in words.items():
        row = shown[(series, round(x, 1))]
        assert row["Status"] == text, (series, x, row)
    assert shown[("B200", 101.0)]["$/M tokens"] == "$1.30"        # shown, with its status, never priced
    assert shown[("B200", 101.0)]["Range (9 in 10)"] == "—"
    assert shown[("MI355X", 17.9)]["Break-even $/GPU-hour"] == "—"
    book = load_workbook(io.BytesIO(report_xlsx(report)), data_only=True)
    sheet = book["Cost at matched interactivity"]
    header = [c.value for c in sheet[4]]
    cells = {(r[header.index("Series")], r[header.index("Interactivity [tok/s/user]")]): r[header.index("Status")]
             for r in sheet.iter_rows(min_row=5, values_only=True)}
    assert cells == words                 # the workbook holds each target whole
    # the report's first page ranks only priced cells: at the middle target (30) both are interpolated
    assert report.tables["Cost at matched interactivity"]["Status"].isin(
        [status_words(*v) for v in EXPECTED.values()]).all()


def test_one_series_without_a_rate_gets_its_break_even_rates_and_no_ranking(sample_db, capsys):
    # price set 2026-09 names neither GPU; B200 at the blog's $1.95, MI355X without a rate
    out = _json(capsys, sample_db, "--by", "hardware", "--where", "model=GLM-5", "--where", "spec_decoding=mtp",
                "--price-set", "2026-09", "--rate", "B200=1.95", "--at", "24.83", "--interactivity", "24.83")
    rows = {r["series"]: r for r in out["rows"]}
    assert rows["MI355X"]["status"] == "missing" and rows["MI355X"]["reason"] == "no rate"
    assert rows["MI355X"]["usd_per_mtok"] is None and rows["B200"]["status"] == "interpolated"
    # oracle, by hand from the reference rows: B200 linear in $/M between 23.56 and 38.16 tok/s/user at $1.95
    b200 = MTP[MTP["hardware"] == "B200"].set_index("tok_s_user")["tput_per_gpu"]
    lo, hi = 1.95 / (0.0036 * b200[23.56]), 1.95 / (0.0036 * b200[38.16])
    b200_usd = lo + (24.83 - 23.56) / (38.16 - 23.56) * (hi - lo)
    mi355x_tps = float(MTP[(MTP["hardware"] == "MI355X") & (MTP["tok_s_user"] == 24.83)]["tput_per_gpu"].iloc[0])
    expected = b200_usd * 0.0036 * mi355x_tps           # the rate at which MI355X costs B200's $/M there
    assert expected == pytest.approx(2.1006, abs=1e-3)
    assert rows["MI355X"]["tokens_per_second_per_gpu"] == pytest.approx(mi355x_tps)
    assert rows["MI355X"]["break_even_usd_per_gpu_hour"] == pytest.approx(expected, rel=1e-9)
    rec = out["recommendation"]
    assert rec["winner"] is None
    assert [c["name"] for c in rec["series"]] == ["B200"]         # no ranking includes MI355X
    (unpriced,) = rec["unpriced"]
    assert unpriced["series"] == "MI355X" and unpriced["reaches"]
    (match,) = unpriced["matches"]
    assert match["against"] == "B200" and match["break_even_usd_per_gpu_hour"] == pytest.approx(expected, rel=1e-9)
    assert rec["headline"] == ("At 24.8 tok/s/user, no series is named cheapest: MI355X has no $/GPU-hour (no preset, "
                               "none typed, no cost profile). MI355X would match B200 ($0.34/M) at $2.10/GPU-hour: "
                               "below $2.10/GPU-hour it would be the cheapest of these.")


def test_a_series_without_a_curve_is_missing_or_zero_throughput():
    rows = pd.DataFrame({"hardware": ["A", "A", "B", "C"], "interactivity": [10.0, 20.0, 10.0, None],
                         "total_tokens_per_second_per_gpu": [100.0, 50.0, 0.0, 10.0]})
    frontier = pd.DataFrame({"series": ["A", "A"], "hardware": ["A", "A"]})
    from model.core.frontier import series_labels

    usable = rows.iloc[:3]           # C has no interactivity: left out before the frontier
    found = series_without_curve(rows, usable, frontier, {}, ("hardware",), "total_tokens_per_second_per_gpu",
                                 {"B": 1.0, "C": 1.0}, series_labels)
    assert found.to_dict("records") == [
        {"series": "A", "hardware": "A", "status": "missing", "reason": "no rate"},
        {"series": "B", "hardware": "B", "status": "zero throughput", "reason": ""},
        {"series": "C", "hardware": "C", "status": "missing",
         "reason": "no row meets the SLA with interactivity and throughput"}]
    assert set(found["status"]) <= set(STATUSES)
