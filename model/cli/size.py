"""``costfrontier size``: the fleet for a demand, or the capacity a power or money budget buys.

    costfrontier size --demand-rps R | --tokens-per-day T [--peak-to-average F] | --budget-mw M | --budget-usd-month B
                      [--headroom 1.0] [--spares 0] [the view options of iso: --sla, --where, --by, --rate,
                      --profile NAME ..., --interactivity X, --link URL] [--rack-kw KW] [--tenants TABLE|FILE] [--json]

It prints the fleet of the view's answer (:attr:`model.present.parts.Answer.fleet`): the same view options
mean what they mean for ``iso`` and ``report``; ``--tenants`` adds the planned fleet's cost by tenant (issue 52).
"""

from __future__ import annotations

import json
import sys

import pandas as pd

from model.cli.as_json import jsonable, records
from model.cli.options import answer_of, view_from_args
from model.cli.running import UsageError, in_store
from model.core.links import view_url
from model.core.notes import for_every_answer, link_notices
from model.present.run_to_run_answer import run_to_run_lines

__all__ = ["main", "run"]

_NEEDS = "a demand (--peak-rps, --volume, --tokens-per-day or --trace) or a budget (--budget-mw and/or --budget-usd-month)"


def main(args, ctrl_c) -> int:
    """Run ``size`` on the store (:func:`model.cli.running.in_store`)."""
    return in_store(args, ctrl_c, run)


def run(args, con) -> int:
    """Size the fleet of the view the options (or ``--link``) describe, and print it."""
    state, notices = view_from_args(args, con)
    if state.has_demand and (args.budget_mw is not None or args.budget_usd_month is not None) and not args.link:
        raise UsageError(f"size needs {_NEEDS}, not both")
    answer = answer_of(args, con, state, notices, ("fleet", "rates", "notes", "run_to_run", "chargeback"))
    fleet = answer.fleet
    if fleet is None:       # the view states neither a demand nor a budget (model.present.fleet_answer.fleet_of)
        refused = "; ".join(link_notices(answer.notes))     # the value the link gave, refused by its bound
        raise UsageError("the link's view has no demand or budget: add --demand-rps, --tokens-per-day, "
                         "--budget-mw or --budget-usd-month" + (f" ({refused})" if refused else "")
                         if args.link else f"size needs {_NEEDS}")
    frame = fleet.sized
    band = answer.run_to_run.fleet
    state = answer.view
    notes = list(fleet.notes) + for_every_answer(answer.notes) + answer.old_notes()
    if fleet.question:
        notes.append(f"unusual demand: {fleet.question}: is it what you meant?")
    if args.json:
        payload = {"command": "size", "sla": state.sla, "sla_description": fleet.sla,
                   "demand": fleet.need if fleet.kind == "demand" else None, "demand_said": fleet.said,
                   "budget_mw": state.budget_mw, "budget_usd_per_month": state.budget_usd_month,
                   "interactivity_needed": fleet.x, "where": state.where(), "by": list(answer.rows.scenario.by),
                   "view": state.to_query(), "link": view_url(state.to_query(), "Fleet"),
                   "rate_sources": records(answer.rates), "notes": notes, "sentences": list(fleet.sentences),
                   "capacity_from": list(fleet.capacity_lines), "columns": fleet.columns, "rows": records(frame),
                   # each series' nodes on its capacity point's run-to-run band (model.core.run_to_run), named
                   "run_to_run": {**answer.run_to_run.payload(), "rows": records(band) if band is not None else []},
                   "chargeback": answer.chargeback.payload() if answer.chargeback is not None else None}
        print(json.dumps(jsonable(payload), indent=2, allow_nan=False))
        return 0
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    print(f"SLA: {fleet.sla}; " + (f"interactivity you need: {fleet.x:.1f} tok/s/user; " if fleet.x else "")
          + (f"demand: {fleet.need}" if fleet.kind == "demand" else fleet.need))
    if fleet.said:
        print(fleet.said)
    if frame.empty:
        print("no series to size in this selection")
        return 0
    shown = frame[fleet.columns].copy()
    for column in ("pricing", "method"):     # said whole in the sentences below: a table cell names it
        if column in shown:
            shown[column] = shown[column].map(lambda v: v if not isinstance(v, str) or len(v) <= 32 else v[:31] + "…")
    with pd.option_context("display.width", 250, "display.max_rows", 500, "display.max_columns", 30,
                           "display.float_format", "{:,.6g}".format):
        print(shown.to_string(index=False))
    for sentence in fleet.sentences:
        print(sentence)
    for line in fleet.capacity_lines:
        print(line)
    for line in run_to_run_lines(band):
        print(line)
    if answer.chargeback is not None:
        _print_chargeback(answer.chargeback)
    return 0


def _print_chargeback(chargeback) -> None:
    """The planned fleet's cost by tenant (``--tenants``)."""
    print(chargeback.text)
    shown = chargeback.rows[["tenant", "tokens", "share", "usd_per_month", "usd_per_mtok"]].copy()
    shown["tokens"] = shown["tokens"].map(lambda v: f"{v:,.0f}")
    shown["share"] = shown["share"].map(lambda v: f"{v:.1%}")
    shown["usd_per_month"] = shown["usd_per_month"].map(lambda v: f"{v:,.2f}")
    shown["usd_per_mtok"] = shown["usd_per_mtok"].map(lambda v: f"{v:.4f}")
    with pd.option_context("display.width", 250):
        print(shown.to_string(index=False))
    print(f"the tenants' $ a month add up to the fleet's: ${chargeback.rows['usd_per_month'].sum():,.2f}")
