"""``capacity`` and ``compare``: the knee of every load ramp under an SLA, and tokens per dollar.

Both print the ramp part of the view's answer (:attr:`model.present.parts.Answer.ramps`), the one
the Ramps page shows: the view comes from the shared options or ``--link`` (:func:`model.cli.options.view_from_args`),
so ``--as-of``, ``--repeats``, ``--profile`` and ``--price-set`` mean what they mean for ``iso`` or ``size``.
"""

from __future__ import annotations

import json
import sys

import pandas as pd

from model.cli.as_json import records
from model.cli.options import link_notes, pinned_notes, view_from_args
from model.cli.running import in_store
from model.core.sla import SLA
from model.present import fmt
from model.present.view_answer import answer_of_view

__all__ = ["main", "run", "CAPACITY_COLUMNS", "COMPARE_COLUMNS"]

#: the knee table ``capacity`` prints (``--json`` rows carry every column of model.core.capacity.knee)
CAPACITY_COLUMNS = ["series", "status", "request_rate", "tokens_per_second_per_node", "tokens_per_second_per_gpu",
                    "basis", "usd_per_gpu_hour", "usd_per_mtok", "ttft_s", "first_failing_rate", "first_failure"]
#: the comparison ``compare`` prints, before each row's arithmetic
COMPARE_COLUMNS = ["series", "baseline", "throughput_ratio", "price_ratio_gpu", "price_ratio_node",
                   "tokens_per_usd_ratio", "break_even_usd_per_gpu_hour"]


def main(args, ctrl_c) -> int:
    """Run ``capacity`` or ``compare`` on the store (:func:`model.cli.running.in_store`)."""
    return in_store(args, ctrl_c, run)


def run(args, con) -> int:
    """Print the ramp part of the view's answer: the knees (``capacity``) or their comparison (``compare``)."""
    state, notices = view_from_args(args, con)
    if args.command == "compare" and args.baseline:     # compare's --baseline: the system the others are divided by
        state = state.replace(compare_base=args.baseline)
    answer = answer_of_view(con, state, ("ramps", "rates"),
                            notes=[*link_notes(notices), *pinned_notes(con, state)])   # raises for a pin it cannot show
    ramps = answer.ramps
    sla = ramps.sla or SLA()
    comparison = ramps.comparison
    frame = ramps.knees if args.command == "capacity" else comparison.table
    notes = list(ramps.notes) + ([comparison.message] if args.command == "compare" and comparison.message else [])
    if ramps.empty:
        notes.append("no load ramps (rows with a request rate and no interactivity) in this view")
    if args.json:
        payload = {"command": args.command, "sla": sla.to_text(), "sla_description": sla.describe(),
                   "view": answer.view.to_query(), "where": answer.view.where(), "by": list(ramps.by), "rule": ramps.rule,
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
    print("rates [$/GPU-hour]: " + ", ".join(f"{k} {fmt.usd(v, '')}" for k, v in sorted(ramps.usd_per_gpu_hour.items())))
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
