"""A proposal the customer can verify: what a bundle holds, its manifest, and how ``verify`` compares.

A proposal bundle (``costfrontier report … --bundle DIR``, the report box's "Download bundle") is one folder (or
zip) holding the report (``report.html``, ``report.pdf``), its tables (``tables.xlsx``, ``tables/*.csv``), the
inputs its answer was computed from (``inputs/store.duckdb``: the rows the view read, in the store's own tables,
with the sources, data versions, TCO rates and API prices; ``inputs/presets.csv``: every $/GPU-hour preset it
read, with its source and date: :mod:`model.data.bundle`), and ``manifest.json``: the tool and data version, the
view's link, the time, the SHA-256 of every file, the inputs in words (rates, cost profiles, API prices, demand,
each with its source and date) and every figure on the report's first page and in its tables with its status
(:mod:`model.core.status`), as printed.

``costfrontier verify BUNDLE`` rebuilds the answer from the bundled inputs alone (no store, no server), computes
the same figures (:func:`figures_of`) and compares (:func:`compare`): each figure to its printed rounding, each
file by its hash. Exit codes (:data:`EXIT_CODES`): 0 all hold, 1 a figure or a file differs, 3 the bundle lacks
data a figure needs (a series' rows gone, an input file missing), 2 bad arguments or not a bundle.

A figure is a dict (:data:`FIGURE_KEYS`). The figures, the manifest and the comparison are pure functions;
:func:`bundle_files` reads the store once (the view's rows, :func:`model.data.bundle.store_bytes`) and
:func:`verify_folder` reads a bundle's files (:mod:`model.data.bundle` does the I/O).
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field
from importlib import metadata

import pandas as pd

from model.core.status import STATUSES
from model.data.bundle import (
    MANIFEST,
    PRESETS,
    STORE,
    presets_csv,
    store_bytes,
)
from model.data.export import safe_csv
from model.present import fmt
from model.present.fleet_answer import demand_words
from model.present.report_output import cell_text, file_name, row_labels, table_frames
from model.present.tables import tables
from model.present.workbook import report_xlsx

__all__ = ["BUNDLE_FORMAT", "MANIFEST", "VERIFY_LINE", "EXIT_CODES", "EXIT_OK", "EXIT_DIFFERS", "EXIT_USAGE",
           "EXIT_LACKS", "FIGURE_KINDS", "FIGURE_KEYS", "INPUT_FILES", "ROW_KEYS", "figures_of", "page_one_figures",
           "table_figures", "input_figures", "inputs_of", "manifest_of", "compare", "Findings", "sha256",
           "figure_text", "bundle_files", "tool_version", "series_of", "lacking", "key_headers",
           "jsonable_inputs"]

#: what a manifest says it is (a later layout gets a new number)
BUNDLE_FORMAT = "costfrontier proposal bundle 1"
#: the files ``verify`` rebuilds the answer from (the other files it checks by their hash)
INPUT_FILES = (STORE, PRESETS)
#: how the report tells its reader to check it, in one line
VERIFY_LINE = ("To check these numbers on your own machine, without our server: get this proposal's bundle (a folder "
               "or zip: this report, its inputs and manifest.json) and run costfrontier verify BUNDLE; exit 0 means "
               "every figure and file holds.")
EXIT_OK, EXIT_DIFFERS, EXIT_USAGE, EXIT_LACKS = 0, 1, 2, 3
#: verify's exit codes, in words
EXIT_CODES = {EXIT_OK: "every figure and file holds", EXIT_DIFFERS: "a figure or a file differs",
              EXIT_USAGE: "bad arguments, or not a bundle", EXIT_LACKS: "the bundle lacks data a figure needs"}
#: how a figure is printed (:func:`figure_text`): the report's column kinds, and a fraction as a percentage
FIGURE_KINDS = ("usd", "dollars", "x", "tps", "ratio", "int", "percent", "share", "rps")
#: what every figure of a manifest holds
FIGURE_KEYS = ("id", "where", "kind", "value", "text", "status")
#: the columns that tell a table's rows apart (a row's id); other tables: their first column. Rows alike in these
#: are numbered in order (``#2``).
ROW_KEYS = {"Cost at matched interactivity": ("interactivity", "series"),
            "Crossovers": ("interactivity", "cheaper_below", "cheaper_above"),
            "Frontier points": ("series", "interactivity"), "Fleet": ("series",),
            "History by run date": ("series", "run_date"), "Buy, rent or API": ("option",),
            "Break-even volumes": ("cheaper", "than"), "Provenance": ("File", "Used for"),
            "How often the range held": ("method", "kind"), "Run-to-run": ("interactivity", "series"),
            "Seller economics": ("series", "option")}      # model.present.sell_report.ROW_KEYS
#: a table figure's status where its rows have no status column: a frontier point is measured
_TABLE_STATUS = {"Frontier points": "measured"}


def sha256(data: bytes) -> str:
    """The SHA-256 of ``data``, hex."""
    return hashlib.sha256(data).hexdigest()


def _number(value) -> float | None:
    if value is None or value is pd.NA or isinstance(value, (bool, str)):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def figure_text(value, kind: str) -> str:
    """A figure as the report prints it (:func:`model.present.report_output.cell_text`; ``percent``:
    :func:`model.present.fmt.percent`); ``—`` without a value."""
    if kind not in FIGURE_KINDS:
        raise ValueError(f"unknown figure kind {kind!r}; choose from {', '.join(FIGURE_KINDS)}")
    number = _number(value)
    if number is None:
        return "—"
    return fmt.percent(number) if kind == "percent" else cell_text(number, kind)


def _figure(fid: str, where: str, kind: str, value, status: str | None = None) -> dict:
    if status is not None and status not in STATUSES:
        status = None
    number = _number(value)
    return {"id": fid, "where": where, "kind": kind, "value": number, "text": figure_text(number, kind),
            "status": status}


def _status_at(at_x: pd.DataFrame) -> dict[str, str]:
    return dict(zip(at_x["series"].astype(str), at_x["status"].astype(str))) if not at_x.empty else {}


def page_one_figures(answer, recommendation=None) -> list[dict]:
    """Every number of the report's first page (``recommendation``, default :attr:`Answer.recommendation`; a view with
    a request mix: :func:`model.present.report_sections.first_page`): the interactivity you need; each series' $/M and its
    range (how far below and above it), with its status; each option at the volume; the fleet (or the request mix's:
    each type's nodes and $ a month, the total and its range, the share of requests measured); the break-even rate and
    its range; the rate at which a series without one would match each priced series."""
    rec = recommendation if recommendation is not None else answer.recommendation
    where = "page 1"
    status = _status_at(answer.cost.at_x)
    out = [_figure("page 1 | interactivity you need [tok/s/user]", where, "x", rec.x)]
    for c in rec.series:
        out.append(_figure(f"page 1 | {c.name} | $/M tokens", where, "usd", c.usd_per_mtok, status.get(c.name)))
        v = c.usd_per_mtok
        out.append(_figure(f"page 1 | {c.name} | range below", where, "percent",
                           1 - c.low / v if v > 0 else math.nan, status.get(c.name)))
        out.append(_figure(f"page 1 | {c.name} | range above", where, "percent",
                           c.high / v - 1 if v > 0 else math.nan, status.get(c.name)))
    for o in rec.options:
        mine = o.status or None
        out.append(_figure(f"page 1 | {o.name} | effective $/M tokens", where, "usd", o.usd_per_mtok, mine))
        out.append(_figure(f"page 1 | {o.name} | $ per month", where, "dollars", o.usd_per_month, mine))
        if o.kind != "api":
            out.append(_figure(f"page 1 | {o.name} | nodes", where, "int", o.nodes, mine))
    if rec.fleet:
        f = rec.fleet
        for label, key, kind in (("nodes", "nodes", "int"), ("GPUs", "gpus", "int"), ("IT power [kW]", "kw", "tps"),
                                 ("$ per month", "usd_per_month", "dollars"),
                                 ("$/GPU-hour paid", "usd_per_gpu_hour", "usd")):
            out.append(_figure(f"page 1 | fleet {f['series']} | {label}", where, kind, f.get(key), "measured"))
    if rec.mix:
        m = rec.mix
        for t in m["types"]:
            out.append(_figure(f"page 1 | mix {t['type']} | nodes", where, "int", t["nodes"]))
            out.append(_figure(f"page 1 | mix {t['type']} | $ per month", where, "dollars", t["usd_per_month"]))
        for label, key in (("$ per month", "usd_per_month"), ("$ per month, low", "usd_per_month_low"),
                           ("$ per month, high", "usd_per_month_high")):
            out.append(_figure(f"page 1 | mix | {label}", where, "dollars", m[key]))
        out.append(_figure("page 1 | mix | share of requests measured", where, "percent", m["covered_share"]))
    if rec.break_even:
        b = rec.break_even
        for label, key in (("break-even $/GPU-hour", "rate"), ("rate now", "current"), ("break-even low", "low"),
                           ("break-even high", "high")):
            out.append(_figure(f"page 1 | {b['series']} against {b['against']} | {label}", where, "usd", b.get(key)))
    for u in rec.unpriced:
        for m in u["matches"]:
            out.append(_figure(f"page 1 | {u['series']} against {m['against']} | break-even $/GPU-hour", where, "usd",
                               m["break_even_usd_per_gpu_hour"], "missing"))
    return out


def key_headers(name: str, spec) -> list[str]:
    """The headers of the columns that tell the rows of table ``name`` apart (:data:`ROW_KEYS`; else its first)."""
    wanted = ROW_KEYS.get(name)
    if wanted is None:
        return [spec[0][0]]
    by_column = {c: h for h, c, _ in spec}
    by_header = {h: h for h, _, _ in spec}
    return [by_column.get(w) or by_header[w] for w in wanted if w in by_column or w in by_header]


def table_figures(name: str, frame: pd.DataFrame, spec) -> list[dict]:
    """Every number of one table (``frame`` and its ``spec`` of (header, column, kind), as
    :func:`model.present.tables.table_of` gives them): one figure per numeric cell, its id the table, the row's
    key (:data:`ROW_KEYS`, as printed: :func:`model.present.report_output.row_labels`) and the column's header, its
    status the row's (a ``status`` column; a frontier point is ``measured``; else none)."""
    shown, _ = table_frames(frame, spec)
    rows = row_labels(shown, key_headers(name, spec))
    numeric = [(h, c, k) for h, c, k in spec if k != "text" and c in frame.columns]
    out = []
    for row, record in zip(rows, frame.to_dict("records")):
        status = record.get("status") if isinstance(record.get("status"), str) else _TABLE_STATUS.get(name)
        out.extend(_figure(f"{name} | {row} | {header}", name, kind, record.get(column), status)
                   for header, column, kind in numeric)
    return out


def input_figures(answer) -> list[dict]:
    """The numbers the answer was priced with: each $/GPU-hour (and its full-use rate), and the API price used."""
    out = []
    for r in answer.rates.to_dict("records"):
        name = str(r["hardware"]) + (f" ({r['profile']})" if isinstance(r.get("profile"), str) and r["profile"] else "")
        out.append(_figure(f"inputs | $/GPU-hour | {name}", "inputs", "usd", r["usd_per_gpu_hour"]))
        out.append(_figure(f"inputs | $/GPU-hour at full use | {name}", "inputs", "usd", r["usd_per_gpu_hour_full_use"]))
    volume = answer.volume
    api = volume.api if volume is not None else None
    if api:
        for label, key in (("input", "usd_per_m_input"), ("cached input", "usd_per_m_cached_input"),
                           ("output", "usd_per_m_output")):
            out.append(_figure(f"inputs | API {api['model']} | $/M {label}", "inputs", "usd", api.get(key)))
    return out


def figures_of(answer, tables: dict, first_page=None) -> list[dict]:
    """Every figure a manifest holds for ``answer`` and its report ``tables`` (name -> (frame, spec):
    :func:`model.present.tables.tables`): the inputs, the first page (``first_page``: what it says, default the
    answer's recommendation), then each table's, in order."""
    out = [*input_figures(answer), *page_one_figures(answer, first_page)]
    for name, (frame, spec) in tables.items():
        out.extend(table_figures(name, frame, spec))
    return out


def inputs_of(answer) -> dict:
    """What the answer was computed from, in words, for the reader of a manifest: every $/GPU-hour with its source
    and the date it was read, each cost profile, the stored API prices (and the one used), the demand."""
    view = answer.view
    rates = [{k: (None if isinstance(v, float) and not math.isfinite(v) else
                  v.isoformat() if hasattr(v, "isoformat") else v) for k, v in r.items()}
             for r in answer.rates.to_dict("records")]
    profiles = [{"name": p.name, "kind": p.kind, "hardware": p.hardware, "source": p.source,
                 "usd_per_gpu_hour": p.rate(), "usd_per_gpu_hour_full_use": p.paid_rate(),
                 "prices_series": p.name in view.priced_by} for p in view.cost_profiles()]
    api = [{"model": a.model, "provider": a.provider, "usd_per_m_input": a.usd_input,
            "usd_per_m_cached_input": a.usd_cached_input, "usd_per_m_output": a.usd_output,
            "read_on": a.read_on.isoformat() if a.read_on else None, "source": a.source}
           for a in answer.inputs.api_prices]
    volume = answer.volume
    return {"rates": rates, "profiles": profiles, "api_prices": api,
            "api_price_used": volume.api if volume is not None else None,
            "demand": {"words": demand_words(view), "tokens_per_month": view.tokens_per_month,
                       "tokens_per_day": view.tokens_per_day, "demand_rps": view.demand_rps,
                       "peak_to_average": view.peak_to_average, "shape": view.shape or None,
                       "interactivity_needed": answer.interactivity_needed},
            "presets": "inputs/presets.csv (every $/GPU-hour preset the answer read, with its source and read date)"}


def jsonable_inputs(answer) -> dict:
    """:func:`inputs_of` as the manifest holds it (through JSON: tuples are lists, numbers as JSON writes them),
    so a manifest's inputs and those rebuilt by ``verify`` compare as equals."""
    return json.loads(json.dumps(inputs_of(answer), ensure_ascii=False, default=str))


def manifest_of(answer, tables: dict, files: dict[str, bytes], *, link: str, version: str, made_at,
                data_digest: str | None, first_page=None) -> dict:
    """The manifest of a bundle: what it is, the tool and data version, the view's link (pinned to that data
    version), when it was made, each file's SHA-256 (``files``: path in the bundle -> bytes), the inputs in words
    (:func:`inputs_of`) and every figure (:func:`figures_of`) with its status."""
    return {"format": BUNDLE_FORMAT, "tool_version": version, "made_at": made_at.isoformat(),
            "data_version": answer.inputs.data_version, "data_digest": data_digest, "link": link,
            "view": answer.view.to_query(), "verify": "costfrontier verify BUNDLE (exit codes: "
            + "; ".join(f"{k} {v}" for k, v in EXIT_CODES.items()) + ")",
            "files": {path: sha256(data) for path, data in sorted(files.items())},
            "inputs": jsonable_inputs(answer), "series": series_of(answer),
            "figures": figures_of(answer, tables, first_page)}


def series_of(answer) -> list[dict]:
    """Every series in view with its status at the interactivity you need (what a figure of it needs: its rows and
    its rate)."""
    at = answer.cost.at_x
    if at.empty:
        return []
    return [{"series": str(s), "status": str(t)} for s, t in zip(at["series"], at["status"])]


def lacking(recorded: list[dict], rebuilt: list[dict]) -> list[tuple[str, str]]:
    """Each series the manifest lists with a row and a rate (``recorded``: :func:`series_of`) that the rebuilt
    answer has no row or no rate of: the bundle lacks the data its figures need."""
    have = {s["series"]: s["status"] for s in rebuilt}
    out = []
    for s in recorded:
        name, status = str(s.get("series")), s.get("status")
        if status == "missing" or have.get(name, "missing") != "missing":
            continue
        out.append((f"series {name}", "the bundle's inputs hold no row of it, or no rate (the manifest says "
                                      f"{status} at the interactivity you need): its figures cannot be recomputed"))
    return out


@dataclass
class Findings:
    """What ``verify`` found: each figure or file that differs (what, the manifest's, the bundle's or recomputed),
    each figure the bundle lacks data for (what, why), and how many of each were checked."""

    differs: list[tuple[str, str, str]] = field(default_factory=list)
    lacks: list[tuple[str, str]] = field(default_factory=list)
    figures: int = 0
    files: int = 0

    @property
    def code(self) -> int:
        """The exit code: 3 when a figure lacks data, else 1 when anything differs, else 0."""
        return EXIT_LACKS if self.lacks else EXIT_DIFFERS if self.differs else EXIT_OK


def compare(recorded: list[dict], recomputed: list[dict], findings: Findings | None = None) -> Findings:
    """Each figure of the manifest (``recorded``) against the one rebuilt from the bundle (``recomputed``), by id,
    to its printed rounding: its printed text, the text its recorded value prints as, and its status. A figure not
    rebuilt, or one the manifest does not list, differs. (What the bundle lacks is said per series: :func:`lacking`.)"""
    findings = findings or Findings()
    rebuilt = {f["id"]: f for f in recomputed}
    for f in recorded:
        findings.figures += 1
        fid = f.get("id", "?")
        kind = f.get("kind") if f.get("kind") in FIGURE_KINDS else None
        mine = rebuilt.pop(fid, None)
        if kind is None:
            findings.differs.append((f"figure {fid}", f"kind {f.get('kind')!r}", "a figure kind verify knows"))
            continue
        said, value = str(f.get("text")), figure_text(f.get("value"), kind)
        if mine is None:
            findings.differs.append((f"figure {fid}", said, "(none: the bundle's inputs give no such figure)"))
        elif said != mine["text"] or value != mine["text"]:
            shown = said if said != mine["text"] else f"{said} (its value {f.get('value')!r} prints {value})"
            findings.differs.append((f"figure {fid}", shown, mine["text"]))
        elif (f.get("status") or None) != (mine["status"] or None):
            findings.differs.append((f"status of figure {fid}", str(f.get("status")), str(mine["status"])))
    for fid, mine in rebuilt.items():
        findings.differs.append((f"figure {fid}", "(not listed)", mine["text"]))
    return findings


def tool_version() -> str:
    """This Cost Frontier's version (the package's), or ``unknown``."""
    try:
        return metadata.version("costfrontier")
    except metadata.PackageNotFoundError:
        return "unknown"


def bundle_files(con, answer, report, link: str, data_digest: str | None, pdf: bytes | None = None) -> dict[str, bytes]:
    """Every file of the bundle of ``answer`` and its ``report`` (:class:`model.present.report_output.Report`),
    by its path in the bundle: the HTML, the PDF (``pdf``, else printed now; ``b""``: none, a server that could
    not print it), the XLSX, one CSV per table, the
    inputs read from the store ``con`` (:data:`model.data.bundle.STORE`, :data:`model.data.bundle.PRESETS`), and
    the manifest (:func:`manifest_of`), last. ``link``: the view's share link, pinned to its data version."""
    pdf = pdf if pdf is not None else report.pdf_bytes()
    files = {"report.html": report.html.encode("utf-8"), **({"report.pdf": pdf} if pdf else {}),
             "tables.xlsx": report_xlsx(report)}
    for name, frame in {**report.tables, "Assumptions": report.assumptions}.items():
        files[f"tables/{file_name(name)}.csv"] = safe_csv(frame).encode("utf-8")
    inputs = answer.inputs
    # the view's rows, and the store's frontier points its bands were calibrated on (model.core.uncertainty); a
    # view's request mix is answered on every workload of its model (the first page's fleet): those rows too
    mixed = getattr(getattr(report, "extras", None), "mix_answer", None)
    ids = {point for read in (inputs, *([mixed.inputs] if mixed is not None else []))
           for point in (*read.loaded["point_id"].tolist(),
                         *(read.calibration.point_ids if read.calibration is not None else ()))}
    files[STORE] = store_bytes(con, sorted(ids), inputs.data_version)
    files[PRESETS] = presets_csv(inputs.presets)
    manifest = manifest_of(answer, tables(answer), files, link=link, version=tool_version(), made_at=report.made_at,
                           data_digest=data_digest, first_page=getattr(report, "first_page", None))
    files[MANIFEST] = json.dumps(manifest, indent=2, ensure_ascii=False).encode("utf-8")
    return files
