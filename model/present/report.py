"""The proposal: the answer of one view as a document a customer keeps.

:func:`build_report` renders a :class:`~model.present.parts.Answer` (the answer every page and the CLI
show for the same view) as a :class:`~model.present.report_output.Report`: a self-contained HTML page (plotly.js
inlined, opens offline), a PDF of the same content (printed by headless Chromium, charts as vector
graphics), and the tables as CSV (a zip) and XLSX, rounded for people and formula-safe. It computes
nothing of its own: every number comes from the answer.

Contents, in order: a first page with the view's one recommendation (the cheapest series at the interactivity
you need with its ±, or "not settled by the data"; owning, renting or the API at the view's volume; the fleet
and its monthly cost; the break-even rate: :mod:`model.present.recommendation`); the answer
paragraph; cost curves with crossovers marked; the iso-interactivity table with ratios; crossovers,
said per pair as intervals (and, when the view sets goodput caps, the cheapest as the TTFT cap moves); the
frontier chart; one section per cost profile (inputs with units and
the source of each default, the parts, full-use and effective rates, the tornado, the break-even
server price); the fleet; assumptions (every rate's source in one vocabulary); provenance; the share
link; product version and the date it was made.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from datetime import datetime, timezone
from importlib import metadata

import pandas as pd

from model.core.analysis import Analysis
from model.core.links import live_url, pinned_url, view_url
from model.core.run_to_run import RULE
from model.present import figures, fmt
from model.present.answers import method_errors_text, pair_intervals, summary_of, uncertain_crossings_text
from model.present.assumptions import assumptions_of, priced_workload
from model.present.bundle import VERIFY_LINE, key_headers
from model.present.parts import Answer
from model.present.recommendation_words import PLUS_MINUS
from model.present.report_output import (
    PRINT_COLUMNS,
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
from model.present.report_sections import (
    SECTION_IDS,
    ReportExtras,
    first_page,
    sections_of,
    with_extra_tables,
)
from model.present.tables import (
    CALIBRATION_TABLE,
    CAPS_TABLE,
    RUN_TO_RUN_TABLE,
    marked_of,
    text_spec,
)
from model.present.tables import tables as every_table
from model.present.workbook_cells import plan_of

__all__ = ["Report", "ReportError", "build_report", "view_link", "html_to_pdf", "chromium_path",
           "PRINT_WIDTH_PX"]









def view_link(state, base_url: str | None = None) -> str:
    """A share link reopening ``state`` (a :class:`~model.core.view.View`) on the dashboard's default page at
    ``base_url`` (:func:`model.core.links.view_url`: default the deployment's public address, else localhost)."""
    return view_url(state.to_query(), "", base_url)




















_FIGURE_COLUMNS = ("series", "hardware", "interactivity", "tokens_per_second_per_gpu", "usd_per_mtok", "framework",
                   "precision", "spec_decoding", "tp", "ep", "dp", "pp", "concurrency", "run_date", "source_file",
                   "source_line")


def build_report(answer: Answer, link: str | None = None, *, made_at: datetime | None = None,
                 base_url: str | None = None, link_notes: list[str] | None = None,
                 extras: ReportExtras | None = None) -> Report:
    """The report of a view's answer (:func:`model.present.view_answer.answer_of_view`).

    link : the share link that reopens this view; ``None`` builds one from the view on ``base_url``
        (default :func:`model.core.links.public_base_url`, else localhost)
    made_at : timestamp printed on the report (UTC); default now
    link_notes : notices from reading ``link`` (values ignored), printed under the answer
    extras : the mix and the plan against actual (:func:`report_extras`), sections after buy, rent or API
    """
    made_at = made_at or datetime.now(timezone.utc)
    result = answer.crossed.analysis
    points = answer.rows.rows
    baseline = answer.cost.baseline
    notes = list(answer.notes) + [n for n in result.notes if n not in answer.notes] + list(link_notes or [])
    link = link or view_link(answer.view, base_url)
    # the reopen link is pinned to the data version the answer read ("as presented"); the live one is beside it
    live, link = live_url(link), pinned_url(link, answer.inputs.data_version)
    answer_tables = every_table(answer)     # the page tables, each section's, the provenance
    sections = sections_of(answer, extras, answer_tables)

    workload = priced_workload(result, points)
    rates_text = ", ".join(f"{hw} {figures.usd(r, '/GPU-h')}" for hw, r in sorted(result.usd_per_gpu_hour.items()))
    subtitle = f"{workload}\n{answer.rows.scenario.basis} tokens · {rates_text or 'no rates'} · {made_at:%Y-%m-%d}"
    many = workload.count("; ") + 1
    title = f"Cost per million tokens: {workload if many == 1 else f'{many} workloads'}"

    marked = marked_of(answer)
    tables = answer_tables
    tables = with_extra_tables(tables, sections)
    assumptions = assumptions_of(answer, made_at.date())     # ages counted to the day the report is made
    rendered = {name: table_frames(frame, spec) for name, (frame, spec) in tables.items()}
    downloads = {name: rounded for name, (_, rounded) in rendered.items()}

    good = answer.rows.good.caps            # goodput caps: the axes count good tokens
    cost = chart(figures.on_good_tokens(figures.crossover_figure(result.curves, marked, result.reach,
                                                                 answer.cost.method, answer.cost.uncertainty), good),
                 "Cost per million tokens against interactivity, crossovers marked", subtitle)
    plotted = answer.cloud.points
    slim = [c for c in _FIGURE_COLUMNS if c in plotted.columns]   # the figure slices per series: fewer columns, faster
    frontier = chart(figures.on_good_tokens(figures.frontier_figure(plotted[slim], result.frontier, "throughput"), good),
                     "Pareto frontier: throughput per GPU against interactivity", subtitle)
    section_charts = [[chart(f) for f in section.figures] for section in sections]
    version = _version()
    opening = first_page(answer, extras)
    first = list(opening.lines)

    laid_out = _Page(title=title, first=first, paragraph=summary_of(answer), result=result, baseline=baseline,
                     rendered=rendered, tables=tables, cost=cost, frontier=frontier, sections=sections,
                     section_charts=section_charts, assumptions=assumptions, link=link, notes=notes, version=version,
                     made_at=made_at, rates_text=rates_text, errors_text=method_errors_text(answer.cost.uncertainty),
                     marked=marked, live=live)

    def one(width: int | None) -> str:
        return page(title, _body(laid_out, width), width)

    return Report(title=title, html=one(None), print_html=one(PRINT_WIDTH_PX), tables=downloads,
                  assumptions=assumptions, made_at=made_at, workbook=plan_of(answer, tables), first_page=opening,
                  extras=extras)


def _run_to_run_html(rendered: dict, tables: dict, split: bool = False) -> str:
    """The run-to-run band beside the interpolation range, each named (when a point in view states an interval)."""

    if RUN_TO_RUN_TABLE not in rendered:
        return ""
    esc = html.escape
    return (f"<h3>{esc(RUN_TO_RUN_TABLE)}</h3><p class=caption>Two bands, each named: the interpolation range above (how "
            "far the method can be off between measured points) and the run-to-run band here (how far the measured "
            f"throughput moved between repeated runs). {esc(fmt.sentence(RULE))}. A point of one run has no "
            "run-to-run band (\"one run, no interval\"); an interval that disagrees with its own mean ± t·se is "
            "flagged and not used.</p>"
            + _table(rendered, tables, RUN_TO_RUN_TABLE, "run-to-run", split=split))






def _version() -> str:
    try:
        return metadata.version("costfrontier")
    except metadata.PackageNotFoundError:
        return "unknown"


@dataclass(frozen=True, kw_only=True)
class _Page:
    """What the report's page lays out, each named: the words, the rendered tables, the charts and the links."""

    title: str
    first: list[str]                       # the first page's lines (the recommendation)
    paragraph: str                         # the answer in one paragraph
    result: Analysis
    baseline: str | None
    rendered: dict                         # table name -> (unrounded, rounded) frames
    tables: dict                           # table name -> (frame, spec)
    cost: object                           # the cost chart
    frontier: object                       # the frontier chart
    sections: list
    section_charts: list
    assumptions: pd.DataFrame
    link: str                              # the pinned link that reopens the view as presented
    notes: list[str]
    version: str
    made_at: datetime
    rates_text: str
    errors_text: str = ""
    marked: pd.DataFrame | None = None
    live: str | None = None                # the same view on the latest data


def _body(p: _Page, width: int | None) -> str:
    title, first, paragraph, result, baseline = p.title, p.first, p.paragraph, p.result, p.baseline
    rendered, tables, cost, frontier, sections = p.rendered, p.tables, p.cost, p.frontier, p.sections
    section_charts, assumptions, link, notes, version = p.section_charts, p.assumptions, p.link, p.notes, p.version
    made_at, rates_text, errors_text, marked, live = p.made_at, p.rates_text, p.errors_text, p.marked, p.live
    esc = html.escape
    split = width is not None           # the print: a table wider than the page in parts, each with its keys
    parts = [
        f"<header><h1>{esc(title)}</h1><p class=muted>Prepared {made_at:%Y-%m-%d %H:%M} UTC with Cost Frontier "
        f"{esc(version)} · <a href=\"{esc(link, quote=True)}\">reopen this view</a></p></header>",
        "<section id=recommendation class=first>"
        + "".join(f"<p class=lead data-line={i}>{esc(line)}</p>" for i, line in enumerate(first)) + "</section>",
        "<section id=answer><h2>The answer</h2><p class=answer>" + esc(paragraph)
        + (f" Priced at {esc(rates_text)}; every assumption and the source of every rate are listed at the end."
           if rates_text else "")
        + "</p>" + "".join(f"<p class=note>Note: {esc(n)}</p>" for n in notes) + "</section>",
        "<section id=cost><h2>Cost curves</h2>" + chart_html(cost, "cost-chart", width)
        + "<p class=caption>Each line is a series' Pareto frontier priced at its $/GPU-hour; the shaded band around "
          "it, where 9 in 10 measured points left out fell (zero at measured points); × marks where two curves cross (grey: within "
          "uncertainty), a vertical tick where a frontier ends (no extrapolation past it).</p></section>",
        "<section id=iso-section class=break><h2>Cost at matched interactivity</h2>"
        f"<p class=caption>$ per {'good ' if result.scenario.goodput else ''}million {esc(result.scenario.basis)} tokens of "
        "every series at each target "
        f"interactivity; ratio = this series' $/M over {esc(baseline or '—')}'s (above 1: dearer). Break-even "
        "$/GPU-hour: the rate at which the series would cost what the cheapest does there (for a series without a rate, "
        "the rate at which it would). Status: measured (a frontier point), interpolated between two, clamped (held at "
        "a frontier's end, shown but never priced or ranked), out of reach, zero throughput, or missing (no row or no "
        "rate). "
        f"{esc(PLUS_MINUS)} {esc(errors_text)}</p>"
        + _table(rendered, tables, "Cost at matched interactivity", "iso", grouped=True, split=split)
        + (f"<h3>{esc(CALIBRATION_TABLE)}</h3><p class=caption>Every measured point of this store's frontiers with "
           "a neighbour on each side, left out in turn and predicted from the rest: how many lay inside the range "
           "built without them (the target: 9 in 10), and how far that range reached below and above the value.</p>"
           + _table(rendered, tables, CALIBRATION_TABLE, "calibration", split=split)
           if CALIBRATION_TABLE in rendered else "")
        + _run_to_run_html(rendered, tables, split) + "</section>",
        "<section id=crossovers-section><h2>Crossovers</h2>" + _crossover_list(result, marked)
        + _table(rendered, tables, "Crossovers", "crossovers", split=split) + _caps_html(rendered, tables, split)
        + "</section>",
        "<section id=frontier-section><h2>Frontier</h2>" + chart_html(frontier, "frontier-chart", width)
        + "<p class=caption>Faint markers: every measured load point; lines: each series' frontier (the points no "
          "other configuration beats on both axes). The frontier points are listed in the tables download.</p>"
          "</section>",
    ]
    for i, section in enumerate(sections):
        sid = SECTION_IDS.get(section.title, f"profile-{i}")
        block = [f"<section id={sid} class='extra break'><h2>{esc(section.title)}</h2>"]
        block.extend(f"<p>{esc(text)}</p>" for text in section.text)
        for j, figure in enumerate(section_charts[i]):
            block.append(chart_html(figure, f"extra-{i}-{j}", width))
        for name in section.tables:
            block.append(f"<h3>{esc(name)}</h3>" + _table(rendered, tables, name, f"extra-{file_name(name)}",
                                                          split=split))
        parts.append("".join(block) + "</section>")
    parts += [
        "<section id=assumptions-section><h2>Assumptions</h2>"
        + html_table(assumptions, "assumptions", text_spec(assumptions)) + "</section>",
        "<section id=provenance-section><h2>Provenance</h2><p class=caption>Every file whose rows or rates this "
        "report uses, with its SHA-256 so a reader can check they hold the same data. Costs at the targets "
        "are measured where a target falls on a frontier point and interpolated between two otherwise (see the "
        "Status column above); measured rows off every frontier are dominated and do not set a price.</p>"
        + _table(rendered, tables, "Provenance", "provenance", split=split) + "</section>",
        f"<footer><h2>Reopen this view</h2><p><a id=share-link href=\"{esc(link, quote=True)}\">{esc(link)}</a></p>"
        + (f"<p class=muted>The link above opens the data as presented here. On the latest data: <a id=live-link "
           f"href=\"{esc(live, quote=True)}\">{esc(live)}</a></p>" if live and live != link else "") +
        f"<p class=muted>Cost Frontier {esc(version)} · made {made_at:%Y-%m-%d %H:%M} UTC</p>"
        f"<p id=verify-line class=muted>{esc(VERIFY_LINE)}</p></footer>",
    ]
    return "\n".join(parts)


def _table(rendered, tables, name: str, table_id: str, grouped: bool = False, split: bool = False) -> str:
    """Table ``name`` as HTML, each number's cell marked with its figure's id (``verify`` reads them back); ``split``
    (the print): a table wider than a page in parts of :data:`PRINT_COLUMNS` columns beside its key columns."""
    spec = tables[name][1]
    return html_table(rendered[name][0], table_id, spec, grouped, figures=(name, key_headers(name, spec)),
                      most_columns=PRINT_COLUMNS if split else None)


def _caps_html(rendered, tables, split: bool = False) -> str:
    """The cheapest as the TTFT cap moves (a view with goodput caps): the table the Crossovers page shows."""
    if CAPS_TABLE not in tables:
        return ""
    frame = tables[CAPS_TABLE][0]
    return (f"<h3>{html.escape(CAPS_TABLE)}</h3><p class=caption>At {html.escape(fmt.interactivity(frame['interactivity'].iloc[0]))}"
            ", in $ per good million tokens: each TTFT cap with the view's TPOT cap; a load point's throughput counts "
            "only its requests meeting both (points without per-request data keep their summary throughput, as if "
            "every request met the caps). Runner-up: the next cheapest series at the same cap.</p>"
            + _table(rendered, tables, CAPS_TABLE, "goodput-caps", split=split))


#: up to this many crossovers are also written out as sentences above their table
CROSSOVER_SENTENCES = 12


def _crossover_list(result: Analysis, marked: pd.DataFrame | None = None) -> str:
    if result.crossovers.empty:
        return "<p>No two cost curves cross inside their common range: the cheaper series stays cheaper.</p>"
    unsure = uncertain_crossings_text(marked) if marked is not None else []
    if len(result.crossovers) > CROSSOVER_SENTENCES:
        return (f"<p>{len(result.crossovers)} crossovers, by interactivity"
                + (f"; {len(unsure)} of them within uncertainty (the table says which)" if unsure else "") + ":</p>")
    items = "".join(f"<li><b>{html.escape(r['series_a'])} and {html.escape(r['series_b'])}</b>: "
                    f"{html.escape(r['text'])}</li>" for _, r in pair_intervals(result.crossovers, result.reach).iterrows())
    items += "".join(f"<li class=unsure>{html.escape(sentence[0].upper() + sentence[1:])}.</li>" for sentence in unsure)
    return f"<ul>{items}</ul>"
