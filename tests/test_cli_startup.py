"""The command line starts at once: ``--help`` and usage errors import no analysis stack, and a command
imports only what it needs (never SciPy, Plotly or Streamlit to print a table: the monotone method's curve is
numpy's, model.core.pchip)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("pandas", "scipy", "plotly", "pydantic", "duckdb", "numpy", "pyarrow", "streamlit")
_IMPORTED = re.compile(r"^import time:\s+\d+ \|\s+\d+ \|\s*([\w.]+)\s*$")


def imported_by(*argv: str) -> tuple[subprocess.CompletedProcess, set[str]]:
    """Run ``python -X importtime -m model.cli ARGV``; its result and the top-level packages it imported."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "model.cli", *argv], capture_output=True,
                          text=True, timeout=120, cwd=ROOT, env=env)
    names = {m.group(1).split(".")[0] for line in done.stderr.splitlines() if (m := _IMPORTED.match(line))}
    return done, names


@pytest.mark.parametrize("argv", [["--help"], ["iso", "--help"], ["iso", "--basis", "nonsense"], ["no-such-command"],
                                  ["capacity", "--rule", "nope"]])
def test_help_and_usage_errors_import_no_analysis_stack(argv):
    done, names = imported_by(*argv)
    assert done.returncode == (0 if "--help" in argv else 2), done.stderr[-500:]
    assert "usage: costfrontier" in done.stdout + done.stderr
    assert "model" in names, "the importtime output was not read"
    assert not names & set(HEAVY), f"{' '.join(argv)} imported {sorted(names & set(HEAVY))}"


@pytest.mark.parametrize("method", ["linear", "monotone", "auto"])
def test_iso_loads_no_scipy_by_any_method(sample_db, method):
    done, names = imported_by("--db", str(sample_db), "iso", "--where", "spec_decoding=mtp", "--method", method)
    assert done.returncode == 0 and "usd_per_mtok" in done.stdout
    assert {"pandas", "duckdb"} <= names
    assert not names & {"scipy", "plotly", "streamlit"}, sorted(names & {"scipy", "plotly", "streamlit"})


def test_the_parsers_choices_are_the_models():
    from model.cli import choices
    from model.core import view_fields as fields
    from model.core.actual_rows import COST_BASES
    from model.core.capacity import CAPACITY_BASES, KNEE_RULES
    from model.core.cost import DEFAULT_PRICE_SET, DEFAULT_TIER
    from model.core.fleet import TOKEN_BASES
    from model.core.frontier import BASES, DEFAULT_SERIES_KEYS, DISAGG_MODES
    from model.core.iso import METHODS
    from model.core.repeats import REPEATS
    from model.core.sla import SLA_KEYS
    from model.core.uncertainty import METHOD_CHOICES
    from model.core.view import View
    from model.data.samples import SAMPLE_DIR

    assert (fields.BASES, fields.DISAGG_MODES, fields.DEFAULT_SERIES_KEYS) == (BASES, DISAGG_MODES,
                                                                               DEFAULT_SERIES_KEYS)
    assert (choices.CAPACITY_BASES, choices.KNEE_RULES, fields.SLA_KEYS) == (CAPACITY_BASES, KNEE_RULES, SLA_KEYS)
    assert (choices.TOKEN_BASES, fields.METHODS, choices.SAMPLE_DIR) == (TOKEN_BASES, METHODS, SAMPLE_DIR)
    assert (fields.DEFAULT_PRICE_SET, fields.DEFAULT_TIER) == (DEFAULT_PRICE_SET, DEFAULT_TIER)
    assert (fields.REPEATS, fields.COST_BASES, fields.METHOD_CHOICES) == (REPEATS, COST_BASES, METHOD_CHOICES)
    assert (View().price_set, View().tier) == (DEFAULT_PRICE_SET, DEFAULT_TIER)
    from model.core.interactivity import DEFINITIONS

    assert fields.INTERACTIVITY_FROM == DEFINITIONS


def test_every_command_has_a_module():
    """Each command the parser offers is run by a module of model.cli, through its ``main(args, ctrl_c)``."""
    import importlib

    from model.cli import COMMANDS, parser

    sub = next(a for a in parser()._actions if a.__class__.__name__ == "_SubParsersAction")
    assert set(sub.choices) == set(COMMANDS)
    for module in set(COMMANDS.values()):
        assert callable(importlib.import_module(f"model.cli.{module}").main), module
