"""The band's calibration of a store: every frontier of one data version, read once.

:func:`load_calibration` reads the columns :func:`model.core.uncertainty.store_frontiers` needs of every row the data
version shows (whatever a view filters), and hands them to :func:`model.core.uncertainty.store_calibration`. The
dashboard keeps one per data version (``ui.data``); a command reads it once.
"""

from __future__ import annotations

from model.core.uncertainty import CALIBRATION_KEYS, Calibration, no_calibration, store_calibration
from model.data.store import load_points

__all__ = ["CALIBRATION_COLUMNS_READ", "load_calibration"]

#: what the calibration reads of each row
CALIBRATION_COLUMNS_READ = (*CALIBRATION_KEYS, "interactivity", "total_tokens_per_second_per_gpu",
                            "output_tokens_per_second_per_gpu")


def load_calibration(con, version: int | None = None) -> Calibration:
    """The :class:`~model.core.uncertainty.Calibration` of data version ``version`` (None: the latest) of the store
    ``con``: its rows, all of them, read once."""
    rows = load_points(con, {}, columns=CALIBRATION_COLUMNS_READ, version=version)
    return store_calibration(rows) if not rows.empty else no_calibration()
