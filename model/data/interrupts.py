"""Ctrl-C as the data layer sees it: whether it was pressed during the command now running.

The CLI's handler (:class:`model.cli.interrupt.CtrlC`) records a press here. A press inside a query reaches
the data layer in many shapes: ``KeyboardInterrupt``, DuckDB's ``InterruptException``, ``RuntimeError("Query
interrupted")``, an ``InvalidInputException`` that wraps the ``KeyboardInterrupt`` raised while DuckDB read a
registered table, or a "transaction is aborted" from cleaning up after one. Once a press is recorded, an error
inside an ingest is that press (:func:`model.data.ingest.was_ctrl_c`), never a bad file to go through file by file.
No dependencies: the CLI imports this before anything heavy.
"""

from __future__ import annotations

import threading

__all__ = ["record_press", "forget_press", "pressed"]

_PRESSED = threading.Event()


def record_press() -> None:
    """Ctrl-C was pressed (signals are the process's, so the record is too)."""
    _PRESSED.set()


def forget_press() -> None:
    """A command begins or ends: no press is pending."""
    _PRESSED.clear()


def pressed() -> bool:
    return _PRESSED.is_set()
