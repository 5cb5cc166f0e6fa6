"""The PDF's print page, lighter and in parts (issue 32, item 7): model.present.pdf."""

from __future__ import annotations

import json

import numpy as np
import plotly.graph_objects as go

from model.present.pdf import lighter, parts
from model.present.report_output import chart, chart_html, page


def _cloud_chart(points: int, series: int = 3) -> str:
    traces = [dict(type="scattergl", x=np.arange(points, dtype=float), y=np.arange(points, dtype=float),
                   customdata=np.zeros((points, 2)), meta={"kind": "points", "series": f"s{i}"}) for i in range(series)]
    traces.append(dict(type="scatter", x=[1.0, 2.0], y=[3.0, 4.0], customdata=[[1], [2]],
                       meta={"kind": "frontier", "series": "s0"}))
    return chart_html(chart(go.Figure(traces, skip_invalid=True), "Frontier"), "frontier-chart", 690)


def _specs(html: str) -> list[dict]:
    tag, out, i = "<script>(function(){var f=", [], 0
    while (start := html.find(tag, i)) >= 0:
        end = html.find(";Plotly.newPlot(", start)
        out.append(json.loads(html[start + len(tag):end]))
        i = end
    return out


def test_a_printed_chart_draws_at_most_5000_measured_points_as_svg_and_says_so():
    html = page("r", "<section id=a>" + _cloud_chart(4000) + "</section>", 690)
    (spec,) = _specs(lighter(html))
    clouds = [t for t in spec["data"] if t["meta"]["kind"] == "points"]
    drawn = sum(len(np.frombuffer(__import__("base64").b64decode(t["x"]["bdata"]), t["x"]["dtype"]))
                if isinstance(t["x"], dict) else len(t["x"]) for t in clouds)
    assert drawn == 3 * 1334                       # 1 in 3 of each series' 4,000
    assert {t["type"] for t in spec["data"]} == {"scatter"}
    assert not any("customdata" in t for t in spec["data"])
    assert [t["x"] for t in spec["data"] if t["meta"]["kind"] == "frontier"] == [[1.0, 2.0]]   # frontiers whole
    assert "4,002 of 12,000 drawn (1 in 3" in spec["layout"]["annotations"][-1]["text"]


def test_a_light_page_is_printed_as_it_is():
    html = page("r", "<section id=a>" + _cloud_chart(10, 1) + "</section><section><table><thead><tr><th>x</th></tr>"
                "</thead><tbody><tr><td>1</td></tr></tbody></table></section>", 690)
    assert parts(html) == [html]
    (spec,) = _specs(lighter(html))
    assert len(spec["data"][0]["x"]["bdata"]) and "annotations" not in spec["layout"]   # nothing thinned


def test_a_long_table_is_printed_in_parts_each_with_its_header():
    rows = "".join(f"<tr><td>{i}</td></tr>" for i in range(1300))
    body = (f"<header><h1>T</h1></header><section id=iso><h2>Iso</h2><table id=\"iso\"><thead><tr><th>n</th></tr>"
            f"</thead><tbody>{rows}</tbody></table><p>after</p></section><section id=end><p>end</p></section>")
    html = page("r", body, 690)
    printed = parts(html, rows_per_part=600)
    assert len(printed) == 3
    cells = [int(c) for p in printed for c in __import__("re").findall(r"<td>(\d+)</td>", p)]
    assert cells == list(range(1300))              # every row once, in order
    assert all(p.count("<th>n</th>") == 1 for p in printed)
    assert all(p.startswith("<!DOCTYPE html>") and p.endswith("</body></html>") for p in printed)
    assert "<h1>T</h1>" in printed[0] and "<p>after</p>" in printed[-1] and "<p>end</p>" in printed[-1]


def test_a_report_with_a_few_light_charts_prints_in_one_part_so_its_pdf_is_tagged():
    """Issue 41: joined parts lose the PDF's structure (``pdfunite`` keeps no tags), and two small charts (a few
    curves) weighed 400 rows, so a six-page report printed in two parts, untagged. A chart weighs by what it draws:
    a light one about a page (25 rows), one drawing thousands of points up to 200."""
    light = "".join(f"<section id=c{i}>" + _cloud_chart(10, 1) + "</section>" for i in range(6))
    rows = "".join(f"<tr><td>{i}</td></tr>" for i in range(200))
    html = page("r", light + f"<section><table><thead><tr><th>x</th></tr></thead><tbody>{rows}</tbody></table>"
                "</section>", 690)
    assert parts(html) == [html]
    heavy = "".join(f"<section id=c{i}>" + _cloud_chart(4000) + "</section>" for i in range(3))
    assert len(parts(page("r", heavy, 690))) > 1                  # three heavy charts: still printed in parts
