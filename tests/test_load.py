"""A team at work (issue 38): 20 viewers' sessions through the shipped nginx on two read-only replicas, while a
writer publishes a new version every 2 s, for a minute. Every page run must draw no exception and no error box
(before the fix, 66 of 2,065 runs showed DuckDB's "connection is busy with another call": two sessions' reruns
reached one shared connection at once); resident memory stays bounded and no replaced snapshot stays open after
the run. Each viewer pauses about 4 s between runs, as people read a page before the next click; the figures are
printed (``-s``), and bench/bench_load.py runs the same load harder."""

from __future__ import annotations

from pathlib import Path

import pytest

from deploy.serve import nginx_binary
from tests.load import run_load

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(nginx_binary() is None, reason="needs Debian's nginx (.ci/run installs it)"),
              pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc")]


def test_twenty_viewers_and_a_writer_for_a_minute_see_no_error(sample_db, tmp_path):
    load = run_load(sample_db, tmp_path, viewers=20, replicas=2, seconds=60, write_every_s=2.0, pause_s=4.0)
    print(load.summary())
    assert load.faults == [], load.faults[:5]
    assert set(load.statuses) == {"FINISHED_SUCCESSFULLY"}, load.statuses
    # every viewer ran pages throughout and the writer kept writing (how many depends on the machine's load)
    assert load.runs >= 3 * 20 and load.writes >= 20 and not load.write_errors, load.summary()
    assert all(max(samples) < 1024 for samples in load.rss_mb.values()), load.summary()   # a replica's budget
    assert load.replaced_open_after == 0, load.summary()
