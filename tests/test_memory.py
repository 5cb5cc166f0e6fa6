"""The dashboard's shared cache bounded in bytes (issue 32, item 6): ui.lru.ByteLRU, its measure and its budget."""

from __future__ import annotations

import threading

import numpy as np
import pandas as pd
import pytest

from ui.lru import DEFAULT_CACHE_MB, ByteLRU, cache_budget, size_of

MB = 1 << 20


def _frame(mb: float) -> pd.DataFrame:
    return pd.DataFrame({"x": np.zeros(int(mb * MB) // 8)})


def test_size_of_counts_a_frames_bytes_and_what_holds_it():
    frame = _frame(2)
    assert 2 * MB <= size_of(frame) <= 2 * MB + 1024
    # held twice, counted once; in a dict, a list, a dataclass-like object
    assert 2 * MB <= size_of({"a": frame, "b": [frame, frame]}) < 2 * MB + 4096
    texts = pd.DataFrame({"s": ["x" * 100] * 1000})
    assert size_of(texts) >= 100_000          # deep: the strings, not the pointers
    many = [np.zeros(1000)] * 10_000          # a long list is measured from a sample, not walked whole
    assert size_of(many) >= 8000


def test_size_of_leaves_out_columns_a_shared_frame_holds():
    rows = pd.DataFrame({"a": np.zeros(MB // 8), "b": np.ones(MB // 8)})
    labelled = rows.assign(c=np.arange(MB // 8, dtype=float))   # pandas shares a and b (copy on write)
    cache = ByteLRU(100 * MB)
    cache.get_or_make("rows", lambda: rows, group="g")
    own = cache.get_or_make("labelled", lambda: labelled, groups=("g",))
    assert own is labelled
    sizes = {k: cache.size(k) for k in cache.keys()}
    assert MB <= sizes["labelled"] < 1.1 * MB        # only its own column
    assert 2 * MB <= sizes["rows"] < 2.1 * MB


def test_the_least_recently_used_go_when_the_bytes_pass_the_budget():
    cache = ByteLRU(10 * MB)
    for name in "abcd":
        cache.get_or_make(name, lambda: _frame(3))
    assert cache.keys() == ["b", "c", "d"] and cache.total <= 10 * MB
    cache.get("b")                                    # used: now the newest
    cache.get_or_make("e", lambda: _frame(3))
    assert cache.keys() == ["d", "b", "e"]
    assert cache.evictions == 2


def test_an_entry_larger_than_the_budget_is_used_once_and_not_kept():
    cache = ByteLRU(4 * MB)
    cache.get_or_make("small", lambda: _frame(1))
    big = cache.get_or_make("big", lambda: _frame(5))
    assert len(big) and "big" not in cache and "small" in cache


def test_an_entry_that_grows_is_measured_again_and_evicted_by_its_new_size():
    class Answer:
        pass

    cache = ByteLRU(10 * MB)
    answer = Answer()
    cache.get_or_make("answer", lambda: answer, size=lambda _: 0)
    cache.get_or_make("other", lambda: _frame(4))
    answer.part = _frame(5)                           # a part computed when a page first read it
    cache.touch("answer", answer, vars(answer))
    assert cache.size("answer") >= 5 * MB
    cache.touch("answer", answer, vars(answer))       # each part measured once
    assert cache.size("answer") < 6 * MB
    answer.more = _frame(4)
    cache.touch("answer", answer, vars(answer))
    assert "other" not in cache and "answer" in cache  # the older entry went to make room


def test_when_a_shared_part_goes_what_holds_it_goes_too():
    cache = ByteLRU(100 * MB)
    rows = cache.get_or_make("rows", lambda: _frame(2), group="rows")
    cache.get_or_make("answer", lambda: {"rows": rows, "own": _frame(1)}, groups=("rows",))
    cache.get_or_make("unrelated", lambda: _frame(1))
    assert MB <= cache.size("answer") < 1.1 * MB     # the shared rows are not counted again
    cache.retain(lambda key: key != "rows")
    assert cache.keys() == ["unrelated"]


def test_one_value_per_key_across_threads():
    cache = ByteLRU(100 * MB)
    made, seen = [], []
    barrier = threading.Barrier(6)

    def make():
        made.append(1)
        return _frame(1)

    def worker():
        barrier.wait()
        seen.append(cache.get_or_make("k", make))

    threads = [threading.Thread(target=worker) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len({id(v) for v in seen}) <= len(made) and cache.get("k") is not None
    assert len(cache) == 1


@pytest.mark.parametrize("text, mb", [("", DEFAULT_CACHE_MB), ("256", 256), ("0.5", 0.5), ("-3", DEFAULT_CACHE_MB),
                                      ("lots", DEFAULT_CACHE_MB), ("nan", DEFAULT_CACHE_MB), ("inf", DEFAULT_CACHE_MB)])
def test_the_budget_is_a_setting_in_mb(monkeypatch, text, mb):
    monkeypatch.setenv("COSTFRONTIER_CACHE_MB", text)
    assert cache_budget() == int(mb * MB)


def test_what_an_entry_is_made_of_is_not_evicted_to_make_room_for_it():
    cache = ByteLRU(10 * MB)
    rows = cache.get_or_make("rows", lambda: _frame(6), group="rows")
    cache.get_or_make("old", lambda: _frame(1))
    cache.get("rows")
    cloud = cache.get_or_make("cloud", lambda: {"rows": rows, "own": _frame(5)}, group="view", groups=("rows",))
    assert len(cloud["own"]) and "cloud" not in cache         # used once: keeping it would evict its own rows
    assert "rows" in cache and "old" in cache                 # and nothing else went for it


def test_views_of_one_fit_and_rates_share_their_rows_parts_and_answer_as_the_model_does(sample_db):
    """Two slider steps (interactivity needed 30 and 60) share the labelled points, the priced frontier, the spread and
    the frontier table, and each part equals what an unshared answer computes."""
    from model.core.view import View
    from model.data.inputs import load_inputs
    from model.data.snapshot import open_snapshot
    from model.data.store import shared_strings
    from model.present.view_answer import build_answer
    from ui import data
    from ui.lru import CACHE
    from ui.shared_answer import CLOUD_COLUMNS

    con = open_snapshot(sample_db)
    try:
        CACHE.clear()
        snap = type("Snap", (), {"version": ("test", str(sample_db)), "con": con})()
        one, two = (data.answer_of(View(interactivity_needed=x, baseline="MI355X"), snap) for x in (30.0, 60.0))
        assert one is not two and one is data.answer_of(View(interactivity_needed=30.0, baseline="MI355X"), snap)
        assert one.with_points.points is two.with_points.points
        assert one.frontier_table is two.frontier_table and one.analysis.frontier is two.analysis.frontier
        plain = build_answer(load_inputs(con, View(interactivity_needed=60.0, baseline="MI355X"), None))
        # the dashboard loads the columns its pages read (DASHBOARD_PARTS), and its shared cloud keeps the chart's
        cloud = two.with_points.points
        assert list(cloud.columns) == list(CLOUD_COLUMNS) and len(cloud) == len(plain.with_points.points) == 29
        # each text value held once (shared_strings): the same values, missing values and kind of dtype
        pd.testing.assert_frame_equal(cloud, shared_strings(plain.with_points.points[list(CLOUD_COLUMNS)].copy()))
        assert "requests_completed" in plain.rows and "requests_completed" not in two.rows
        # the dashboard's cached rows hold their text once, a one-shot load keeps Arrow's storage: the same values,
        # missing values and kind of dtype, compared with the text of both held one way
        def same(left, right):
            pd.testing.assert_frame_equal(shared_strings(left.copy()), shared_strings(right.copy()))

        shown = list(two.with_points.frontier.columns)
        same(two.with_points.frontier, plain.with_points.frontier[shown])
        same(two.with_points.iso, plain.with_points.iso)
        assert two.with_points.notes == plain.with_points.notes
        same(two.frontier_table, plain.frontier_table[list(two.frontier_table.columns)])
        same(two.iso, plain.iso)
        assert two.headline == plain.headline and two.interactivity_needed == 60.0
    finally:
        CACHE.clear()
        con.close()
