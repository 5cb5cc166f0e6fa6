"""The values the ``costfrontier`` parser offers, without importing what they come from.

Building the parser (``--help``, a usage error) imports only this module, ``argparse`` and the standard
library: the tuples below are copies of the ones in model.core and model.data, which import pandas,
pydantic and DuckDB. ``tests/test_cli_startup.py`` checks that each copy stays equal to its original.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["BASES", "DISAGG_MODES", "DEFAULT_SERIES_KEYS", "CAPACITY_BASES", "KNEE_RULES", "SLA_KEYS", "TOKEN_BASES",
           "METHODS", "REPEATS", "DEFAULT_PRICE_SET", "DEFAULT_TIER", "SAMPLE_DIR", "WRITES"]

#: model.core.frontier.BASES
BASES = ("total", "output", "input", "blended")
#: model.core.frontier.DISAGG_MODES
DISAGG_MODES = ("per-role", "share")
#: model.core.frontier.DEFAULT_SERIES_KEYS
DEFAULT_SERIES_KEYS = ("hardware", "framework", "precision", "spec_decoding")
#: model.core.capacity.CAPACITY_BASES
CAPACITY_BASES = ("auto", *BASES)
#: model.core.capacity.KNEE_RULES
KNEE_RULES = ("first_failure", "highest_pass")
#: model.core.sla.SLA_KEYS
SLA_KEYS = ("ttft_p50", "ttft_p90", "ttft_p95", "ttft_p99", "tpot", "interactivity", "e2e", "success")
#: model.core.fleet.TOKEN_BASES
TOKEN_BASES = ("total", "output", "input")
#: model.core.repeats.REPEATS
REPEATS = ("pooled", "latest", "median")
#: model.core.iso.METHODS
METHODS = ("linear", "monotone")
#: model.core.cost.DEFAULT_PRICE_SET and DEFAULT_TIER
DEFAULT_PRICE_SET = "2025-08"
DEFAULT_TIER = "owning_hyperscaler"
#: model.data.samples.SAMPLE_DIR
SAMPLE_DIR = Path(__file__).resolve().parents[2] / "data" / "samples"
#: commands that write (they publish a new snapshot, model.data.snapshot)
WRITES = ("ingest", "load-samples", "remove")
