"""``costfrontier``: the dashboard's questions, scriptable.

    costfrontier ingest FILE|DIR... [--db PATH] [--set key=value ...] [--format NAME]
    costfrontier frontier|iso|crossover|history|size|report [view options] [fleet options] [--json]
        view options, the same for every one of these commands (and a share link's meaning):
                 [--where key=value ...] [--by k,k] [--rate HW=USD ...] [--price-set ID] [--tier ID]
                 [--repeats pooled|latest|median] [--as-of YYYY-MM-DD]
                 [--basis total|output|input|blended] [--sla K=V ...] [--method linear|monotone]
                 [--at X,Y,...] [--baseline SERIES] [--profile NAME ...] [--interactivity X] [--link URL]
        fleet options: [--demand-rps R | --tokens-per-day T [--peak-to-average F]] [--headroom H] [--spares N]
                 [--budget-mw M] [--budget-usd-month B]
    costfrontier capacity|compare [view options, --basis may be auto] [--rule RULE] [--gpus-per-node N] [--json]
                 (the ramp part of the view's answer, as the Ramps page shows it; compare: --baseline SERIES|HW)
    costfrontier volume --tokens-per-month N [--peak-to-average F] [--api MODEL | --api-usd IN,CACHED,OUT]
                 [--rent HW=USD ...] [--on-demand [--min-nodes N]] [--lens full|marginal] [--cache-hit H]
                 [view options] [--json]
    costfrontier mix (--mix ISL:OSL:SHARE,... | --trace FILE) (--peak-rps R | --volume N | --trace FILE)
                 [--max-nodes HW=N ...] [--max-kw HW=KW ...] [view and fleet options] [--json]
                 (the cheapest mix of GPU types for a request mix: model.cli.mix)
    costfrontier sell [--api MODEL | --api-usd IN,CACHED,OUT] [--input-share S] [--licence-fee F] [--utilisation U]
                 [view and fleet options] [--json]   (what each series earns selling tokens: model.cli.sell)
    costfrontier solve --max-usd-per-mtok USD | --peak-rps R --sla K=V [--budget-usd-month B] [--budget-mw M]
                 (the highest interactivity under a $/M cap; the cheapest measured fleet under an SLA and budget)
    costfrontier tco ... | sources | export FILE | remove SOURCE_ID | load-samples [--if-empty]
    costfrontier actual FILE... [--plan LINK] | actual --list | plan-vs-actual --plan LINK [--json]
                 (actuals: OpenCost inference-cost responses or a bill; the plan is a pinned share link)
    costfrontier versions [--diff A B [view options]] | pin N [--note TEXT] | purge [--force]
        every write is a numbered data version; view options take --data-version N (a pinned link's v=N)
    costfrontier report ... --bundle DIR [--sign KEY] | verify DIR [--key KEY.pub] [--json] | keygen KEY --name NAME
                 (a proposal bundle: the report, its inputs and manifest.json; verify checks it offline, no store:
                 exit 0 all hold, 1 a figure or file differs, 3 the bundle lacks data a figure needs, 2 bad arguments;
                 signed with the issuer's Ed25519 key, verify --key says who issued it)

The database is ``--db``, else ``$COSTFRONTIER_DB``, else ``data/costfrontier.duckdb``.
Exit codes: 0 done, 1 a file refused, 2 a usage or database error, 130 stopped by Ctrl-C.

Starting is cheap: the parser is built from :mod:`model.cli.choices`, the view's declarations
(:mod:`model.core.view_fields`, plain dataclasses) and ``argparse`` alone, so ``--help`` and
a usage error import none of pandas, pydantic, DuckDB, SciPy or Plotly; a command imports its own module
(:data:`_COMMANDS`) once the arguments parse (``tests/test_cli_startup.py``, ``bench/bench_cli.py``).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from pathlib import Path

from model.cli import actual, capacity, tco
from model.cli import mix as mix_cli
from model.cli import report as report_cli
from model.cli import sell as sell_cli
from model.cli import verify as verify_cli
from model.cli.choices import SAMPLE_DIR, WRITES
from model.cli.interrupt import EXIT_INTERRUPTED, CtrlC
from model.cli.options import UsageError, fleet_args, one_line, selection_args, view_args, volume_args

__all__ = ["main", "parser"]

#: the module (under model.cli) that runs each command, imported only when that command runs
_COMMANDS = {"ingest": "data", "load-samples": "data", "sources": "data", "export": "data", "remove": "data",
             "frontier": "query", "iso": "query", "crossover": "query", "history": "query", "capacity": "capacity", "compare": "capacity",
             "tco": "tco", "size": "tco", "report": "report", "volume": "volume", "mix": "mix",
             "versions": "versions", "pin": "versions", "purge": "versions", "actual": "actual",
             "plan-vs-actual": "actual", "verify": "verify", "keygen": "verify", "sell": "sell", "solve": "sell"}


def json_args(parser) -> None:
    """``--json`` (one line, compact: at 900 series it is megabytes) and ``--indent N`` (for a person reading it)."""
    parser.add_argument("--json", action="store_true", help="print the answer as JSON, on one line")
    parser.add_argument("--indent", type=int, default=None, metavar="N",
                        help="with --json: indent N spaces per level (default: one compact line)")


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
        selection_args(q)
        view_args(q)
        fleet_args(q)
        if name == "iso":      # the recommendation weighs owning, renting and the API at a monthly volume
            volume_args(q, with_fleet=False)
        json_args(q)

    hist = sub.add_parser("history", help="each series' $/M at --at X run date by run date: that date's runs alone "
                                          "and the best so far")
    selection_args(hist)
    view_args(hist)
    json_args(hist)

    capacity.add_parsers(sub)

    src = sub.add_parser("sources", help="list ingested files, and the verdict on every published table")
    src.add_argument("--published", action="store_true",
                     help="only the published tables' verdicts (each value recomputed from the table's own numbers)")
    exp = sub.add_parser("export", help="write every point (with its source) to a CSV file")
    exp.add_argument("file")
    rem = sub.add_parser("remove", help="hide one ingested source from a new data version on (earlier versions and "
                                        "their pinned links keep it; purge deletes it for good)")
    rem.add_argument("source_id", type=int)
    _version_parsers(sub)
    tco.add_parsers(sub)
    actual.add_parsers(sub)
    report_cli.add_parsers(sub)
    vol = sub.add_parser("volume", help="buy, rent or call an API: monthly cost of each at a volume, and break-evens")
    selection_args(vol)
    view_args(vol)
    volume_args(vol)
    vol.add_argument("--json", action="store_true")
    mix_cli.add_parsers(sub)
    sell_cli.add_parsers(sub)        # the seller's side and the inverse question (issue 52)
    verify_cli.add_parsers(sub)
    return parser


def _version_parsers(sub) -> None:
    """``versions`` (the change log, ``--diff A B``), ``pin N`` and ``purge`` (model.cli.versions)."""
    ver = sub.add_parser("versions", help="the change log: every data version (time, action, what, by); --diff A B "
                                          "names the sources added and removed and the answer's headline at each")
    ver.add_argument("--diff", nargs=2, type=int, metavar=("A", "B"), help="compare data versions A and B")
    selection_args(ver)
    view_args(ver)
    ver.add_argument("--json", action="store_true")
    pin = sub.add_parser("pin", help="record that a pinned link or report names data version N (purge keeps it)")
    pin.add_argument("version", type=int)
    pin.add_argument("--note", default="", help="what names it (a proposal, a customer)")
    pur = sub.add_parser("purge", help="delete removed sources' rows for good (refused while a recorded pin still "
                                       "shows them, unless --force)")
    pur.add_argument("--force", action="store_true", help="purge even when a recorded pin still shows them")


def parser() -> argparse.ArgumentParser:
    """The whole command line, as :func:`main` reads it (the manual's CLI reference is generated from it)."""
    return _db_everywhere(_parser())


def _db_everywhere(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Accept ``--db`` after the subcommand too (``costfrontier ingest x.csv --db my.duckdb``)."""
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for command in sub.choices.values():
        if not any("--db" in action.option_strings for action in command._actions):
            command.add_argument("--db", default=argparse.SUPPRESS, help="database file (as before the command)")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one command; the exit code is 0, 1 (a file refused) or 2 (a usage or database error).

    Output cut short by its reader (``costfrontier iso | head``) ends quietly.
    """
    # the handler is in place before the arguments are read and the command's modules imported (seconds on a cold
    # start): a press then raises where the program is, and is remembered if something caught its exception
    with CtrlC() as ctrl_c:
        try:
            return _main(argv, ctrl_c)
        except KeyboardInterrupt:  # while starting, before any write began
            print("interrupted: nothing was changed", file=sys.stderr)
            return EXIT_INTERRUPTED
        except BrokenPipeError:
            # the reader went away: point stdout at /dev/null so the interpreter's final flush is quiet too
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)
            return 1


def _main(argv: list[str] | None, ctrl_c: CtrlC) -> int:
    args = parser().parse_args(argv)
    from model.data.snapshot import empty_store, run_command
    from model.data.store import StoreError, default_db_path

    ctrl_c.check()      # pressed while starting, its exception caught by something imported: nothing began
    if args.command in ("verify", "keygen"):     # offline: the bundle's own inputs, no store opened or created
        return verify_cli.run(args)

    writes = args.command in WRITES or (args.command == "tco" and getattr(args, "save", False)) \
        or (args.command == "actual" and not args.list)
    db = Path(args.db or default_db_path())
    args.store = db                     # where a command keeps what a data version fits (model.data.memo)
    if args.command == "tco" and not writes and not args.list and not db.exists():
        # a build-up needs no data: price it against the built-in presets, creating no database
        return _run(args, empty_store())
    try:
        if args.command == "ingest":  # in batches, each published on its own (model.cli.data.ingest)
            from model.cli.data import ingest
            from model.data.versions import acting

            with acting("ingest", "costfrontier ingest"):
                return ingest(args, db, ctrl_c)
        # writes publish a new snapshot; reads never create, migrate or lock the file (model.data.snapshot)
        done = run_command(db, writes, lambda con: _held(ctrl_c, _run(args, con)))
        ctrl_c.release()
        return done
    except KeyboardInterrupt:
        stored = "the change was stored" if ctrl_c.held else "nothing was changed"
        print(f"interrupted: {stored if writes else 'stopped'}", file=sys.stderr)
        return EXIT_INTERRUPTED
    except StoreError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def _held(ctrl_c: CtrlC, done: int) -> int:
    """The command's work is done: from here until its write is published, Ctrl-C waits (CtrlC.hold)."""
    ctrl_c.hold()
    return done


def _run(args, con) -> int:
    from pydantic import ValidationError

    from model.data.store import StoreError
    from model.data.versions import acting

    command = importlib.import_module(f"model.cli.{_COMMANDS[args.command]}")
    try:
        # a write's data version says which command made it (and the user, COSTFRONTIER_USER)
        with acting(args.command if args.command in ("remove", "load-samples", "purge") else "ingest",
                    f"costfrontier {args.command}"):
            done = command.run(args, con)
        if done is not None:
            return done
    except ValidationError as exc:
        print(f"error: {one_line(exc)}", file=sys.stderr)
        return 2
    except (UsageError, ValueError, StoreError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 2


if __name__ == "__main__":
    sys.exit(main())
