"""Issue 38: a purge changes a pinned page, and says so. A link pinned to a data version whose rows a purge then
deletes (the pin not recorded, so purge could not know of it) shows that version without them: on every page and
in the CLI it says "rows purged on DATE" and which files, and the Share box promises only what holds (a pinned
link keeps its numbers through ingests and removals; through a purge only when the pin is recorded).

A real DuckDB file, the real CLI (``model.cli.main``) and the app in AppTest."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from model.data.ingest import ingest_file
from model.data.snapshot import write
from model.data.store import connect, remove_source
from model.data.versions import pin_notes, purge, record_pin
from tests.conftest import FIXTURES
from tests.kit import cli, cli_json, open_page
from ui.frame import share_promise

A = FIXTURES / "history" / "runs_2026-01-10.csv"
B = FIXTURES / "history" / "runs_2026-02-10.csv"
ISO = ["iso", "--where", "model=GLM-5", "--by", "hardware", "--at", "40"]


@pytest.fixture
def removed(tmp_path):
    """A (version 1), B (2), A removed (3): versions 1 and 2 still show A's rows."""
    db = tmp_path / "purge.duckdb"
    write(db, lambda con: ingest_file(con, A))
    write(db, lambda con: ingest_file(con, B))
    write(db, lambda con: remove_source(con, 1))
    return db


def _iso(db, *argv) -> dict:
    return cli_json(db, *ISO, *argv)


def test_a_pinned_version_whose_rows_were_purged_says_so_in_the_cli(removed):
    before = _iso(removed, "--data-version", "1")
    assert not [n for n in before["notes"] if "purged" in n] and len(before["rows"]) == 2
    code, _, err = cli(removed, "purge")
    assert code == 0
    today = datetime.now(timezone.utc).strftime("%Y-%m-%d")
    assert f"links pinned to versions 1-2 that were not recorded now show them without its rows, and say so " \
           f"(rows purged on {today})" in err
    after = _iso(removed, "--data-version", "1")
    said = (f"rows purged on {today}: data version 1 showed #1 {A.name}, whose rows were deleted for good since "
            "(purge, version 4); the numbers shown lack them")
    assert said in after["notes"]
    assert after["rows"] == []                       # version 1 showed A alone: nothing is left, and it says why
    two = _iso(removed, "--data-version", "2")
    assert said.replace("data version 1", "data version 2") in two["notes"]
    latest = _iso(removed)            # the latest never showed A (it was removed before the purge)
    assert not [n for n in latest["notes"] if "purged" in n] and latest["rows"] == two["rows"]
    code, _, err = cli(removed, *ISO, "--data-version", "2")
    assert code == 0
    assert f"note: {said.replace('data version 1', 'data version 2')}" in err
    assert said in cli_json(removed, "capacity", "--data-version", "1")["notes"]
    # issue 49: each kind of note says where it shows; "rows purged" shows with every answer, so size and volume
    # say it as iso does (they printed only the link's, the profiles', the rates' and the interactivity's notes)
    two_said = said.replace("data version 1", "data version 2")
    sized = cli_json(removed, "size", *ISO[1:], "--data-version", "2", "--demand-rps", "1", "--interactivity", "40")
    assert two_said in sized["notes"] and sized["rows"]
    volume = cli_json(removed, "volume", *ISO[1:5], "--data-version", "2", "--tokens-per-month", "1e9")
    assert two_said in volume["notes"]
    code, _, err = cli(removed, "size", *ISO[1:], "--data-version", "2", "--demand-rps", "1")
    assert code == 0 and f"note: {two_said}" in err


def test_only_the_versions_that_showed_the_purged_rows_say_so(removed):
    write(removed, lambda con: ingest_file(con, FIXTURES / "history" / "runs_2026-03-10.csv"))   # 4
    write(removed, lambda con: remove_source(con, 2))                                          # 5
    write(removed, lambda con: purge(con))                                                     # 6: A and B
    con = connect(removed)
    try:
        notes = {v: pin_notes(con, v) for v in range(1, 7)}
    finally:
        con.close()
    assert [len(notes[v]) for v in range(1, 7)] == [1, 1, 1, 1, 0, 0]
    assert f"showed #1 {A.name}, #2 {B.name}, whose rows" in notes[2][0] and f"#2 {B.name}" not in notes[1][0]
    assert f"showed #2 {B.name}, whose" in notes[4][0] and "(purge, version 6)" in notes[4][0]


def test_the_share_box_promises_only_what_holds():
    unrecorded = share_promise(3, purged=False, recorded=False, read_only=False)
    assert "it shows these numbers after new ingests and removals, but a purge of removed files would delete " \
           "rows it shows (record the pin below to keep them through a purge)" in unrecorded
    assert "even after the data change" not in unrecorded
    assert "even after the data change (the pin is recorded: a purge keeps what it shows unless forced)" in \
        share_promise(3, purged=False, recorded=True, read_only=False)
    assert "the writer's operator can, with costfrontier pin 3" in share_promise(3, False, False, True)
    purged = share_promise(3, purged=True, recorded=False, read_only=False)
    assert "rows it showed have been purged since, so it opens version 3 without them" in purged
    assert "these numbers" not in purged


def test_every_page_of_the_purged_pin_says_so_and_the_share_box_does_not_promise_it(removed, monkeypatch):
    monkeypatch.setenv("COSTFRONTIER_DB", str(removed))
    write(removed, lambda con: purge(con))                                     # version 4
    today = datetime.now(timezone.utc).strftime("%Y-%m-%d")
    for page in ("views/overview.py", "views/fleet.py", "views/data.py"):
        at = open_page(page, {"wl": "all", "by": "hardware", "x": "40", "v": "2"})
        assert not at.exception
        shown = [w.value.replace("\\", "") for w in at.warning]          # as drawn: markdown escapes taken out
        said = [w for w in shown if w.startswith(f"Rows purged on {today}: data version 2 showed "
                                                                      f"#1 {A.name}, whose rows were deleted")]
        assert len(said) == 1, (page, shown)
        captions = [c.value for c in at.sidebar.caption]
        assert any("rows it showed have been purged since" in c for c in captions)
        assert not any("even after the data change" in c for c in captions)
    live = open_page("views/overview.py", {"wl": "all", "by": "hardware", "x": "40"})
    captions = [c.value for c in live.sidebar.caption]
    assert any("but a purge of removed files would delete rows it shows" in c for c in captions)
    assert not [w for w in live.warning if "purged" in w.value]
    write(removed, lambda con: record_pin(con, 4, "board deck"))
    recorded = open_page("views/overview.py", {"wl": "all", "by": "hardware", "x": "40"})
    assert any("even after the data change (the pin is recorded" in c.value for c in recorded.sidebar.caption)
