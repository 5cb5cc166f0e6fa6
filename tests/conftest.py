"""Shared fixtures: a real DuckDB file per test, optionally holding the bundled samples."""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from model.data.samples import load_samples
from model.data.store import connect

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


@pytest.fixture(scope="session")
def samples_template(tmp_path_factory) -> Path:
    """A database holding the bundled samples, built once per test run; tests get copies."""
    path = tmp_path_factory.mktemp("template") / "samples.duckdb"
    connection = connect(path)
    load_samples(connection)
    connection.close()
    return path


@pytest.fixture
def sample_db(samples_template, tmp_path) -> Path:
    """A fresh copy of the samples database, this test's own."""
    path = tmp_path / "samples.duckdb"
    shutil.copy(samples_template, path)
    return path


@contextlib.contextmanager
def reading(path) -> Iterator:
    """A connection to a copy of the database at ``path``, for a test that checks what is stored while a
    dashboard in this same process (AppTest) has the live file attached: DuckDB lets one process attach
    a file once, and the dashboard only ever reads through its snapshot reader."""
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / Path(path).name
        shutil.copy(path, copy)
        connection = connect(copy)
        try:
            yield connection
        finally:
            connection.close()
