"""The report's workbook (XLSX) as formulas: a reviewer who changes a rate or a build-up input sees every cost move.

Sheets, in order: the iso table ("Cost at matched interactivity"), "Assumptions", then one sheet per other table
(:func:`model.present.tables.tables`). Each opens with a header block (title, date, what its formulas are) and its
table from row 4 (headers) on. Every number is stored unrounded and shown rounded by the report's rule (a number
format); text is formula-safe (:func:`model.data.export.neutralise_formula`): the only formulas are ours.

The cells a reviewer changes are on the Assumptions sheet, each with a defined name: ``rate_<hardware>`` (the
$/GPU-hour pricing that hardware or cost profile), ``hours_per_month`` (730), ``hours_per_year`` (8760) and every
on-prem build-up input ``onprem_<profile>_<input>``. The formulas (:data:`FORMULAS`):

- a frontier point: ``$/M = $/GPU-hour / (tok/s/GPU × 3600) × 10^6``, ``$/GPU-hour = rate_<hardware>``;
- the iso table, linear method: the two frontier points (knots) around the target are written beside each value
  (interactivity, measured tok/s/GPU, $/GPU-hour, $/M of each); ``$/M = $/M_a + (x − x_a) / (x_b − x_a) ×
  ($/M_b − $/M_a)`` (a measured or clamped value is its knot's $/M); ``$/GPU-hour`` likewise between the knots' rates;
  ``tok/s/GPU = $/GPU-hour / ($/M × 3600) × 10^6``; ratio = $/M ÷ the baseline's at the same x; break-even
  $/GPU-hour = $/GPU-hour × (cheapest $/M at that x) ÷ $/M. Monotone method: tok/s/GPU at x is the monotone cubic's
  value (a number), ``$/M = $/GPU-hour / (tok/s/GPU × 3600) × 10^6``;
- an on-prem build-up (:mod:`model.core.tco`): capital per GPU, CRF, the four parts, full use and effective rate as
  formulas of its inputs; a rate it prices is ``= onprem_<profile>_effective``;
- the sensitivity: at base, low and high $/M = the effective rate (inputs moved) ÷ (tok/s/GPU at x × 3600) × 10^6;
- the fleet: ``GPUs = nodes × GPUs per node``; ``$ per month = nodes × GPUs per node × $/GPU-hour paid ×
  hours_per_month`` (an on-prem profile is paid at its full-use rate).

Crossovers, the history, buy-rent-or-API and break-even volumes are values as made (their header says so): where
two curves cross moves with the rates, and a spreadsheet formula cannot find it.

openpyxl writes formulas without results; :func:`workbook_xlsx` adds the product's own values as the cached results
(so a reader that does not calculate shows them) and asks the spreadsheet to recalculate on load.
"""

from __future__ import annotations

import io
import math
import re
import zipfile
from dataclasses import dataclass, field
from datetime import date, datetime

import numpy as np
import pandas as pd
from openpyxl import Workbook
from openpyxl.styles import Font
from openpyxl.utils import absolute_coordinate, get_column_letter, quote_sheetname
from openpyxl.workbook.defined_name import DefinedName

from model.core.tco import HOURS_PER_MONTH, HOURS_PER_YEAR, ONPREM_FIELDS, ONPREM_LABELS
from model.core.view_fields import BY_NAME
from model.data.export import neutralise_formula
from model.present.assumptions import API_ITEMS, RENTED_ITEM
from model.present.report_output import Report, sheet_names
from model.present.workbook_cells import FORMULAS, HEADER_ROW, NUMBER_FORMATS, PARTS_LAYOUT, F, WorkbookPlan
from model.present.workbook_sell import SELL_FORMULAS, sell_columns
from model.present.workbook_sheets import (
    fleet_columns,
    frontier_columns,
    iso_columns,
    parts_columns,
    sensitivity_columns,
    volume_columns,
)

__all__ = ["workbook_xlsx", "report_xlsx", "VALUES_MARK", "values_said"]

@dataclass
class _Names:
    """Defined names of the workbook (valid, unique ignoring case)."""

    cells: dict[str, str] = field(default_factory=dict)       # name -> "Sheet!$B$7"

    def add(self, wanted: str, ref: str) -> str:
        base = re.sub(r"[^A-Za-z0-9_]", "_", wanted)[:200]
        name, n = base, 1
        while name.lower() in {k.lower() for k in self.cells}:
            n += 1
            name = f"{base}_{n}"
        self.cells[name] = ref
        return name


def _finite(value) -> bool:
    return value is not None and value is not pd.NA and isinstance(value, (int, float, np.number)) \
        and not isinstance(value, bool) and math.isfinite(float(value))


def _num(value):
    if isinstance(value, np.generic):
        value = value.item()
    return value if _finite(value) else None


# ------------------------------------------------------------------------------------------ build-up


# ------------------------------------------------------------------------------------------ sheets


class _Book:
    """The workbook being written: sheets, names, cached values of formula cells."""

    def __init__(self, title: str, made_at: datetime):
        self.book = Workbook()
        self.book.remove(self.book.active)
        self.title, self.made_at = title, made_at
        self.names = _Names()
        self.cached: dict[str, dict[str, float]] = {}       # sheet title -> coordinate -> value

    def sheet(self, title: str, name: str, note: str, headers: list[str], index: int | None = None):
        sheet = self.book.create_sheet(title, index)
        sheet.append([neutralise_formula(self.title)])
        sheet["A1"].font = Font(bold=True, size=13)
        sheet.append([neutralise_formula(f"{name}. Made {self.made_at:%Y-%m-%d %H:%M} UTC; assumptions on the "
                                         "'Assumptions' sheet")])
        sheet.append([neutralise_formula(note)])
        sheet.append([neutralise_formula(str(h)) for h in headers])
        for cell in sheet[HEADER_ROW]:
            cell.font = Font(bold=True)
        sheet.freeze_panes = f"A{HEADER_ROW + 1}"
        self.cached[title] = {}
        return sheet

    def put(self, sheet, row: int, col: int, value, kind: str = "text"):
        """Write one cell: a formula (:class:`F`), a number (with its kind's format) or formula-safe text."""
        cell = sheet.cell(row, col)
        if isinstance(value, F):
            cell.value = value.text
            if value.cached is not None and _finite(value.cached):
                self.cached[sheet.title][cell.coordinate] = float(value.cached)
        elif isinstance(value, str):
            cell.value = neutralise_formula(value)
        elif isinstance(value, (bool, np.bool_)):
            cell.value = bool(value)
        elif isinstance(value, (datetime, date)):       # a run date: a date cell (tz-naive) or its text
            cell.value = value if getattr(value, "tzinfo", None) is None else value.isoformat()
        else:
            cell.value = _num(value)
        if kind in NUMBER_FORMATS and not isinstance(value, str):
            cell.number_format = NUMBER_FORMATS[kind]
        return cell

    def widths(self, sheet, headers: list[str], columns: list[list]):
        for i, (header, values) in enumerate(zip(headers, columns), start=1):
            shown = [len(f"{v:,.2f}") if _finite(v) else 12 if isinstance(v, F) else len(str(v))
                     for v in values[:200] if v is not None]
            sheet.column_dimensions[sheet.cell(HEADER_ROW, i).column_letter].width = \
                min(60, max([len(str(header)), *shown]) + 2)

    def table(self, title: str, name: str, note: str, columns: list[tuple[str, str, list]], index: int | None = None):
        """A sheet of ``columns`` (header, kind, one value or :class:`F` per row)."""
        headers = [h for h, _, _ in columns]
        sheet = self.sheet(title, name, note, headers, index)
        for j, (_, kind, values) in enumerate(columns, start=1):
            for i, value in enumerate(values):
                self.put(sheet, HEADER_ROW + 1 + i, j, value, kind)
        self.widths(sheet, headers, [v for _, _, v in columns])
        return sheet

    def save(self) -> bytes:
        for name, ref in self.names.cells.items():
            self.book.defined_names[name] = DefinedName(name, attr_text=ref)
        self.book.calculation.fullCalcOnLoad = True
        buffer = io.BytesIO()
        self.book.save(buffer)
        return _with_cached(buffer.getvalue(), [self.cached[s.title] for s in self.book.worksheets])


_FORMULA_CELL = re.compile(r'<c r="([A-Z]+[0-9]+)"([^>]*)><f>(.*?)</f>(?:<v\s*/>|<v></v>)?</c>', re.S)


def _with_cached(data: bytes, cached: list[dict[str, float]]) -> bytes:
    """The XLSX ``data`` with each formula cell's cached result (sheet n of the book: ``cached[n - 1]``)."""
    source = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for item in source.infolist():
            body = source.read(item.filename)
            found = re.fullmatch(r"xl/worksheets/sheet(\d+)\.xml", item.filename)
            if found and int(found.group(1)) <= len(cached) and cached[int(found.group(1)) - 1]:
                values = cached[int(found.group(1)) - 1]

                def fill(m, values=values):
                    value = values.get(m.group(1))
                    tail = f"<v>{value!r}</v>" if value is not None else "<v></v>"
                    return f'<c r="{m.group(1)}"{m.group(2)}><f>{m.group(3)}</f>{tail}</c>'

                body = _FORMULA_CELL.sub(fill, body.decode("utf-8")).encode("utf-8")
            target.writestr(item, body)
    return out.getvalue()


def _ref(sheet: str, coordinate: str) -> str:
    return f"{quote_sheetname(sheet)}!{absolute_coordinate(coordinate)}"


# ------------------------------------------------------------------------------------------ the writer

#: the Parts sheet's columns: (header, breakdown key, kind); the build-up's formulas fill them
def report_xlsx(report: Report) -> bytes:
    """The report's workbook: the iso table, the assumptions on the second sheet, then a sheet per other table; each
    sheet opens with a header block naming the report and the date. With the report's
    :class:`~model.present.workbook_cells.WorkbookPlan` the costs are formulas of the rates and build-up inputs on
    the Assumptions sheet; without, the rounded values."""
    return workbook_xlsx(report.title, report.made_at, report.tables, report.assumptions, report.workbook)


def workbook_xlsx(title: str, made_at: datetime, rounded: dict[str, pd.DataFrame], assumptions: pd.DataFrame,
                  plan: WorkbookPlan | None) -> bytes:
    """The workbook: ``plan``'s tables with formulas; without a plan, ``rounded``'s values (the old download)."""
    book = _Book(title, made_at)
    raw = plan.tables if plan is not None else {n: (f, [(c, c, "text") for c in f.columns]) for n, f in rounded.items()}
    first, *rest = list(raw)
    order = [first, "Assumptions", *rest]
    titles = dict(zip(order, sheet_names(order)))
    if plan is None:
        for name in order:
            frame = assumptions if name == "Assumptions" else rounded[name]
            book.table(titles[name], name, "", [(c, "text", list(frame[c])) for c in frame.columns])
        return book.save()
    ctx = _Context(plan, titles, book.names)
    _assumptions(book, titles["Assumptions"], assumptions, ctx)     # first: the names every formula uses
    for name in [first, *rest]:
        frame, spec = raw[name]
        profile = ctx.profile_of_table(name)
        if name == "Cost at matched interactivity":
            note, columns = iso_columns(frame, spec, ctx)
        elif name == "Frontier points":
            note, columns = FORMULAS["frontier"], frontier_columns(frame, spec, ctx)
        elif name == "Fleet":
            note, columns = FORMULAS["fleet"], fleet_columns(frame, spec, ctx)
        elif name == "Seller economics" and plan.sell is not None:     # issue 52
            note, columns = SELL_FORMULAS, sell_columns(frame, spec, ctx, plan.sell)
        elif name == "Buy, rent or API" and plan.volume is not None:
            note, columns = FORMULAS["volume"], volume_columns(frame, spec, ctx)
        elif profile is not None and name.startswith("Parts: ") and profile.profile.onprem is not None:
            note, columns = FORMULAS["parts"], parts_columns(profile, ctx)
        elif profile is not None and name.startswith("Sensitivity: "):
            note, columns = FORMULAS["sensitivity"], sensitivity_columns(frame, spec, profile, ctx)
        else:
            note = FORMULAS["inputs"] if name.startswith("Inputs: ") else "" if name.startswith("Parts: ") \
                or name == "Provenance" else FORMULAS["values"]
            columns = [(h, k, list(frame[c]) if c in frame else []) for h, c, k in spec]
        book.table(titles[name], name, note + values_said(note, columns), columns, 0 if name == first else None)
    return book.save()


#: how a formula sheet marks the numeric columns holding values, not formulas (a reader's test finds them here)
VALUES_MARK = "Values, not formulas (counted or measured as made; no input on the Assumptions sheet moves them): "


def values_said(note: str, columns: list[tuple[str, str, list]]) -> str:
    """What a sheet with formulas adds to its note: the numeric columns whose cells are values (:data:`VALUES_MARK`);
    nothing on a sheet without formulas (its note says it holds values as made)."""
    formulas = any(isinstance(v, F) for _, _, values in columns for v in values)
    if not formulas:
        return ""
    held = [h for h, kind, values in columns if kind in NUMBER_FORMATS
            and any(_finite(v) for v in values if not isinstance(v, F))]
    return f" {VALUES_MARK}{'; '.join(held)}." if held else ""


@dataclass
class _Context:
    """Names and places the sheets' formulas refer to."""

    plan: WorkbookPlan
    titles: dict[str, str]
    names: _Names
    rate_names: dict[str, str] = field(default_factory=dict)          # rate key -> defined name
    rate_values: dict[str, float] = field(default_factory=dict)
    onprem: dict[str, dict[str, str]] = field(default_factory=dict)   # profile name -> input/part -> defined name
    rent_names: dict[str, str] = field(default_factory=dict)          # hardware (lower case) -> rent_<hardware>
    api_names: dict[str, str] = field(default_factory=dict)           # API_ITEMS key -> defined name
    kw_names: dict[str, str] = field(default_factory=dict)            # hardware (lower case) or "*" -> kwg_<hardware>
    fleet_pue: str | None = None                                      # the defined name of the fleet's PUE

    def __post_init__(self):
        for p in self.plan.profiles:
            if p.profile.onprem is None:
                continue
            sheet = self.titles.get(f"Parts: {p.profile.name}")
            if sheet is None:
                continue
            slug = "onprem_" + re.sub(r"[^A-Za-z0-9_]", "_", p.profile.name)[:60]
            mine = {}
            for j, (_, key, _) in enumerate(PARTS_LAYOUT, start=1):
                if key in ("full_use", "effective", "power", "operations"):
                    mine[key] = self.names.add(f"{slug}_{key}", _ref(sheet, f"{get_column_letter(j)}{HEADER_ROW + 1}"))
            mine["slug"] = slug
            self.onprem[p.profile.name] = mine

    def profile_of_table(self, name: str):
        return next((p for p in self.plan.profiles if name.split(": ", 1)[-1] == p.profile.name
                     and name.startswith(("Inputs: ", "Parts: ", "Sensitivity: "))), None)

    def rate(self, key) -> str | None:
        """The defined name of the rate of ``key`` (a hardware or a profile name), None when it has none."""
        return self.rate_names.get(str(key))

    def kw(self, hardware) -> str | None:
        """The defined name of the kW per GPU the view gives ``hardware`` (its own, else every hardware's)."""
        return self.kw_names.get(str(hardware).lower(), self.kw_names.get("*"))

    def rent(self, hardware) -> str | None:
        """The defined name of ``hardware``'s rented $/GPU-hour, None when the view rents none."""
        return self.rent_names.get(str(hardware).lower())


def _assumptions(book: _Book, title: str, frame: pd.DataFrame, ctx: _Context) -> None:
    """The assumptions in words, each rate a named number (or the formula of its build-up), then the hours and every
    on-prem input as named numbers."""
    rates = {f"$/GPU-hour, {r['hardware']}": r for r in ctx.plan.rates.to_dict("records")}
    rented = {f"{RENTED_ITEM}{hw}": (hw, usd) for hw, usd in ctx.plan.rent}
    api = ctx.plan.volume.api if ctx.plan.volume is not None else None
    api_items = {item: key for key, item in API_ITEMS.items()} if api else {}
    rows: list[tuple] = []
    for item, value, source in frame[["Item", "Value", "Where it came from"]].itertuples(index=False):
        r = rates.get(item)
        if r is not None and _finite(r["usd_per_gpu_hour"]):
            rows.append((item, ("rate", r), source))
        elif item in rented:
            rows.append((item, ("rent", *rented[item]), source))
        elif item in api_items:
            rows.append((item, ("api", api_items[item], api[api_items[item]]), source))
        else:
            rows.append((item, value, source))
    kw_label = BY_NAME["kw_per_gpu"].label      # the assumptions' words (model.present.assumptions._fleet_settings)
    kw_items = {f"Fleet: {kw_label}, {'every hardware without its own' if hw == '*' else hw}": (hw, kw)
                for hw, kw in ctx.plan.kw_per_gpu}
    rows = [(item, ("kw", *kw_items[item]), source) if item in kw_items else
            (item, ("pue", ctx.plan.pue if ctx.plan.pue is not None else 1.0), source + (
                "" if ctx.plan.pue is not None else "; 1 in this workbook, for the rows no build-up gives a PUE"))
            if item == "Fleet: PUE" else (item, value, source) for item, value, source in rows]
    rows.append(("Hours per month (a month of every cost)", ("const", "hours_per_month", HOURS_PER_MONTH),
                 "8760 / 12"))
    rows.append(("Hours per year (capital and operations)", ("const", "hours_per_year", HOURS_PER_YEAR), "365 days"))
    for p in ctx.plan.profiles:
        if p.profile.name not in ctx.onprem:
            continue
        sources = dict(zip(p.inputs["input"], p.inputs["source"]))
        for name in ONPREM_FIELDS:
            label = ONPREM_LABELS.get(name, name)
            rows.append((f"{p.profile.name}: {label}", ("input", p.profile, name), sources.get(label, "build-up input")))
    sheet = book.sheet(title, "Assumptions", FORMULAS["assumptions"], ["Item", "Value", "Where it came from"])
    for i, (item, value, source) in enumerate(rows):
        row = HEADER_ROW + 1 + i
        book.put(sheet, row, 1, item)
        book.put(sheet, row, 3, source)
        coordinate = f"B{row}"
        if isinstance(value, tuple) and value[0] == "rate":
            r = value[1]
            name = ctx.names.add(f"rate_{r['hardware']}", _ref(title, coordinate))
            ctx.rate_names[str(r["hardware"])] = name
            ctx.rate_values[str(r["hardware"])] = float(r["usd_per_gpu_hour"])
            own = ctx.onprem.get(r["profile"]) if r["profile"] else None
            built = next((p.profile.rate() for p in ctx.plan.profiles if p.profile.name == r["profile"]), None)
            if built is None or not math.isclose(built, r["usd_per_gpu_hour"], rel_tol=1e-9):
                own = None         # an unpriced build-up: the rate is the preset's, a number
            cell = F(f"={own['effective']}", r["usd_per_gpu_hour"]) if own else r["usd_per_gpu_hour"]
            book.put(sheet, row, 2, cell, "usd")
        elif isinstance(value, tuple) and value[0] == "rent":
            ctx.rent_names[str(value[1]).lower()] = ctx.names.add(f"rent_{value[1]}", _ref(title, coordinate))
            book.put(sheet, row, 2, value[2], "usd")
        elif isinstance(value, tuple) and value[0] == "api":
            ctx.api_names[value[1]] = ctx.names.add(f"api_{value[1]}", _ref(title, coordinate))
            book.put(sheet, row, 2, value[2], "share" if value[1] == "cache_hit" else "usd")
        elif isinstance(value, tuple) and value[0] == "kw":
            ctx.kw_names[str(value[1]).lower()] = ctx.names.add(
                "kwg_every" if value[1] == "*" else f"kwg_{value[1]}", _ref(title, coordinate))
            book.put(sheet, row, 2, value[2], "plain")
        elif isinstance(value, tuple) and value[0] == "pue":
            ctx.fleet_pue = ctx.names.add("fleet_pue", _ref(title, coordinate))
            book.put(sheet, row, 2, value[1], "plain")
        elif isinstance(value, tuple) and value[0] == "const":
            ctx.names.add(value[1], _ref(title, coordinate))
            book.put(sheet, row, 2, value[2], "int")
        elif isinstance(value, tuple) and value[0] == "input":
            profile, name = value[1], value[2]
            given = getattr(profile.onprem, name)
            ctx.onprem[profile.name][name] = ctx.names.add(f"{ctx.onprem[profile.name]['slug']}_{name}",
                                                           _ref(title, coordinate))
            book.put(sheet, row, 2, given if isinstance(given, bool) else _num(given))
        else:
            book.put(sheet, row, 2, value)
    for column, width in (("A", 48), ("B", 24), ("C", 80)):
        sheet.column_dimensions[column].width = width
