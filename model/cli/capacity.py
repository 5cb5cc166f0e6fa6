"""``capacity`` and ``compare``: the knee of every load ramp under an SLA, and tokens per dollar."""

from __future__ import annotations

import json
import sys

import pandas as pd

from model.cli.options import UsageError, pairs, records
from model.core.analysis import workload_split
from model.core.capacity import compare_systems, knee
from model.core.cost import load_presets, resolve_rates
from model.core.frontier import SERIES_KEY_CHOICES
from model.core.hardware import canonical_hardware
from model.core.sla import SLA
from model.data.store import load_points, stored_rates

__all__ = ["run"]


def _selection(args) -> tuple[tuple[str, ...], dict[str, list[str]], dict[str, float]]:
    from model.cli.options import field_of

    where: dict[str, list[str]] = {}
    for key, value in pairs(args.where, "--where"):
        field = field_of(key, "--where")
        where.setdefault(field, []).append(canonical_hardware(value) if field == "hardware" else value)
    by = tuple(field_of(k.strip(), "--by", SERIES_KEY_CHOICES) for k in args.by.split(",") if k.strip())
    overrides = {}
    for hw, value in pairs(args.rate, "--rate"):
        try:
            overrides[canonical_hardware(hw)] = float(value)
        except ValueError:
            raise UsageError(f"--rate {hw}={value}: not a number") from None
        if not (0 < overrides[canonical_hardware(hw)] <= 1000):
            raise UsageError(f"--rate {hw}={value}: $/GPU-hour must be in (0, 1000]")
    return by, where, overrides


_CAPACITY_COLUMNS = ["series", "status", "request_rate", "tokens_per_second_per_node", "tokens_per_second_per_gpu",
                     "basis", "usd_per_gpu_hour", "usd_per_mtok", "ttft_s", "first_failing_rate", "first_failure"]


def run(args, con) -> int:
    by, where, overrides = _selection(args)
    sla = SLA.from_text(args.sla)
    if args.basis == "blended" and (args.w_input is None or args.w_cached is None):
        raise UsageError("--basis blended needs --w-input and --w-cached")
    points = load_points(con, where)
    notes = []
    if args.repeats or args.as_of:
        from datetime import date

        from model.core.repeats import runs_in_view

        try:
            as_of = date.fromisoformat(args.as_of) if args.as_of else None
        except ValueError:
            raise UsageError(f"--as-of {args.as_of!r}: not a date (YYYY-MM-DD)") from None
        runs = runs_in_view(points, as_of, args.repeats or "pooled", by)
        points = runs.rows
        notes.extend(runs.notes)
    if not args.mix_workloads:
        by, note = workload_split(points[points["request_rate_rps"].notna()], by)
        if note:
            notes.append(note)
    hardware = sorted(points["hardware"].dropna().unique()) if not points.empty else []
    # the one rate rule; ingested TCO price sets price these commands too, as they do frontier/iso/crossover
    rates = resolve_rates(hardware, load_presets(stored_rates(con)), args.price_set, args.tier, overrides)
    knees = knee(points, sla, rates, basis=args.basis, keys=by, rule=args.rule,
                 gpus_per_node=args.gpus_per_node, w_input=args.w_input, w_cached=args.w_cached)
    missing = sorted({hw for hw in knees["hardware"].dropna() if hw not in rates})
    if missing:
        notes.append(f"no $/GPU-hour for {', '.join(missing)}: set one (--rate HW=USD)")
    if knees.empty:
        notes.append("no load ramps (rows with a request rate and no interactivity) in this selection")
    if args.command == "capacity":
        frame = knees
    else:
        reached = knees[knees["request_rate"].notna()]
        baseline = canonical_hardware(args.baseline) if args.baseline and args.baseline not in set(reached["series"]) \
            else args.baseline
        frame = compare_systems(reached, rates, args.gpus_per_node, baseline)
        if len(reached) < len(knees):
            notes.append("left out (no measured rate meets the SLA): "
                         + ", ".join(knees.loc[knees["request_rate"].isna(), "series"]))
    if args.json:
        payload = {"command": args.command, "sla": sla.to_text(), "sla_description": sla.describe(),
                   "where": where, "by": list(by), "rule": args.rule, "usd_per_gpu_hour": rates,
                   "missing_rates": missing, "notes": notes, "rows": records(frame)}
        print(json.dumps(payload, indent=2))
        return 0
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    print(f"SLA: {sla.describe()}; knee rule: {args.rule}")
    print("rates [$/GPU-hour]: " + ", ".join(f"{k} {v:.3f}" for k, v in sorted(rates.items())))
    if frame.empty:
        print(f"no {args.command} rows for this selection")
        return 0
    with pd.option_context("display.width", 250, "display.max_rows", 500, "display.max_columns", 30,
                           "display.max_colwidth", 60, "display.float_format", "{:.4g}".format):
        if args.command == "capacity":
            print(frame[_CAPACITY_COLUMNS].to_string(index=False))
        else:
            print(frame[["series", "baseline", "throughput_ratio", "price_ratio_gpu", "price_ratio_node",
                         "tokens_per_usd_ratio", "break_even_usd_per_gpu_hour"]].to_string(index=False))
            for text in frame["arithmetic"]:
                print(f"\n{text}")
    return 0
