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
    cache.get_or_make("rows", lambda: rows)
    own = cache.get_or_make("labelled", lambda: labelled, deps=("rows",))
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


def test_when_what_an_entry_is_made_of_goes_the_entry_goes_too():
    cache = ByteLRU(100 * MB)
    rows = cache.get_or_make("rows", lambda: _frame(2))
    cache.get_or_make("answer", lambda: {"rows": rows, "own": _frame(1)}, deps=("rows",))
    cache.get_or_make("unrelated", lambda: _frame(1))
    assert MB <= cache.size("answer") < 1.1 * MB     # the rows it is made of are not counted again
    cache.retain(lambda key: key != "rows")
    assert cache.keys() == ["unrelated"]             # it held the rows uncounted: it went with them


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
    rows = cache.get_or_make("rows", lambda: _frame(6))
    cache.get_or_make("old", lambda: _frame(1))
    cache.get("rows")
    cloud = cache.get_or_make("cloud", lambda: {"rows": rows, "own": _frame(5)}, deps=("rows",))
    assert len(cloud["own"]) and "cloud" not in cache         # used once: keeping it would evict its own rows
    assert "rows" in cache and "old" in cache                 # and nothing else went for it


def test_views_of_one_fit_and_rates_share_their_inputs_fit_and_points_as_the_model_does(sample_db):
    """Two slider steps (interactivity needed 30 and 60) share the inputs, the fit and the labelled points, and
    each part equals what an answer built alone from a load of the store computes."""
    from model.core.view import View
    from model.data.snapshot import open_snapshot
    from model.data.store import shared_strings
    from model.present.view_answer import CLOUD_COLUMNS, answer_of_view
    from ui import data
    from ui.lru import CACHE

    con = open_snapshot(sample_db)
    parts = ("cost", "cloud", "frontier_table", "recommendation")
    try:
        CACHE.clear()
        snap = type("Snap", (), {"version": ("test", str(sample_db)), "con": con})()
        one, two = (data.answer_of(View(interactivity_needed=x, baseline="MI355X"), parts, snap) for x in (30.0, 60.0))
        again = data.answer_of(View(interactivity_needed=30.0, baseline="MI355X"), parts, snap)
        assert one.cost is not two.cost and again.cost is one.cost and again.computed == ()   # every step kept
        assert one.inputs is two.inputs and one.fit is two.fit and one.cloud is two.cloud
        plain = answer_of_view(con, View(interactivity_needed=60.0, baseline="MI355X"), parts)
        # the labelled points keep the chart's columns (CLOUD_COLUMNS), each text value held once
        cloud = two.cloud.points
        assert list(cloud.columns) == list(CLOUD_COLUMNS) and len(cloud) == len(plain.cloud.points) == 29
        pd.testing.assert_frame_equal(cloud, shared_strings(plain.cloud.points[list(CLOUD_COLUMNS)].copy()))

        def same(left, right):       # the dashboard's rows hold their text once, a one-shot load Arrow's storage
            pd.testing.assert_frame_equal(shared_strings(left.copy()), shared_strings(right.copy()))

        # the dashboard reads every page's columns, the plain answer its parts': compared on the plain one's
        same(two.cloud.frontier[list(plain.cloud.frontier.columns)], plain.cloud.frontier)
        same(two.frontier_table[list(plain.frontier_table.columns)], plain.frontier_table)
        same(two.cost.iso, plain.cost.iso)
        assert two.recommendation.headline == plain.recommendation.headline and two.interactivity_needed == 60.0
    finally:
        CACHE.clear()
        con.close()
