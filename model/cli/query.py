"""``frontier``, ``iso``, ``crossover`` and ``history``: print the answer of the view the options describe."""

from __future__ import annotations

import sys

import pandas as pd

from model.cli.as_json import dumps, records
from model.cli.options import answer_of_args
from model.cli.running import in_store
from model.present import fmt
from model.present.answers import (
    error_payload,
    iso_shown,
    method_errors_text,
    pair_intervals,
    uncertain_crossings_text,
)

__all__ = ["main", "run", "PARTS", "FRONTIER_COLUMNS", "HISTORY_JSON_COLUMNS"]

#: what ``history --json`` rows carry (model.core.history.HISTORY_COLUMNS)
HISTORY_JSON_COLUMNS = ["series", "run_date", "usd_per_mtok", "status", "as_of_usd_per_mtok",
                        "as_of_usd_per_mtok_low", "as_of_usd_per_mtok_high", "best_usd_per_mtok",
                        "best_usd_per_mtok_low", "best_usd_per_mtok_high", "source", "best_from", "note"]

FRONTIER_COLUMNS = ["series", "interactivity", "tokens_per_second_per_gpu", "usd_per_mtok", "usd_per_gpu_hour",
                    "hardware", "framework", "precision", "spec_decoding", "tp", "ep", "dp", "pp", "gpus", "gpus_prefill",
                    "gpus_decode",
                    "concurrency", "request_rate_rps", "model", "isl", "osl", "run_date", "source_file", "source_line",
                    "repeats", "tput_min", "tput_max", "spread_pct", "run_to_run_low", "run_to_run_high",
                    "run_to_run_from"]
#: the run-to-run columns (model.core.run_to_run): in --json always; in a text table only when a point has a band
RUN_TO_RUN = ("run_to_run_low", "run_to_run_high", "run_to_run_from")


#: the parts of the answer each command prints (the store reads what they need: model.present.view_answer.reading)
PARTS = {"frontier": ("cost", "frontier_table", "rates", "notes"),
         "iso": ("cost", "rates", "notes", "recommendation", "run_to_run"),
         "crossover": ("cost", "crossed", "rates", "notes", "goodput_caps"),
         "history": ("cost", "history", "rates", "notes")}


def _payload(args, answer, frame: pd.DataFrame) -> dict:
    result = answer.cost.analysis
    return {"command": args.command, "scenario": answer.rows.scenario.model_dump(mode="json"),
            "where": answer.view.where(), "view": answer.view.to_query(),
            "interactivity_needed": answer.interactivity_needed,
            "usd_per_gpu_hour": result.usd_per_gpu_hour, "missing_rates": result.missing_rates,
            "rate_sources": records(answer.rates), "notes": list(answer.notes), "old_defaults": answer.old_notes(),
            "rows": records(frame)}


def _history(args, answer) -> int:
    frame = answer.history.table
    notes = list(dict.fromkeys([*answer.notes, *answer.history.notes]))
    if args.json:
        payload = _payload(args, answer, frame[HISTORY_JSON_COLUMNS])
        payload["notes"] = notes
        print(dumps(args, payload))
        return 0
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    x = answer.interactivity_needed
    print(f"history at {x:.4g} tok/s/user [$/M]" if x is not None else "history: no series can be priced")
    if frame.empty:
        print("no dated runs for this selection")
        return 0
    shown = frame[["series", "run_date", "usd_per_mtok", "as_of_usd_per_mtok", "as_of_usd_per_mtok_low",
                   "as_of_usd_per_mtok_high", "best_usd_per_mtok", "best_from", "source"]].rename(
        columns={"as_of_usd_per_mtok": "as_of", "as_of_usd_per_mtok_low": "low", "as_of_usd_per_mtok_high": "high",
                 "best_usd_per_mtok": "best"})
    with pd.option_context("display.width", 200, "display.max_rows", 500, "display.max_colwidth", 60,
                           "display.float_format", "{:.4g}".format):
        print(shown.to_string(index=False))
    return 0


def _with_run_to_run(iso: pd.DataFrame, band: pd.DataFrame) -> pd.DataFrame:
    """The iso rows with their run-to-run $/M band (``run_to_run_low``, ``run_to_run_high``, ``run_to_run_from``)."""
    if band.empty:
        return iso.assign(**{c: pd.Series(dtype=float if c != "run_to_run_from" else object, index=iso.index)
                             for c in RUN_TO_RUN})
    return iso.merge(band, on=["series", "interactivity"], how="left")


def main(args, ctrl_c) -> int:
    """Run the command on the store (:func:`model.cli.running.in_store`)."""
    return in_store(args, ctrl_c, run)


def run(args, con) -> int:
    answer = answer_of_args(args, con, PARTS[args.command])
    if args.command == "history":
        return _history(args, answer)
    if args.command == "crossover":
        result = answer.crossed.analysis
        frame = answer.crossed.marked
    elif args.command == "frontier":
        result = answer.cost.analysis
        table = answer.frontier_table
        frame = table[[c for c in FRONTIER_COLUMNS if c in table.columns]]
    else:
        result = answer.cost.analysis
        frame = _with_run_to_run(iso_shown(answer.cost), answer.run_to_run.iso)
    banded = bool(frame.get("run_to_run_low", pd.Series(dtype=float)).notna().any())
    if args.json:
        payload = _payload(args, answer, frame)
        if args.command in ("iso", "crossover"):
            payload["interpolation_error"] = error_payload(answer.cost.uncertainty)
        if args.command == "iso":
            payload["recommendation"] = answer.recommendation.payload()
            # the run-to-run band of each row, named on its own beside the interpolation's (model.core.run_to_run)
            payload["run_to_run"] = answer.run_to_run.payload()
        if args.command == "crossover":
            payload["notes"] = list(dict.fromkeys([*answer.notes, *result.notes]))
            payload["reach"] = records(result.reach)
            payload["envelope"] = {"changes": records(result.envelope.changes),
                                   "segments": records(result.envelope.segments)}
            payload["goodput_caps"] = records(answer.goodput_caps)   # the cheapest as the TTFT cap moves
        print(dumps(args, payload))
        return 0
    notes = list(answer.notes) if args.command != "crossover" else \
        list(dict.fromkeys([*answer.notes, *result.notes]))
    notes = [*notes, *answer.old_notes()]           # defaults read longer ago than --price-stale-days
    if unrowed := [f"{hw} {fmt.usd(usd, '/GPU-hour')}" for hw, usd in answer.view.rates
                   if not any(hw.lower() == h.lower() for h in result.usd_per_gpu_hour)]:
        notes.append(f"no benchmark rows in this selection for {', '.join(unrowed)}: the rate is kept, no frontier")
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    print("rates [$/GPU-hour]: " + ", ".join(f"{k} {fmt.usd(v, '')}" for k, v in sorted(result.usd_per_gpu_hour.items())))
    if frame.empty:
        print(f"no {args.command} rows for this selection")
        if args.command != "crossover" or (result.envelope.changes.empty and answer.goodput_caps.empty):
            return 0
    else:
        if args.command == "iso":     # each cell's range, after the columns the table always had
            frame = frame.drop(columns=["usd_per_mtok_error", "usd_per_mtok_low", "usd_per_mtok_high", "error_from"]
                               ).assign(low=frame["usd_per_mtok_low"], high=frame["usd_per_mtok_high"],
                                        error_from=frame["error_from"])
        # a crossing's interval within uncertainty is in its sentence below; run-to-run only where some row has it
        shown = frame.drop(columns=["uncertain_from", "uncertain_to", *(() if banded else RUN_TO_RUN)],
                           errors="ignore")
        with pd.option_context("display.width", 200, "display.max_rows", 500, "display.max_columns", 30,
                               "display.float_format", "{:.4g}".format):
            print(shown.to_string(index=False))
    if args.command == "crossover" and not frame.empty:
        print("\nby pair:")
        for _, row in pair_intervals(frame, result.reach).iterrows():
            print(f"  {row['series_a']} and {row['series_b']}: {row['text']}")
        uncertain = uncertain_crossings_text(frame)
        if uncertain:
            print("\nwithin uncertainty (the two curves' ranges overlap):")
            print("\n".join(f"  {sentence}" for sentence in uncertain))
    if args.command == "crossover" and not answer.goodput_caps.empty:
        print(f"\ncheapest at {answer.interactivity_needed:.4g} tok/s/user as the TTFT cap moves [$ per good M tokens]:")
        with pd.option_context("display.width", 200, "display.float_format", "{:.4g}".format):
            print(answer.goodput_caps.to_string(index=False))
    if args.command == "crossover" and not result.envelope.changes.empty:
        print("\nwhere the cheapest series changes [tok/s/user, $/M]:")
        print(result.envelope.changes.dropna(axis=1, how="all").to_string(index=False, float_format="{:.4g}".format))
    if args.command == "crossover" and not result.reach.empty:
        print("\nreach [tok/s/user]:")
        with pd.option_context("display.width", 200, "display.float_format", "{:.4g}".format):
            print(result.reach.to_string(index=False))
    if args.command == "iso":
        print("\nrecommendation:")
        print("\n".join(f"  {line}" for line in answer.recommendation.lines))
    if args.command in ("iso", "crossover") and result.curves:
        print("\ninterpolation error: " + method_errors_text(answer.cost.uncertainty))
        print("  low, high: where 9 in 10 measured points left out fell, around an interpolated $/M (manual: "
              "\"Interpolation and its ±\"); measured points are exact" if args.command == "iso" else
              "  within_uncertainty: on one side of the crossing the two curves' ranges overlap throughout; "
              "interactivity_low to _high: around the crossing, where they overlap (manual: \"Interpolation and "
              "its ±\")")
    return 0
