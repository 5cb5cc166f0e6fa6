"""What a view's report holds, chosen from its answer: the parts it asks for (:func:`report_parts`), the sections
after the frontier (:func:`sections_of`: each cost profile, the fleet, the history, buy-rent-or-API, the seller's
side, the request mix, the plan against actual) with their words, tables and figures, and what the first page says
(:func:`first_page`). :mod:`model.present.report` lays them out as HTML.
"""

from __future__ import annotations

from dataclasses import dataclass

import plotly.graph_objects as go

from model.core.actual_rows import ActualsError
from model.core.mix import MixSolveError, mix_view
from model.core.request_mix import MixError
from model.present import figures, fmt
from model.present.actual_answer import plan_line
from model.present.actual_figures import plan_figure
from model.present.mix_answer import MIX_PARTS
from model.present.mix_figures import mix_crossover_figure
from model.present.parts import Answer
from model.present.recommendation import recommendation_of
from model.present.recommendation_words import workload_words
from model.present.report_output import ReportSection
from model.present.sell_report import SECTION_IDS as ISSUE52_IDS
from model.present.sell_report import sell_sections, wanted_parts
from model.present.tables import mix_tables, plan_tables, profile_tables, table_of
from model.present.tco_figures import breakdown_figure, tornado_figure
from model.present.volume_figures import day_figure, volume_figure

__all__ = ["report_parts", "ReportExtras", "report_extras", "sections_of", "with_extra_tables", "first_page",
           "SECTION_IDS"]


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


def _extra_sections(extras: ReportExtras | None) -> list[ReportSection]:
    if extras is None:
        return []
    return [s for s in (_mix_section(extras), _plan_section(extras)) if s is not None]


def with_extra_tables(tables: dict, sections: list[ReportSection]) -> dict:
    """``tables`` with the mix's and the plan's tables (their sections') before the provenance, which stays last."""
    extra = {name: found for s in sections if s.title in ("GPU mix", "Plan vs actual")
             for name, found in s.tables.items()}
    if not extra:
        return tables
    last = {k: v for k, v in tables.items() if k == "Provenance"}
    return {**{k: v for k, v in tables.items() if k != "Provenance"}, **extra, **last}


def sections_of(answer: Answer, extras: ReportExtras | None, answer_tables: dict) -> list[ReportSection]:
    """The report's sections after the frontier, in order: each cost profile, the fleet, the history, buy-rent-or-API,
    the seller's side (its tables among ``answer_tables``: :func:`model.present.tables.tables`), then the mix and
    the plan against actual (``extras``)."""
    return [*_profile_sections(answer), *([f] if (f := _fleet_section(answer)) else []),
            *([h] if (h := _history_section(answer)) else []),
            *([v] if (v := _volume_section(answer)) else []),
            *sell_sections(answer, ReportSection, answer_tables),
            *_extra_sections(extras)]
