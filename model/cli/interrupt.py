"""Ctrl-C in the CLI: stop at once, except while a write is being published.

:class:`CtrlC` replaces Python's SIGINT handler for one command. The first press raises
``KeyboardInterrupt`` where the program is (DuckDB turns it into ``RuntimeError("Query interrupted")``
inside a query; :func:`model.data.ingest.ingest_file` turns that back into ``KeyboardInterrupt``), unless
the command is between "its transactions are done" and "the new snapshot is published and reported"
(:meth:`CtrlC.hold`); then the press waits for :meth:`CtrlC.release`, so what the command says it
stored is exactly what the database holds. Later presses are ignored: the command is already stopping.
"""

from __future__ import annotations

import signal
import threading

from model.data.interrupts import forget_press, record_press

__all__ = ["CtrlC", "EXIT_INTERRUPTED"]

#: exit code of a command stopped by Ctrl-C (128 + SIGINT, as a shell reports it)
EXIT_INTERRUPTED = 130


class CtrlC:
    """A context manager: installs the handler in the main thread (elsewhere it does nothing)."""

    def __init__(self) -> None:
        self.pending = False
        self.held = False
        self._old = None

    def __enter__(self) -> "CtrlC":
        forget_press()
        if threading.current_thread() is threading.main_thread():
            self._old = signal.signal(signal.SIGINT, self._handler)
        return self

    def __exit__(self, *exc) -> None:
        forget_press()
        if self._old is not None:
            signal.signal(signal.SIGINT, self._old)
            self._old = None

    def _handler(self, signum, frame) -> None:
        if self.pending:
            return  # already stopping
        self.pending = True
        record_press()   # the data layer then takes any error inside an ingest for the press
        if not self.held:
            raise KeyboardInterrupt

    def hold(self) -> None:
        """From now until :meth:`release`, a press only marks the command as interrupted."""
        self.held = True

    def release(self) -> None:
        """End :meth:`hold`; raise ``KeyboardInterrupt`` if Ctrl-C was pressed meanwhile (or swallowed)."""
        self.held = False
        self.check()

    def check(self) -> None:
        """Raise ``KeyboardInterrupt`` when Ctrl-C was pressed (even if something swallowed its exception)."""
        if self.pending:
            raise KeyboardInterrupt
