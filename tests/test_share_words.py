"""Issue 41, small words: the Share box's sentence agrees with what it names, and "Record this pin" records a pin
once (a second click says it is already recorded)."""

from __future__ import annotations

from model.core.view_fields import FIELDS, PLURAL_WORDS
from model.data.store import connect
from model.data.versions import list_pins, record_pin
from tests.conftest import ROOT, reading
from tests.kit import cli
from tests.test_app import app  # noqa: F401  (the fixture)
from ui.frame import link_left_out_text


#: the Share box's words that name one thing (every field's words are in this list or plural)
def test_the_share_box_says_does_for_one_thing_and_do_for_several():
    assert link_left_out_text(("request trace",)).startswith(
        "This view's request trace does not fit in a link (at most 2,000 characters per value): the link opens the "
        "view without it. To share it, download the report")
    assert link_left_out_text(("cost profiles",)).startswith(
        "This view's cost profiles do not fit in a link (at most 2,000 characters per value): the link opens the "
        "view without them. To share them,")
    assert "request trace and demand shape do not fit" in link_left_out_text(("request trace", "demand shape"))
    # the fields said as several things are exactly these; every other field is said as one
    assert all(f.said not in PLURAL_WORDS for f in FIELDS if not f.plural)
    assert PLURAL_WORDS == {"rates", "targets", "goodput caps", "compared series", "cost profiles", "filters", "tenants"}


def test_a_pin_is_recorded_once_per_version_and_link(db_path):
    con = connect(db_path)
    try:
        digest = record_pin(con, 1, "https://cf.example/?x=50&v=1", "Overview")
        assert digest                                                                      # recorded: its data
        assert record_pin(con, 1, "https://cf.example/?x=50&v=1", "Overview") is None      # the same pin: not again
        assert record_pin(con, 1, "https://cf.example/?x=60&v=1", "Overview") == digest    # another link
        assert list_pins(con)["what"].tolist() == [f"https://cf.example/?x=50&v=1 [data {digest}]",
                                                   f"https://cf.example/?x=60&v=1 [data {digest}]"]
    finally:
        con.close()


def test_record_this_pin_twice_records_one_pin_and_says_so(app, tmp_path):  # noqa: F811
    at = app()
    assert not at.exception, at.exception
    promise = next(c.value for c in at.sidebar.caption if c.value.startswith("As presented, pinned"))
    assert "record the pin below" in promise
    at.button(key="_record_pin").click().run()
    assert [t.value for t in at.toast][-1].startswith("Pinned: version ")
    # issue 50: the Share box says so at once, never asking for the pin it has just recorded
    promise = next(c.value for c in at.sidebar.caption if c.value.startswith("As presented, pinned"))
    assert "the pin is recorded" in promise and "record the pin below" not in promise, promise
    at.button(key="_record_pin").click().run()
    assert not at.exception, at.exception
    assert [t.value for t in at.toast][-1].startswith("This pin is already recorded: version ")
    with reading(tmp_path / "samples.duckdb") as con:         # the app's database (tests/test_app.py's _db)
        assert len(list_pins(con)) == 1


def test_the_pin_command_twice_says_it_is_already_pinned(db_path):
    assert cli(db_path, "ingest", ROOT / "data/samples/inferencex_glm5_fp8_2026-05-20.csv").code == 0
    first, again = cli(db_path, "pin", "1", "--note", "review"), cli(db_path, "pin", "1", "--note", "review")
    assert first.code == 0 and again.code == 0
    out = first.lines + again.lines
    assert out[-3] == "pinned version 1: purge keeps what it shows" and out[-2].startswith("its data: ")
    assert out[-1] == "version 1 is already pinned with this note: nothing recorded again"
