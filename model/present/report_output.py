"""The report's outputs: the :class:`Report` (HTML, PDF printed by headless Chromium, tables as CSV zip
and XLSX), tables for people (rounded by one rule, formula-safe), charts as Plotly JSON, the page frame.

Numbers are formatted by one rule everywhere: money with 2 decimals (3 below $0.10, and at least two
significant digits below that), interactivity [tok/s/user] and throughput [tok/s/GPU] with 1, ratios as ``1.41x``.
"""

from __future__ import annotations

import html
import io
import json
import os
import shutil
import subprocess
import tempfile
import threading
import time
import zipfile
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio
from plotly.offline import get_plotlyjs

from model.data.export import safe_csv, write_whole
from model.present import figures
from model.present.fmt import USD_PLAIN_LOW, dollars, usd_decimals
from model.present.pdf import print_in_parts

__all__ = ["ReportSection", "Report", "ReportError", "KINDS", "cell_text", "PRINT_WIDTH_PX", "PRINT_COLUMNS", "round_usd", "sheet_names", "SHEET_NAME_LIMIT", "table_frames", "html_table", "row_labels", "chart",
           "chart_html", "page", "file_name", "chromium_path", "html_to_pdf", "PRINT_QUEUE_WAIT_S"]

#: how a column is shown and rounded: money [$], interactivity [tok/s/user], throughput [tok/s/GPU], ..., a share
#: (``share``: 0.068 as 6.8%), a request rate (``rps``: three significant figures, 0.827 and 0.791 apart)
KINDS = ("usd", "dollars", "x", "tps", "ratio", "int", "text", "share", "rps")

#: the Chromium flags of every PDF print: no network, no profile of the user's, no first-run work
_CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                   "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-extensions",
                   "--host-resolver-rules=MAP * ~NOTFOUND", "--no-pdf-header-footer",
                   "--run-all-compositor-stages-before-draw", "--virtual-time-budget=20000")
#: width of a chart in the PDF [CSS px]: A4 less 2 x 14 mm margins at 96 px/inch
PRINT_WIDTH_PX = 690


class ReportError(RuntimeError):
    """A report cannot be made (e.g. no Chromium for the PDF)."""


@dataclass(frozen=True)
class Report:
    """A finished report. ``html`` opens offline; the other outputs are made on demand."""

    title: str
    html: str
    print_html: str                               # same content, charts at a fixed print width
    tables: dict[str, pd.DataFrame]               # name -> rounded numbers, people's headers
    assumptions: pd.DataFrame                     # item, value, source
    made_at: datetime
    workbook: object = None                       # model.present.workbook_cells.WorkbookPlan: the XLSX's formulas
    #: what the first page says (model.present.parts.Recommendation: the view's, or with its request mix's
    #: fleet) and the answers of other views it shows (model.present.report_sections.ReportExtras), for the bundle
    first_page: object = None
    extras: object = None

    def to_pdf(self, path: str | os.PathLike, chromium: str | None = None, timeout_s: float = 180,
               on_wait: Callable[[], None] | None = None) -> Path:
        """Print the report to ``path`` as PDF with headless Chromium (vector charts). Returns the path.
        One print at a time per process (:func:`html_to_pdf`); ``on_wait`` is called when this one queues."""
        return html_to_pdf(self.print_html, path, chromium, timeout_s, on_wait)

    def pdf_bytes(self, chromium: str | None = None, timeout_s: float = 180,
                  on_wait: Callable[[], None] | None = None) -> bytes:
        """The PDF as bytes (for a download button); see :meth:`to_pdf`."""
        with tempfile.TemporaryDirectory(prefix="costfrontier-pdf-") as tmp:
            return self.to_pdf(Path(tmp) / "report.pdf", chromium, timeout_s, on_wait).read_bytes()

    def tables_csv(self) -> bytes:
        """A zip of one formula-safe CSV per table, plus ``assumptions.csv``."""
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            for name, frame in {**self.tables, "Assumptions": self.assumptions}.items():
                archive.writestr(file_name(name) + ".csv", safe_csv(frame))
        return buffer.getvalue()



def round_usd(value: float) -> float:
    """Money rounded for people as it is shown (:func:`model.present.fmt.usd_decimals`; two significant digits
    below a ten-millionth of a dollar) [$]. NaN stays NaN."""
    if value is None or not np.isfinite(value):
        return np.nan
    if 0 < abs(value) < USD_PLAIN_LOW:
        return float(f"{float(value):.2g}")
    return round(float(value), usd_decimals(value))


def _show(value, kind: str) -> str:
    if kind == "text":
        return "" if value is None or (isinstance(value, float) and np.isnan(value)) or value is pd.NA else str(value)
    if value is None or value is pd.NA or (isinstance(value, (float, np.floating)) and not np.isfinite(value)):
        return "—"
    if kind == "usd":
        return figures.usd(float(value), "")
    if kind == "dollars":                 # whole dollars, rounded as the sentences round them ($156,604)
        return dollars(value)
    if kind == "x":
        return f"{float(value):.1f}"
    if kind == "tps":
        return f"{float(value):,.1f}"
    if kind == "ratio":
        return f"{float(value):.2f}x"
    if kind == "share":
        return f"{float(value):.1%}"
    if kind == "rps":
        return f"{_rps(value):,.{_rps_decimals(value)}f}"
    return f"{int(value)}"


def _rps_decimals(value) -> int:
    """Decimals that keep three significant figures of a request rate (none from 100 up)."""
    v = abs(float(value))
    return 0 if v >= 100 or v == 0 else min(6, 2 - int(np.floor(np.log10(v))))


def _rps(value) -> float:
    return round(float(value), _rps_decimals(value))


def cell_text(value, kind: str) -> str:
    """One value as a table of the report shows it (``kind`` of :data:`KINDS`): ``$0.55``, ``30.0``, ``1.41x``;
    ``—`` without one."""
    if kind not in KINDS:
        raise ValueError(f"unknown column kind {kind!r}; choose from {', '.join(KINDS)}")
    return _show(value, kind)


def _round(value, kind: str):
    if kind == "text":
        return None if value is pd.NA or (isinstance(value, float) and np.isnan(value)) else value
    if value is None or value is pd.NA or (isinstance(value, (float, np.floating)) and not np.isfinite(value)):
        return None
    if kind == "usd":
        return round_usd(float(value))
    if kind == "dollars":
        return round(float(value))
    if kind in ("x", "tps"):
        return round(float(value), 1)
    if kind == "ratio":
        return round(float(value), 2)
    if kind == "share":
        return round(float(value), 3)
    if kind == "rps":
        return _rps(value)
    return int(value)


def table_frames(frame: pd.DataFrame, spec: list[tuple[str, str, str]]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(text to show, rounded numbers to download) from one spec, so the two always agree."""
    for _, _, kind in spec:
        if kind not in KINDS:
            raise ValueError(f"unknown column kind {kind!r}; choose from {', '.join(KINDS)}")
    shown = pd.DataFrame({h: [_show(v, k) for v in frame[c]] if c in frame else [] for h, c, k in spec},
                         columns=[h for h, _, _ in spec])
    rounded = pd.DataFrame({h: pd.Series([_round(v, k) for v in frame[c]], dtype=object) if c in frame else []
                            for h, c, k in spec}, columns=[h for h, _, _ in spec])
    return shown, rounded


def row_labels(shown: pd.DataFrame, key_headers: list[str]) -> list[str]:
    """Each row of a shown table (:func:`table_frames`) by the text of its key columns, ``" | "``-joined; rows alike
    in them numbered in order (``#2``): how a figure of a table is named (:func:`model.present.bundle.table_figures`)
    and marked in the HTML (:func:`html_table`)."""
    seen: dict[str, int] = {}
    out = []
    for values in zip(*(shown[h].astype(str) for h in key_headers)) if key_headers else ((),) * len(shown):
        key = " | ".join(values)
        seen[key] = seen.get(key, 0) + 1
        out.append(key if seen[key] == 1 else f"{key} #{seen[key]}")
    return out


#: a printed table holds at most this many columns beside its key columns; a wider one is printed in parts (an A4
#: page holds about 19 columns of the report's figures at its print size: the Seller economics table's 35 ran off it)
PRINT_COLUMNS = 12


def html_table(shown: pd.DataFrame, table_id: str, spec: list[tuple[str, str, str]], grouped: bool = False,
               figures: tuple[str, list[str]] | None = None, most_columns: int | None = None) -> str:
    """An HTML table of the shown text; ``grouped`` rules a line where the first column's value changes.
    ``figures``: (the table's name, its key columns' headers): each number's cell carries its figure's id
    (``data-figure="TABLE | ROW | HEADER"``, :func:`row_labels`), which ``verify`` reads back. ``most_columns``: a
    table with more columns than that beside its key columns (the figures' keys, else the first column) is several
    tables, each the key columns and at most that many others, in order (what a page's width holds)."""
    keys = [c for c in (figures[1] if figures else []) if c in shown.columns] or list(shown.columns[:1])
    others = [i for i, c in enumerate(shown.columns) if c not in keys]
    if most_columns and len(others) > most_columns and len(shown):
        count = -(-len(others) // most_columns)
        size = -(-len(others) // count)                # parts of nearly equal width
        kept = [i for i, c in enumerate(shown.columns) if c in keys]
        out = []
        for n in range(count):
            part = kept + others[n * size:(n + 1) * size]
            out.append((f'<p class="caption cont">{html.escape(figures[0] if figures else "The table")}, continued</p>'
                        if n else "")
                       + html_table(shown.iloc[:, part], table_id if not n else f"{table_id}-{n + 1}",
                                    [spec[i] for i in part], grouped, figures))
        return "".join(out)
    numeric = [k not in ("text",) for _, _, k in spec]
    head = "".join(f"<th{' class=num' if n else ''}>{html.escape(str(h))}</th>" for h, n in zip(shown.columns, numeric))
    labels = row_labels(shown, figures[1]) if figures else [None] * len(shown)
    rows, previous = [], None
    for values, label in zip(shown.itertuples(index=False), labels):
        cells = "".join(
            f"<td{' class=num' if n else ''}"
            + (f' data-figure="{html.escape(f"{figures[0]} | {label} | {h}", quote=True)}"' if n and figures else "")
            + f">{html.escape(str(v))}</td>" for v, n, h in zip(values, numeric, shown.columns))
        group = grouped and previous is not None and values[0] != previous
        previous = values[0]
        rows.append(f"<tr class=group>{cells}</tr>" if group else f"<tr>{cells}</tr>")
    return (f'<table id="{table_id}"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'
            if rows else '<p class="muted">No rows.</p>')


def file_name(name: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in name.lower()).strip("_")


#: Excel's limit on a sheet name [characters]
SHEET_NAME_LIMIT = 31


def sheet_names(names: list[str]) -> list[str]:
    """A sheet name for each table name: no ``[]:*?/\\``, no leading or trailing apostrophe, at most
    :data:`SHEET_NAME_LIMIT` characters, and unique ignoring case (Excel's rules); a name that would repeat an
    earlier one ends in `` (2)``, `` (3)``, ... within the limit."""
    out: list[str] = []
    taken: set[str] = set()
    for name in names:
        clean = "".join(c for c in str(name) if c not in "[]:*?/\\" and ord(c) >= 32).strip().strip("'").strip()
        clean = clean or "Sheet"
        title, n = clean[:SHEET_NAME_LIMIT].rstrip(), 1
        while title.lower() in taken:
            n += 1
            suffix = f" ({n})"
            title = clean[:SHEET_NAME_LIMIT - len(suffix)].rstrip() + suffix
        taken.add(title.lower())
        out.append(title)
    return out


@dataclass(frozen=True)
class _Chart:
    """A figure as Plotly JSON (encoded once, drawn in both the screen and the print page)."""

    spec: str
    height_px: int


def chart(fig: go.Figure, title: str | None = None, subtitle: str = "") -> _Chart:
    """The figure's JSON with a title, a subtitle (workload, basis, rates, date) and the legend under
    the plot; figures.py's own figures are left as they are (they are built unvalidated, so the
    template named by string is resolved here, and nothing is validated twice)."""
    spec = fig.to_dict()
    layout = spec.setdefault("layout", {})
    if isinstance(layout.get("template"), str):
        layout["template"] = pio.templates[layout["template"]].to_plotly_json()
    if title is not None:
        layout.update(
            title=dict(text=html.escape(title), x=0, xanchor="left", font=dict(size=16),
                       subtitle=dict(text="<br>".join(html.escape(line) for line in subtitle.split("\n")))),
            margin=dict(l=70, r=20, t=95, b=40), height=500,
            legend=dict(orientation="h", yanchor="top", y=-0.14, xanchor="left", x=0),
            font=dict(family="Helvetica, Arial, sans-serif", size=12))
    layout.pop("width", None)
    layout["autosize"] = True
    # "</" cannot end the <script> it sits in ("<\/" is the same JSON string)
    return _Chart(pio.json.to_json_plotly(spec).replace("</", "<\\/"), int(layout.get("height") or 500))


_CONFIG = json.dumps({"displaylogo": False, "responsive": True, "toImageButtonOptions": {"format": "png", "scale": 2}})


def chart_html(chart: _Chart, div_id: str, width: int | None) -> str:
    """The chart's div and script; ``width`` [CSS px] fixes its size for print, else it fills the page."""
    size = f"width:{width}px" if width else "width:100%"
    return (f'<div id="{div_id}" class="chart" style="{size};height:{chart.height_px}px"></div>'
            f"<script>(function(){{var f={chart.spec};"
            f'Plotly.newPlot("{div_id}",f.data,f.layout,{_CONFIG});}})();</script>')


_CSS = """
body{font-family:Helvetica,Arial,sans-serif;color:#1b1f24;margin:0 auto;max-width:1000px;padding:24px;line-height:1.45}
h1{font-size:24px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #d0d7de;padding-bottom:4px}
h3{font-size:15px;margin:16px 0 6px}.muted,.caption{color:#57606a;font-size:13px}.answer{font-size:16px}
.note{color:#9a6700;font-size:13px}table{border-collapse:collapse;width:100%;font-size:12.5px;margin:8px 0}
th,td{border-bottom:1px solid #d8dee4;padding:4px 6px;text-align:left;vertical-align:top}
th{background:#f6f8fa;font-weight:600}td.num,th.num{text-align:right}td.num{white-space:nowrap}
tr.group td{border-top:2px solid #57606a}#iso td:nth-child(2){white-space:nowrap}
#provenance td:nth-child(4){font-family:monospace;font-size:10.5px;word-break:break-all}
#recommendation{background:#f6f8fa;border-left:4px solid #1f6feb;padding:8px 16px;margin:16px 0}.lead{font-size:16px}
a{color:#0969da;word-break:break-all}
@page{size:A4;margin:14mm}
@media print{body{max-width:none;padding:0}h2,h3,h3+p.caption,p.cont{break-after:avoid}tr,.js-plotly-plot,section#answer{break-inside:avoid}
 .break{break-before:page}.modebar{display:none!important}table{font-size:10.5px}}
"""


def page(title: str, body: str, width: int | None) -> str:

    return ("<!DOCTYPE html><html lang=en><head><meta charset=utf-8>"
            "<meta name=viewport content='width=device-width, initial-scale=1'>"
            f"<title>{html.escape(title)}</title><style>{_CSS}</style>"
            f"<script>{get_plotlyjs()}</script></head><body>{body}</body></html>")


# --------------------------------------------------------------------------- PDF

def chromium_path() -> str | None:
    """The Chromium to print with: ``$COSTFRONTIER_CHROMIUM``, else ``chromium`` on PATH, else /usr/bin/chromium."""
    for candidate in (os.environ.get("COSTFRONTIER_CHROMIUM"), shutil.which("chromium"),
                      shutil.which("chromium-browser"), "/usr/bin/chromium"):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


#: one Chromium print at a time in this process (a dashboard replica): each print peaks at about a GB, and three
#: viewers pressing "Prepare PDF" at once started three
_PRINTING = threading.Lock()
#: how long a print waits for the one before it [s] (a print itself is stopped after its timeout)
PRINT_QUEUE_WAIT_S = 300.0


def html_to_pdf(page_html: str, path: str | os.PathLike, chromium: str | None = None,
                timeout_s: float = 180, on_wait: Callable[[], None] | None = None) -> Path:
    """Print ``page_html`` to ``path`` with headless Chromium (no network, a throw-away profile).

    The page's scripts run before printing (``--virtual-time-budget``), so Plotly charts are drawn
    and land in the PDF as vector graphics. Written atomically: ``path`` is whole or untouched.
    At most one print runs per process: a second waits its turn (``on_wait`` is called once when it
    has to, so a page can say so), at most :data:`PRINT_QUEUE_WAIT_S`, then :class:`ReportError`.
    """
    chromium = chromium or chromium_path()
    if chromium is None:
        raise ReportError("a PDF needs Chromium: install Debian's chromium (apt-get install chromium) "
                          "or set COSTFRONTIER_CHROMIUM to its path; the HTML report needs nothing")
    if not _PRINTING.acquire(blocking=False):
        if on_wait is not None:
            on_wait()
        started = time.monotonic()
        if not _PRINTING.acquire(timeout=PRINT_QUEUE_WAIT_S):
            raise ReportError(f"another PDF was still printing after {time.monotonic() - started:.0f} s; "
                              "try again in a moment")
    try:
        return _print(page_html, Path(path), chromium, timeout_s)
    finally:
        _PRINTING.release()


def _print(page_html: str, target: Path, chromium: str, timeout_s: float) -> Path:
    deadline = time.monotonic() + timeout_s
    with tempfile.TemporaryDirectory(prefix="costfrontier-report-") as tmp:
        def one(part_html: str, printed: Path) -> None:   # one Chromium per part (model.present.pdf)
            _print_one(part_html, printed, Path(tmp), chromium, timeout_s, deadline)

        printed = print_in_parts(page_html, Path(tmp), one)
        write_whole(target, printed.read_bytes())
    return target


def _print_one(page_html: str, printed: Path, tmp: Path, chromium: str, timeout_s: float, deadline: float) -> None:
    source = printed.with_suffix(".html")
    source.write_text(page_html, encoding="utf-8")
    command = [chromium, *_CHROMIUM_FLAGS, f"--user-data-dir={tmp / 'profile'}", f"--print-to-pdf={printed}",
               source.as_uri()]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=max(1.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        raise ReportError(f"Chromium did not finish printing the PDF within {timeout_s:g} s") from None
    except OSError as exc:
        raise ReportError(f"Chromium could not be started ({exc.strerror or exc}); install Debian's chromium "
                          "or set COSTFRONTIER_CHROMIUM to its path") from None
    if done.returncode != 0 or not printed.exists() or printed.stat().st_size == 0:
        tail = (done.stderr or "").strip().splitlines()[-1:] or ["no output"]
        raise ReportError(f"Chromium could not print the PDF (exit {done.returncode}): {tail[0][:200]}")


@dataclass(frozen=True)
class ReportSection:
    """A part of the report after the frontier: a cost profile, the fleet.

    title : heading; text : paragraphs (plain text); tables : name -> (frame, spec), spec a list of
    (header, column, kind) with kind in :data:`model.present.report_output.KINDS` (every table also goes into the
    CSV/XLSX downloads); figures : Plotly figures shown after the text.
    """

    title: str
    text: tuple[str, ...] = ()
    tables: dict[str, tuple[pd.DataFrame, list[tuple[str, str, str]]]] = field(default_factory=dict)
    figures: tuple[go.Figure, ...] = ()
