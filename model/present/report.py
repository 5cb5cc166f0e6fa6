"""The proposal: the answer of one view as a document a customer keeps.

:func:`build_report` renders a :class:`~model.present.view_answer.ViewAnswer` (the answer every page and the CLI
show for the same view) as a :class:`~model.present.report_output.Report`: a self-contained HTML page (plotly.js
inlined, opens offline), a PDF of the same content (printed by headless Chromium, charts as vector
graphics), and the tables as CSV (a zip) and XLSX, rounded for people and formula-safe. It computes
nothing of its own: every number comes from the answer.

Contents, in order: a first page with the recommendation (the cheapest system at the interactivity
you need, its cost, and the fleet with its monthly cost when the view holds a demand); the answer
paragraph; cost curves with crossovers marked; the iso-interactivity table with ratios; crossovers,
said per pair as intervals; the frontier chart; one section per cost profile (inputs with units and
the source of each default, the parts, full-use and effective rates, the tornado, the break-even
server price); the fleet; assumptions (every rate's source in one vocabulary); provenance; the share
link; product version and the date it was made.
"""

from __future__ import annotations

import hashlib
import html
import os
from dataclasses import dataclass, field
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path
from urllib.parse import urlencode

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from model.core.analysis import Analysis
from model.core.cost import PRESETS_CSV
from model.core.sla import SLA
from model.core.uncertainty import RULE
from model.data.store import list_sources
from model.present import figures, fmt
from model.present.answers import method_errors_text, uncertain_crossings_text
from model.present.report_output import (
    PRINT_WIDTH_PX,
    Report,
    ReportError,
    chart,
    chart_html,
    chromium_path,
    file_name,
    html_table,
    html_to_pdf,
    page,
    table_frames,
)
from model.present.tco_figures import breakdown_figure, tornado_figure

__all__ = ["Report", "ReportSection", "ReportError", "build_report", "report_of_view", "view_link", "html_to_pdf",
           "chromium_path", "public_base_url", "DEFAULT_BASE_URL", "PRINT_WIDTH_PX"]

DEFAULT_BASE_URL = "http://localhost:8501/"
_METHOD_TEXT = {
    "linear": "linear in $/M between neighbouring frontier points (reproduces the InferenceX iso tables)",
    "monotone": "monotone cubic (PCHIP) through tokens per dollar between frontier points",
}


def public_base_url() -> str | None:
    """The deployment's public address (``COSTFRONTIER_PUBLIC_URL``), ending in ``/``; None when not set.

    Share links in reports and the Share box point there instead of the address the server sees.
    """
    url = os.environ.get("COSTFRONTIER_PUBLIC_URL", "").strip()
    if not url.startswith(("http://", "https://")):
        return None
    return url if url.endswith("/") else url + "/"


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


def _assumptions(answer, points: pd.DataFrame, x: float | None) -> pd.DataFrame:
    s, state, result = answer.scenario, answer.state, answer.analysis
    basis = {"total": "total tokens (input + output)", "output": "output tokens", "input": "input tokens",
             "blended": f"blended: output tokens + {s.w_input:g} x uncached input + {s.w_cached:g} x cached input"}
    where = answer.where
    filters = "; ".join(f"{k} = {', '.join('(not stated)' if v is None else str(v) for v in vs)}"
                        for k, vs in sorted(where.items()) if vs) or "none (all rows)"
    rows = [
        ("Workload", _priced_workload(result, points), "the benchmark rows on a frontier"),
        *([("Also in view, not priced", other, "rows without interactivity (load ramps, single points)")]
          if (other := _unpriced_workload(result, points)) else []),
        ("Filters", filters, "the view"),
        ("Series grouped by", ", ".join(s.by), "the view"),
        ("Latency SLA", SLA.from_text(s.sla).describe() if s.sla else "none",
         "the view; rows breaking it are left out before the frontier fit"),
        ("Token basis", basis[s.basis], "the view"),
        *([("Disaggregated prefill/decode rows", next(n for n in result.notes if "disaggregated rows:" in n),
            "the view (--disagg, link dis=)")] if any("disaggregated rows:" in n for n in result.notes) else []),
        ("Interpolation", f"{s.method}: {_METHOD_TEXT[s.method]}; no extrapolation past a frontier's end, "
                          "values within 1% past an end are clamped to it", "the view"),
        ("Interpolation error (±)", RULE, "leave-one-out on this view's own frontier points (model.core.uncertainty); "
                                          "not run-to-run noise"),
        ("Interactivity targets [tok/s/user]", ", ".join(f"{t:.1f}" for t in result.targets) or "none",
         "the view" if s.targets else "default: round values spread over the range every series reaches"),
        ("Interactivity you need [tok/s/user]", "—" if x is None else f"{x:.1f}",
         "the view" if state.interactivity_needed else "default: the middle target"),
        ("Ratios relative to", answer.baseline or "—",
         "the view" if state.baseline == answer.baseline else "default: the first series by name"),
        ("Cost formula", "$/M tokens = $/GPU-hour / (3600 x tok/s/GPU / 10^6)", "SemiAnalysis InferenceX"),
        ("Repeat runs", _REPEATS_TEXT[state.repeats],
         "the view (--repeats, link rep=)" if state.repeats != "pooled" else "default: all pooled"),
        ("Run dates", f"rows run on or before {state.as_of.isoformat()}; rows that state no run date are left out"
         if state.as_of else "every run date; rows that state none included", "the view (--as-of, link asof=)"
         if state.as_of else "default"),
    ]
    for r in answer.rates.to_dict("records"):
        value = fmt.usd(r["usd_per_gpu_hour"], "") if r["source"] != "not set" else "not set"
        rows.append((f"$/GPU-hour, {r['hardware']}", value, r["detail"]))
    fleet = answer.fleet
    if fleet is not None:
        rows.append(("Fleet " + fleet.kind, fleet.need, "the view"))
        rows.append(("Fleet pricing", "every hour of every GPU is paid for (730 hours a month); an on-prem "
                     "profile's full-use rate applies", "model.core.fleet"))
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
    overrides = {hw.lower() for hw, _ in result.scenario.rates}
    preset_priced = any(hw.lower() not in overrides for hw in result.usd_per_gpu_hour)
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


def _value_origin(result: Analysis, iso: pd.DataFrame) -> list[str]:
    """Per iso row: ``measured`` (a frontier point), ``interpolated``, ``clamped`` or ``out of reach``."""
    out = []
    for series, x, status in iso[["series", "interactivity", "status"]].itertuples(index=False):
        if status == "ok":
            curve = result.curves[series]
            out.append("measured" if np.isclose(curve.x, x, rtol=0, atol=1e-9).any() else "interpolated")
        else:
            out.append("clamped to frontier end" if status == "clamped" else "out of reach")
    return out


def view_link(state, base_url: str | None = None) -> str:
    """A share link reopening ``state`` (a :class:`~model.core.view.View`) on the dashboard at
    ``base_url`` (default: :func:`public_base_url`, else localhost)."""
    base = base_url or public_base_url() or DEFAULT_BASE_URL
    query = urlencode(state.to_query(), safe=":,|")
    return base + (f"?{query}" if query else "")


_ISO_SPEC = [("Interactivity [tok/s/user]", "interactivity", "x"), ("Series", "series", "text"),
             ("$/M tokens", "usd_per_mtok", "usd"), ("Ratio", "ratio_to_baseline", "ratio"),
             ("$/GPU-hour", "usd_per_gpu_hour", "usd"), ("tok/s/GPU", "tokens_per_second_per_gpu", "tps"),
             ("Break-even $/GPU-hour", "break_even_usd_per_gpu_hour", "usd"), ("Value", "origin", "text"),
             ("± interpolation error", "error_text", "text")]
_CROSS_SPEC = [("Interactivity [tok/s/user]", "interactivity", "x"), ("$/M tokens at the crossing", "usd_per_mtok", "usd"),
               ("Cheaper below", "cheaper_below", "text"), ("Cheaper above", "cheaper_above", "text"),
               ("Within uncertainty", "within_text", "text")]
_FRONTIER_SPEC = [("Series", "series", "text"), ("Interactivity [tok/s/user]", "interactivity", "x"),
                  ("tok/s/GPU", "tokens_per_second_per_gpu", "tps"), ("$/M tokens", "usd_per_mtok", "usd"),
                  ("$/GPU-hour", "usd_per_gpu_hour", "usd"), ("TP", "tp", "int"), ("EP", "ep", "int"),
                  ("DP", "dp", "int"), ("PP", "pp", "int"), ("Concurrency", "concurrency", "int"),
                  ("Repeats", "repeats", "int"), ("Repeats' min tok/s/GPU", "tput_min", "tps"),
                  ("Repeats' max tok/s/GPU", "tput_max", "tps"),
                  ("Run date", "run_date", "text"), ("Source file", "source_file", "text"),
                  ("Line", "source_line", "int")]
_FIGURE_COLUMNS = ("series", "hardware", "interactivity", "tokens_per_second_per_gpu", "usd_per_mtok", "framework",
                   "precision", "spec_decoding", "tp", "ep", "dp", "pp", "concurrency", "run_date", "source_file",
                   "source_line")
_TEXT_SPEC = lambda frame: [(c, c, "text") for c in frame.columns]  # noqa: E731


def _error_text(row) -> str:
    """The ± column of the report's iso table: ``± 6 %``, ``exact (measured)``, ``± ? (too few points)`` or ``—``."""
    if row["status"] != "ok":
        return "—"
    if row["error_from"] == "measured":
        return "exact (measured)"
    text = fmt.plus_minus(row["usd_per_mtok_error"], row["error_from"])
    return text + " (too few points)" if text == "± ?" else text


def _iso_frame(result: Analysis, iso: pd.DataFrame) -> pd.DataFrame:
    iso = iso.assign(origin=_value_origin(result, iso))
    if "usd_per_mtok_error" in iso:
        iso["error_text"] = [_error_text(r) for _, r in iso.iterrows()]
    cheapest = iso.groupby("interactivity")["usd_per_mtok"].transform("min")
    # the $/GPU-hour at which this series would cost what the cheapest does at the same interactivity
    iso["break_even_usd_per_gpu_hour"] = iso["usd_per_gpu_hour"] * cheapest / iso["usd_per_mtok"]
    return iso.sort_values(["interactivity", "usd_per_mtok", "series"], na_position="last", kind="stable")


_INPUT_SPEC = [("Input", "input", "text"), ("Value", "value", "text"), ("Where it came from", "source", "text")]
_PARTS_SPEC = [("Profile", "profile", "text"), ("Capital [$/GPU-hour]", "capital", "usd"),
               ("Power [$/GPU-hour]", "power", "usd"), ("Facility [$/GPU-hour]", "facility", "usd"),
               ("Operations [$/GPU-hour]", "operations", "usd"),
               ("At full use [$/GPU-hour]", "usd_per_gpu_hour_full_use", "usd"),
               ("Utilisation", "utilization", "ratio"), ("Effective [$/GPU-hour]", "usd_per_gpu_hour", "usd")]
_TORNADO_SPEC = [("Input", "label", "text"), ("Base", "base_value", "text"), ("Low (−20 %)", "low_value", "text"),
                 ("High (+20 %)", "high_value", "text"), ("At low", "low", "usd"), ("At high", "high", "usd"),
                 ("Note", "note", "text")]
_FLEET_SPEC = [("Series", "series", "text"), ("Priced by", "pricing", "text"), ("Capacity from", "method", "text"),
               ("Per node [req/s]", "per_node_rps", "x"), ("Nodes", "nodes", "int"), ("GPUs", "gpus", "int"),
               ("IT power [kW]", "kw", "tps"), ("$/GPU-hour paid", "usd_per_gpu_hour", "usd"),
               ("$ per month", "usd_per_month", "dollars"), ("Note", "note", "text")]
_BUDGET_SPEC = [("Series", "series", "text"), ("Priced by", "pricing", "text"), ("Budget that binds", "limit", "text"),
                ("Nodes", "nodes", "int"), ("GPUs", "gpus", "int"), ("IT power [kW]", "kw", "tps"),
                ("$ per month", "usd_per_month", "dollars"), ("Serves [req/s]", "requests_per_second", "x"),
                ("Serves [tok/s]", "tokens_per_second", "tps"), ("Note", "note", "text")]


def _profile_sections(answer) -> list[ReportSection]:
    out = []
    for pa in answer.profiles:
        p = pa.profile
        detail = next((r["detail"] for r in answer.rates.to_dict("records") if r["profile"] == p.name), None)
        text = [f"{p.name}: {p.kind} profile for {p.hardware}" + (f"; source: {p.source}" if p.source else "") + ". "
                + (f"It prices {p.hardware} in this view: {detail}." if pa.prices and detail else
                   "It is in the view but not chosen to price series.")]
        parts = pa.parts.copy()
        if p.onprem is not None:
            b = p.breakdown()
            text.append(f"Full-use rate {fmt.usd(b.usd_per_gpu_hour_full_use, '/GPU-hour')} (capital "
                        f"{fmt.usd(b.capital, '')}, power {fmt.usd(b.power, '')}, facility {fmt.usd(b.facility, '')}, "
                        f"operations {fmt.usd(b.operations, '')}); effective rate "
                        f"{fmt.usd(b.usd_per_gpu_hour, '/GPU-hour')} = full use ÷ {fmt.percent(b.utilization)} "
                        "utilisation. Token costs use the effective rate; a fleet's $/month uses the full-use rate.")
        text.extend(note for _, _, _, note in pa.break_even)
        tables = {f"Inputs: {p.name}": (pa.inputs, _INPUT_SPEC), f"Parts: {p.name}": (parts, _PARTS_SPEC)}
        figs: list[go.Figure] = [breakdown_figure(parts)] if p.onprem is not None else []
        if pa.tornado is not None:
            unit = pa.tornado_unit
            swing = pa.tornado.assign(low=pa.tornado[f"{unit}_low"], high=pa.tornado[f"{unit}_high"])
            for column in ("base_value", "low_value", "high_value"):
                swing[column] = swing[column].map(lambda v: f"{v:,.6g}")
            what = (f"$/M of {pa.series} at {fmt.interactivity(answer.x)}" if unit == "usd_per_mtok"
                    else "$/GPU-hour (no series of this hardware is in view to price tokens)")
            text.append(f"Sensitivity: each input moved ±20 %; the bars show {what} (now "
                        f"{fmt.usd(pa.tornado_base, '/M' if unit == 'usd_per_mtok' else '/GPU-hour')}).")
            tables[f"Sensitivity: {p.name}"] = (swing, [(h, c, k) if c not in ("low", "high") else
                                                         (f"{h} [{'$/M' if unit == 'usd_per_mtok' else '$/GPU-hour'}]",
                                                          c, k) for h, c, k in _TORNADO_SPEC])
            figs.append(tornado_figure(pa.tornado, pa.tornado_base, unit))
        out.append(ReportSection(f"Cost profile: {p.name}", tuple(text), tables, tuple(figs)))
    return out


_REPEATS_TEXT = {
    "pooled": "all pooled: every measured row of a configuration is a candidate for the frontier",
    "latest": "latest run: of each configuration (hardware, recipe, parallelism, load, workload) only its latest "
              "run date's rows (then the last file ingested)",
    "median": "median of repeats: each configuration as the median of its repeats, measure by measure",
}
_HISTORY_SPEC = [("Series", "series", "text"), ("Run date", "run_date", "text"),
                 ("$/M that date alone", "usd_per_mtok", "usd"), ("$/M as of that date", "as_of_usd_per_mtok", "usd"),
                 ("Best so far $/M", "best_usd_per_mtok", "usd"), ("Best so far set by", "best_from", "text"),
                 ("Source", "source", "text")]


def _history_section(answer) -> ReportSection | None:
    """The history by run date, when the view asks for it (``history``, link ``hist=1``)."""
    if not answer.state.history:
        return None
    table, x = answer.history, answer.x
    text = [("Each series' cost at " + (fmt.interactivity(x) if x is not None else "the interactivity you need")
             + " run date by run date: from that date's runs alone, and the best so far (the frontier of every run "
             "on or before that date, as 'as of' that date gives it; it never rises). Which run set each step is "
             "named."), *answer.history_notes]
    if table.empty:
        text.append("No dated runs of a priced series in this view.")
        return ReportSection("History by run date", tuple(text))
    return ReportSection("History by run date", tuple(text), {"History by run date": (table, _HISTORY_SPEC)},
                         (figures.history_figure(table, x),))


def _fleet_section(answer) -> ReportSection | None:
    fleet = answer.fleet
    if fleet is None:
        return None
    text = [f"Fleet for {fleet.need}; SLA: {fleet.sla}; interactivity you need: "
            + (fmt.interactivity(fleet.x) if fleet.x else "not set") + ". Capacity per node comes from the measured "
            "point named for each series below; every hour of every GPU is paid for (730 hours a month)."]
    text.extend(fleet.sentences)
    text.extend(fleet.notes)
    sized = fleet.sized
    if not sized.empty:
        text.extend(f"{series} ({method}): {where}" for series, method, where in
                    sized.drop_duplicates(["series", "method"])[["series", "method", "capacity_from"]]
                    .itertuples(index=False))
    spec = _FLEET_SPEC if fleet.kind == "demand" else _BUDGET_SPEC
    return ReportSection("Fleet", tuple(text), {"Fleet": (sized, spec)} if not sized.empty else {})


_VOLUME_SPEC = [("Option", "option", "text"), ("$ per month", "usd_per_month", "dollars"),
                ("Effective [$/M tokens]", "effective_usd_per_mtok", "usd"), ("Nodes", "nodes", "int"),
                ("Utilisation", "used", "text"), ("How it is priced", "detail", "text")]
_BREAK_EVEN_SPEC = [("Cheaper", "cheaper", "text"), ("Than", "than", "text"),
                    ("Above [tokens/month]", "above_tokens_per_month", "int"), ("In words", "text", "text")]


def _volume_section(answer) -> ReportSection | None:
    """Buy, rent or call an API: the same sentence, break-evens and table as the page and ``costfrontier volume``."""
    volume = answer.volume
    if volume is None:
        return None
    text = [volume.verdict, *(b["text"] + "." for b in volume.break_evens), *volume.notes]
    if volume.api:
        a = volume.api
        text.append(f"API price: {a['model']} ({a['provider'] or 'provider not stated'}), {fmt.usd(a['usd_per_m_input'])} "
                    f"input, {fmt.usd(a['usd_per_m_cached_input'])} cached input, {fmt.usd(a['usd_per_m_output'])} "
                    f"output, read {a['read_on'] or 'on an unstated date'}; {a['matched']}; {a['source']}.")
    rows = volume.rows.assign(used=volume.rows["utilization"].map(
        lambda v: "—" if v is None or v != v else fmt.percent(v)))
    tables = {"Buy, rent or API": (rows, _VOLUME_SPEC)}
    if volume.break_evens:
        tables["Break-even volumes"] = (pd.DataFrame(list(volume.break_evens)), _BREAK_EVEN_SPEC)
    from model.present.volume_figures import volume_figure

    return ReportSection("Buy, rent or API", tuple(text), tables, (volume_figure(volume),) if volume.options else ())


def _recommendation(answer) -> list[str]:
    """The first page: the recommendation, the cost at the target, the fleet and its monthly cost."""
    at = answer.at_x.dropna(subset=["usd_per_mtok"]) if answer.x is not None else answer.at_x.iloc[0:0]
    if at.empty:
        return [answer.summary]
    best = at.iloc[0]
    rate = answer.rates.set_index("hardware")["detail"].to_dict()
    hw = answer.analysis.curves[best["series"]].hardware[0]
    lines = [f"Recommendation: {best['series']}, at {fmt.usd(best['usd_per_mtok'])} {answer.scenario.basis} tokens "
             f"at {fmt.interactivity(answer.x)}, the interactivity you need" + (f". Its rate: {rate[hw]}" if hw in rate
                                                                                else "") + "."]
    if len(at) > 1:
        second = at.iloc[1]
        lines.append(f"Next: {second['series']} at {fmt.usd(second['usd_per_mtok'])}.")
    fleet = answer.fleet
    if fleet is not None and fleet.kind == "demand" and not fleet.sized.empty:
        mine = fleet.sized[(fleet.sized["series"] == best["series"]) & fleet.sized["nodes"].notna()]
        if not mine.empty:
            row = mine.iloc[0]
            lines.append(f"Fleet for {fleet.need}: {row['nodes']:,.0f} nodes, {row['gpus']:,.0f} GPUs, "
                         f"{row['kw']:,.0f} kW, ${row['usd_per_month']:,.0f} a month (at "
                         f"{fmt.usd(row['usd_per_gpu_hour'], '/GPU-hour')}, {row['pricing']}).")
        else:
            lines.append(f"Fleet for {fleet.need}: {best['series']} cannot be sized from this view's rows.")
    return lines


def build_report(answer, link: str | None = None, *, made_at: datetime | None = None,
                 base_url: str | None = None, link_notes: list[str] | None = None) -> Report:
    """The report of a view's answer (:func:`model.present.view_answer.answer_of_view`).

    link : the share link that reopens this view; ``None`` builds one from the view on ``base_url``
        (default :func:`public_base_url`, else localhost)
    made_at : timestamp printed on the report (UTC); default now
    link_notes : notices from reading ``link`` (values ignored), printed under the answer
    """
    made_at = made_at or datetime.now(timezone.utc)
    result = answer.crossed
    points = answer.rows
    x = answer.x
    baseline = answer.baseline
    notes = list(answer.notes) + [n for n in result.notes if n not in answer.notes] + list(link_notes or [])
    link = link or view_link(answer.state, base_url)
    sections = [*_profile_sections(answer), *([f] if (f := _fleet_section(answer)) else []),
                *([h] if (h := _history_section(answer)) else []),
                *([v] if (v := _volume_section(answer)) else [])]

    workload = _priced_workload(result, points)
    rates_text = ", ".join(f"{hw} {figures.usd(r, '/GPU-h')}" for hw, r in sorted(result.usd_per_gpu_hour.items()))
    subtitle = f"{workload}\n{answer.scenario.basis} tokens · {rates_text or 'no rates'} · {made_at:%Y-%m-%d}"
    many = workload.count("; ") + 1
    title = f"Cost per million tokens: {workload if many == 1 else f'{many} workloads'}"

    iso = _iso_frame(result, answer.iso_error) if not answer.iso.empty else answer.iso
    marked = answer.crossovers_marked
    marked = marked.assign(within_text=np.where(marked["within_uncertainty"].to_numpy(dtype=bool),
                                                "yes: the ± bands overlap", "no")) if not marked.empty else marked
    iso_spec = [(f"Ratio to {baseline}", c, k) if c == "ratio_to_baseline" else (h, c, k) for h, c, k in _ISO_SPEC]
    tables: dict[str, tuple[pd.DataFrame, list]] = {
        "Cost at matched interactivity": (iso, iso_spec),
        "Crossovers": (marked.sort_values("interactivity", kind="stable"), _CROSS_SPEC),
        "Frontier points": (answer.frontier_table.sort_values(["series", "interactivity"])
                            if not result.frontier.empty else result.frontier, _FRONTIER_SPEC),
    }
    for section in sections:
        tables.update(section.tables)
    assumptions = _assumptions(answer, points, x)
    provenance = _provenance(answer.con, points, result)
    tables["Provenance"] = (provenance, _TEXT_SPEC(provenance))
    rendered = {name: table_frames(frame, spec) for name, (frame, spec) in tables.items()}
    downloads = {name: rounded for name, (_, rounded) in rendered.items()}

    cost = chart(figures.crossover_figure(result.curves, marked, result.reach, answer.scenario.method,
                                          answer.uncertainty),
                 "Cost per million tokens against interactivity, crossovers marked", subtitle)
    plotted = answer.with_points.points
    slim = [c for c in _FIGURE_COLUMNS if c in plotted.columns]   # the figure slices per series: fewer columns, faster
    frontier = chart(figures.frontier_figure(plotted[slim], result.frontier, "throughput"),
                     "Pareto frontier: throughput per GPU against interactivity", subtitle)
    section_charts = [[chart(f) for f in section.figures] for section in sections]
    version = _version()
    first = _recommendation(answer)

    def one(width: int | None) -> str:
        body = _body(title, first, answer.summary, result, baseline, rendered, tables, cost, frontier, sections,
                     section_charts, assumptions, link, notes, version, made_at, width, rates_text,
                     method_errors_text(answer.uncertainty), marked)
        return page(title, body, width)

    return Report(title=title, html=one(None), print_html=one(PRINT_WIDTH_PX), tables=downloads,
                  assumptions=assumptions, made_at=made_at)


def report_of_view(con, state, link: str | None = None, **extras) -> Report:
    """The report of a dashboard view (a :class:`model.core.view.View`) on the store ``con``:
    :func:`build_report` of :func:`model.present.view_answer.answer_of_view`. ``extras`` go to :func:`build_report`."""
    from model.present.view_answer import answer_of_view

    return build_report(answer_of_view(con, state), link, **extras)


def _version() -> str:
    try:
        return metadata.version("costfrontier")
    except metadata.PackageNotFoundError:
        return "unknown"


def _body(title, first, paragraph, result, baseline, rendered, tables, cost, frontier, sections, section_charts,
          assumptions, link, notes, version, made_at, width, rates_text, errors_text="", marked=None) -> str:
    esc = html.escape
    iso_shown, _ = rendered["Cost at matched interactivity"]
    parts = [
        f"<header><h1>{esc(title)}</h1><p class=muted>Prepared {made_at:%Y-%m-%d %H:%M} UTC with Cost Frontier "
        f"{esc(version)} · <a href=\"{esc(link, quote=True)}\">reopen this view</a></p></header>",
        "<section id=recommendation class=first>" + "".join(f"<p class=lead>{esc(line)}</p>" for line in first)
        + "</section>",
        "<section id=answer><h2>The answer</h2><p class=answer>" + esc(paragraph)
        + (f" Priced at {esc(rates_text)}; every assumption and the source of every rate are listed at the end."
           if rates_text else "")
        + "</p>" + "".join(f"<p class=note>Note: {esc(n)}</p>" for n in notes) + "</section>",
        "<section id=cost><h2>Cost curves</h2>" + chart_html(cost, "cost-chart", width)
        + "<p class=caption>Each line is a series' Pareto frontier priced at its $/GPU-hour; the shaded band around "
          "it, its interpolation error (zero at measured points); × marks where two curves cross (grey: within "
          "uncertainty), a vertical tick where a frontier ends (no extrapolation past it).</p></section>",
        "<section id=iso-section class=break><h2>Cost at matched interactivity</h2>"
        f"<p class=caption>$ per million {esc(result.scenario.basis)} tokens of every series at each target "
        f"interactivity; ratio = this series' $/M over {esc(baseline or '—')}'s (above 1: dearer). Break-even "
        "$/GPU-hour: the rate at which the series would cost what the cheapest does there. Value: measured "
        "(a frontier point), interpolated between two, clamped to a frontier's end, or out of reach. "
        "± interpolation error: the error expected of an interpolated $/M at its knot spacing, from predicting "
        "each interior frontier point from the others (leave-one-out); not run-to-run noise. "
        f"{esc(errors_text)}</p>"
        + html_table(iso_shown, "iso", tables["Cost at matched interactivity"][1], grouped=True) + "</section>",
        "<section id=crossovers-section><h2>Crossovers</h2>" + _crossover_list(result, marked)
        + html_table(rendered["Crossovers"][0], "crossovers", tables["Crossovers"][1]) + "</section>",
        "<section id=frontier-section><h2>Frontier</h2>" + chart_html(frontier, "frontier-chart", width)
        + "<p class=caption>Faint markers: every measured load point; lines: each series' frontier (the points no "
          "other configuration beats on both axes). The frontier points are listed in the tables download.</p>"
          "</section>",
    ]
    for i, section in enumerate(sections):
        sid = {"Fleet": "fleet-section", "Buy, rent or API": "volume-section"}.get(section.title, f"profile-{i}")
        block = [f"<section id={sid} class='extra break'><h2>{esc(section.title)}</h2>"]
        block.extend(f"<p>{esc(text)}</p>" for text in section.text)
        for j, figure in enumerate(section_charts[i]):
            block.append(chart_html(figure, f"extra-{i}-{j}", width))
        for name in section.tables:
            block.append(f"<h3>{esc(name)}</h3>"
                         + html_table(rendered[name][0], f"extra-{file_name(name)}", tables[name][1]))
        parts.append("".join(block) + "</section>")
    parts += [
        "<section id=assumptions-section><h2>Assumptions</h2>"
        + html_table(assumptions, "assumptions", _TEXT_SPEC(assumptions)) + "</section>",
        "<section id=provenance-section><h2>Provenance</h2><p class=caption>Every file whose rows or rates this "
        "report uses, with its SHA-256 so a reader can check they hold the same data. Costs at the targets "
        "are measured where a target falls on a frontier point and interpolated between two otherwise (see the "
        "Value column above); measured rows off every frontier are dominated and do not set a price.</p>"
        + html_table(rendered["Provenance"][0], "provenance", tables["Provenance"][1]) + "</section>",
        f"<footer><h2>Reopen this view</h2><p><a id=share-link href=\"{esc(link, quote=True)}\">{esc(link)}</a></p>"
        f"<p class=muted>Cost Frontier {esc(version)} · made {made_at:%Y-%m-%d %H:%M} UTC</p></footer>",
    ]
    return "\n".join(parts)


#: up to this many crossovers are also written out as sentences above their table
CROSSOVER_SENTENCES = 12


def _crossover_list(result: Analysis, marked: pd.DataFrame | None = None) -> str:
    if result.crossovers.empty:
        return "<p>No two cost curves cross inside their common range: the cheaper series stays cheaper.</p>"
    unsure = uncertain_crossings_text(marked) if marked is not None else []
    if len(result.crossovers) > CROSSOVER_SENTENCES:
        return (f"<p>{len(result.crossovers)} crossovers, by interactivity"
                + (f"; {len(unsure)} of them within uncertainty (the table says which)" if unsure else "") + ":</p>")
    from model.present.answers import pair_intervals  # one sentence per pair: where each series is cheaper
    items = "".join(f"<li><b>{html.escape(r['series_a'])} and {html.escape(r['series_b'])}</b>: "
                    f"{html.escape(r['text'])}</li>" for _, r in pair_intervals(result.crossovers, result.reach).iterrows())
    items += "".join(f"<li class=unsure>{html.escape(sentence[0].upper() + sentence[1:])}.</li>" for sentence in unsure)
    return f"<ul>{items}</ul>"
