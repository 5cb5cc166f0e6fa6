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
from dataclasses import dataclass, field
from datetime import datetime, timezone
from importlib import metadata

import pandas as pd
import plotly.graph_objects as go

from model.core.actual_rows import ActualsError
from model.core.analysis import Analysis
from model.core.links import live_url, pinned_url, view_url
from model.core.mix import MixSolveError, mix_view
from model.core.request_mix import MixError
from model.core.run_to_run import RULE
from model.present import figures, fmt
from model.present.actual_answer import comparison_on, plan_line
from model.present.actual_figures import plan_figure
from model.present.answers import method_errors_text, pair_intervals, summary_of, uncertain_crossings_text
from model.present.assumptions import assumptions_of, priced_workload
from model.present.bundle import VERIFY_LINE, key_headers
from model.present.mix_answer import MIX_PARTS
from model.present.mix_figures import mix_crossover_figure
from model.present.parts import Answer
from model.present.recommendation import PLUS_MINUS, recommendation_of, workload_words
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
from model.present.sell_report import SECTION_IDS as ISSUE52_IDS
from model.present.sell_report import sell_sections, wanted_parts
from model.present.tables import (
    CALIBRATION_TABLE,
    CAPS_TABLE,
    RUN_TO_RUN_TABLE,
    marked_of,
    mix_tables,
    plan_tables,
    profile_tables,
    table_of,
    text_spec,
)
from model.present.tables import tables as every_table
from model.present.tco_figures import breakdown_figure, tornado_figure
from model.present.view_answer import answer_of_view
from model.present.volume_figures import day_figure, volume_figure
from model.present.workbook_cells import plan_of

__all__ = ["Report", "ReportSection", "ReportError", "build_report", "report_parts", "report_of_view", "view_link",
           "first_page",
           "html_to_pdf",
           "chromium_path", "PRINT_WIDTH_PX", "ReportExtras", "report_extras", "SECTION_IDS"]

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


def report_parts(view) -> tuple[str, ...]:
    """The parts of a view's answer its report renders: every part but the load ramps (the Ramps page's), the
    history only when the view asks for it (``hist=1``) and the caps table only when it prices good tokens."""
    return ("cost", "rates", "notes", "crossed", "cloud", "frontier_table", "profiles", "fleet", "volume",
            "recommendation", "provenance", "run_to_run", *(("history",) if view.history else ()),
            *(("goodput_caps",) if view.goodput else ()), *wanted_parts(view))


@dataclass(frozen=True, eq=False)
class ReportExtras:
    """What a report shows from other answers than its view's: the cheapest mix of GPU types (the answer of the
    view widened to every workload of its model, :func:`model.core.mix.mix_view`, the one ``costfrontier mix``
    and the GPU mix page read) and the plan its view names against the stored actuals
    (:class:`model.core.actuals.Comparison`, the one ``plan-vs-actual`` and its page read); or why there is none
    (``*_problem``, said in the section)."""

    mix_answer: object = None           # model.present.parts.Answer of the mix view: .mix, .fleet
    mix_problem: str | None = None
    comparison: object = None
    plan_problem: str | None = None


def report_extras(view, answer_of, comparison_of) -> ReportExtras:
    """The :class:`ReportExtras` of ``view`` (its workload set): the mix when it holds a request mix, the
    comparison when it names a plan. ``answer_of(view, parts)`` answers the mix view (:data:`MIX_PARTS`);
    ``comparison_of(link, cost_basis)`` compares the plan (:func:`model.present.actual_answer.comparison_of` as the
    caller reaches the store)."""

    mix_answer = mix_problem = comparison = plan_problem = None
    if view.request_mix and not view.has_demand:
        mix_problem = "the view holds a request mix but no demand: give a peak (req/s), a volume or a trace"
    elif view.request_mix:
        try:
            mix_answer = answer_of(mix_view(view), MIX_PARTS)
        except (MixError, MixSolveError) as exc:
            mix_problem = str(exc)
    if view.plan:
        try:
            comparison = comparison_of(view.plan, view.cost_basis)
        except ActualsError as exc:
            plan_problem = str(exc)
    return ReportExtras(mix_answer, mix_problem, comparison, plan_problem)


def view_link(state, base_url: str | None = None) -> str:
    """A share link reopening ``state`` (a :class:`~model.core.view.View`) on the dashboard's default page at
    ``base_url`` (:func:`model.core.links.view_url`: default the deployment's public address, else localhost)."""
    return view_url(state.to_query(), "", base_url)


def _profile_sections(answer: Answer) -> list[ReportSection]:
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
        mine = profile_tables(pa)
        figs: list[go.Figure] = [breakdown_figure(parts)] if p.onprem is not None else []
        if pa.tornado is not None:
            unit = pa.tornado_unit
            what = (f"$/M of {pa.series} at {fmt.interactivity(answer.interactivity_needed)}" if unit == "usd_per_mtok"
                    else "$/GPU-hour (no series of this hardware is in view to price tokens)")
            text.append(f"Sensitivity: each input moved {fmt.plus_minus(0.2)}; the bars show {what} (now "
                        f"{fmt.usd(pa.tornado_base, '/M' if unit == 'usd_per_mtok' else '/GPU-hour')}).")
            figs.append(tornado_figure(pa.tornado, pa.tornado_base, unit))
        out.append(ReportSection(f"Cost profile: {p.name}", tuple(text), mine, tuple(figs)))
    return out


def _history_section(answer: Answer) -> ReportSection | None:
    """The history by run date, when the view asks for it (``history``, link ``hist=1``)."""
    if not answer.view.history:
        return None
    table, x = answer.history.table, answer.interactivity_needed
    text = [("Each series' cost at " + (fmt.interactivity(x) if x is not None else "the interactivity you need")
             + " run date by run date: from that date's runs alone, and the best so far (the frontier of every run "
             "on or before that date, as 'as of' that date gives it; it never rises). Which run set each step is "
             "named."), *answer.history.notes]
    if table.empty:
        text.append("No dated runs of a priced series in this view.")
        return ReportSection("History by run date", tuple(text))
    return ReportSection("History by run date", tuple(text), {"History by run date": table_of(answer, "History by run date")},
                         (figures.on_good_tokens(figures.history_figure(table, x), answer.rows.good.caps),))


def _fleet_section(answer: Answer) -> ReportSection | None:
    fleet = answer.fleet
    if fleet is None:
        return None
    text = [f"Fleet for {fleet.need}; SLA: {fleet.sla}; interactivity you need: "
            + (fmt.interactivity(fleet.x) if fleet.x else "not set") + ". Capacity per node comes from the measured "
            "point named for each series below; every hour of every GPU is paid for (730 hours a month)."]
    text.extend([fleet.said] if fleet.said else [])
    text.extend([_sized_as_workload(answer.view)] if answer.view.request_mix else [])
    text.extend(fleet.sentences)
    text.extend(fleet.notes)
    sized = fleet.sized
    text.extend(fleet.capacity_lines)

    over = fleet.over_time
    return ReportSection("Fleet", tuple(text), {"Fleet": table_of(answer, "Fleet")} if not sized.empty else {},
                         (day_figure(over),) if over is not None and not over.empty else ())


def _volume_section(answer: Answer) -> ReportSection | None:
    """Buy, rent or call an API: the same sentence, break-evens and table as the page and ``costfrontier volume``."""
    volume = answer.volume
    if volume is None:
        return None
    text = [*([volume.said] if volume.said else []), *([_sized_as_workload(answer.view)] if answer.view.request_mix
                                                       else []),
            volume.verdict, *(b["text"] + "." for b in volume.break_evens), *volume.notes]
    if volume.api_line:
        text.append(volume.api_line)
    tables = {name: found for name in ("Buy, rent or API", "Break-even volumes")
              if (found := table_of(answer, name)) is not None}

    return ReportSection("Buy, rent or API", tuple(text), tables, (volume_figure(volume),) if volume.options else ())


def _sized_as_workload(view) -> str:
    """What the fleet and volume sections of a view holding a request mix size: every request at the view's own
    workload, the request mix's fleet being the GPU mix section's (and the first page's)."""

    return (f"Every request is sized here as {workload_words(view)}, the view's workload; the fleet for the view's "
            "request mix is in the GPU mix section, and on the first page.")


def _mix_section(extras: ReportExtras) -> ReportSection | None:
    """The cheapest mix of GPU types: the verdict, the fleet, the buckets (one no hardware measured is named), each
    type alone and the crossover along the mix, as ``costfrontier mix`` and the GPU mix page give them."""

    if extras.mix_problem:
        return ReportSection("GPU mix", (f"No mix: {extras.mix_problem}.",))
    if extras.mix_answer is None or extras.mix_answer.mix is None:
        return None
    mix, fleet = extras.mix_answer.mix, extras.mix_answer.fleet
    text = [f"For {fleet.need}; SLA: {fleet.sla}; interactivity you need: "
            + (fmt.interactivity(fleet.x) if fleet.x else "not set") + f"; request mix: {mix.source}.", mix.verdict,
            f"Solver: {mix.status_text}."]
    if not mix.fleet.empty:
        text.append(f"Effective {fmt.usd(mix.effective_usd_per_mtok)} {mix.token_basis} tokens "
                    f"({fmt.compact(mix.tokens_per_month)} tokens a month).")
    text += [f"Along the mix: {mix.crossover_text}.", *(fmt.sentence(n) for n in mix.notes)]
    figs = (mix_crossover_figure(mix.crossover, mix.long_share),) if mix.crossover is not None else ()
    return ReportSection("GPU mix", tuple(text), mix_tables(mix), figs)


def _plan_section(extras: ReportExtras) -> ReportSection | None:
    """The plan the view names against the stored actuals: the plan, the sentences, period by period and the total,
    and the options at the realised volume, as ``costfrontier plan-vs-actual`` and its page give them."""

    if extras.plan_problem:
        return ReportSection("Plan vs actual", (f"No comparison: {extras.plan_problem}.",))
    comparison = extras.comparison
    if comparison is None:
        return None
    plan = comparison.plan
    text = [fmt.sentence(plan_line(plan)), f"Actuals: the {comparison.cost_basis} cost.",
            *comparison.sentences, *(fmt.sentence(n) for n in comparison.notes)]
    tables = plan_tables(comparison)
    return ReportSection("Plan vs actual", tuple(text), tables,
                         (plan_figure(tables["Plan vs actual"][0], plan.basis),))


#: the HTML id of each section after the frontier (a cost profile's: ``profile-N``)
SECTION_IDS = {"Fleet": "fleet-section", "Buy, rent or API": "volume-section", "GPU mix": "mix-section",
               "Plan vs actual": "plan-section", **ISSUE52_IDS}


def first_page(answer: Answer, extras: ReportExtras | None = None):
    """What the first page says: the view's one recommendation (:attr:`model.present.parts.Answer.
    recommendation`, the sentences the Overview and ``costfrontier iso`` give); for a view holding a request mix and a
    demand, the same with the mix's fleet (``extras.mix_answer``: the GPU mix section's, never the view's own fleet,
    which sizes every request at the view's workload: :func:`model.present.recommendation.recommendation_of`)."""
    mix = extras.mix_answer.mix if extras is not None and extras.mix_answer is not None else None
    if mix is None:
        return answer.recommendation

    return recommendation_of(answer.view, answer.rows, answer.cost, answer.crossed, answer.fleet, None, mix=mix)


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
    sections = [*_profile_sections(answer), *([f] if (f := _fleet_section(answer)) else []),
                *([h] if (h := _history_section(answer)) else []),
                *([v] if (v := _volume_section(answer)) else []),
                *sell_sections(answer, ReportSection, answer_tables),
                *_extra_sections(extras)]

    workload = priced_workload(result, points)
    rates_text = ", ".join(f"{hw} {figures.usd(r, '/GPU-h')}" for hw, r in sorted(result.usd_per_gpu_hour.items()))
    subtitle = f"{workload}\n{answer.rows.scenario.basis} tokens · {rates_text or 'no rates'} · {made_at:%Y-%m-%d}"
    many = workload.count("; ") + 1
    title = f"Cost per million tokens: {workload if many == 1 else f'{many} workloads'}"

    marked = marked_of(answer)
    tables = answer_tables
    tables = _with_extra_tables(tables, sections)
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

    def one(width: int | None) -> str:
        body = _body(title, first, summary_of(answer), result, baseline, rendered, tables, cost, frontier, sections,
                     section_charts, assumptions, link, notes, version, made_at, width, rates_text,
                     method_errors_text(answer.cost.uncertainty), marked, live)
        return page(title, body, width)

    return Report(title=title, html=one(None), print_html=one(PRINT_WIDTH_PX), tables=downloads,
                  assumptions=assumptions, made_at=made_at, workbook=plan_of(answer, tables), first_page=opening,
                  extras=extras)


def _run_to_run_html(rendered: dict, tables: dict) -> str:
    """The run-to-run band beside the interpolation range, each named (when a point in view states an interval)."""

    if RUN_TO_RUN_TABLE not in rendered:
        return ""
    esc = html.escape
    return (f"<h3>{esc(RUN_TO_RUN_TABLE)}</h3><p class=caption>Two bands, each named: the interpolation range above (how "
            "far the method can be off between measured points) and the run-to-run band here (how far the measured "
            f"throughput moved between repeated runs). {esc(fmt.sentence(RULE))}. A point of one run has no "
            "run-to-run band (\"one run, no interval\"); an interval that disagrees with its own mean ± t·se is "
            "flagged and not used.</p>"
            + _table(rendered, tables, RUN_TO_RUN_TABLE, "run-to-run"))


def _extra_sections(extras: ReportExtras | None) -> list[ReportSection]:
    if extras is None:
        return []
    return [s for s in (_mix_section(extras), _plan_section(extras)) if s is not None]


def _with_extra_tables(tables: dict, sections: list[ReportSection]) -> dict:
    """``tables`` with the mix's and the plan's tables (their sections') before the provenance, which stays last."""
    extra = {name: found for s in sections if s.title in ("GPU mix", "Plan vs actual")
             for name, found in s.tables.items()}
    if not extra:
        return tables
    last = {k: v for k, v in tables.items() if k == "Provenance"}
    return {**{k: v for k, v in tables.items() if k != "Provenance"}, **extra, **last}


def report_of_view(con, state, link: str | None = None, **kwargs) -> Report:
    """The report of a dashboard view (a :class:`model.core.view.View`) on the store ``con``:
    :func:`build_report` of :func:`model.present.view_answer.answer_of_view`, with the mix and the plan against
    actual (:func:`report_extras`) when the view holds them. ``kwargs`` go to :func:`build_report`."""

    answer = answer_of_view(con, state, report_parts(state))
    extras = report_extras(answer.view, lambda v, parts: answer_of_view(con, v, parts),
                           lambda plan, basis: comparison_on(con, plan, basis))
    return build_report(answer, link, extras=extras, **kwargs)


def _version() -> str:
    try:
        return metadata.version("costfrontier")
    except metadata.PackageNotFoundError:
        return "unknown"


def _body(title, first, paragraph, result, baseline, rendered, tables, cost, frontier, sections, section_charts,
          assumptions, link, notes, version, made_at, width, rates_text, errors_text="", marked=None,
          live=None) -> str:
    esc = html.escape
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
        + _table(rendered, tables, "Cost at matched interactivity", "iso", grouped=True)
        + (f"<h3>{esc(CALIBRATION_TABLE)}</h3><p class=caption>Every measured point of this store's frontiers with "
           "a neighbour on each side, left out in turn and predicted from the rest: how many lay inside the range "
           "built without them (the target: 9 in 10), and how far that range reached below and above the value.</p>"
           + _table(rendered, tables, CALIBRATION_TABLE, "calibration")
           if CALIBRATION_TABLE in rendered else "")
        + _run_to_run_html(rendered, tables) + "</section>",
        "<section id=crossovers-section><h2>Crossovers</h2>" + _crossover_list(result, marked)
        + _table(rendered, tables, "Crossovers", "crossovers") + _caps_html(rendered, tables)
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
            block.append(f"<h3>{esc(name)}</h3>" + _table(rendered, tables, name, f"extra-{file_name(name)}"))
        parts.append("".join(block) + "</section>")
    parts += [
        "<section id=assumptions-section><h2>Assumptions</h2>"
        + html_table(assumptions, "assumptions", text_spec(assumptions)) + "</section>",
        "<section id=provenance-section><h2>Provenance</h2><p class=caption>Every file whose rows or rates this "
        "report uses, with its SHA-256 so a reader can check they hold the same data. Costs at the targets "
        "are measured where a target falls on a frontier point and interpolated between two otherwise (see the "
        "Status column above); measured rows off every frontier are dominated and do not set a price.</p>"
        + _table(rendered, tables, "Provenance", "provenance") + "</section>",
        f"<footer><h2>Reopen this view</h2><p><a id=share-link href=\"{esc(link, quote=True)}\">{esc(link)}</a></p>"
        + (f"<p class=muted>The link above opens the data as presented here. On the latest data: <a id=live-link "
           f"href=\"{esc(live, quote=True)}\">{esc(live)}</a></p>" if live and live != link else "") +
        f"<p class=muted>Cost Frontier {esc(version)} · made {made_at:%Y-%m-%d %H:%M} UTC</p>"
        f"<p id=verify-line class=muted>{esc(VERIFY_LINE)}</p></footer>",
    ]
    return "\n".join(parts)


def _table(rendered, tables, name: str, table_id: str, grouped: bool = False) -> str:
    """Table ``name`` as HTML, each number's cell marked with its figure's id (``verify`` reads them back)."""
    spec = tables[name][1]
    return html_table(rendered[name][0], table_id, spec, grouped, figures=(name, key_headers(name, spec)))


def _caps_html(rendered, tables) -> str:
    """The cheapest as the TTFT cap moves (a view with goodput caps): the table the Crossovers page shows."""
    if CAPS_TABLE not in tables:
        return ""
    frame = tables[CAPS_TABLE][0]
    return (f"<h3>{html.escape(CAPS_TABLE)}</h3><p class=caption>At {html.escape(fmt.interactivity(frame['interactivity'].iloc[0]))}"
            ", in $ per good million tokens: each TTFT cap with the view's TPOT cap; a load point's throughput counts "
            "only its requests meeting both (points without per-request data keep their summary throughput, as if "
            "every request met the caps). Runner-up: the next cheapest series at the same cap.</p>"
            + _table(rendered, tables, CAPS_TABLE, "goodput-caps"))


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
