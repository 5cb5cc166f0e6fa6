"""The proposal: one view of the analysis as a document a customer keeps.

:func:`build_report` turns a view (a :class:`~model.analysis.Scenario` and store filters) into a
:class:`Report`: a self-contained HTML page (plotly.js inlined, opens offline), a PDF of the same
content (printed by headless Chromium, charts as vector graphics), and the tables as CSV (a zip)
and XLSX, rounded for people and formula-safe.

Contents, in order: title and a one-paragraph answer; cost curves with crossovers marked; the
iso-interactivity table with ratios; crossovers; the frontier chart; optional sections (on-prem TCO
breakdown and tornado, fleet sizing: pass them as :class:`ReportSection`); assumptions; provenance;
the share link; product version and the date it was made.

Numbers are formatted by one rule everywhere: money with 2 decimals (3 below $0.10),
interactivity [tok/s/user] and throughput [tok/s/GPU] with 1, ratios as ``1.41x``.
"""

from __future__ import annotations

import hashlib
import html
import io
import json
import os
import shutil
import subprocess
import tempfile
import zipfile
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path
from urllib.parse import urlencode

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio

from model import figures
from model.analysis import Analysis, Scenario, analyse
from model.capacity import SLA
from model.cost import PRESETS_CSV, load_presets, preset_rates
from model.export import neutralise_formula, safe_csv
from model.fmt import usd_decimals
from model.iso import break_even_rates, iso_table
from model.store import list_sources, load_points, stored_rates

__all__ = ["Report", "ReportSection", "ReportError", "build_report", "report_of_view", "headline", "view_link", "html_to_pdf",
           "chromium_path", "KINDS"]

#: how a column is shown and rounded: money [$], interactivity [tok/s/user], throughput [tok/s/GPU], ...
KINDS = ("usd", "x", "tps", "ratio", "int", "text")
#: the Chromium flags of every PDF print: no network, no profile of the user's, no first-run work
_CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                   "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-extensions",
                   "--host-resolver-rules=MAP * ~NOTFOUND", "--no-pdf-header-footer",
                   "--run-all-compositor-stages-before-draw", "--virtual-time-budget=20000")
#: width of a chart in the PDF [CSS px]: A4 less 2 x 14 mm margins at 96 px/inch
PRINT_WIDTH_PX = 690
DEFAULT_BASE_URL = "http://localhost:8501/"
_METHOD_TEXT = {
    "linear": "linear in $/M between neighbouring frontier points (reproduces the InferenceX iso tables)",
    "monotone": "monotone cubic (PCHIP) through tokens per dollar between frontier points",
}


class ReportError(RuntimeError):
    """A report cannot be made (e.g. no Chromium for the PDF)."""


@dataclass(frozen=True)
class ReportSection:
    """An optional part of the report, e.g. the on-prem TCO breakdown and tornado, or fleet sizing.

    Parameters
    ----------
    title : heading of the section
    text : one paragraph shown under the heading (plain text)
    tables : name -> (frame, spec); spec is a list of (header, column, kind) with kind in :data:`KINDS`.
        Every table is shown and also goes into the CSV/XLSX downloads.
    figures : Plotly figures, shown after the text (titled by the caller)
    assumptions : (item, value, where it came from) rows appended to the assumptions table,
        e.g. a cost profile's build-up inputs
    """

    title: str
    text: str = ""
    tables: dict[str, tuple[pd.DataFrame, list[tuple[str, str, str]]]] = field(default_factory=dict)
    figures: tuple[go.Figure, ...] = ()
    assumptions: tuple[tuple[str, str, str], ...] = ()


@dataclass(frozen=True)
class Report:
    """A finished report. ``html`` opens offline; the other outputs are made on demand."""

    title: str
    html: str
    print_html: str                               # same content, charts at a fixed print width
    tables: dict[str, pd.DataFrame]               # name -> rounded numbers, people's headers
    assumptions: pd.DataFrame                     # item, value, source
    made_at: datetime

    def to_pdf(self, path: str | os.PathLike, chromium: str | None = None, timeout_s: float = 180) -> Path:
        """Print the report to ``path`` as PDF with headless Chromium (vector charts). Returns the path."""
        return html_to_pdf(self.print_html, path, chromium, timeout_s)

    def pdf_bytes(self, chromium: str | None = None, timeout_s: float = 180) -> bytes:
        """The PDF as bytes (for a download button); see :meth:`to_pdf`."""
        with tempfile.TemporaryDirectory(prefix="costfrontier-pdf-") as tmp:
            return self.to_pdf(Path(tmp) / "report.pdf", chromium, timeout_s).read_bytes()

    def tables_csv(self) -> bytes:
        """A zip of one formula-safe CSV per table, plus ``assumptions.csv``."""
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            for name, frame in {**self.tables, "Assumptions": self.assumptions}.items():
                archive.writestr(_file_name(name) + ".csv", safe_csv(frame))
        return buffer.getvalue()

    def tables_xlsx(self) -> bytes:
        """One workbook: the iso table, the assumptions on the second sheet, then a sheet per other table;
        each sheet opens with a header block naming the report and the date."""
        from openpyxl import Workbook
        from openpyxl.styles import Font

        book = Workbook()
        book.remove(book.active)
        header = [self.title, f"Made {self.made_at:%Y-%m-%d %H:%M} UTC; assumptions on the 'Assumptions' sheet"]
        first, *rest = self.tables.items()
        for name, frame in dict([first, ("Assumptions", self.assumptions), *rest]).items():
            sheet = book.create_sheet(_sheet_name(name))
            sheet.append([neutralise_formula(header[0])])
            sheet["A1"].font = Font(bold=True, size=13)
            sheet.append([neutralise_formula(f"{name}. {header[1]}")])
            sheet.append([])
            sheet.append([neutralise_formula(str(c)) for c in frame.columns])
            for cell in sheet[4]:
                cell.font = Font(bold=True)
            for row in frame.itertuples(index=False):
                sheet.append([_cell(v) for v in row])
            for i, column in enumerate(frame.columns, start=1):
                width = max([len(str(column))] + [len(str(v)) for v in frame[column].head(200)])
                sheet.column_dimensions[sheet.cell(4, i).column_letter].width = min(60, width + 2)
            sheet.freeze_panes = "A5"
        buffer = io.BytesIO()
        book.save(buffer)
        return buffer.getvalue()


# --------------------------------------------------------------------------- formatting for people

def round_usd(value: float) -> float:
    """Money rounded for people as it is shown (:func:`model.fmt.usd_decimals`) [$]. NaN stays NaN."""
    if value is None or not np.isfinite(value):
        return np.nan
    return round(float(value), usd_decimals(value))


def _show(value, kind: str) -> str:
    if kind == "text":
        return "" if value is None or (isinstance(value, float) and np.isnan(value)) or value is pd.NA else str(value)
    if value is None or value is pd.NA or (isinstance(value, (float, np.floating)) and not np.isfinite(value)):
        return "—"
    if kind == "usd":
        return figures.usd(float(value), "")
    if kind == "x":
        return f"{float(value):.1f}"
    if kind == "tps":
        return f"{float(value):,.1f}"
    if kind == "ratio":
        return f"{float(value):.2f}x"
    return f"{int(value)}"


def _round(value, kind: str):
    if kind == "text":
        return None if value is pd.NA or (isinstance(value, float) and np.isnan(value)) else value
    if value is None or value is pd.NA or (isinstance(value, (float, np.floating)) and not np.isfinite(value)):
        return None
    if kind == "usd":
        return round_usd(float(value))
    if kind in ("x", "tps"):
        return round(float(value), 1)
    if kind == "ratio":
        return round(float(value), 2)
    return int(value)


def _table_frames(frame: pd.DataFrame, spec: list[tuple[str, str, str]]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(text to show, rounded numbers to download) from one spec, so the two always agree."""
    for _, _, kind in spec:
        if kind not in KINDS:
            raise ValueError(f"unknown column kind {kind!r}; choose from {', '.join(KINDS)}")
    shown = pd.DataFrame({h: [_show(v, k) for v in frame[c]] if c in frame else [] for h, c, k in spec},
                         columns=[h for h, _, _ in spec])
    rounded = pd.DataFrame({h: pd.Series([_round(v, k) for v in frame[c]], dtype=object) if c in frame else []
                            for h, c, k in spec}, columns=[h for h, _, _ in spec])
    return shown, rounded


def _html_table(shown: pd.DataFrame, table_id: str, spec: list[tuple[str, str, str]], grouped: bool = False) -> str:
    """An HTML table of the shown text; ``grouped`` rules a line where the first column's value changes."""
    numeric = [k not in ("text",) for _, _, k in spec]
    head = "".join(f"<th{' class=num' if n else ''}>{html.escape(str(h))}</th>" for h, n in zip(shown.columns, numeric))
    rows, previous = [], None
    for values in shown.itertuples(index=False):
        cells = "".join(f"<td{' class=num' if n else ''}>{html.escape(str(v))}</td>" for v, n in zip(values, numeric))
        group = grouped and previous is not None and values[0] != previous
        previous = values[0]
        rows.append(f"<tr class=group>{cells}</tr>" if group else f"<tr>{cells}</tr>")
    return (f'<table id="{table_id}"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'
            if rows else '<p class="muted">None.</p>')


def _cell(value):
    if value is None or value is pd.NA or (isinstance(value, float) and np.isnan(value)):
        return None
    if isinstance(value, np.generic):
        value = value.item()
    return neutralise_formula(value) if isinstance(value, str) else value


def _file_name(name: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in name.lower()).strip("_")


def _sheet_name(name: str) -> str:
    return "".join(c for c in name if c not in "[]:*?/\\")[:31]


# --------------------------------------------------------------------------- the answer

def headline(result: Analysis, x: float, method: str | None = None) -> str:
    """One paragraph: the cheapest series at ``x`` [tok/s/user], by how much, where that changes,
    and the break-even $/GPU-hour of the runner-up."""
    method = method or result.scenario.method
    at = iso_table(result.curves, [x], method).dropna(subset=["usd_per_mtok"]).sort_values("usd_per_mtok")
    if at.empty:
        return f"No series in this view reaches {x:.1f} tok/s/user, so none can be priced there."
    best = at.iloc[0]
    text = (f"At {x:.1f} tok/s/user, {best['series']} is the cheapest system in this view at "
            f"{figures.usd(best['usd_per_mtok'])} tokens")
    if len(at) > 1:
        second = at.iloc[1]
        saving = 1 - best["usd_per_mtok"] / second["usd_per_mtok"]
        text += (f", {saving:.0%} below {second['series']} ({figures.usd(second['usd_per_mtok'])}; "
                 f"{second['usd_per_mtok'] / best['usd_per_mtok']:.2f}x)")
    text += "."
    cross = result.crossovers
    mine = cross[(cross["series_a"] == best["series"]) | (cross["series_b"] == best["series"])] \
        if not cross.empty else cross
    if not mine.empty:
        changes = []
        nearest = mine.iloc[(mine["interactivity"] - x).abs().argsort()[:3]]   # the three closest to x
        for _, row in nearest.sort_values("interactivity").iterrows():
            other = row["series_b"] if row["series_a"] == best["series"] else row["series_a"]
            side = "above" if row["cheaper_above"] == other else "below"
            changes.append(f"{other} is cheaper {side} {row['interactivity']:.1f} tok/s/user")
        more = f" ({len(mine) - len(nearest)} more crossings in the list below)" if len(mine) > len(nearest) else ""
        text += " That changes where the cost curves cross: " + "; ".join(changes) + more + "."
    else:
        text += f" No other series' cost curve crosses {best['series']}'s in this view."
    if len(at) > 1:
        second = at.iloc[1]
        table = break_even_rates(result.curves, second["series"], best["series"], [x], method)
        needed = float(table["break_even_usd_per_gpu_hour"].iloc[0])
        now = float(table["usd_per_gpu_hour"].iloc[0])
        if np.isfinite(needed):
            text += (f" {second['series']} would have to cost {figures.usd(needed, '/GPU-hour')} instead of "
                     f"{figures.usd(now, '/GPU-hour')} to match {best['series']} at this interactivity.")
    return text


def _answer_x(result: Analysis, headline_x: float | None) -> float | None:
    """The interactivity the answer is given at: the view's, else the middle target (as the Overview page)."""
    if not result.curves:
        return None
    lo = min(c.x_min for c in result.curves.values())
    hi = max(c.x_max for c in result.curves.values())
    x = headline_x or (result.targets[len(result.targets) // 2] if result.targets else lo)
    return float(np.clip(x, lo, hi))


# --------------------------------------------------------------------------- assumptions and provenance

def _workload(points: pd.DataFrame) -> str:
    """``"GLM-5, ISL 8192 / OSL 1024 tokens"`` for each (model, ISL, OSL) in ``points``, joined by ``; ``."""
    if points.empty:
        return "no rows"
    parts = []
    combos = points[["model", "isl", "osl"]].drop_duplicates().astype(object)
    for model, isl, osl in sorted(combos.itertuples(index=False, name=None), key=str):
        text = str(model) if pd.notna(model) else "model not stated"
        if pd.notna(isl) or pd.notna(osl):
            text += f", ISL {_int_or(isl)} / OSL {_int_or(osl)} tokens"
        parts.append(text)
    return "; ".join(parts)


def _priced_workload(result: Analysis, points: pd.DataFrame) -> str:
    """The workload of the frontiers (what the costs are about), else of every row in view."""
    return _workload(result.frontier if not result.frontier.empty else points)


def _unpriced_workload(result: Analysis, points: pd.DataFrame) -> str:
    priced = set(_priced_workload(result, points).split("; "))
    return "; ".join(w for w in _workload(points).split("; ") if w not in priced and w != "no rows")


def _int_or(value) -> str:
    return "?" if pd.isna(value) else f"{int(value)}"


def _rate_rows(result: Analysis, presets: pd.DataFrame, hardware: list[str]) -> list[tuple[str, str, str]]:
    scenario = result.scenario
    overrides = dict(scenario.rates)
    try:
        preset = preset_rates(presets, scenario.price_set, scenario.tier)
    except ValueError:
        preset = {}
    source = presets.loc[(presets["price_set"] == scenario.price_set) & (presets["tier"] == scenario.tier)]
    source_of = dict(zip(source["hardware"], source["source"].astype(str))) if "source" in source else {}
    rows = []
    for hw in hardware:
        rate = result.usd_per_gpu_hour.get(hw)
        if rate is None:
            rows.append((f"$/GPU-hour, {hw}", "not set: unpriced, left out of every cost",
                         f"no preset in {scenario.price_set} / {scenario.tier} and no override"))
        elif hw in overrides:
            note = f" (preset {figures.usd(preset[hw], '')})" if hw in preset else ""
            rows.append((f"$/GPU-hour, {hw}", figures.usd(rate, ""), f"user override{note}"))
        else:
            rows.append((f"$/GPU-hour, {hw}", figures.usd(rate, ""),
                         f"preset: price set {scenario.price_set}, tier {scenario.tier}"
                         + (f" ({source_of[hw]})" if source_of.get(hw) not in (None, "", "nan") else "")))
    return rows


def _assumptions(result: Analysis, points: pd.DataFrame, where: dict[str, list], presets: pd.DataFrame,
                 x: float | None, baseline: str | None, targets_chosen: bool,
                 sections: list[ReportSection]) -> pd.DataFrame:
    s = result.scenario
    basis = {"total": "total tokens (input + output)", "output": "output tokens", "input": "input tokens",
             "blended": f"blended: output tokens + {s.w_input:g} x uncached input + {s.w_cached:g} x cached input"}
    hardware = sorted(points["hardware"].dropna().unique()) if not points.empty else []
    filters = "; ".join(f"{k} = {', '.join(map(str, v))}" for k, v in sorted(where.items()) if v) or "none (all rows)"
    rows = [
        ("Workload", _priced_workload(result, points), "the benchmark rows on a frontier"),
        *([("Also in view, not priced", other, "rows without interactivity (load ramps, single points)")]
          if (other := _unpriced_workload(result, points)) else []),
        ("Filters", filters, "the view"),
        ("Series grouped by", ", ".join(s.by), "the view"),
        ("Latency SLA", SLA.from_text(s.sla).describe() if s.sla else "none",
         "the view; rows breaking it are left out before the frontier fit"),
        ("Token basis", basis[s.basis], "the view"),
        ("Interpolation", f"{s.method}: {_METHOD_TEXT[s.method]}; no extrapolation past a frontier's end, "
                          "values within 1% past an end are clamped to it", "the view"),
        ("Interactivity targets [tok/s/user]", ", ".join(f"{t:.1f}" for t in result.targets) or "none",
         "the view" if targets_chosen else "default: round values spread over the range every series reaches"),
        ("Answer given at [tok/s/user]", "—" if x is None else f"{x:.1f}", "the view"),
        ("Ratios relative to", baseline or "—",
         "the view" if s.baseline else "default: the first series by name"),
        ("Cost formula", "$/M tokens = $/GPU-hour / (3600 x tok/s/GPU / 10^6)", "SemiAnalysis InferenceX"),
        *_rate_rows(result, presets, hardware),
    ]
    for section in sections:
        rows.extend(section.assumptions)
    return pd.DataFrame(rows, columns=["Item", "Value", "Where it came from"])


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _provenance(con, points: pd.DataFrame, result: Analysis) -> pd.DataFrame:
    """Every source whose rows or rates this view uses: name, format, SHA-256, run dates, row counts."""
    sources = list_sources(con)
    in_view = points["source_id"].value_counts() if not points.empty else pd.Series(dtype=int)
    on_frontier = result.frontier["source_id"].value_counts() if not result.frontier.empty else pd.Series(dtype=int)
    used = sources[sources["source_id"].isin(in_view.index)].copy()
    used["use"] = "benchmark rows"
    overrides = dict(result.scenario.rates)
    preset_priced = any(hw not in overrides for hw in result.usd_per_gpu_hour)
    if preset_priced:
        rates = sources[sources["kind"] == "tco_rates"].copy()
        rates["use"] = "$/GPU-hour presets"
        used = pd.concat([used, rates], ignore_index=True)
        builtin = _sha256(PRESETS_CSV)
        if builtin not in set(rates["sha256"]):
            used = pd.concat([used, pd.DataFrame([{
                "source_id": pd.NA, "file_name": PRESETS_CSV.name, "format": "csv", "kind": "tco_rates",
                "rows": sum(1 for _ in PRESETS_CSV.open(encoding="utf-8")) - 1, "sha256": builtin,
                "use": "$/GPU-hour presets (built in)"}])], ignore_index=True)
    used = used.sort_values(["use", "file_name"], kind="stable")

    def dates(row) -> str:
        first, last = row.get("first_run_date"), row.get("last_run_date")
        if first is None or pd.isna(first):
            return "not stated"
        first, last = str(first)[:10], str(last)[:10]
        return first if first == last else f"{first} to {last}"

    return pd.DataFrame({
        "File": used["file_name"].astype(str),
        "Format": used["format"].astype(str),
        "Used for": used["use"],
        "SHA-256": used["sha256"].astype(str),
        "Run date": [dates(r) for r in used.to_dict("records")],
        "Rows in file": [int(v) for v in used["rows"]],
        "Rows in view": [int(in_view.get(i, 0)) if pd.notna(i) else 0 for i in used["source_id"]],
        "Measured rows on a frontier": [int(on_frontier.get(i, 0)) if pd.notna(i) else 0 for i in used["source_id"]],
    })


def _value_origin(result: Analysis) -> list[str]:
    """Per iso row: ``measured`` (a frontier point), ``interpolated``, ``clamped`` or ``out of reach``."""
    out = []
    for series, x, status in result.iso[["series", "interactivity", "status"]].itertuples(index=False):
        if status == "ok":
            curve = result.curves[series]
            out.append("measured" if np.isclose(curve.x, x, rtol=0, atol=1e-9).any() else "interpolated")
        else:
            out.append("clamped to frontier end" if status == "clamped" else "out of reach")
    return out


# --------------------------------------------------------------------------- links

def view_link(scenario: Scenario, where: dict[str, list], base_url: str = DEFAULT_BASE_URL,
              headline_x: float | None = None) -> tuple[str, list[str]]:
    """A share link reopening this view on the dashboard, and notes on filters a link cannot carry."""
    from model.viewstate import ViewState

    fields = {k: getattr(scenario, k) for k in ("by", "basis", "method", "price_set", "tier", "rates", "targets",
                                                "baseline", "sla", "w_input", "w_cached")}
    notes = []
    workload = [where.get(k, [None])[0] if len(where.get(k, [])) <= 1 else None for k in ("model", "isl", "osl")]
    if any(workload):
        fields["workload"] = "|".join("" if v is None else str(v) for v in workload)
    for key, name in (("hardware", "hardware"), ("framework", "framework"), ("precision", "precision"),
                      ("spec_decoding", "spec_decoding")):
        if where.get(key):
            fields[name] = tuple(str(v) for v in where[key])
    for key, values in where.items():
        if key not in ("model", "isl", "osl", "hardware", "framework", "precision", "spec_decoding") or \
                (key in ("model", "isl", "osl") and len(values) > 1):
            notes.append(f"the filter {key} = {', '.join(map(str, values))} has no link parameter; "
                         "the link shows more rows")
    if headline_x:
        fields["headline_x"] = headline_x
    state = ViewState(**fields)
    query = urlencode(state.to_query(), safe=":,|")
    return base_url + (f"?{query}" if query else ""), notes


# --------------------------------------------------------------------------- figures

@dataclass(frozen=True)
class _Chart:
    """A figure as Plotly JSON (encoded once, drawn in both the screen and the print page)."""

    spec: str
    height_px: int


def _chart(fig: go.Figure, title: str | None = None, subtitle: str = "") -> _Chart:
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


def _chart_html(chart: _Chart, div_id: str, width: int | None) -> str:
    """The chart's div and script; ``width`` [CSS px] fixes its size for print, else it fills the page."""
    size = f"width:{width}px" if width else "width:100%"
    return (f'<div id="{div_id}" class="chart" style="{size};height:{chart.height_px}px"></div>'
            f"<script>(function(){{var f={chart.spec};"
            f'Plotly.newPlot("{div_id}",f.data,f.layout,{_CONFIG});}})();</script>')


# --------------------------------------------------------------------------- the report

_ISO_SPEC = [("Interactivity [tok/s/user]", "interactivity", "x"), ("Series", "series", "text"),
             ("$/M tokens", "usd_per_mtok", "usd"), ("Ratio", "ratio_to_baseline", "ratio"),
             ("$/GPU-hour", "usd_per_gpu_hour", "usd"), ("tok/s/GPU", "tokens_per_second_per_gpu", "tps"),
             ("Break-even $/GPU-hour", "break_even_usd_per_gpu_hour", "usd"), ("Value", "origin", "text")]
_CROSS_SPEC = [("Interactivity [tok/s/user]", "interactivity", "x"), ("$/M tokens at the crossing", "usd_per_mtok", "usd"),
               ("Cheaper below", "cheaper_below", "text"), ("Cheaper above", "cheaper_above", "text")]
_FRONTIER_SPEC = [("Series", "series", "text"), ("Interactivity [tok/s/user]", "interactivity", "x"),
                  ("tok/s/GPU", "tokens_per_second_per_gpu", "tps"), ("$/M tokens", "usd_per_mtok", "usd"),
                  ("$/GPU-hour", "usd_per_gpu_hour", "usd"), ("TP", "tp", "int"), ("EP", "ep", "int"),
                  ("DP", "dp", "int"), ("PP", "pp", "int"), ("Concurrency", "concurrency", "int"),
                  ("Run date", "run_date", "text"), ("Source file", "source_file", "text"),
                  ("Line", "source_line", "int")]
_FIGURE_COLUMNS = ("series", "hardware", "interactivity", "tokens_per_second_per_gpu", "usd_per_mtok", "framework",
                   "precision", "spec_decoding", "tp", "ep", "dp", "pp", "concurrency", "run_date", "source_file",
                   "source_line")
_TEXT_SPEC = lambda frame: [(c, c, "text") for c in frame.columns]  # noqa: E731


def _iso_frame(result: Analysis) -> pd.DataFrame:
    iso = result.iso.assign(origin=_value_origin(result))
    cheapest = iso.groupby("interactivity")["usd_per_mtok"].transform("min")
    # the $/GPU-hour at which this series would cost what the cheapest does at the same interactivity
    iso["break_even_usd_per_gpu_hour"] = iso["usd_per_gpu_hour"] * cheapest / iso["usd_per_mtok"]
    return iso.sort_values(["interactivity", "usd_per_mtok", "series"], na_position="last", kind="stable")


def build_report(con, scenario: Scenario, where: dict[str, list] | None = None, link: str | None = None, *,
                 headline_x: float | None = None, tco: ReportSection | None = None,
                 fleet: ReportSection | None = None, made_at: datetime | None = None,
                 base_url: str = DEFAULT_BASE_URL, link_notes: list[str] | None = None) -> Report:
    """The report of one view.

    Parameters
    ----------
    con : DuckDB connection to the store (read only is enough)
    scenario : what to compute (grouping, basis, method, price set, tier, rate overrides, targets, baseline, SLA)
    where : store filters, field -> accepted values (as :meth:`model.viewstate.ViewState.where`)
    link : the share link that reopens this view; ``None`` builds one on ``base_url`` from the view
    headline_x : interactivity the answer paragraph is given at [tok/s/user]; default the middle target
    tco : optional on-prem TCO section (breakdown table and tornado figure), shown after the frontier
    fleet : optional fleet sizing section (GPUs, nodes, $/month at a demand), shown after ``tco``
    made_at : timestamp printed on the report (UTC); default now
    link_notes : notices from parsing ``link`` (ignored parameters), printed under it
    """
    where = {k: list(v) for k, v in (where or {}).items()}
    made_at = made_at or datetime.now(timezone.utc)
    presets = load_presets(stored_rates(con))
    points = load_points(con, where)
    result = analyse(points, scenario, presets, with_points=True)
    names = sorted(result.curves)
    baseline = scenario.baseline if scenario.baseline in result.curves else (names[0] if names else None)
    if baseline != scenario.baseline:   # ratios need a baseline: the first series, as the dashboard's default
        result = replace(result, scenario=scenario.model_copy(update={"baseline": baseline}),
                         iso=iso_table(result.curves, result.targets, scenario.method, baseline))
    x = _answer_x(result, headline_x)
    notes = [n for n in result.notes if not n.startswith("baseline ")]
    if scenario.baseline and baseline != scenario.baseline:
        notes.append(f"baseline {scenario.baseline!r} is not among the series shown; ratios are to {baseline}")
    if link is None:
        link, more = view_link(scenario, where, base_url, headline_x)
        notes.extend(more)
    sections = [s for s in (tco, fleet) if s is not None]

    workload = _priced_workload(result, points)
    rates_text = ", ".join(f"{hw} {figures.usd(r, '/GPU-h')}" for hw, r in sorted(result.usd_per_gpu_hour.items()))
    subtitle = f"{workload}\n{scenario.basis} tokens · {rates_text or 'no rates'} · {made_at:%Y-%m-%d}"
    many = workload.count("; ") + 1
    title = f"Cost per million tokens: {workload if many == 1 else f'{many} workloads'}"
    version = _version()

    iso = _iso_frame(result) if not result.iso.empty else result.iso
    iso_spec = [(f"Ratio to {baseline}", c, k) if c == "ratio_to_baseline" else (h, c, k) for h, c, k in _ISO_SPEC]
    tables: dict[str, tuple[pd.DataFrame, list]] = {
        "Cost at matched interactivity": (iso, iso_spec),
        "Crossovers": (result.crossovers.sort_values("interactivity", kind="stable"), _CROSS_SPEC),
        "Frontier points": (result.frontier.sort_values(["series", "interactivity"]) if not result.frontier.empty
                            else result.frontier, _FRONTIER_SPEC),
    }
    for section in sections:
        tables.update(section.tables)
    assumptions = _assumptions(result, points, where, presets, x, baseline, bool(scenario.targets), sections)
    provenance = _provenance(con, points, result)
    tables["Provenance"] = (provenance, _TEXT_SPEC(provenance))
    rendered = {name: _table_frames(frame, spec) for name, (frame, spec) in tables.items()}
    downloads = {name: rounded for name, (_, rounded) in rendered.items()}

    cost = _chart(figures.crossover_figure(result.curves, result.crossovers, result.reach, scenario.method),
                  "Cost per million tokens against interactivity, crossovers marked", subtitle)
    # only the columns the figure reads: it slices the points per series, and 16 columns slice faster than 50
    slim = [c for c in _FIGURE_COLUMNS if c in result.points.columns]
    frontier = _chart(figures.frontier_figure(result.points[slim], result.frontier, "throughput"),
                      "Pareto frontier: throughput per GPU against interactivity", subtitle)
    section_charts = [[_chart(f) for f in section.figures] for section in sections]

    def page(width: int | None) -> str:
        body = _body(title, x, result, baseline, rendered, tables, cost, frontier, sections, section_charts, assumptions,
                     link, notes + list(link_notes or []), version, made_at, width,
                     ", ".join(f"{hw} {figures.usd(r, '/GPU-hour')}" for hw, r in sorted(result.usd_per_gpu_hour.items())))
        return _page(title, body, width)

    return Report(title=title, html=page(None), print_html=page(PRINT_WIDTH_PX), tables=downloads,
                  assumptions=assumptions, made_at=made_at)


def report_of_view(con, state, link: str | None = None, **extras) -> Report:
    """The report of a dashboard view (a :class:`model.viewstate.ViewState`): its scenario, filters and
    answer interactivity; ``extras`` go to :func:`build_report` (``tco=``, ``fleet=``, ``link_notes=``...)."""
    from model.store import workloads
    from model.tco import TcoInputError, hardware_rates

    extras.setdefault("headline_x", state.headline_x)
    if state.workload is None:      # as the dashboard does: a link without a workload opens the first one
        keys = ["|".join(row[:3]) for row in workloads(con)]
        if keys:
            state = state.replace(workload=keys[0])
    scenario = state.scenario()
    if state.priced_by:             # the view's cost profiles price their hardware, as on every page
        try:
            rates = {**dict(scenario.rates), **hardware_rates(state.cost_profiles(), state.priced_by)}
            scenario = scenario.model_copy(update={"rates": tuple(sorted(rates.items()))})
        except TcoInputError as exc:
            extras["link_notes"] = [*extras.get("link_notes", []), f"cost profiles not applied: {exc}"]
    return build_report(con, scenario, state.where(), link, **extras)


def _version() -> str:
    try:
        return metadata.version("costfrontier")
    except metadata.PackageNotFoundError:
        return "unknown"


def _body(title, x, result, baseline, rendered, tables, cost, frontier, sections, section_charts, assumptions,
          link, notes,
          version, made_at, width, rates_text) -> str:
    esc = html.escape
    iso_shown, _ = rendered["Cost at matched interactivity"]
    parts = [
        f"<header><h1>{esc(title)}</h1><p class=muted>Prepared {made_at:%Y-%m-%d %H:%M} UTC with Cost Frontier "
        f"{esc(version)} · <a href=\"{esc(link, quote=True)}\">reopen this view</a></p></header>",
        "<section id=answer><h2>The answer</h2><p class=answer>"
        + esc(headline(result, x) if x is not None else
              "No benchmark rows match this view's filters." if result.points.empty and result.frontier.empty else
              "No series in this view has both interactivity and a priced throughput, so there is nothing to price.")
        + (f" Priced at {esc(rates_text)}; every assumption is listed at the end." if rates_text else "")
        + "</p>" + "".join(f"<p class=note>Note: {esc(n)}</p>" for n in notes) + "</section>",
        "<section id=cost><h2>Cost curves</h2>" + _chart_html(cost, "cost-chart", width)
        + "<p class=caption>Each line is a series' Pareto frontier priced at its $/GPU-hour; × marks where two "
          "curves cross, a vertical tick where a frontier ends (no extrapolation past it).</p></section>",
        "<section id=iso-section class=break><h2>Cost at matched interactivity</h2>"
        f"<p class=caption>$ per million {esc(result.scenario.basis)} tokens of every series at each target "
        f"interactivity; ratio = this series' $/M over {esc(baseline or '—')}'s (above 1: dearer). Break-even "
        "$/GPU-hour: the rate at which the series would cost what the cheapest does there. Value: measured "
        "(a frontier point), interpolated between two, clamped to a frontier's end, or out of reach.</p>"
        + _html_table(iso_shown, "iso", tables["Cost at matched interactivity"][1], grouped=True) + "</section>",
        "<section id=crossovers-section><h2>Crossovers</h2>" + _crossover_list(result)
        + _html_table(rendered["Crossovers"][0], "crossovers", tables["Crossovers"][1]) + "</section>",
        "<section id=frontier-section><h2>Frontier</h2>" + _chart_html(frontier, "frontier-chart", width)
        + "<p class=caption>Faint markers: every measured load point; lines: each series' frontier (the points no "
          "other configuration beats on both axes). The frontier points are listed in the tables download.</p>"
          "</section>",
    ]
    for i, section in enumerate(sections):
        block = [f"<section class='extra break'><h2>{esc(section.title)}</h2>"]
        if section.text:
            block.append(f"<p>{esc(section.text)}</p>")
        for j, chart in enumerate(section_charts[i]):
            block.append(_chart_html(chart, f"extra-{i}-{j}", width))
        for name in section.tables:
            block.append(f"<h3>{esc(name)}</h3>"
                         + _html_table(rendered[name][0], f"extra-{_file_name(name)}", tables[name][1]))
        parts.append("".join(block) + "</section>")
    parts += [
        "<section id=assumptions-section><h2>Assumptions</h2>"
        + _html_table(assumptions, "assumptions", _TEXT_SPEC(assumptions)) + "</section>",
        "<section id=provenance-section><h2>Provenance</h2><p class=caption>Every file whose rows or rates this "
        "report uses, with its SHA-256 so a reader can check they hold the same data. Costs at the targets "
        "are measured where a target falls on a frontier point and interpolated between two otherwise (see the "
        "Value column above); measured rows off every frontier are dominated and do not set a price.</p>"
        + _html_table(rendered["Provenance"][0], "provenance", tables["Provenance"][1]) + "</section>",
        f"<footer><h2>Reopen this view</h2><p><a id=share-link href=\"{esc(link, quote=True)}\">{esc(link)}</a></p>"
        f"<p class=muted>Cost Frontier {esc(version)} · made {made_at:%Y-%m-%d %H:%M} UTC</p></footer>",
    ]
    return "\n".join(parts)


#: up to this many crossovers are also written out as sentences above their table
CROSSOVER_SENTENCES = 12


def _crossover_list(result: Analysis) -> str:
    if result.crossovers.empty:
        return "<p>No two cost curves cross inside their common range: the cheaper series stays cheaper.</p>"
    if len(result.crossovers) > CROSSOVER_SENTENCES:
        return f"<p>{len(result.crossovers)} crossovers, by interactivity:</p>"
    from model.answers import pair_intervals  # one sentence per pair: where each series is cheaper
    items = "".join(f"<li><b>{html.escape(r['series_a'])} and {html.escape(r['series_b'])}</b>: "
                    f"{html.escape(r['text'])}</li>" for _, r in pair_intervals(result.crossovers, result.reach).iterrows())
    return f"<ul>{items}</ul>"


_CSS = """
body{font-family:Helvetica,Arial,sans-serif;color:#1b1f24;margin:0 auto;max-width:1000px;padding:24px;line-height:1.45}
h1{font-size:24px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #d0d7de;padding-bottom:4px}
h3{font-size:15px;margin:16px 0 6px}.muted,.caption{color:#57606a;font-size:13px}.answer{font-size:16px}
.note{color:#9a6700;font-size:13px}table{border-collapse:collapse;width:100%;font-size:12.5px;margin:8px 0}
th,td{border-bottom:1px solid #d8dee4;padding:4px 6px;text-align:left;vertical-align:top}
th{background:#f6f8fa;font-weight:600}td.num,th.num{text-align:right}td.num{white-space:nowrap}
tr.group td{border-top:2px solid #57606a}#iso td:nth-child(2){white-space:nowrap}
#provenance td:nth-child(4){font-family:monospace;font-size:10.5px;word-break:break-all}
a{color:#0969da;word-break:break-all}
@page{size:A4;margin:14mm}
@media print{body{max-width:none;padding:0}h2{break-after:avoid}tr,.js-plotly-plot,section#answer{break-inside:avoid}
 .break{break-before:page}.modebar{display:none!important}table{font-size:10.5px}}
"""


def _page(title: str, body: str, width: int | None) -> str:
    from plotly.offline import get_plotlyjs

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


def html_to_pdf(page_html: str, path: str | os.PathLike, chromium: str | None = None,
                timeout_s: float = 180) -> Path:
    """Print ``page_html`` to ``path`` with headless Chromium (no network, a throw-away profile).

    The page's scripts run before printing (``--virtual-time-budget``), so Plotly charts are drawn
    and land in the PDF as vector graphics. Written atomically: ``path`` is whole or untouched.
    """
    chromium = chromium or chromium_path()
    if chromium is None:
        raise ReportError("a PDF needs Chromium: install Debian's chromium (apt-get install chromium) "
                          "or set COSTFRONTIER_CHROMIUM to its path; the HTML report needs nothing")
    target = Path(path)
    with tempfile.TemporaryDirectory(prefix="costfrontier-report-") as tmp:
        source = Path(tmp) / "report.html"
        source.write_text(page_html, encoding="utf-8")
        printed = Path(tmp) / "report.pdf"
        command = [chromium, *_CHROMIUM_FLAGS, f"--user-data-dir={Path(tmp) / 'profile'}",
                   f"--print-to-pdf={printed}", source.as_uri()]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=timeout_s)
        except subprocess.TimeoutExpired:
            raise ReportError(f"Chromium did not finish printing the PDF within {timeout_s:g} s") from None
        except OSError as exc:
            raise ReportError(f"Chromium could not be started ({exc.strerror or exc}); install Debian's chromium "
                              "or set COSTFRONTIER_CHROMIUM to its path") from None
        if done.returncode != 0 or not printed.exists() or printed.stat().st_size == 0:
            tail = (done.stderr or "").strip().splitlines()[-1:] or ["no output"]
            raise ReportError(f"Chromium could not print the PDF (exit {done.returncode}): {tail[0][:200]}")
        partial = target.with_name(f".{target.name}.partial")
        shutil.copyfile(printed, partial)
        os.replace(partial, target)
    return target
