"""Issue 38: versions that cannot be confused. A data version's number alone does not name its data: restore an
older copy of the store (any backup restore) and ingest once, and version 2 exists again showing other rows. A
version's digest (a hash of the sources and cost profiles it shows) names its data; a pinned link carries it
(``vd=``), a recorded pin names it, and a link whose version shows other data here (or is missing) is refused,
on the dashboard and in the CLI, instead of answering with other numbers.

Real DuckDB files and the real CLI (``model.cli.main``); the restore is a file copy, as a backup restore is."""

from __future__ import annotations

import hashlib
import json
import shutil

import pytest

from model.core.cost_profiles import CostProfile
from model.core.links import live_url, pinned_url
from model.core.view import View
from model.data.ingest import ingest_file
from model.data.profiles import save_profiles
from model.data.snapshot import write
from model.data.store import connect, remove_source
from model.data.versions import (
    OtherData,
    list_pins,
    pin_notes,
    purge,
    record_pin,
    version_digest,
    version_digests,
)
from tests.conftest import FIXTURES
from tests.kit import cli, cli_json

A = FIXTURES / "history" / "runs_2026-01-10.csv"
B = FIXTURES / "history" / "runs_2026-02-10.csv"
C = FIXTURES / "history" / "runs_2026-03-10.csv"
ISO = ["iso", "--where", "model=GLM-5", "--by", "hardware", "--at", "40", "--json"]


def _digest(db, version: int) -> str:
    con = connect(db)
    try:
        return version_digest(con, version)
    finally:
        con.close()


@pytest.fixture
def restored(tmp_path):
    """A store (A: version 1, B: version 2, version 2 pinned "board deck"); a backup taken at version 1 restored
    over it; C ingested: version 2 exists again, showing A and C. Returns (db, digest of the first version 2)."""
    db = tmp_path / "team.duckdb"
    write(db, lambda con: ingest_file(con, A))
    backup = tmp_path / "backup.duckdb"
    shutil.copy(db, backup)
    write(db, lambda con: ingest_file(con, B))
    first = write(db, lambda con: record_pin(con, 2, "board deck"))
    shutil.copy(backup, db)                           # the restore
    write(db, lambda con: ingest_file(con, C))        # version 2 again: other rows
    return db, first


def test_a_restored_store_refuses_a_link_pinned_to_a_version_it_now_shows_other_data_for(restored):
    db, first = restored
    con = connect(db)
    try:
        assert version_digest(con, 2) != first and version_digest(con, 1) == _digest_of_only(A)
        with pytest.raises(OtherData, match=rf"its data version 2 showed data {first}, and this store's version 2 "
                                            rf"shows other data \({version_digest(con, 2)}\).*restored from an older "
                                            "copy"):
            pin_notes(con, 2, first)
        assert pin_notes(con, 2, version_digest(con, 2)) == []       # a link made on this version 2 opens
        assert pin_notes(con, 1, version_digest(con, 1)) == []       # version 1 is the same data in both histories
        with pytest.raises(OtherData, match="data version 3, which this store does not have .its newest is 2."):
            pin_notes(con, 3)
        assert list_pins(con).empty                                   # the recorded pin went with the restore
    finally:
        con.close()


def _digest_of_only(*files) -> str:
    """The documented rule, computed here from the files themselves (the oracle): the sum of one SHA-256 per
    source (its file's SHA-256, name, kind, format, --set fields) mod 2**256, hashed with the rule's tag."""
    total = 0
    for f in files:
        item = ["source", hashlib.sha256(f.read_bytes()).hexdigest(), f.name, "points", "csv", ""]
        total += int.from_bytes(hashlib.sha256(json.dumps(item).encode()).digest(), "big")
    tag = b"costfrontier data digest 1\0"
    return hashlib.sha256(tag + (total % (1 << 256)).to_bytes(32, "big")).hexdigest()[:6]


def test_the_cli_refuses_the_link_and_the_version_with_its_digest_and_prints_no_numbers(restored):
    db, first = restored
    link = pinned_url("http://localhost:8501/?wl=all&by=hardware&x=40", 2, first)
    code, out, err = cli(db, "iso", "--link", link, "--json")
    assert code == 2
    assert out == "" and "this link was made on other data: its data version 2 showed data " + first in err
    code, out, err = cli(db, *ISO, "--data-version", "2", "--data-digest", first.upper())
    assert code == 2
    assert out == "" and "made on other data" in err
    code, _, err = cli(db, *ISO, "--data-version", "7")
    assert code == 2
    assert "data version 7, which this store does not have (its newest is 2)" in err
    # the version's own digest (as `versions` lists it) answers: what it shows here
    listed = cli_json(db, "versions")["versions"]
    assert [v["data"] for v in listed] == [_digest(db, 1), _digest(db, 2)]
    code, out, _ = cli(db, *ISO, "--data-version", "2", "--data-digest", listed[1]["data"])
    assert code == 0
    assert json.loads(out)["view"]["vd"] == listed[1]["data"]


def test_same_data_same_digest_in_any_order_and_other_data_another(tmp_path):
    one, two = connect(tmp_path / "one.duckdb"), connect(tmp_path / "two.duckdb")
    try:
        for f in (A, B):
            ingest_file(one, f)
        for f in (B, A):
            ingest_file(two, f)
        assert version_digest(one, 2) == version_digest(two, 2) == _digest_of_only(A, B)   # what it shows, no order
        assert version_digest(one, 1) != version_digest(two, 1)                             # A alone, B alone
        assert version_digest(one, 1) == _digest_of_only(A) and version_digest(two, 1) == _digest_of_only(B)
        remove_source(one, 1)                                                               # version 3: B alone
        assert version_digest(one, 3) == version_digest(two, 1)
        save_profiles(one, [CostProfile(name="quote", hardware="B200", usd_per_gpu_hour=2.0, source="a quote")])
        assert version_digest(one, 4) != version_digest(one, 3)                             # a profile is data
        kept = version_digests(one)
        assert kept == {v: version_digest(one, v) for v in (1, 2, 3, 4)}                    # one pass, the same
        purge(one)                                                                          # version 5
        assert {v: version_digest(one, v) for v in (1, 2, 3, 4)} == kept                    # purge keeps digests
    finally:
        one.close()
        two.close()


def test_a_recorded_pin_names_the_digest_and_the_cli_pin_prints_it(tmp_path):
    db = tmp_path / "p.duckdb"
    write(db, lambda con: ingest_file(con, A))
    pinned = cli(db, "pin", "1", "--note", "board deck")
    assert pinned.code == 0
    code = _digest(db, 1)
    assert pinned.lines == [
        "pinned version 1: purge keeps what it shows",
        f"its data: {code} (a link pinned to version 1 of this store carries vd={code})"]
    con = connect(db)
    try:
        assert list_pins(con)["what"].tolist() == [f"board deck [data {code}]"]
        assert record_pin(con, 1, "x" * 600) == code
        assert list_pins(con)["what"].iloc[-1].endswith(f"[data {code}]")          # a long link keeps it
    finally:
        con.close()


def test_pinned_links_carry_the_digest_and_live_links_drop_it():
    assert pinned_url("https://cf.example/Fleet?x=50", 7, "3f9a2c") == "https://cf.example/Fleet?x=50&v=7&vd=3f9a2c"
    # the link's own digest is kept for its own version, dropped for another
    assert pinned_url("https://cf.example/Fleet?v=7&vd=3f9a2c&x=50", 7) == \
        "https://cf.example/Fleet?x=50&v=7&vd=3f9a2c"
    assert pinned_url("https://cf.example/Fleet?v=7&vd=3f9a2c", 8) == "https://cf.example/Fleet?v=8"
    assert live_url("https://cf.example/Fleet?x=50&v=7&vd=3f9a2c") == "https://cf.example/Fleet?x=50"
    view, notices = View.from_query({"v": ["7"], "vd": ["3F9A2C"]})
    assert (view.data_version, view.data_digest, notices) == (7, "3f9a2c", [])
    view, notices = View.from_query({"v": ["7"], "vd": ["3f9a2"]})
    assert view.data_digest is None and "a data digest is 6 hex characters" in notices[0]


def test_the_cli_report_reopens_the_pinned_version_with_its_digest(tmp_path):
    db = tmp_path / "r.duckdb"
    write(db, lambda con: ingest_file(con, A))
    out = tmp_path / "r.html"
    assert cli(db, "report", "--where", "model=GLM-5", "--by", "hardware", "--at", "40", "--out", out).code == 0
    assert f"v=1&amp;vd={_digest(db, 1)}" in out.read_text(encoding="utf-8")
