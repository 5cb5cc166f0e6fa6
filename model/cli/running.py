"""Running one command: the store opened as the command needs it, its errors said in one line, Ctrl-C honoured.

Each command module's ``main(args, ctrl_c)`` calls :func:`in_store` with its ``run(args, con)`` (``verify`` and
``keygen`` open no store). A write publishes a new snapshot; a read never creates,
migrates or locks the file (:mod:`model.data.snapshot`).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Callable

from pydantic import ValidationError

from model.cli.choices import WRITES
from model.cli.interrupt import EXIT_INTERRUPTED, CtrlC
from model.data.snapshot import empty_store, run_command
from model.data.store import StoreError, default_db_path
from model.data.versions import acting

__all__ = ["in_store", "UsageError", "one_line"]


class UsageError(Exception):
    """A command line that cannot be run: printed as one ``error:`` line, exit 2."""


def one_line(exc: ValidationError, flags: dict[str, str] | None = None) -> str:
    """A pydantic error as one line: ``--by: value error, ...`` rather than the dump with a URL. ``flags``
    names the option of a field (``{"targets": "--at"}``); else the field's name is the option's."""
    first = exc.errors()[0]
    where = ".".join(str(part) for part in first.get("loc", ()) if not isinstance(part, int))
    option = (flags or {}).get(where) or f"--{where.replace('_', '-')}"
    more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
    return f"{option + ': ' if where else ''}{first.get('msg', 'invalid value').removeprefix('Value error, ')}{more}"


def in_store(args, ctrl_c: CtrlC, run: Callable[..., int | None],
             batches: Callable[..., int] | None = None) -> int:
    """``run(args, con)`` on the store ``--db`` names: a copy published as a new snapshot for a command that writes,
    the published snapshot for one that reads; or ``batches(args, db, ctrl_c)``, a write in batches each published
    on its own (``ingest``: :func:`model.cli.data.ingest`). The exit code; 2 for a usage or database error, 130 for
    Ctrl-C."""
    writes = args.command in WRITES or (args.command == "tco" and getattr(args, "save", False)) \
        or (args.command == "actual" and not args.list)
    db = Path(args.db or default_db_path())
    args.store = db                     # where a command keeps what a data version fits (model.data.memo)
    if args.command == "tco" and not writes and not args.list and not db.exists():
        # a build-up needs no data: price it against the built-in presets, creating no database
        return _said(args, run, empty_store())
    try:
        if batches is not None:
            with acting("ingest", f"costfrontier {args.command}"):
                return batches(args, db, ctrl_c)
        done = run_command(db, writes, lambda con: _held(ctrl_c, _said(args, run, con)))
        ctrl_c.release()
        return done
    except KeyboardInterrupt:
        return _interrupted(ctrl_c, writes)
    except Exception as exc:
        if ctrl_c.pending:   # Ctrl-C inside a query that some layer turned into another error (a "damaged" store too)
            return _interrupted(ctrl_c, writes)
        if not isinstance(exc, StoreError):
            raise
        print(f"error: {exc}", file=sys.stderr)
        return 2


def _interrupted(ctrl_c: CtrlC, writes: bool) -> int:
    stored = "the change was stored" if ctrl_c.held else "nothing was changed"
    print(f"interrupted: {stored if writes else 'stopped'}", file=sys.stderr)
    return EXIT_INTERRUPTED


def _held(ctrl_c: CtrlC, done: int) -> int:
    """The command's work is done: from here until its write is published, Ctrl-C waits (CtrlC.hold)."""
    ctrl_c.hold()
    return done


def _said(args, run: Callable[..., int | None], con) -> int:
    """``run(args, con)``, a write's data version saying which command made it (and the user, COSTFRONTIER_USER);
    an option it cannot use said in one ``error:`` line, exit 2."""
    try:
        with acting(args.command if args.command in ("remove", "load-samples", "purge") else "ingest",
                    f"costfrontier {args.command}"):
            done = run(args, con)
        if done is not None:
            return done
    except ValidationError as exc:
        print(f"error: {one_line(exc)}", file=sys.stderr)
        return 2
    except (UsageError, ValueError, StoreError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 2
