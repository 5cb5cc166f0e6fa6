"""Shared fixtures: a real DuckDB file per test, optionally holding the bundled samples."""

from __future__ import annotations

from pathlib import Path

import pytest

from model.samples import load_samples
from model.store import connect

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture
def db_path(tmp_path) -> Path:
    return tmp_path / "test.duckdb"


@pytest.fixture
def con(db_path):
    connection = connect(db_path)
    yield connection
    connection.close()


@pytest.fixture
def sample_con(con):
    load_samples(con)
    return con
