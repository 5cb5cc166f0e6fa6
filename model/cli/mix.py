"""``costfrontier mix``: the cheapest mix of GPU types for the traffic you have (issue 43).

    costfrontier mix (--mix ISL:OSL:SHARE,... | --trace FILE [--isl-edges E,E,...] [--osl-edges E,E,...])
                     (--peak-rps R | --volume N [--peak-to-average F | --shape SHAPE] | --trace FILE)
                     [--headroom H] [--spares N] [--max-nodes HW=N ...] [--max-kw HW=KW ...] [--budget-mw MW]
                     [--match-factor F] [the view options of size: --sla, --where, --rate, --profile NAME,
                     --interactivity X, --link URL] [--kw-per-gpu KW] [--pue P] [--gpus-per-node N] [--json]

The view is the one ``size`` answers, widened to every workload of its model (:func:`model.core.mix.mix_view`);
each series' capacity and price are those of the view's fleet (:attr:`model.present.view_answer.Answer.fleet`,
the same per-node capacity and pricing ``size`` prints), and :func:`mix_answer_of` solves the mix
(:func:`model.core.mix.cheapest_mix`). A trace file without ``--mix`` is bucketed by ``--isl-edges`` and
``--osl-edges`` into the view's request mix (``rmix`` in a link); the trace also gives the demand.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace

from model.cli.options import (
    UsageError,
    add_options,
    fleet_args,
    jsonable,
    pairs,
    records,
    selection_args,
    view_args,
)
from model.cli.tco import number_type, sizing_args, sizing_options

__all__ = ["add_parsers", "run", "mix_answer_of", "FLEET_COLUMNS", "BUCKET_COLUMNS"]

#: the fleet table the text prints
FLEET_COLUMNS = ["type", "nodes", "gpus", "usd_per_gpu_hour", "usd_per_month", "kw", "utilization",
                 "peak_utilization", "serves"]
#: the buckets table the text prints
BUCKET_COLUMNS = ["label", "isl", "osl", "share", "peak_rps", "measured", "note"]


def _edges(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not whole token counts, comma-separated") from None


def add_parsers(sub) -> None:
    """Register ``mix``: the view and fleet options of ``size``, the request mix and the limits."""
    q = sub.add_parser("mix", help="the cheapest mix of GPU types for a request mix (buckets of ISL/OSL)",
                       description="The cheapest whole nodes per GPU type, and the share of each bucket of requests "
                       "each serves, for the view's demand: an integer program over the measured capacities. It "
                       "assumes each bucket's requests can be routed to any type.")
    selection_args(q)
    view_args(q)
    fleet_args(q)
    add_options(q, "mix")
    sizing_args(q, "total: ISL + OSL of each bucket")
    g = q.add_argument_group("mix: buckets and limits")
    g.add_argument("--isl-edges", type=_edges, metavar="E,E,...",
                   help="ISL edges [tokens] a --trace is bucketed by (default 1024,4096,16384)")
    g.add_argument("--osl-edges", type=_edges, metavar="E,E,...",
                   help="OSL edges [tokens] a --trace is bucketed by (default 256,1024)")
    g.add_argument("--match-factor", type=number_type(), metavar="F",
                   help="a bucket matches a measured ISL/OSL within this factor of each (default 2)")
    g.add_argument("--max-nodes", action="append", default=[], metavar="HW=N",
                   help="nodes of a type available, spares included (repeat per type)")
    g.add_argument("--max-kw", action="append", default=[], metavar="HW=KW",
                   help="IT power a type may draw [kW] (repeat per type); --budget-mw limits the whole mix")
    q.add_argument("--json", action="store_true")


def _limits(args, state):
    from model.core.mix import MixLimits
    from model.core.names import number

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

    return MixLimits(read(args.max_nodes, "--max-nodes", True), read(args.max_kw, "--max-kw", False),
                     state.budget_mw * 1000 if state.budget_mw is not None else None)


def mix_answer_of(answer, limits=None, factor: float | None = None, token_basis: str | None = None,
                  bucketed=None):
    """The cheapest mix (:class:`model.core.mix.MixAnswer`) of an answer of a :func:`model.core.mix.mix_view` that
    holds a request mix and a demand: its fleet's per-node capacity and pricing per series
    (:func:`model.core.mix.offers_of`), the demand's peak and mean at the mix's mean tokens per request on
    ``token_basis`` (default total), its headroom and spares. The one path ``costfrontier mix`` (and a page or a
    report section on the same view) takes to the numbers. ``bucketed``: the trace's mix the view's was written
    from (:func:`model.core.mix.mix_of_trace`): its buckets' labels (edges) and request counts are shown, the
    numbers are the view's."""
    from model.core.demand import load_of
    from model.core.mix import MATCH_FACTOR, MixError, RequestMix, cheapest_mix, offers_of, parse_mix
    from model.present.fleet_answer import demand_of

    state = answer.state
    if not state.request_mix:
        raise MixError("the view has no request mix")
    fleet = answer.fleet
    if fleet is None or fleet.kind != "demand":
        raise MixError("the mix needs a demand: a peak (req/s), a volume (tokens a month or a day) or a trace")
    mix = parse_mix(state.request_mix)
    if bucketed is not None and [(b.isl, b.osl) for b in bucketed.buckets] == [(b.isl, b.osl) for b in mix.buckets]:
        mix = RequestMix(tuple(replace(b, label=t.label, requests=t.requests) for b, t in zip(mix.buckets,
                                                                                               bucketed.buckets)),
                         bucketed.source, bucketed.isl_edges, bucketed.osl_edges)
    basis = token_basis or "total"
    per_request = sum(b.share * b.tokens(basis) for b in mix.buckets)
    load = load_of(demand_of(state, basis), per_request)
    return cheapest_mix(mix, offers_of(fleet.sized, fleet.capacity), peak_rps=load.peak_rps, mean_rps=load.mean_rps,
                        token_basis=basis, headroom=state.headroom, spares=state.spares, limits=limits,
                        factor=factor if factor is not None else MATCH_FACTOR)


def _state(args, con):
    """The view to answer: the options' (or the link's), its request mix from ``--mix`` or bucketed from the trace
    file, widened to every workload of its model; the link's notices, the trace's mix (or None) and notes."""
    from pathlib import Path

    from model.cli.options import view_from_args
    from model.core.mix import DEFAULT_ISL_EDGES, DEFAULT_OSL_EDGES, mix_of_trace, mix_view
    from model.core.trace import TraceError
    from model.data.inputs import first_workload

    state, notices = view_from_args(args, con)
    bucketed, said = None, []
    if args.trace and not args.mix:
        path = Path(args.trace)
        if not path.is_file():
            raise UsageError("--trace: a trace as a link writes it holds no request lengths to bucket: give the "
                             "trace file, or the mix with --mix")
        try:
            bucketed = mix_of_trace(path.read_bytes(), path.name, args.isl_edges or DEFAULT_ISL_EDGES,
                                    args.osl_edges or DEFAULT_OSL_EDGES)
        except TraceError as exc:
            raise UsageError(f"--trace: {exc}") from None
        state = state.replace(request_mix=bucketed.to_text())
    elif args.isl_edges or args.osl_edges:
        raise UsageError("--isl-edges and --osl-edges bucket a --trace file (without --mix)")
    if not state.request_mix:
        raise UsageError("mix needs a request mix: --mix ISL:OSL:SHARE,... (e.g. 1024:256:0.7,8192:1024:0.3) or "
                         "--trace FILE")
    if state.demand_rps is None and state.tokens_per_day is None and state.tokens_per_month is None \
            and not state.trace:
        raise UsageError("mix needs a demand: --peak-rps R, --volume N (tokens a month), --tokens-per-day N or "
                         "--trace FILE")
    if state.workload in (None, "all") and not any(key == "model" for key, _ in state.filters):
        first = first_workload(con, state.data_version)       # the model a view without one shows
        if first is not None:
            state = state.replace(workload=first)
            said.append(f"the mix is answered on the workloads of {first.split('|')[0]}, the store's first model "
                        "(choose another with --where model=NAME)")
    return mix_view(state), notices, bucketed, said


def run(args, con) -> int:
    import pandas as pd

    from model.core.mix import MixError
    from model.present import fmt
    from model.present.view_answer import answer_of_view

    try:
        state, notices, bucketed, said = _state(args, con)
        answer = answer_of_view(con, state, ("fleet", "rates", "notes", "interactivity_needed"),
                                fleet_options=sizing_options(args), notes=[f"link: {n}" for n in notices])
        mixed = mix_answer_of(answer, _limits(args, state), args.match_factor, args.token_basis, bucketed)
    except MixError as exc:
        raise UsageError(f"mix: {exc}") from None
    fleet = answer.fleet
    notes = said + list(mixed.notes) + [n for n in answer.notes if n.startswith(("link:", "cost profile", "unusual"))]
    if args.trace and args.mix:
        notes.append("the trace gives the demand over time; the typed --mix gives its buckets")
    if args.json:
        print(json.dumps(jsonable({
            "command": "mix", "view": state.to_query(), "where": answer.where, "interactivity": fleet.x,
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
        table["usd_per_month"] = table["usd_per_month"].map(lambda v: "" if v != v else f"{v:,.0f}")
        table["nodes"] = table["nodes"].map(lambda v: "" if v != v else f"{v:,.0f}")
        print(table.to_string(index=False))
    print(f"\ncrossover along the mix: {mixed.crossover_text}")
    return 0
