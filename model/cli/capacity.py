"""``capacity`` and ``compare``: the knee of every load ramp under an SLA, and tokens per dollar.

Both print the ramp part of the view's answer (:attr:`model.present.view_answer.Answer.ramps`), the one
the Ramps page shows: the view comes from the shared options or ``--link`` (:func:`model.cli.options.view_from_args`),
so ``--as-of``, ``--repeats``, ``--profile`` and ``--price-set`` mean what they mean for ``iso`` or ``size``.
"""

from __future__ import annotations

import json
import sys

from model.cli.choices import CAPACITY_BASES, KNEE_RULES
from model.cli.options import records, selection_args, view_args, view_from_args

__all__ = ["add_parsers", "run", "CAPACITY_COLUMNS", "COMPARE_COLUMNS"]

#: the knee table ``capacity`` prints (``--json`` rows carry every column of model.core.capacity.knee)
CAPACITY_COLUMNS = ["series", "status", "request_rate", "tokens_per_second_per_node", "tokens_per_second_per_gpu",
                    "basis", "usd_per_gpu_hour", "usd_per_mtok", "ttft_s", "first_failing_rate", "first_failure"]
#: the comparison ``compare`` prints, before each row's arithmetic
COMPARE_COLUMNS = ["series", "baseline", "throughput_ratio", "price_ratio_gpu", "price_ratio_node",
                   "tokens_per_usd_ratio", "break_even_usd_per_gpu_hour"]


def add_parsers(sub) -> None:
    """Register ``capacity`` and ``compare``: the shared selection and view options, and how a knee is read."""
    for name, text in (("capacity", "the knee of every load ramp under an SLA: req/s, tok/s/node, $/M"),
                       ("compare", "tokens per dollar of ramp knees (or peaks, without --sla) against a baseline")):
        q = sub.add_parser(name, help=text, description=text + ". The view's options mean what they mean for iso "
                           "and size; --basis total (or auto) counts total, else output, else input tokens, as each "
                           "row has them" + ("; --baseline is the series or hardware the others are divided by"
                                             if name == "compare" else "") + ".")
        selection_args(q)
        view_args(q)
        for action in q._actions:   # ramps also take --basis auto: the view's total basis, read as on the page
            if action.dest == "basis":
                action.choices = CAPACITY_BASES
        q.add_argument("--rule", default=KNEE_RULES[0], choices=KNEE_RULES, help="how the knee is read off a ramp")
        q.add_argument("--gpus-per-node", type=int, help="GPUs per node where the rows do not say (default 8)")
        q.add_argument("--json", action="store_true")


def run(args, con) -> int:
    import pandas as pd

    from model.core.sla import SLA
    from model.data.versions import pin_notes
    from model.present.view_answer import answer_of_view

    if args.basis == "auto":          # the view's total basis is read as auto on ramps
        args.basis = None
    state, notices = view_from_args(args, con)
    if args.command == "compare" and args.baseline:
        state = state.replace(compare_base=args.baseline)
    pinned = pin_notes(con, state.data_version, state.data_digest)     # raises for a pin this store cannot show
    answer = answer_of_view(con, state, ("ramps", "rates", "evals"), notes=[f"link: {n}" for n in notices] + pinned,
                            fleet_options={"rule": args.rule, "gpus_per_node": args.gpus_per_node})
    ramps = answer.ramps
    sla = ramps.sla or SLA()
    comparison = ramps.comparison
    frame = ramps.knees if args.command == "capacity" else comparison.table
    notes = list(ramps.notes) + ([comparison.message] if args.command == "compare" and comparison.message else [])
    if ramps.empty:
        notes.append("no load ramps (rows with a request rate and no interactivity) in this view")
    if args.json:
        payload = {"command": args.command, "sla": sla.to_text(), "sla_description": sla.describe(),
                   "view": answer.state.to_query(), "where": answer.where, "by": list(ramps.by), "rule": ramps.rule,
                   "basis": ramps.basis, "usd_per_gpu_hour": ramps.usd_per_gpu_hour,
                   "missing_rates": ramps.missing_rates, "rate_sources": records(answer.rates), "notes": notes,
                   "rows": records(frame)}
        if args.command == "capacity":
            payload["evals"] = records(ramps.evals)
        else:
            payload.update(peaks=comparison.peaks, systems=list(comparison.systems), chosen=list(comparison.chosen),
                           base=comparison.base)
        print(json.dumps(payload, indent=2))
        return 0
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    print(f"SLA: {sla.describe()}; knee rule: {ramps.rule}")
    print("rates [$/GPU-hour]: " + ", ".join(f"{k} {v:.3f}" for k, v in sorted(ramps.usd_per_gpu_hour.items())))
    if frame.empty:
        print(f"no {args.command} rows for this selection")
        return 0
    with pd.option_context("display.width", 250, "display.max_rows", 500, "display.max_columns", 30,
                           "display.max_colwidth", 60, "display.float_format", "{:.4g}".format):
        if args.command == "compare":
            print(frame[COMPARE_COLUMNS].to_string(index=False))
            for text in frame["arithmetic"]:
                print(f"\n{text}")
            return 0
        print(frame[CAPACITY_COLUMNS].to_string(index=False))
        if not ramps.evals.empty:
            print(f"\naccuracy beside cost (each precision against fp8; a drop over {ramps.tolerance:g} "
                  "or the combined standard error is flagged):")
            print(ramps.evals[["model", "eval", "setting", "precision", "score", "stderr", "drop", "flagged"]]
                  .to_string(index=False))
    return 0
