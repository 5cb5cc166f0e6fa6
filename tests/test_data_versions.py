"""Issue 30: every write is a numbered data version; version N reads exactly N's rows, rates, profiles and API
prices; remove hides, purge deletes (refused while a pin names a version that shows the rows); the change log.

The oracle for "version N reads exactly N's rows" is a second store that only ever held those files: the answer
of the pinned view must equal the answer on that store, value for value."""

from __future__ import annotations

import duckdb
import pandas as pd
import pytest

from model.core.cost_profiles import CostProfile
from model.core.links import live_url, pinned_url
from model.core.view import View
from model.data.api_prices import add_prices, load_api_prices
from model.data.ingest import ingest_file
from model.data.profiles import load_profiles, save_profiles
from model.data.snapshot import open_snapshot
from model.data.store import connect, list_sources, load_points, remove_source
from model.data.versions import (
    PurgeRefused,
    acting,
    diff_sources,
    list_versions,
    purge,
    record_pin,
)
from model.present.view_answer import answer_of_view
from tests.conftest import FIXTURES
from tests.kit import cli
from tests.test_store_versions import UNVERSIONED, raw

A = FIXTURES / "history" / "runs_2026-01-10.csv"
B = FIXTURES / "history" / "runs_2026-02-10.csv"
VIEW = View(workload="all", by=("hardware",), interactivity=40.0)


@pytest.fixture
def store(tmp_path):
    """Ingest A (version 1), ingest B (2), remove A (3)."""
    path = tmp_path / "v.duckdb"
    con = connect(path)
    with acting("ingest", "test"):
        a = ingest_file(con, A).source_id
        b = ingest_file(con, B).source_id
        remove_source(con, a)
    yield con, a, b, path
    con.close()


def _only(tmp_path, *files) -> duckdb.DuckDBPyConnection:
    con = connect(tmp_path / f"only{len(files)}-{files[0].stem}.duckdb")
    for f in files:
        ingest_file(con, f)
    return con


def _iso(con, view: View) -> pd.DataFrame:
    return answer_of_view(con, view, ("cost",)).cost.iso[["series", "interactivity", "usd_per_mtok"]].reset_index(drop=True)


def test_the_change_log_lists_the_three_writes_in_order(store):
    con, a, _, _ = store
    log = list_versions(con)
    assert log["version"].tolist() == [1, 2, 3]
    assert log["action"].tolist() == ["ingest", "ingest", "remove"]
    assert log["what"].tolist() == [A.name, B.name, f"#{a} {A.name}"]
    assert log["by"].tolist() == ["test"] * 3
    assert log["at"].is_monotonic_increasing


def test_version_n_reads_exactly_its_rows_and_answers_as_a_store_of_those_files(store, tmp_path):
    con, a, b, _ = store
    assert sorted(load_points(con, version=1)["total_tokens_per_second_per_gpu"]) == \
        sorted(pd.read_csv(A)["tput_per_gpu"].astype(float))
    assert set(load_points(con)["source_id"]) == {b}                  # latest: A is hidden
    assert set(load_points(con, version=2)["source_id"]) == {a, b}
    assert list_sources(con)["source_id"].tolist() == [b]
    assert list_sources(con, 1)["source_id"].tolist() == [a]
    only_a, only_b = _only(tmp_path, A), _only(tmp_path, B)
    pd.testing.assert_frame_equal(_iso(con, VIEW.replace(data_version=1)), _iso(only_a, VIEW))
    pd.testing.assert_frame_equal(_iso(con, VIEW), _iso(only_b, VIEW))
    assert not _iso(con, VIEW.replace(data_version=1)).equals(_iso(con, VIEW))
    assert answer_of_view(con, VIEW.replace(data_version=1), ("cost",)).inputs.data_version == 1
    assert answer_of_view(con, VIEW, ("cost",)).inputs.data_version == 3      # the latest, read then: a report pins it
    added, removed = diff_sources(con, 1, 3)
    assert added["file_name"].tolist() == [B.name] and removed["file_name"].tolist() == [A.name]


def test_purge_refuses_while_a_pin_shows_the_rows_then_deletes_them_when_forced(store):
    con, a, _, _ = store
    record_pin(con, 1, "proposal to ACME")
    with pytest.raises(PurgeRefused, match=r"pinned version 1 still shows #1 runs_2026-01-10.csv.*--force"):
        purge(con)
    assert len(load_points(con, version=1)) == 6                        # nothing changed
    purged, notes = purge(con, force=True)
    assert purged == [f"#{a} {A.name} (shown by versions 1-2)"]
    assert "pinned version 1 no longer shows the purged rows (forced)" in notes
    assert con.execute("SELECT count(*) FROM points WHERE source_id = ?", [a]).fetchone()[0] == 0
    assert list_versions(con)["action"].tolist()[-1] == "purge"
    assert purge(con) == ([], [])                                       # nothing left to purge


def test_a_removed_file_ingests_again_as_a_new_source(store):
    con, a, _, _ = store
    again = ingest_file(con, A)
    assert again.rows_added == 6 and again.source_id not in (a, None)
    assert len(load_points(con)) == 6 + 5
    assert list_sources(con)["sha256"].str.len().eq(64).all()           # the file's own hash, as before


def test_profiles_and_api_prices_read_as_of_a_version(tmp_path):
    con = connect(tmp_path / "p.duckdb")
    quote = CostProfile(name="quote", hardware="B200", usd_per_gpu_hour=2.0, source="a quote")
    save_profiles(con, [quote])                                          # version 1
    save_profiles(con, [quote.model_copy(update={"usd_per_gpu_hour": 3.0})])   # version 2
    price = add_prices(con, [{"model": "GLM-5", "usd_per_m_input": "1", "usd_per_m_output": "3",
                              "read_on": "2026-01-01", "source": "price page"}])   # version 3
    remove_source(con, price.source_id)                                  # version 4
    assert [p.usd_per_gpu_hour for p in load_profiles(con, 1)] == [2.0]
    assert [p.usd_per_gpu_hour for p in load_profiles(con)] == [3.0]
    assert [p.model for p in load_api_prices(con, 3)] == ["GLM-5"] and load_api_prices(con) == []
    assert list_versions(con)["action"].tolist() == ["profile", "profile", "api-price", "remove"]
    con.close()


def test_an_old_store_is_migrated_to_version_1_for_everything_present(store, tmp_path):
    con, _, _, path = store
    save_profiles(con, [CostProfile(name="quote", hardware="B200", usd_per_gpu_hour=2.0, source="a quote")])
    con.close()
    raw(path, "DELETE FROM store_versions", *UNVERSIONED, "UPDATE costfrontier_meta SET value = '2'")
    con = connect(path)                                                   # migrates in place
    log = list_versions(con)
    assert log["version"].tolist() == [1] and log["action"].tolist() == ["migrate"]
    assert "2 sources, 1 cost profiles" in log["what"][0]
    # the migrated store cannot know A was removed (its rows were deleted then): both files are version 1
    assert con.execute("SELECT DISTINCT added_in FROM sources").fetchall() == [(1,)]
    assert [p.name for p in load_profiles(con, 1)] == ["quote"]
    ingest_file(con, FIXTURES / "history" / "runs_2026-03-10.csv")
    assert list_versions(con)["version"].tolist() == [1, 2]


def test_a_read_only_snapshot_reads_any_version(store):
    con, _, _, path = store
    con.close()
    snap = open_snapshot(path)
    try:
        assert len(load_points(snap, version=1)) == 6 and len(load_points(snap, version=2)) == 11
        assert list_versions(snap)["version"].tolist() == [1, 2, 3]
    finally:
        snap.close()


def test_the_cli_iso_of_a_version_equals_the_store_of_its_files(store, tmp_path):
    con, _, _, path = store
    con.close()
    only_a = tmp_path / "a.duckdb"
    _only(tmp_path, A).close()
    next(tmp_path.glob("only1-*.duckdb")).rename(only_a)
    args = ["iso", "--where", "model=GLM-5", "--by", "hardware", "--at", "40", "--json"]
    code, pinned, _ = cli(path, *args, "--data-version", "1")
    assert code == 0
    code, alone, _ = cli(only_a, *args)
    assert code == 0
    import json
    assert json.loads(pinned)["rows"] == json.loads(alone)["rows"]
    assert json.loads(pinned)["view"]["v"] == "1"
    versions = cli(path, "versions")
    assert versions.code == 0
    out = versions.lines
    assert [line.split()[0] for line in out[1:]] == ["1", "2", "3"] and "remove" in out[3]
    code, diff, _ = cli(path, "versions", "--diff", "1", "3", "--by", "hardware", "--at", "40")
    assert code == 0
    assert f"added: #2 {B.name} (points, 5 rows)" in diff and f"removed: #1 {A.name} (points, 6 rows)" in diff
    assert "headline at version 1: At 40.0 tok/s/user" in diff
    assert cli(path, "pin", "2", "--note", "review").code == 0
    code, _, err = cli(path, "purge")
    assert code == 1
    assert "purge refused: pinned version 2 still shows #1" in err
    assert cli(path, "iso", "--data-version", "0").code == 2


def test_pinned_and_live_links():
    assert pinned_url("https://cf.example/Fleet?x=50&v=2", 7) == "https://cf.example/Fleet?x=50&v=7"
    assert live_url("https://cf.example/Fleet?v=7") == "https://cf.example/Fleet"
    assert View.from_query({"v": ["4"]})[0].data_version == 4
    assert View().replace(data_version=4).frontier_key() != View().frontier_key()
