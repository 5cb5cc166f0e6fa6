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

Starting is cheap: the parser (:mod:`model.cli.parsers`) is built from :mod:`model.cli.choices`, the view's
declarations (:mod:`model.core.view_fields`, plain dataclasses) and ``argparse`` alone, so ``--help`` and a usage
error import none of pandas, pydantic, DuckDB, SciPy or Plotly; a command imports its own module (:data:`COMMANDS`),
which imports what it runs at its top, once the arguments parse (``tests/test_cli_startup.py``,
``bench/bench_cli.py``). Each command module's ``main(args, ctrl_c)`` opens the store as the command needs
(:func:`model.cli.running.in_store`) and runs it.
"""

from __future__ import annotations

import importlib
import os
import sys

from model.cli import parsers
from model.cli.interrupt import EXIT_INTERRUPTED, CtrlC

__all__ = ["main", "parser", "COMMANDS"]

#: the module (under model.cli) that runs each command, imported only when that command runs
COMMANDS = {"ingest": "data", "load-samples": "data", "sources": "data", "export": "data", "remove": "data",
            "frontier": "query", "iso": "query", "crossover": "query", "history": "query", "capacity": "capacity",
            "compare": "capacity", "tco": "tco", "size": "size", "report": "report", "volume": "volume", "mix": "mix",
            "versions": "versions", "pin": "versions", "purge": "versions", "actual": "actual",
            "plan-vs-actual": "actual", "verify": "verify", "keygen": "verify", "sell": "sell", "solve": "sell"}


def parser():
    """The whole command line, as :func:`main` reads it (the manual's CLI reference is generated from it)."""
    return parsers.parser(__doc__.split("\n")[0])


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
    command = importlib.import_module(f"model.cli.{COMMANDS[args.command]}")  # deferred: start-up: a command imports its own module once its arguments parse
    ctrl_c.check()      # pressed while starting, its exception caught by something imported: nothing began
    return command.main(args, ctrl_c)


if __name__ == "__main__":
    sys.exit(main())
