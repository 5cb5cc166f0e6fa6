"""Plan against actual, the plan's side: what a proposal's share link planned, read from its view's answer, held
against the stored actuals (:func:`model.core.actuals.plan_vs_actual`). The page, the report's section and
``costfrontier plan-vs-actual`` call :func:`comparison_of`; each hands in how it answers a view (the dashboard's
cached answer, the CLI's :func:`model.present.view_answer.answer_of_view`) and the actuals it reads.

The plan (:func:`plan_of`) is the owned fleet the plan's view sized for its volume: the recommendation's owned
option when it recommends one, else the cheapest owned option at the volume; its $/month, nodes and $/M come from
the answer's ``volume`` part, its capacity (ISL, OSL, GPUs per node) from the ``capacity`` part, its ± from the
recommendation's options, the API price from the volume's API. :func:`options_at` re-runs the plan's buy/rent/API
options at another volume: the plan's view with its volume replaced.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Callable, Iterable
from urllib.parse import parse_qs, urlsplit

import pandas as pd

from model.core.actual_rows import ActualsError, model_key
from model.core.actuals import Comparison, Plan, plan_vs_actual
from model.core.notes import for_every_answer
from model.core.saturation import summary
from model.core.view import View
from model.data.actuals import actuals_frame, saturation_frame
from model.data.versions import OtherData, pin_notes
from model.present import fmt
from model.present.view_answer import answer_of_view

__all__ = ["PLAN_PARTS", "plan_view", "plan_of", "options_at", "comparison_of", "comparison_on", "plan_line",
           "AnswerOf", "with_saturation"]

#: the parts of the plan view's answer a plan is read from
PLAN_PARTS = ("volume", "recommendation", "capacity", "rows", "notes")
#: how a caller answers a view: ``answer_of(view, parts)`` → :class:`model.present.parts.Answer`
AnswerOf = Callable[[View, tuple], object]
#: the figures :func:`options_at` keeps of each option
_OPTION_KEYS = ("option", "kind", "usd_per_month", "effective_usd_per_mtok", "nodes", "utilization")


def plan_view(link: str) -> tuple[View, list[str]]:
    """(the view, the notices of reading it) of a share link, read as the dashboard reads a link. Raises
    :class:`model.core.actual_rows.ActualsError` for a link whose view has no volume: a plan against actual needs the
    volume the proposal was sized for."""
    view, notices = View.from_query(parse_qs(urlsplit(str(link)).query, keep_blank_values=True))
    if not view.has_demand:
        raise ActualsError("the plan's link has no volume (tpm=, tpd=, rps= or a trace): a plan against actual "
                           "needs the volume the proposal was sized for")
    return view, notices


def plan_of(answer, link: str, notices: Iterable[str] = ()) -> Plan:
    """The :class:`model.core.actuals.Plan` of the plan view's answer (:data:`PLAN_PARTS`); ``notices``: what reading
    its link ignored, said in the plan's notes. Raises :class:`model.core.actual_rows.ActualsError` when the answer
    prices no owned fleet at its volume."""
    view, volume = answer.view, answer.volume
    owned = [o for o in (volume.options if volume is not None else ()) if o.kind == "owned"]
    if volume is None or not owned:
        raise ActualsError("the plan's view prices no owned fleet at its volume (no series it could size, or no "
                           "$/GPU-hour): there is nothing to compare a cluster's bill with")
    rows = {r["option"]: r for r in volume.rows.to_dict("records")}
    winner = answer.recommendation.winner
    option = next((o for o in owned if o.name == winner), None) or \
        min(owned, key=lambda o: rows[o.name]["usd_per_month"])
    row = rows[option.name]
    series_row = next((c for c in answer.capacity.to_dict("records")
                       if option.name == f"owned {c['series']}" or option.name.startswith(f"owned {c['series']} (")),
                      None)
    if series_row is None:
        raise ActualsError(f"the plan's option {option.name!r} has no capacity row to read its fleet from")
    choice = next((c for c in answer.recommendation.options if c.name == option.name), None)
    models = tuple(dict.fromkeys(str(m) for m in answer.rows.points.get("model", []) if isinstance(m, str) and m))
    api = dict(volume.api) if volume.api else None
    notes = [f"link: {n}" for n in notices] + for_every_answer(answer.notes)
    if view.data_version is None:
        notes.append("the plan's link is not pinned (no v=N): it is read from the latest data, which may differ "
                     "from what the proposal showed")
    return Plan(link=link, data_version=view.data_version, models=models, basis=volume.basis,
                tokens_per_month=float(volume.volume), isl=float(series_row["isl"]), osl=float(series_row["osl"]),
                series=str(series_row["series"]), option=option.name, nodes=float(row["nodes"]),
                gpus_per_node=float(series_row["gpus_per_node"]), usd_per_month=float(row["usd_per_month"]),
                tokens_per_second_per_node=float(option.node_tps),
                usd_per_mtok=float(row["effective_usd_per_mtok"]),
                error=float(choice.error) if choice is not None and math.isfinite(choice.error) else math.nan,
                error_from=choice.error_from if choice is not None else "none",
                down=1 - choice.low / choice.usd_per_mtok if choice is not None and choice.usd_per_mtok > 0 else math.nan,
                up=choice.high / choice.usd_per_mtok - 1 if choice is not None and choice.usd_per_mtok > 0 else math.nan,
                api=api,
                cache_hit=float(api["cache_hit"]) if api else float(view.cache_hit or 0.0),
                notes=tuple(dict.fromkeys(notes)))


def options_at(answer_of: AnswerOf, view: View, tokens_per_month: float, cache_hit: float) -> list[dict]:
    """The plan's buy/rent/API options re-run at ``tokens_per_month`` (on the plan's basis) and ``cache_hit``: the
    plan's view with its volume replaced (a peak or a daily volume it had is dropped: the volume prices it)."""
    again = view.replace(tokens_per_month=tokens_per_month, tokens_per_day=None, demand_rps=None,
                         cache_hit=min(max(cache_hit, 0.0), 1.0))
    volume = answer_of(again, ("volume",)).volume
    if volume is None:
        return []
    return [{k: r.get(k) for k in _OPTION_KEYS} for r in volume.rows.to_dict("records")]


def comparison_of(answer_of: AnswerOf, link: str, actuals: pd.DataFrame, cost_basis: str | None = None,
                  notes: Iterable[str] = (), aliases: dict[str, str] | None = None,
                  saturation: pd.DataFrame | None = None) -> Comparison:
    """The plan of the share link ``link`` against ``actuals`` (rows of the ``actuals`` table,
    :func:`model.data.actuals.actuals_frame`): a :class:`model.core.actuals.Comparison`, whose ``payload()`` is
    ``costfrontier plan-vs-actual --json``. ``answer_of(view, parts)`` answers the plan's view (and the view at the
    realised volume); ``cost_basis``: ``bill``, ``allocation`` or ``usage`` (default: the first the actuals hold);
    ``notes``: more to say beside the plan (a pinned link's purged rows); ``aliases``: names the actuals use -> the
    plan's model (:func:`model.core.actual_rows.aliases_of`; default its built-in table). Raises
    :class:`model.core.actual_rows.ActualsError` saying why there is no comparison."""
    view, notices = plan_view(link)
    plan = plan_of(answer_of(view, PLAN_PARTS), link, [*notices])
    if notes:
        plan = replace(plan, notes=tuple(dict.fromkeys([*plan.notes, *notes])))
    compared = plan_vs_actual(plan, actuals, lambda tpm, hit: options_at(answer_of, view, tpm, hit), cost_basis,
                              aliases)
    return with_saturation(compared, saturation, aliases)


def with_saturation(compared: Comparison, saturation: pd.DataFrame | None,
                    aliases: dict[str, str] | None = None) -> Comparison:
    """``compared`` with how close the fleet ran to its limits (:func:`model.core.saturation.summary` of the plan's
    models' saturation figures over the total and over each period, beside the plan's utilisation), its sentence
    after the others; ``compared`` itself when no figure of the plan's models falls in its period."""
    if saturation is None or saturation.empty:
        return compared
    keys = {model_key(m, aliases) for m in compared.plan.models}
    mine = saturation[saturation["model"].map(lambda m: model_key(m, aliases)).isin(keys)]
    total = compared.total
    summed = summary(mine, total["period_start"], total["period_end"], compared.plan.utilisation)
    if summed is None:
        return compared
    periods = [summary(mine, p["period_start"], p["period_end"], compared.plan.utilisation)
               for p in compared.periods]
    return replace(compared, saturation={"total": summed, "periods": periods},
                   sentences=(*compared.sentences, summed["text"]))


def comparison_on(con, link: str, cost_basis: str | None = None, answer_of: AnswerOf | None = None,
                  aliases: dict[str, str] | None = None) -> Comparison:
    """:func:`comparison_of` on the store ``con``: each view answered by ``answer_of`` (default
    :func:`model.present.view_answer.answer_of_view` on ``con``: the CLI's and the report's way; the dashboard hands
    in its cached answers), a pinned plan's purged rows said (:func:`model.data.versions.pin_notes`; a pin this
    store cannot show raises :class:`model.core.actual_rows.ActualsError`), the latest stored actuals."""

    view, _ = plan_view(link)
    try:
        said = pin_notes(con, view.data_version, view.data_digest) if view.data_version is not None else []
    except OtherData as exc:
        raise ActualsError(f"the plan's link: {exc}") from None
    return comparison_of(answer_of or (lambda v, parts: answer_of_view(con, v, parts)), link, actuals_frame(con),
                         cost_basis, said, aliases, saturation_frame(con))


def plan_line(plan: Plan) -> str:
    """The plan in one line, as ``plan-vs-actual`` prints it, the page and the report show it: its owned option,
    nodes, $/month, volume and $/M with its ± and the data version it is pinned to."""
    return (f"plan: {plan.option}, {plan.nodes:,.0f} nodes, ${plan.usd_per_month:,.2f} a month, "
            f"{plan.tokens_per_month:,.0f} {plan.basis} tokens a month, ${plan.usd_per_mtok:,.4f}/M"
            + (f" {fmt.band_pm(*plan.band)}" if plan.error else f" ({plan.error_from})")
            + (f"; data version {plan.data_version}" if plan.data_version else "; not pinned"))
