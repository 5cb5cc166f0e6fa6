"""The values the ``costfrontier`` parser offers, without importing what they come from.

Building the parser (``--help``, a usage error) imports only this module, ``argparse``, the standard library
and the view's declarations (:mod:`model.core.view_fields`, as light). The tuples below are copies of the ones
in model.core and model.data, which import pandas, pydantic and DuckDB; the view's own choices (bases,
methods, repeats, ...) are declared in :mod:`model.core.view_fields`. ``tests/test_cli_startup.py`` checks
that each copy stays equal to its original.
"""

from __future__ import annotations

from pathlib import Path

from model.core.view_fields import BASES, SLA_KEYS

__all__ = ["CAPACITY_BASES", "KNEE_RULES", "SLA_KEYS", "TOKEN_BASES", "SAMPLE_DIR", "WRITES"]

#: model.core.capacity.CAPACITY_BASES
CAPACITY_BASES = ("auto", *BASES)
#: model.core.capacity.KNEE_RULES
KNEE_RULES = ("first_failure", "highest_pass")
#: model.core.fleet.TOKEN_BASES
TOKEN_BASES = ("total", "output", "input")
#: model.data.samples.SAMPLE_DIR
SAMPLE_DIR = Path(__file__).resolve().parents[2] / "data" / "samples"
#: commands that write (they publish a new snapshot, model.data.snapshot)
WRITES = ("ingest", "load-samples", "remove", "pin", "purge")
