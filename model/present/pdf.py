"""What the PDF prints, and in how many pieces: a report's print page made lighter and printed a part at a
time, so one print stays well under 1.5 GB with its Chromium (issue 32, item 7).

A report of 900 series over 100,000 rows draws every measured point (WebGL traces, which headless Chromium
renders in software) and carries each point's hover details, and its iso table runs to 2,700 rows (100 pages):
printing it in one go peaked at 3.5 GB. Chromium's memory grows with the pages it lays out (about 10 MB a page),
so :func:`print_in_parts` prints the page in parts of at most :data:`ROWS_PER_PART` table rows (a long table is
split, its header repeated; each part starts on a new page), one Chromium after another, and joins them with
poppler's ``pdfunite`` (printed in one go when it is missing). :func:`lighter` draws at most
:data:`PRINT_POINTS` measured points (an even sample of each series, as the dashboard's Frontier page draws by
default; every frontier point and every curve stays), as SVG, without hover data, and says so on the chart.
The HTML report keeps everything.
"""

from __future__ import annotations

import base64
import json
import math
import re
import shutil
import subprocess
from pathlib import Path
from typing import Callable

import numpy as np

__all__ = ["PRINT_POINTS", "ROWS_PER_PART", "lighter", "parts", "print_in_parts"]

#: table rows one part of a printed report holds at most (about 16 pages)
ROWS_PER_PART = 400
#: what a chart weighs against table rows when a page is split into parts (Chromium draws it in as much memory):
#: a chart drawing thousands of points weighs up to :data:`_CHART_ROWS` rows, a light one (a few curves, a day's
#: steps) about a page's, by the size of its figure (:data:`_CHART_CHARS_PER_ROW` characters a row). A report that
#: weighs no more than a part prints in one go, and only then is the PDF tagged (``pdfunite`` keeps no structure)
_CHART_ROWS = 200
_LIGHT_CHART_ROWS = 25
_CHART_CHARS_PER_ROW = 1_000

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


_TABLE = re.compile(r"(<table[^>]*>)(<thead>.*?</thead>)<tbody>(.*?)</tbody></table>", re.S)
_ROW = re.compile(r"<tr[ >].*?</tr>", re.S)


def _weight(html: str) -> int:
    """Table rows, and each chart's weight in rows by the size of its figure (:data:`_CHART_ROWS`)."""
    weight, i = html.count("<tr"), 0
    while (begin := html.find(_TAG, i)) >= 0 and (end := html.find(_CALL, begin)) >= 0:
        weight += min(_CHART_ROWS, max(_LIGHT_CHART_ROWS, (end - begin) // _CHART_CHARS_PER_ROW))
        i = end + len(_CALL)
    return weight


def _pieces(body: str, rows_per_part: int) -> list[str]:
    """The body's top-level blocks (its header, then each section), a long table cut into pieces of
    ``rows_per_part`` rows with its header repeated."""
    out: list[str] = []
    for block in re.split(r"(?=<section[\s>])", body):
        if not block:
            continue
        rest = block
        while True:
            match = next((m for m in _TABLE.finditer(rest) if len(_ROW.findall(m.group(3))) > rows_per_part), None)
            if match is None:
                out.append(rest)
                break
            rows = _ROW.findall(match.group(3))
            chunks = [rows[i:i + rows_per_part] for i in range(0, len(rows), rows_per_part)]
            tables = [f"{match.group(1)}{match.group(2)}<tbody>{''.join(c)}</tbody></table>" for c in chunks]
            out.append(rest[:match.start()] + tables[0])
            out += tables[1:-1]
            rest = tables[-1] + rest[match.end():]
    return out


def parts(page_html: str, rows_per_part: int = ROWS_PER_PART) -> list[str]:
    """``page_html`` as pages to print one after another: each the same head (styles, plotly.js) and a run of
    the body's blocks weighing at most about ``rows_per_part`` table rows (a chart weighs a page). One part
    when the page is light enough, or not a report page."""
    begin, end = page_html.find("<body>"), page_html.rfind("</body>")
    if begin < 0 or end < begin or _weight(page_html) <= rows_per_part:
        return [page_html]
    head, body, tail = page_html[:begin + len("<body>")], page_html[begin + len("<body>"):end], page_html[end:]
    out, current, weight = [], [], 0
    room = rows_per_part + 1     # a table's header row beside its rows
    for piece in _pieces(body, rows_per_part):
        w = _weight(piece)
        if weight and weight + w > room:
            out.append(current)
            current, weight = [], 0
        current.append(piece)
        weight += w
    if current:
        out.append(current)
    return [head + "".join(run) + tail for run in out]


def print_in_parts(page_html: str, folder: Path, print_one: Callable[[str, Path], None],
                   rows_per_part: int = ROWS_PER_PART) -> Path:
    """Print :func:`lighter` ``page_html`` into ``folder``/report.pdf, a part at a time (:func:`parts`;
    ``print_one(html, pdf_path)`` prints one), joined by ``pdfunite``; in one go when it is missing or fails."""
    light = lighter(page_html)
    whole = folder / "report.pdf"
    pieces = parts(light, rows_per_part)
    unite = shutil.which("pdfunite")
    if len(pieces) > 1 and unite:
        printed = []
        for i, piece in enumerate(pieces):
            printed.append(folder / f"part-{i:03d}.pdf")
            print_one(piece, printed[-1])
        try:
            done = subprocess.run([unite, *map(str, printed), str(whole)], capture_output=True, timeout=120)
        except (OSError, subprocess.TimeoutExpired):
            done = None
        if done is not None and done.returncode == 0 and whole.exists() and whole.stat().st_size:
            return whole
    print_one(light, whole)
    return whole
