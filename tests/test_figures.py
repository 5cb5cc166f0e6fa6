"""The Plotly figures are pure functions: check their traces, markers, axis titles and colours.

Figures are built unvalidated for speed, so these tests are what pins their structure; the
final check round-trips each through plotly's validating constructor.
"""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import pytest

from model.core.analysis import analyse
from model.core.hardware import hardware_colour
from model.core.iso import break_even_rates
from model.core.view import View
from model.data.presets import load_presets
from model.data.store import load_points
from model.present.figures import (
    X_TITLE,
    break_even_figure,
    cost_figure,
    crossover_figure,
    crossover_label,
    frontier_figure,
    usd,
)


@pytest.fixture
def mtp(sample_con):
    points = load_points(sample_con, {"spec_decoding": ["mtp"], "model": ["GLM-5"]})
    # linear, the published InferenceX crossing at 89.4 tok/s/user (the default, "auto", picks monotone here)
    return analyse(points, View(by=("hardware",), targets=(24.0, 55.0), method="linear"), load_presets(), with_points=True)


def _kinds(fig):
    return [t.meta["kind"] for t in fig.data]


def test_usd_format():
    assert usd(0.2194) == "$0.22/M" and usd(0.0512) == "$0.051/M" and usd(1.95, "/h") == "$1.95/h"
    assert usd(float("nan")) == "—" and usd(None) == "—"


def test_frontier_figure_points_and_lines(mtp):
    fig = frontier_figure(mtp.points, mtp.frontier)
    assert fig.layout.xaxis.title.text == X_TITLE == "Interactivity [tok/s/user]"
    assert fig.layout.yaxis.title.text == "Throughput [tok/s/GPU]"
    assert _kinds(fig).count("points") == 2 and _kinds(fig).count("frontier") == 2
    # 15 measured MTP points in the sample: 7 B200 + 8 MI355X
    assert sum(len(t.x) for t in fig.data if t.meta["kind"] == "points") == 15
    line = next(t for t in fig.data if t.meta == {"kind": "frontier", "series": "MI355X"})
    assert line.line.color == hardware_colour("MI355X") and line.x[-1] == pytest.approx(90.43)
    # hover carries hardware, parallelism, concurrency and the source file:line
    row = line.customdata[-1]
    assert row[0] == "MI355X" and row[2] == "TP8" and row[3] == "4"
    assert row[6].startswith("inferencex_glm5_fp8_2026-05-20.csv:")


def test_frontier_figure_cost_axis_and_optimal_only(mtp):
    fig = frontier_figure(mtp.points, mtp.frontier, y="cost", optimal_only=True)
    assert "points" not in _kinds(fig)
    assert fig.layout.yaxis.title.text == "Cost [$ per million tokens]" and fig.layout.yaxis.tickprefix == "$"
    b200 = next(t for t in fig.data if t.meta["series"] == "B200")
    # published per-row oracle (InferenceX GLM-5 blog): B200 MTP at conc 4 costs $1.30/M
    assert b200.y[-1] == pytest.approx(1.30, abs=0.01)


def test_cost_figure_targets_and_guides(mtp):
    fig = cost_figure(mtp.curves, mtp.iso)
    assert _kinds(fig).count("curve") == 2 and "targets" in _kinds(fig)
    targets = next(t for t in fig.data if t.meta["kind"] == "targets")
    assert sorted(set(targets.x)) == [24.0, 55.0]
    assert {s.x0 for s in fig.layout.shapes} == {24.0, 55.0}      # one dotted guide per target
    assert fig.layout.yaxis.ticksuffix == "/M"


def test_crossover_figure_marks_and_labels_the_crossing(mtp):
    fig = crossover_figure(mtp.curves, mtp.crossovers, mtp.reach)
    marks = next(t for t in fig.data if t.meta["kind"] == "crossovers")
    # a short number on the chart (labels never pile up); the words are in the hover and the page's list
    assert list(marks.text) == ["1"]
    assert list(marks.customdata) == ["MI355X cheaper below 89.4 tok/s/user"]
    assert marks.x[0] == pytest.approx(89.39, abs=0.01)
    reach = next(t for t in fig.data if t.meta["kind"] == "reach")
    assert sorted(reach.x) == pytest.approx([90.43, 100.85])


def test_crossover_label_text():
    assert crossover_label({"cheaper_below": "MI355X", "interactivity": 89.3949}) == \
        "MI355X cheaper below 89.4 tok/s/user"


def test_break_even_figure(mtp):
    table = break_even_rates(mtp.curves, "B200", "MI355X", [24.0, 55.0])
    fig = break_even_figure(table, "B200", "MI355X")
    assert _kinds(fig) == ["break_even", "current_rate"]
    assert fig.layout.yaxis.title.text == "$ per GPU-hour"
    # B200 must fall from $1.95 to 1.95 * cost_MI355X / cost_B200 to match at 24 tok/s/user
    iso = mtp.iso.set_index(["series", "interactivity"])["usd_per_mtok"]
    assert fig.data[0].y[0] == pytest.approx(1.95 * iso[("MI355X", 24.0)] / iso[("B200", 24.0)])


def test_every_figure_is_valid_plotly(mtp):
    table = break_even_rates(mtp.curves, "B200", "MI355X", [24.0, 55.0])
    for fig in (frontier_figure(mtp.points, mtp.frontier), cost_figure(mtp.curves, mtp.iso, "monotone"),
                crossover_figure(mtp.curves, mtp.crossovers, mtp.reach), break_even_figure(table, "B200", "MI355X")):
        go.Figure(fig.to_dict())   # the validating constructor raises on any unknown property


def test_many_points_hover_lightly_but_frontier_points_keep_their_detail():
    import numpy as np
    import pandas as pd

    from model.present.figures import DETAIL_LIMIT

    n = DETAIL_LIMIT + 1
    rng = np.random.default_rng(3)
    points = pd.DataFrame({"series": "B200", "hardware": "B200", "interactivity": rng.uniform(1, 100, n),
                           "tokens_per_second_per_gpu": rng.uniform(100, 2000, n), "usd_per_mtok": 1.0})
    frontier = points.nlargest(3, "tokens_per_second_per_gpu").assign(source_file="f.csv", source_line=2)
    fig = frontier_figure(points, frontier)
    measured = next(t for t in fig.data if t.meta["kind"] == "points")
    assert measured.type == "scattergl" and measured.customdata is None and len(measured.x) == n
    line = next(t for t in fig.data if t.meta["kind"] == "frontier")
    assert line.customdata[0][6] == "f.csv:2"


def test_thin_cloud_keeps_at_most_the_limit_and_small_clouds_whole():
    from model.present.figures import thin_cloud

    frame = pd.DataFrame({"x": range(12_001)})
    thinned = thin_cloud(frame, 5_000)
    assert len(thinned) == 4_001 and thinned["x"].iloc[1] == 3      # every 3rd row: ceil(12001 / 5000) = 3
    assert thin_cloud(frame.head(5_000), 5_000) is not None and len(thin_cloud(frame.head(5_000), 5_000)) == 5_000


def test_the_day_chart_keeps_its_legend_off_its_title():
    """Issue 41: the day chart's title sat where its legend was drawn (both above the plot). The title stays at the
    top of the figure, the legend goes under the x axis, whatever its length."""
    from model.present.volume_figures import day_figure

    over = pd.DataFrame({"series": "B200", "t_h": [0.0, 1.0], "demand_rps": [1.0, 2.0], "nodes": 3.0,
                         "nodes_autoscaled": [1.0, 2.0], "capacity_rps": [3.0, 3.0],
                         "capacity_autoscaled_rps": [1.0, 2.0]})
    layout = day_figure(over).layout
    assert layout.title.text == "B200" and layout.title.y >= 0.95 and layout.title.yanchor == "top"
    assert layout.legend.yanchor == "top" and layout.legend.y < 0        # below the plot area
