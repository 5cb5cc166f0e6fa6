"""One answer per view (issue 27): the dashboard fits a view's frontier once, refits nothing when only a rate
changes (series per hardware), and its page, report box and CSV buttons render that one answer: a CSV download
builds its table and no report.

Counters wrap the real functions (the frontier fit, the report build); nothing is mocked. AppTest sessions run in
this process, so Streamlit's caches are the ones the counters see; every test opens its own database (its own
cache keys).
"""

from __future__ import annotations

import io

import pandas as pd
import pytest

import model.present.answer_steps
import ui.report
from model.present.fmt import interactivity, usd
from model.present.tables import TABLE_PARTS
from tests.kit import open_page, rate_box
from tests.test_app_report import QUERY

MATCHED = "views/matched_interactivity.py"
TABLE = "Cost at matched interactivity"


class Counter:
    """Wraps ``owner.name`` (the real function keeps running) and counts its calls."""

    def __init__(self, monkeypatch, owner, name: str):
        self.calls = 0
        real = getattr(owner, name)

        def counted(*args, **kwargs):
            self.calls += 1
            return real(*args, **kwargs)

        monkeypatch.setattr(owner, name, counted)

    def take(self) -> int:
        calls, self.calls = self.calls, 0
        return calls


@pytest.fixture
def samples(sample_db, monkeypatch):
    monkeypatch.setenv("COSTFRONTIER_DB", str(sample_db))


@pytest.fixture
def fits(monkeypatch):
    # every frontier fit of a view goes through its answer's fit step (model.present.answer_steps.fit_of)
    return Counter(monkeypatch, model.present.answer_steps, "fit_frontiers")


@pytest.fixture
def reports(monkeypatch):
    return Counter(monkeypatch, ui.report, "build_report")


def test_a_view_is_fitted_once_and_a_rate_change_refits_nothing(samples, fits):
    at = open_page(MATCHED, QUERY)              # the Overview, then the page: one view, one fit
    assert not at.exception, at.exception
    assert fits.take() == 1
    before = at.table[0].value
    rate_box(at, "B200").input("3.2").run()     # series per hardware: re-priced, not refitted
    assert not at.exception
    assert fits.take() == 0
    after = at.table[0].value
    assert not before.equals(after)              # ... and the page shows the new rate's costs
    at.run()                                     # a rerun of the same view fits nothing either
    assert fits.take() == 0
    rate_box(at, "B200").input("1.6").run()     # back to the link's rate: that view's answer
    assert fits.take() == 0 and at.table[0].value.equals(before)


def test_the_page_the_report_box_and_a_csv_show_one_answer(samples, fits, reports):
    from ui.data import answer_of

    at = open_page(MATCHED, QUERY)
    assert not at.exception, at.exception
    fits.take()
    view, link = at.session_state["_view"], at.sidebar.code[0].value
    page_answer = at.session_state["_ctx"].answer("cost", "crossed")       # the parts the page renders
    again = answer_of(view, TABLE_PARTS[TABLE])                   # what a deferred download reads: the page's answer
    assert again.cost is page_answer.cost and again.crossed is page_answer.crossed and again.computed == ()

    csv = ui.report.table_csv(view, TABLE)       # what the page's CSV button returns
    assert reports.take() == 0 and fits.take() == 0          # no report is built for a CSV, nothing is refitted
    report = ui.report.report_of(view, link)     # the report box's HTML/XLSX
    assert reports.take() == 1 and fits.take() == 0
    assert ui.report.report_of(view, link) is report and reports.take() == 0

    from model.data.export import safe_csv

    assert safe_csv(report.tables[TABLE]) == csv                  # the report's table is the CSV, to the byte
    rows = pd.read_csv(io.StringIO(csv))
    priced = rows[rows["$/M tokens"].notna()]
    assert len(rows) == 4 and len(priced) == 3                    # the SLA leaves MI355X out of reach at 24
    shown = at.table[0].value                                     # the page's grid: series x interactivity
    for _, row in priced.iterrows():
        cell = shown.loc[row["Series"], interactivity(row["Interactivity [tok/s/user]"])]
        assert cell.startswith(usd(row["$/M tokens"])), (cell, row.to_dict())
    # the CSV's numbers are the answer's, rounded by the report's rule
    iso = page_answer.cost.iso.dropna(subset=["usd_per_mtok"])
    assert sorted(usd(v) for v in iso["usd_per_mtok"]) == sorted(usd(v) for v in priced["$/M tokens"])


# ------------------------------------------------------------------------- issue 48: the memo of an answer's steps

PAGES = {"overview": ("recommendation", "rates", "overview"), "matched": ("cost", "crossed"),
         "crossovers": ("cost", "crossed", "rates", "notes", "goodput_caps"), "frontier": ("cloud", "frontier_table"),
         "report": None}


@pytest.fixture
def snap(sample_db):
    from model.data.readers import open_snapshot
    from ui.lru import CACHE

    con = open_snapshot(sample_db)
    CACHE.clear()
    yield type("Snap", (), {"version": ("memo test", str(sample_db)), "con": con})()
    CACHE.clear()
    con.close()


def test_a_cold_view_runs_each_step_once_whatever_pages_ask(snap):
    from model.core.view import View
    from ui.data import answer_of

    view = View(rates=(("B200", 1.7),))
    ran = [step for parts in PAGES.values() for step in answer_of(view, parts, snap).computed]
    assert len(ran) == len(set(ran)), ran                    # every step of every page's answer ran once
    assert {"points", "rows", "fit", "pricing", "cost", "crossings", "cloud", "recommendation"} <= set(ran)


def test_a_rate_change_runs_no_fit_and_the_interactivity_you_need_no_pricing(snap):
    from model.core.view import View
    from model.present.view_answer import answer_of_view
    from ui.data import answer_of

    view = View(rates=(("B200", 1.7),))
    for parts in PAGES.values():
        answer_of(view, parts, snap)
    dearer = view.replace(rates=(("B200", 3.1),))
    ran = {step for parts in PAGES.values() for step in answer_of(dearer, parts, snap).computed}
    assert not ran & {"points", "fit"}, ran                  # the physics is the same at any price
    assert {"rows", "pricing", "cost", "crossings"} <= ran
    faster = dearer.replace(interactivity_needed=70.0)
    ran = {step for parts in PAGES.values() for step in answer_of(faster, parts, snap).computed}
    assert not ran & {"points", "rows", "fit", "pricing", "crossings"}, ran
    assert "cost" in ran
    # what the memo answers is what a fresh answer says, field by field
    for v in (view, dearer, faster, faster.replace(method="linear"), faster.replace(baseline="MI355X"),
              faster.replace(targets=(30.0, 50.0)), faster.replace(pair="B200 · sglang · fp8 · mtp||MI355X · sglang · fp8 · mtp")):
        kept = answer_of(v, PAGES["overview"], snap)
        fresh = answer_of_view(snap.con.cursor(), kept.view, PAGES["overview"])
        assert kept.recommendation.lines == fresh.recommendation.lines
        pd.testing.assert_frame_equal(kept.cost.iso_error, fresh.cost.iso_error)
        pd.testing.assert_frame_equal(kept.crossed.marked, fresh.crossed.marked)
