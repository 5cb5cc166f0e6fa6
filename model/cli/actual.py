"""``costfrontier actual`` and ``costfrontier plan-vs-actual``: the proposal meets the bill.

    costfrontier actual FILE... [--plan LINK] [--alias NAME=MODEL] [--json]     ingest OpenCost responses or bills (model.data.actuals)
    costfrontier actual --list [--json]                    the stored actuals
    costfrontier plan-vs-actual --plan LINK [--cost-basis bill|allocation|usage] [--alias NAME=MODEL] [--json]

The plan is a share link (a pinned one names its data version, ``v=N``): its view's answer gives the owned fleet
it sized, that fleet's $/GPU-hour, capacity and $/M with their ±, and the API price it compared with. The
comparison is :func:`model.present.actual_answer.comparison_on`, the one the page and the report's section read;
this module only renders it.
"""

from __future__ import annotations

import json
import sys

import pandas as pd

from model.cli.as_json import jsonable, records
from model.cli.running import UsageError, in_store
from model.core.actual_rows import ActualsError, aliases_of
from model.data.actuals import actuals_frame, saturation_frame
from model.data.importers.base import IngestError
from model.data.ingest import ingest_actuals_file
from model.present.actual_answer import PLAN_PARTS, comparison_on, plan_line, plan_of, plan_view
from model.present.view_answer import answer_of_view

__all__ = ["main", "run"]


def main(args, ctrl_c) -> int:
    """Run ``actual`` or ``plan-vs-actual`` on the store (:func:`model.cli.running.in_store`)."""
    return in_store(args, ctrl_c, run)


def _aliases(args) -> dict[str, str]:
    try:
        return aliases_of(args.alias)
    except ActualsError as exc:
        raise UsageError(str(exc)) from None


def run(args, con) -> int | None:
    """Run ``actual`` or ``plan-vs-actual``; ``None`` when ``args.command`` is another command."""
    if args.command == "actual":
        return _list(args, con) if args.list else _ingest(args, con)
    if args.command == "plan-vs-actual":
        return _compare(args, con)
    return None


# --------------------------------------------------------------------------------------------------- commands


def _ingest(args, con) -> int:
    if not args.paths:
        raise UsageError("actual needs FILE... (OpenCost responses or bills), or --list")
    aliases = _aliases(args)
    models = _plan_models(con, args.plan) if args.plan else None
    if models is not None and not models:
        raise UsageError("the plan's rows name no model: nothing to check the actuals' models against")
    failed, results = 0, []
    for path in args.paths:
        try:
            result = ingest_actuals_file(con, path, plan_models=models, aliases=aliases)
        except IngestError as exc:
            failed += 1
            print(f"error: {exc}", file=sys.stderr)
            results.append({"file": str(path), "error": str(exc), "line": exc.line, "field": exc.field})
            continue
        results.append({"file": str(path), "rows_added": result.rows_added, "duplicate_of": result.duplicate_of,
                        "format": result.format, "kind": result.kind, "source_id": result.source_id,
                        "warnings": result.warnings})
        if not args.json:
            print("\n".join([result.summary, *(f"  warning: {w}" for w in result.warnings)]))
    if args.json:
        print(json.dumps({"command": "actual", "rows": results}, indent=2))
    if failed:
        print(f"{failed} of {len(args.paths)} files refused; nothing from them was stored", file=sys.stderr)
    return 1 if failed else 0


_LIST_COLUMNS = ["source_id", "file_name", "model", "namespace", "period_start", "period_end", "cost_basis", "usd",
                 "input_tokens", "cached_input_tokens", "output_tokens", "total_tokens", "usd_per_mtok",
                 "allocation_method", "gpu_hours", "notes"]


_SATURATION_COLUMNS = ["source_id", "file_name", "model", "namespace", "pod", "period_start", "period_end",
                       "kv_cache_usage_avg", "kv_cache_usage_p95", "kv_cache_usage_max", "queue_depth_p95",
                       "queue_depth_max", "running_requests_avg", "running_requests_max", "preemptions"]


def _list(args, con) -> int:
    frame = actuals_frame(con)[_LIST_COLUMNS]
    saturation = saturation_frame(con)[_SATURATION_COLUMNS]
    if args.json:
        print(json.dumps({"command": "actual", "rows": records(frame), "saturation": records(saturation)}, indent=2))
        return 0
    if frame.empty and saturation.empty:
        print("no actuals stored (costfrontier actual FILE: an OpenCost response or a bill)")
    with pd.option_context("display.width", 250, "display.max_columns", 30, "display.max_colwidth", 50,
                           "display.float_format", "{:,.6g}".format):
        if not frame.empty:
            print(frame.drop(columns=["notes"]).to_string(index=False))
        if not saturation.empty:
            print(f"\nsaturation figures ({len(saturation):,} engine windows):")
            print(saturation.to_string(index=False))
    return 0


def _plan_models(con, link: str) -> tuple[str, ...]:
    """The models the plan's rows hold (what ``actual --plan`` checks the actuals' models against)."""
    try:
        view, notices = plan_view(link)
        return plan_of(answer_of_view(con, view, PLAN_PARTS), link, notices).models
    except ActualsError as exc:
        raise UsageError(str(exc)) from None


def _compare(args, con) -> int:
    try:
        comparison = comparison_on(con, args.plan, args.cost_basis, aliases=_aliases(args))
    except ActualsError as exc:
        raise UsageError(str(exc)) from None
    if args.json:
        print(json.dumps(jsonable({"command": "plan-vs-actual", **comparison.payload()}), indent=2,
                         allow_nan=False))
        return 0
    for note in comparison.notes:
        print(f"note: {note}", file=sys.stderr)
    plan = comparison.plan
    print(plan_line(plan))
    print(f"actuals: {comparison.cost_basis} cost\n")
    header = f"{'period':<23} {'hours':>6} {'usd':>13} {'planned usd':>13} {'tokens':>16} {'of plan':>8} " \
             f"{'$/M':>9} {'plan $/M':>9} {'util':>7} {'most':>11}"
    print(header)
    for entry in [*comparison.periods, {**comparison.total, "_total": True}]:
        mtok = entry["usd_per_mtok"][plan.basis]
        label = "total" if entry.get("_total") else f"{entry['period_start'][:10]}–{entry['period_end'][:10]}"
        print(f"{label:<23} {entry['hours']:>6,.0f} {entry['usd']:>13,.2f} {entry['planned_usd']:>13,.2f} "
              f"{_n(entry['tokens_on_basis']):>16} {_pct(entry['volume_ratio']):>8} {_m(mtok['realised']):>9} "
              f"{_m(mtok['planned']):>9} {_pct(entry['implied_utilization']):>7} {mtok['explained_by'] or '—':>11}")
    print()
    for sentence in comparison.sentences:
        print(sentence)
    return 0


def _n(value) -> str:
    return "—" if value is None else f"{value:,.0f}"


def _pct(value) -> str:
    return "—" if value is None else f"{value:.1%}"


def _m(value) -> str:
    return "—" if value is None else f"{value:,.4f}"
