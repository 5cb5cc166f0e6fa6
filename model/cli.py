"""``costfrontier``: the dashboard's questions, scriptable.

    costfrontier ingest FILE|DIR... [--db PATH] [--set key=value ...] [--format NAME]
    costfrontier frontier|iso|crossover [--where key=value ...] [--by k,k] [--rate HW=USD ...]
                 [--price-set ID] [--tier ID] [--basis total|output|input|blended] [--sla K=V ...]
                 [--method linear|monotone] [--disagg per-role|share]
                 [--at X,Y,...] [--baseline SERIES] [--json]
    costfrontier capacity|compare [--sla KEY=VALUE ...] [--where key=value ...] [--by k,k] [--rate HW=USD ...]
                 [--basis auto|total|output|input|blended] [--w-input W --w-cached W] [--rule RULE]
                 [--gpus-per-node N] [--baseline SERIES] [--json]
    costfrontier sources | export FILE | remove SOURCE_ID | load-samples [--if-empty]

The database is ``--db``, else ``$COSTFRONTIER_DB``, else ``data/costfrontier.duckdb``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from pathlib import Path

import pandas as pd
from pydantic import ValidationError

from model import cli_report, cli_tco
from model.analysis import Scenario, analyse
from model.capacity import CAPACITY_BASES, KNEE_RULES, SLA, SLA_KEYS, compare_systems, knee
from model.columns import resolve_column
from model.cost import load_presets, resolve_rates
from model.frontier import BASES, DEFAULT_SERIES_KEYS, DISAGG_MODES, SERIES_KEY_CHOICES
from model.hardware import canonical_hardware
from model.ingest import IngestError, ingest_file
from model.profiles import load_profiles
from model.samples import SAMPLE_DIR, load_samples
from model.snapshot import empty_store, run_command
from model.store import (
    StoreError,
    default_db_path,
    list_sources,
    load_points,
    remove_source,
    stored_rates,
)
from model.tco import price_with_profiles

__all__ = ["main"]


def _selection_args(q: argparse.ArgumentParser) -> None:
    """Which rows, grouped how, priced at which rates: shared by every query command."""
    q.add_argument("--where", action="append", default=[], metavar="KEY=VALUE",
                   help="keep rows whose field equals a value (repeat a key to allow several)")
    q.add_argument("--by", default=",".join(DEFAULT_SERIES_KEYS), help="series grouping keys, comma-separated")
    q.add_argument("--rate", action="append", default=[], metavar="HW=USD", help="$/GPU-hour override")
    q.add_argument("--price-set", default=Scenario().price_set)
    q.add_argument("--tier", default=Scenario().tier)
    q.add_argument("--mix-workloads", action="store_true",
                   help="compare series across workloads (model, ISL, OSL) instead of splitting them")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="costfrontier", description=__doc__.split("\n")[0])
    parser.add_argument("--db", help="database file (default: $COSTFRONTIER_DB or data/costfrontier.duckdb)")
    sub = parser.add_subparsers(dest="command", required=True)

    ing = sub.add_parser("ingest", help="load benchmark files (CSV/JSON) or directories of them")
    ing.add_argument("paths", nargs="+")
    ing.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                     help="a field every row gets where the file lacks it, e.g. --set hardware=H200 --set gpus=4")
    ing.add_argument("--format", dest="fmt", help="force a format instead of detecting it")
    ing.add_argument("--json", action="store_true")

    samples = sub.add_parser("load-samples", help=f"ingest the bundled samples from {SAMPLE_DIR.name}/")
    samples.add_argument("--if-empty", action="store_true", help="only when the database has no sources yet")

    for name, text in (("frontier", "Pareto frontier points of every series"),
                       ("iso", "$/M of every series at matched interactivity"),
                       ("crossover", "where one series becomes cheaper than another")):
        q = sub.add_parser(name, help=text)
        _selection_args(q)
        q.add_argument("--basis", default="total", choices=BASES)
        q.add_argument("--disagg", default=Scenario().disagg, choices=DISAGG_MODES,
                       help="disaggregated rows on the input/output basis: per-role = per GPU of its own role as "
                            "stated; share = total per GPU of both roles x token share")
        q.add_argument("--w-input", type=float, default=Scenario().w_input,
                       help="blended basis: weight of an uncached input token relative to an output token")
        q.add_argument("--w-cached", type=float, default=Scenario().w_cached,
                       help="blended basis: weight of a cached input token relative to an output token")
        q.add_argument("--sla", action="append", default=[], metavar="KEY=VALUE",
                       help="keep only rows meeting it before fitting, e.g. --sla ttft_p95=2 --sla tpot=50")
        q.add_argument("--method", default="linear", choices=("linear", "monotone"))
        q.add_argument("--at", default="", help="interactivity targets [tok/s/user], comma-separated")
        q.add_argument("--baseline", help="series the iso ratios divide by")
        q.add_argument("--profile", action="append", default=[], metavar="NAME",
                       help="price by a stored cost profile (costfrontier tco ... --save); two profiles of one "
                            "hardware are shown side by side")
        q.add_argument("--json", action="store_true")

    for name, text in (("capacity", "the knee of every load ramp under an SLA: req/s, tok/s/node, $/M"),
                       ("compare", "tokens per dollar of ramp knees (or peaks, without --sla) against a baseline")):
        q = sub.add_parser(name, help=text)
        q.add_argument("--sla", action="append", default=[], metavar="KEY=VALUE",
                       help=f"a limit (repeat, or comma-separate): {', '.join(SLA_KEYS)}; e.g. ttft_p95=5 success=0.99")
        _selection_args(q)
        q.add_argument("--basis", default="auto", choices=CAPACITY_BASES,
                       help="token basis; auto = total, else output, else input, as the rows have (and says which)")
        q.add_argument("--w-input", type=float, help="blended basis: weight of an uncached input token")
        q.add_argument("--w-cached", type=float, help="blended basis: weight of a cached input token")
        q.add_argument("--rule", default=KNEE_RULES[0], choices=KNEE_RULES, help="how the knee is read off a ramp")
        q.add_argument("--gpus-per-node", type=int, help="GPUs per node (default 8)")
        q.add_argument("--baseline", help="compare: series or hardware the others are divided by")
        q.add_argument("--json", action="store_true")

    sub.add_parser("sources", help="list ingested files")
    exp = sub.add_parser("export", help="write every point (with its source) to a CSV file")
    exp.add_argument("file")
    rem = sub.add_parser("remove", help="delete one ingested source (export first to keep a copy)")
    rem.add_argument("source_id", type=int)
    cli_tco.add_parsers(sub)
    cli_report.add_parsers(sub)
    return parser


def _db_everywhere(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Accept ``--db`` after the subcommand too (``costfrontier ingest x.csv --db my.duckdb``),
    for every subcommand, including those other modules register."""
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for command in sub.choices.values():
        if not any("--db" in action.option_strings for action in command._actions):
            command.add_argument("--db", default=argparse.SUPPRESS, help="database file (as before the command)")
    return parser


class UsageError(Exception):
    pass


def _pairs(items: list[str], what: str) -> list[tuple[str, str]]:
    out = []
    for item in items:
        if "=" not in item:
            raise UsageError(f"{what} expects KEY=VALUE, got {item!r}")
        key, value = item.split("=", 1)
        out.append((key.strip(), value.strip()))
    return out


def _field(key: str, option: str, choices: tuple[str, ...] | None = None) -> str:
    """The field a name means, with the same aliases as file headers (``spec_decode`` -> ``spec_decoding``)."""
    resolved = resolve_column(key)
    if not isinstance(resolved, tuple) or (choices and resolved[0] not in choices):
        known = f"; choose from {', '.join(choices)}" if choices else " (see model/columns.py for the names)"
        raise UsageError(f"{option}: unknown field {key!r}{known}")
    return resolved[0]


def _one_line(exc: ValidationError) -> str:
    """A pydantic error as one line: ``--by: value error, ...`` rather than the dump with a URL."""
    first = exc.errors()[0]
    where = ".".join(str(part) for part in first.get("loc", ()) if not isinstance(part, int))
    option = f"--{where.replace('_', '-')}: " if where else ""
    more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
    return f"{option}{first.get('msg', 'invalid value')}{more}"


def _scenario(args) -> tuple[Scenario, dict[str, list[str]]]:
    where: dict[str, list[str]] = {}
    for key, value in _pairs(args.where, "--where"):
        field = _field(key, "--where")
        if field == "hardware":
            value = canonical_hardware(value)
        where.setdefault(field, []).append(value)
    by = tuple(_field(k.strip(), "--by", SERIES_KEY_CHOICES) for k in args.by.split(",") if k.strip())
    rates = []
    for hw, value in _pairs(args.rate, "--rate"):
        try:
            rates.append((canonical_hardware(hw), float(value)))
        except ValueError:
            raise UsageError(f"--rate {hw}={value}: not a number") from None
    try:
        targets = tuple(float(x) for x in args.at.split(",") if x.strip())
    except ValueError:
        raise UsageError(f"--at expects numbers separated by commas, got {args.at!r}") from None
    try:
        scenario = Scenario(by=by, basis=args.basis, method=args.method, price_set=args.price_set, tier=args.tier,
                            rates=tuple(rates), targets=targets, baseline=args.baseline, sla=",".join(args.sla),
                            **{k: getattr(args, k, None) for k in ("w_input", "w_cached", "disagg")
                               if getattr(args, k, None) is not None})
    except ValidationError as exc:
        raise UsageError(_one_line(exc)) from None
    return scenario, where


#: the workload keys a default grouping adds when a selection mixes workloads
SPLIT_WORKLOAD_KEYS = ("model", "isl", "osl")


def workload_split(points: pd.DataFrame, by: tuple[str, ...]) -> tuple[tuple[str, ...], str | None]:
    """``by`` plus the workload keys (model, ISL, OSL) that vary among ``points``, and a note saying so.

    Series of different workloads are never compared (see :func:`model.analysis.analyse`), so a
    selection that mixes workloads is split by them rather than pooled into one series.

    Returns
    -------
    by : tuple of str
        the grouping keys, unchanged when the selection holds one workload.
    note : str or None
        what was added and why, for the user.
    """
    varying = [k for k in SPLIT_WORKLOAD_KEYS
               if k not in by and k in points.columns and points[k].nunique(dropna=False) > 1]
    if not varying:
        return by, None
    keys = [k for k in SPLIT_WORKLOAD_KEYS if k in points.columns]
    count = len(points[keys].drop_duplicates())
    return (*by, *varying), (f"the selection holds {count} workloads: series are split by "
                             f"{', '.join(varying)} and compared only within a workload "
                             "(narrow it with --where, or pass --mix-workloads to pool them)")


def _clean(value):
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if value is pd.NA or value is pd.NaT:
        return None
    if hasattr(value, "item"):
        return _clean(value.item())
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return value


def _records(frame: pd.DataFrame) -> list[dict]:
    return [{k: _clean(v) for k, v in row.items()} for row in frame.to_dict("records")]


_FRONTIER_COLUMNS = ["series", "interactivity", "tokens_per_second_per_gpu", "usd_per_mtok", "usd_per_gpu_hour",
                     "hardware", "framework", "precision", "spec_decoding", "tp", "ep", "dp", "pp", "gpus", "gpus_prefill", "gpus_decode",
                     "concurrency", "request_rate_rps", "model", "isl", "osl", "run_date", "source_file", "source_line"]


def split_workloads(scenario: Scenario, points: pd.DataFrame, mix: bool = False) -> tuple[Scenario, list[str]]:
    """The scenario with the workload keys that vary among the measured ``points`` added to its
    grouping (unless ``mix``), and the note saying so: one rule for every query command and the report."""
    if mix or points.empty:
        return scenario, []
    measured = points[points["interactivity"].notna() | points["tpot_median_ms"].notna()]
    by, note = workload_split(measured, scenario.by)
    return (scenario.model_copy(update={"by": by}), [note]) if note else (scenario, [])


def _query(args, con) -> int:
    scenario, where = _scenario(args)
    points = load_points(con, where)
    scenario, notes = split_workloads(scenario, points, args.mix_workloads)
    if getattr(args, "profile", None):
        points, overrides, priced = price_with_profiles(points, dict(scenario.rates), load_profiles(con), args.profile)
        scenario = scenario.model_copy(update={"rates": tuple(sorted(overrides.items()))})
        notes.extend(priced)
    result = analyse(points, scenario, load_presets(stored_rates(con)),
                     crossovers="auto" if args.command == "crossover" else "none")
    notes.extend(result.notes)
    if args.command == "frontier":
        frame = result.frontier[[c for c in _FRONTIER_COLUMNS if c in result.frontier.columns]]
    elif args.command == "iso":
        frame = result.iso
    else:
        frame = result.crossovers
    if args.json:
        payload = {
            "command": args.command, "scenario": scenario.model_dump(mode="json"), "where": where,
            "usd_per_gpu_hour": result.usd_per_gpu_hour, "missing_rates": result.missing_rates,
            "notes": notes, "rows": _records(frame),
        }
        if args.command == "crossover":
            payload["reach"] = _records(result.reach)
            payload["envelope"] = {"changes": _records(result.envelope.changes),
                                   "segments": _records(result.envelope.segments)}
        print(json.dumps(payload, indent=2))
        return 0
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    print("rates [$/GPU-hour]: " + ", ".join(f"{k} {v:.3f}" for k, v in sorted(result.usd_per_gpu_hour.items())))
    if frame.empty:
        print(f"no {args.command} rows for this selection")
        if args.command != "crossover" or result.envelope.changes.empty:
            return 0
    else:
        with pd.option_context("display.width", 200, "display.max_rows", 500, "display.max_columns", 30,
                               "display.float_format", "{:.4g}".format):
            print(frame.to_string(index=False))
    if args.command == "crossover" and not result.envelope.changes.empty:
        print("\nwhere the cheapest series changes [tok/s/user, $/M]:")
        print(result.envelope.changes.dropna(axis=1, how="all").to_string(index=False, float_format="{:.4g}".format))
    if args.command == "crossover" and not result.reach.empty:
        print("\nreach [tok/s/user]:")
        with pd.option_context("display.width", 200, "display.float_format", "{:.4g}".format):
            print(result.reach.to_string(index=False))
    return 0


_CAPACITY_COLUMNS = ["series", "status", "request_rate", "tokens_per_second_per_node", "tokens_per_second_per_gpu",
                     "basis", "usd_per_gpu_hour", "usd_per_mtok", "ttft_s", "first_failing_rate", "first_failure"]


def _capacity(args, con) -> int:
    scenario, where = _scenario(argparse.Namespace(**{**vars(args), "basis": "total", "method": "linear", "at": "",
                                                         "baseline": None}))
    sla = SLA.from_text(args.sla)
    if args.basis == "blended" and (args.w_input is None or args.w_cached is None):
        raise UsageError("--basis blended needs --w-input and --w-cached")
    points = load_points(con, where)
    notes = []
    if not args.mix_workloads:
        by, note = workload_split(points[points["request_rate_rps"].notna()], scenario.by)
        if note:
            scenario = scenario.model_copy(update={"by": by})
            notes.append(note)
    hardware = sorted(points["hardware"].dropna().unique()) if not points.empty else []
    # the one rate rule; ingested TCO price sets price these commands too, as they do frontier/iso/crossover
    rates = resolve_rates(hardware, load_presets(stored_rates(con)), scenario.price_set, scenario.tier,
                          dict(scenario.rates))
    knees = knee(points, sla, rates, basis=args.basis, keys=scenario.by, rule=args.rule,
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
                   "where": where, "by": list(scenario.by), "rule": args.rule, "usd_per_gpu_hour": rates,
                   "missing_rates": missing, "notes": notes, "rows": _records(frame)}
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


def _ingest(args, con) -> int:
    files: list[Path] = []
    for raw in args.paths:
        path = Path(raw)
        if path.is_dir():
            files.extend(sorted(p for p in path.rglob("*") if p.is_file() and not p.name.startswith(".")
                                and p.suffix.lower() in (".csv", ".tsv", ".json", ".jsonl", ".txt")))
        else:
            files.append(path)
    failed, results = 0, []
    set_fields = list(args.set)
    for path in files:
        try:
            result = ingest_file(con, path, set_fields, fmt=args.fmt)
        except IngestError as exc:
            failed += 1
            print(f"error: {exc}", file=sys.stderr)
            results.append({"file": str(path), "error": str(exc), "line": exc.line, "field": exc.field})
            continue
        print(result.summary)
        for warning in result.warnings:
            print(f"  warning: {warning}")
        results.append({"file": str(path), "rows_added": result.rows_added, "duplicate_of": result.duplicate_of,
                        "format": result.format, "kind": result.kind, "unknown_columns": result.unknown_columns,
                        "warnings": result.warnings})
    if args.json:
        print(json.dumps({"rows": results}, indent=2))
    if failed:
        print(f"{failed} of {len(files)} files refused; nothing from them was stored", file=sys.stderr)
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    """Run one command; the exit code is 0, 1 (a file refused) or 2 (a usage or database error).

    Output cut short by its reader (``costfrontier iso | head``) ends quietly.
    """
    try:
        return _main(argv)
    except BrokenPipeError:
        # the reader went away: point stdout at /dev/null so the interpreter's final flush is quiet too
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return 1


def _main(argv: list[str] | None) -> int:
    args = _db_everywhere(_parser()).parse_args(argv)
    writes = args.command in _WRITES or (args.command == "tco" and getattr(args, "save", False))
    db = Path(args.db or default_db_path())
    if args.command == "tco" and not writes and not args.list and not db.exists():
        # a build-up needs no data: price it against the built-in presets, creating no database
        return _run(args, empty_store())
    try:  # writes publish a new snapshot; reads never create, migrate or lock the file (model.snapshot)
        return run_command(db, writes, lambda con: _run(args, con))
    except StoreError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


_WRITES = ("ingest", "load-samples", "remove")


def _run(args, con) -> int:
    try:
        if (done := cli_tco.run(args, con)) is not None:
            return done
        if args.command == "ingest":
            return _ingest(args, con)
        if args.command == "load-samples":
            if args.if_empty and not list_sources(con).empty:
                return 0
            for result in load_samples(con):
                print(result.summary)
            return 0
        if (code := cli_report.run(args, con)) is not None:
            return code
        if args.command in ("frontier", "iso", "crossover"):
            return _query(args, con)
        if args.command in ("capacity", "compare"):
            return _capacity(args, con)
        if args.command == "sources":
            with pd.option_context("display.width", 200, "display.max_columns", 20):
                print(list_sources(con).drop(columns=["sha256"]).to_string(index=False))
            return 0
        if args.command == "export":
            from model.export import safe_csv

            Path(args.file).write_text(safe_csv(load_points(con, full=True)), encoding="utf-8")
            print(f"wrote {args.file}")
            return 0
        if args.command == "remove":
            print(f"removed source #{args.source_id}: {remove_source(con, args.source_id)} rows")
            return 0
    except ValidationError as exc:
        print(f"error: {_one_line(exc)}", file=sys.stderr)
        return 2
    except (UsageError, ValueError, StoreError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 2


if __name__ == "__main__":
    sys.exit(main())
