"""``costfrontier sell`` and ``costfrontier solve`` (issue 52): the seller's side and the inverse question.

    costfrontier sell [--api MODEL | --api-usd IN,CACHED,OUT] [--cache-hit H] [--input-share S] [--licence-fee F]
                      [--utilisation U] [--rate HW=USD ...] [--rent HW=USD ...] [--kw-per-gpu KW] [--pue P]
                      [--interactivity X] [selection, view and fleet options, or --link URL] [--json]
    costfrontier solve --max-usd-per-mtok USD [selection and view options] [--json]
    costfrontier solve --peak-rps R --sla ttft_p95=2 --sla tpot=50 [--budget-usd-month B] [--budget-mw M] [--json]

``sell`` prints :attr:`model.present.parts.Answer.sell` (the Sell page's and the report's numbers); ``solve``
prints :attr:`model.present.parts.Answer.solve`: the highest interactivity per series under a $/M cap, and the
cheapest measured fleet meeting a demand, its SLA and a budget. The planned fleet's cost by tenant is ``size
--tenants`` (:mod:`model.cli.size`).
"""

from __future__ import annotations

import math
import sys

import pandas as pd

from model.cli.as_json import dumps, jsonable
from model.cli.options import answer_of, answer_of_args, view_from_args
from model.cli.running import UsageError, in_store
from model.core.links import view_url
from model.core.notes import for_every_answer
from model.present.sell_answer import shown_rows
from model.present.solve_answer import cap_table

__all__ = ["main", "run", "SELL_SHOWN"]

#: the columns ``sell`` prints, beside each figure its range where it has one
SELL_SHOWN = ["series", "option", "usd_per_gpu_hour", "tokens_per_second_per_gpu", "revenue_per_gpu_hour",
              "profit_per_gpu_hour", "margin", "break_even_utilisation", "revenue_per_gw_year", "profit_per_gw_year",
              "profit_up"]


def main(args, ctrl_c) -> int:
    """Run ``sell`` or ``solve`` on the store (:func:`model.cli.running.in_store`)."""
    return in_store(args, ctrl_c, run)


def _dump(args, payload) -> None:
    print(dumps(args, jsonable(payload)))


def run(args, con) -> int:
    """Run ``sell`` or ``solve``: the answer's part of that name, printed."""
    if args.command == "sell":
        answer = answer_of_args(args, con, ("sell", "notes"))
        sell, view = answer.sell, answer.view
        notes = list(sell.notes) + for_every_answer(answer.notes)
        if args.json:
            _dump(args, {"command": "sell", "view": view.to_query(), "link": view_url(view.to_query(), "Sell"),
                         **sell.payload(), "notes": notes})
            return 0
        for note in notes:
            print(f"note: {note}", file=sys.stderr)
        _print_sell(sell)
        return 0
    if args.command == "solve":
        state, notices = view_from_args(args, con)
        if state.max_usd_per_mtok is None and not state.has_demand:   # no inverse question (solve_answer.solve_of)
            raise UsageError("the link's view asks no inverse question: add --max-usd-per-mtok or a demand"
                             if args.link else "solve needs a $/M cap (--max-usd-per-mtok USD) or a demand "
                             "(--peak-rps, --volume, --tokens-per-day or --trace) with its SLA (--sla) and "
                             "optionally a budget")
        answer = answer_of(args, con, state, notices, ("solve", "notes"))
        solve, view = answer.solve, answer.view
        notes = list(solve.notes) + for_every_answer(answer.notes)
        if args.json:
            _dump(args, {"command": "solve", "view": view.to_query(),
                         "link": view_url(view.to_query(), "Matched_interactivity"), **solve.payload(), "notes": notes})
            return 0
        for note in notes:
            print(f"note: {note}", file=sys.stderr)
        _print_solve(solve)
        return 0
    return 2


def _print_sell(sell) -> None:
    print(sell.headline)
    if sell.rows.empty:
        return
    with pd.option_context("display.width", 250, "display.max_colwidth", 60):
        print(shown_rows(sell).to_string(index=False))
    for p in sell.prices:
        print(f"sold at {p['model']}: ${p['usd_per_m_input']:g} input, ${p['usd_per_m_cached_input']:g} cached input, "
              f"${p['usd_per_m_output']:g} output per M tokens ({p['matched']}; read {p['read_on'] or 'on an unstated date'})")
    for line in dict.fromkeys(f"token mix: {r['input_share']:.2%} input ({r['input_share_from']}), {r['cache_hit']:.1%} "
                              f"of it cached ({r['cache_hit_from']})" for r in sell.rows.to_dict("records")):
        print(line)


def _print_solve(solve) -> None:
    if solve.cap is not None:
        print(solve.cap_text)
        table = cap_table(solve)
        if not table.empty:
            shown = table[["series", "interactivity", "range", "usd_per_mtok", "reached"]].copy()
            shown["interactivity"] = shown["interactivity"].map(lambda v: "" if not math.isfinite(v) else f"{v:.2f}")
            shown["usd_per_mtok"] = shown["usd_per_mtok"].map(lambda v: "" if not math.isfinite(v) else f"{v:.4f}")
            with pd.option_context("display.width", 250, "display.max_colwidth", 80):
                print(shown.to_string(index=False))
    if solve.slo is not None:
        print(solve.slo_text)
        if not solve.slo.empty:
            shown = solve.slo[["series", "nodes", "gpus", "usd_per_month", "mw", "meets_budget"]].copy()
            shown["usd_per_month"] = shown["usd_per_month"].map(lambda v: f"{v:,.0f}")
            shown["mw"] = shown["mw"].map(lambda v: f"{v:.4g}")
            print(shown.to_string(index=False))
