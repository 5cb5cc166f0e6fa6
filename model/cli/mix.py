"""``costfrontier mix``: the cheapest mix of GPU types for the traffic you have (issue 43).

    costfrontier mix (--mix ISL:OSL:SHARE,... | --trace FILE [--isl-edges E,E,...] [--osl-edges E,E,...])
                     (--peak-rps R | --volume N [--peak-to-average F | --shape SHAPE] | --trace FILE)
                     [--headroom H] [--spares N] [--max-nodes HW=N ...] [--max-kw HW=KW ...] [--budget-mw MW]
                     [--match-factor F] [the view options of size: --sla, --where, --rate, --profile NAME,
                     --interactivity X, --link URL] [--kw-per-gpu KW] [--pue P] [--gpus-per-node N] [--json]

The view is the one ``size`` answers, widened to every workload of its model (:func:`model.core.mix.mix_view`);
each series' capacity and price are those of the view's fleet (:attr:`model.present.parts.Answer.fleet`,
the same per-node capacity and pricing ``size`` prints), and the answer's ``mix`` part
(:func:`model.present.mix_answer.mix_of`) solves it; limits per type, or another match factor, solve it again from
the same fleet. A trace file without ``--mix`` is bucketed by ``--isl-edges`` and
``--osl-edges`` into the view's request mix (``rmix`` in a link); the trace also gives the demand.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pandas as pd

from model.cli.as_json import jsonable, records
from model.cli.options import link_notes, pairs, pinned_notes, view_from_args
from model.cli.running import UsageError, in_store
from model.core.links import view_url
from model.core.mix import mix_view
from model.core.names import number
from model.core.notes import for_every_answer
from model.core.request_mix import DEFAULT_ISL_EDGES, DEFAULT_OSL_EDGES, MixError, parse_edges
from model.core.trace import TraceError
from model.data.inputs import first_workload
from model.data.trace_files import trace_and_mix
from model.present import fmt
from model.present.mix_answer import limits_of, mix_of
from model.present.view_answer import answer_of_view

__all__ = ["main", "run", "FLEET_COLUMNS", "BUCKET_COLUMNS"]

#: the fleet table the text prints
FLEET_COLUMNS = ["type", "nodes", "gpus", "usd_per_gpu_hour", "usd_per_month", "kw", "utilization",
                 "peak_utilization", "serves"]
#: the buckets table the text prints
BUCKET_COLUMNS = ["label", "isl", "osl", "share", "peak_rps", "measured", "note"]


def main(args, ctrl_c) -> int:
    """Run ``mix`` on the store (:func:`model.cli.running.in_store`)."""
    return in_store(args, ctrl_c, run)


def _edges(text: str | None, what: str, default: tuple[int, ...]) -> tuple[int, ...]:
    """``--isl-edges`` or ``--osl-edges`` (``what``: ISL or OSL), else ``default``."""
    if text is None:
        return default
    try:
        return parse_edges(text, what)
    except MixError as exc:
        raise UsageError(f"--{what.lower()}-edges: {exc}") from None


def _limits(args, state):
    def read(items: list[str], option: str, whole: bool) -> dict:
        out = {}
        for key, value in pairs(items, option):
            try:
                amount = number(value, "a whole number of nodes" if whole else "a number of kW")
            except ValueError as exc:
                raise UsageError(f"{option}: {key}: {exc}") from None
            if amount < 0 or (whole and not amount.is_integer()):
                raise UsageError(f"{option}: {key}: {value!r} must be {'a whole number' if whole else 'a number'}, "
                                 "0 or more")
            out[key] = int(amount) if whole else amount
        return out

    return limits_of(state, read(args.max_nodes, "--max-nodes", True), read(args.max_kw, "--max-kw", False))


def _state(args, con):
    """The view to answer: the options' (or the link's), its request mix from ``--mix`` or bucketed from the trace
    file, widened to every workload of its model; the link's notices, the trace's mix (or None), notes and the
    view as given (before it was widened: what its share link opens)."""
    state, notices = view_from_args(args, con)
    bucketed, said = None, []
    if args.trace and not args.mix:
        path = Path(args.trace)
        if not path.is_file():
            raise UsageError("--trace: a trace as a link writes it holds no request lengths to bucket: give the "
                             "trace file, or the mix with --mix")
        try:
            bucketed = trace_and_mix(path, path.name, _edges(args.isl_edges, "ISL", DEFAULT_ISL_EDGES),
                                     _edges(args.osl_edges, "OSL", DEFAULT_OSL_EDGES))[1]
        except TraceError as exc:
            raise UsageError(f"--trace: {exc}") from None
        state = state.replace(request_mix=bucketed.to_text())
    elif args.isl_edges or args.osl_edges:
        raise UsageError("--isl-edges and --osl-edges bucket a --trace file (without --mix)")
    if not state.request_mix:
        raise UsageError("mix needs a request mix: --mix ISL:OSL:SHARE,... (e.g. 1024:256:0.7,8192:1024:0.3) or "
                         "--trace FILE")
    if not state.has_demand:
        raise UsageError("mix needs a demand: --peak-rps R, --volume N (tokens a month), --tokens-per-day N or "
                         "--trace FILE")
    if state.workload in (None, "all") and not any(key == "model" for key, _ in state.filters):
        first = first_workload(con, state.data_version)       # the model a view without one shows
        if first is not None:
            state = state.replace(workload=first)
            said.append(f"the mix is answered on the workloads of {first.split('|')[0]}, the store's first model "
                        "(choose another with --where model=NAME)")
    return mix_view(state), notices, bucketed, said, state


def run(args, con) -> int:
    """Print the cheapest mix of GPU types for the view's request mix and demand."""
    try:
        state, notices, bucketed, said, given = _state(args, con)
        answer = answer_of_view(con, state, ("mix", "fleet", "rates", "notes", "cost"),
                                notes=[*link_notes(notices), *pinned_notes(con, state)])
        limits = _limits(args, state)
        mixed = answer.mix if bucketed is None and args.match_factor is None and limits == limits_of(state) else \
            mix_of(answer.view, answer.fleet, limits, args.match_factor, bucketed,   # the same fleet, solved again
                   answer.cost.bands)
    except MixError as exc:
        raise UsageError(f"mix: {exc}") from None
    fleet = answer.fleet
    notes = said + list(mixed.notes) + for_every_answer(answer.notes)
    if args.trace and args.mix:
        notes.append("the trace gives the demand over time; the typed --mix gives its buckets")
    if args.json:
        print(json.dumps(jsonable({
            "command": "mix", "view": state.to_query(), "link": view_url(given.to_query(), "GPU_mix"),
            "where": state.where(), "interactivity_needed": fleet.x,
            "sla": state.sla, "sla_description": fleet.sla, "demand": fleet.need,
            "request_mix": {"text": state.request_mix, "source": bucketed.source if bucketed else mixed.source,
                            "isl_edges": list(bucketed.isl_edges) if bucketed else [],
                            "osl_edges": list(bucketed.osl_edges) if bucketed else []},
            **mixed.payload(), "rate_sources": records(answer.rates), "notes": notes}), indent=2, allow_nan=False))
        return 0
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    print(f"SLA: {fleet.sla}; " + (f"interactivity you need: {fleet.x:.1f} tok/s/user; " if fleet.x else "")
          + f"demand: {fleet.need}")
    if bucketed is not None:
        print(f"request mix from the {bucketed.source}, bucketed at ISL {list(bucketed.isl_edges)} and OSL "
              f"{list(bucketed.osl_edges)} tokens")
    print(mixed.verdict)
    print(f"solver: {mixed.status_text}")
    with pd.option_context("display.width", 250, "display.max_rows", 500, "display.max_columns", 30,
                           "display.max_colwidth", 90, "display.float_format", "{:,.4g}".format):
        if not mixed.fleet.empty:
            table = mixed.fleet[FLEET_COLUMNS].copy()
            for column in ("utilization", "peak_utilization"):
                table[column] = table[column].map(lambda v: f"{v:.1%}")
            table["usd_per_month"] = table["usd_per_month"].map(lambda v: f"{v:,.0f}")
            print(table.to_string(index=False))
            print(f"effective {fmt.usd(mixed.effective_usd_per_mtok)} {mixed.token_basis} tokens "
                  f"({fmt.compact(mixed.tokens_per_month)} tokens a month)")
        print("\nbuckets:")
        table = mixed.buckets[BUCKET_COLUMNS].copy()
        table["share"] = table["share"].map(lambda v: f"{v:.1%}")
        print(table.to_string(index=False))
        print("\neach type alone:")
        table = mixed.single.copy()
        if table.empty:             # nothing was solved: the reason is said above, never an empty frame's repr
            print("(none: no type was sized)")
        else:
            table["usd_per_month"] = table["usd_per_month"].map(lambda v: "" if v != v else f"{v:,.0f}")
            table["nodes"] = table["nodes"].map(lambda v: "" if v != v else f"{v:,.0f}")
            print(table.to_string(index=False))
    print(f"\ncrossover along the mix: {mixed.crossover_text}")
    return 0
