"""What the PDF prints: the report's print page made lighter for Chromium (issue 32, item 7).

A report of 900 series over 100,000 rows draws every measured point (WebGL traces, which headless Chromium
renders in software) and carries each point's hover details: printing it peaked at 3.5 GB. On paper neither is
seen, so :func:`lighter` draws at most :data:`PRINT_POINTS` measured points (an even sample, every k-th of each
series, as the dashboard's Frontier page draws by default; every frontier point and every curve stays), as SVG,
without hover data, and says so on the chart. The HTML report keeps everything.
"""

from __future__ import annotations

import base64
import json
import math

import numpy as np

__all__ = ["PRINT_POINTS", "lighter"]

#: measured points a printed chart draws at most (an even sample past it)
PRINT_POINTS = 5_000
_TAG = "<script>(function(){var f="
_CALL = ";Plotly.newPlot("


def _length(values) -> int:
    if isinstance(values, list):
        return len(values)
    if isinstance(values, dict) and "bdata" in values:
        shape = values.get("shape")
        if shape:
            return int(str(shape).split(",")[0])
        return len(base64.b64decode(values["bdata"])) // np.dtype(values["dtype"]).itemsize
    return 0


def _every(values, step: int):
    """Every ``step``-th item of a trace's array (a list, or Plotly's typed array ``{dtype, bdata}``)."""
    if isinstance(values, list):
        return values[::step]
    if isinstance(values, dict) and "bdata" in values and not values.get("shape"):
        array = np.frombuffer(base64.b64decode(values["bdata"]), dtype=values["dtype"])[::step]
        return {**values, "bdata": base64.b64encode(np.ascontiguousarray(array).tobytes()).decode()}
    return values


def _thin(spec: dict, max_points: int) -> bool:
    """Thin the measured points of one chart's spec in place; whether anything changed."""
    traces = spec.get("data") or []
    points = [t for t in traces if isinstance(t.get("meta"), dict) and t["meta"].get("kind") == "points"]
    changed = False
    for trace in traces:              # hover details: nothing on paper reads them
        if "customdata" in trace:
            del trace["customdata"]
            changed = True
    total = sum(_length(t.get("x")) for t in points)
    step = max(1, math.ceil(total / max_points)) if total else 1
    for trace in points:
        if step > 1:
            for key in ("x", "y", "text"):
                if key in trace:
                    trace[key] = _every(trace[key], step)
        if trace.get("type") == "scattergl":
            trace["type"] = "scatter"     # SVG: no software WebGL in the printing Chromium, vectors in the PDF
            changed = True
    if step > 1:
        shown = sum(_length(t.get("x")) for t in points)
        layout = spec.setdefault("layout", {})
        layout["annotations"] = [*(layout.get("annotations") or []), dict(
            text=f"Measured points: {shown:,} of {total:,} drawn (1 in {step} of each series); every frontier "
                 "point is drawn. The HTML report draws them all.",
            xref="paper", yref="paper", x=0, y=1.0, xanchor="left", yanchor="bottom", showarrow=False,
            font=dict(size=10, color="#57606a"))]
        changed = True
    return changed


def lighter(page_html: str, max_points: int = PRINT_POINTS) -> str:
    """``page_html`` (a report's page, :func:`model.present.report_output.page`) with each chart's measured points
    thinned to at most ``max_points`` and drawn as SVG, and no hover data: what is printed to PDF. A chart that
    cannot be read is left as it is."""
    out, i = [], 0
    while (start := page_html.find(_TAG, i)) >= 0:
        begin = start + len(_TAG)
        end = page_html.find(_CALL, begin)
        if end < 0:
            break
        text = page_html[begin:end]
        try:
            spec = json.loads(text)
        except ValueError:
            spec = None
        if isinstance(spec, dict) and _thin(spec, max_points):
            text = json.dumps(spec, separators=(",", ":")).replace("</", "<\\/")
        out += [page_html[i:begin], text]
        i = end
    out.append(page_html[i:])
    return "".join(out)
