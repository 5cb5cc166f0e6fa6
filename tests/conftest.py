"""Shared fixtures: a real DuckDB file per test, optionally holding the bundled samples.

The samples are loaded once per test process (:func:`samples_copy`'s template, 0.5 s); every test that wants them
gets its own copy of that file (a millisecond), never a second load.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path

import pytest

from model.data.samples import load_samples
from model.data.store import connect
from tests.checksums import table_checksums

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"
#: Debian's Chromium and the flags every browser test launches it with
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]
#: the marks of the tests that take longest (a browser, servers, many processes): under xdist they are handed
#: out first, so no worker is left with one of them at the end while the other waits (``make test``)
LONG = ("e2e", "slow")
#: each test function's longest measured time [s] (setup, call and teardown of its slowest parameter), as a
#: ``make durations`` run on two workers measured it (:func:`pytest_sessionfinish` writes it)
DURATIONS = Path(__file__).with_name("durations.json")
#: ``make check`` is the quick tier: a test function measured at this many seconds or more is also marked
#: ``slow`` and left to ``make test`` (a test not yet measured is quick until ``make durations`` runs again)
QUICK_S = 0.4


@pytest.fixture(scope="session", autouse=True)
def _one_component_scan():
    """Streamlit's AppTest scans the metadata of every installed package for custom components each time a new
    ``AppTest`` first runs (``scan_component_manifests``: 233 packages, 0.16 CPU-s; tests/test_app_data.py run
    alone went from 40.6 s to 31-35 s without it). The packages do not change while the tests run, so the real scan
    runs once per test process and its result is read again; a server (``streamlit run``) scans once at start as
    before."""
    from streamlit.components.v2 import manifest_scanner

    scan = manifest_scanner.scan_component_manifests
    manifest_scanner.scan_component_manifests = functools.cache(scan)
    yield
    manifest_scanner.scan_component_manifests = scan


@pytest.fixture
def db_path(tmp_path) -> Path:
    return tmp_path / "test.duckdb"


@pytest.fixture
def con(db_path):
    connection = connect(db_path)
    yield connection
    connection.close()


@cache
def _template() -> Path:
    """A database holding the bundled samples, built once per test process (each xdist worker builds its own)."""
    folder = Path(tempfile.mkdtemp(prefix="costfrontier-samples-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    path = folder / "samples.duckdb"
    connection = connect(path)
    load_samples(connection)
    connection.close()
    return path


def samples_copy(path: Path) -> Path:
    """A copy of the samples database at ``path`` (replacing any file there), for one test's own use."""
    path = Path(path)
    shutil.copy(_template(), path)
    return path


@pytest.fixture
def sample_con(db_path):
    """A connection to this test's own copy of the samples, at ``db_path``."""
    connection = connect(samples_copy(db_path))
    yield connection
    connection.close()


@pytest.fixture(scope="session")
def samples_template() -> Path:
    """The samples database built once per test process; tests copy it (:func:`samples_copy`, ``sample_db``)."""
    return _template()


@pytest.fixture
def sample_db(samples_template, tmp_path) -> Path:
    """A fresh copy of the samples database, this test's own."""
    return samples_copy(tmp_path / "samples.duckdb")


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


# ------------------------------------------------------------------ browser tests
# One `streamlit run` over the samples and one Chromium serve every browser test of a test process (of each xdist
# worker): the tests only read the store (a view lives in its link and its session; none uploads, saves or
# deletes), and the server's caches are keyed by the view, so a test sees what a fresh server shows. The
# server's store is checked unchanged when it stops. Tests that write, or need another store, start their own.


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    """``(base URL, CLI copy)``: the shared samples server, and an identical copy of its store for the CLI
    (DuckDB lets one process write a file)."""
    from deploy.serve import free_port, start_replica, stop, wait_healthy

    folder = tmp_path_factory.mktemp("e2e")
    db = samples_copy(folder / "e2e.duckdb")
    cli_db = samples_copy(folder / "cli.duckdb")
    port = free_port()
    proc = start_replica(db, port, read_only=False)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(base, proc, timeout_s=60)
    except RuntimeError as err:
        stop(proc)
        pytest.fail(f"streamlit did not start: {err}")
    yield base, cli_db
    stop(proc)
    with reading(db) as after, reading(cli_db) as before:
        assert table_checksums(after) == table_checksums(before), "a browser test wrote to the shared store"


@contextmanager
def served(db: Path):
    """``streamlit run`` of the store ``db`` (writable) on a free port, for a test that needs a store of its own:
    yields the base URL, and stops the server when the block ends."""
    from deploy.serve import free_port, start_replica, stop, wait_healthy

    port = free_port()
    proc = start_replica(db, port, read_only=False)
    try:
        base = f"http://127.0.0.1:{port}"
        wait_healthy(base, proc, timeout_s=60)
        yield base
    finally:
        stop(proc)


class _Chromium:
    """The Chromium the browser tests share, launched when a test asks for it and closed as soon as the next test
    of this process does not (:func:`pytest_runtest_teardown`): Playwright's sync API leaves an asyncio loop
    running in the thread while it is open, which would break a later test that runs a loop of its own."""

    playwright = None
    browser = None
    shared = None

    @classmethod
    def tabs(cls) -> "_Tabs":
        if cls.browser is None:
            from playwright.sync_api import sync_playwright

            cls.playwright = sync_playwright().start()
            cls.browser = cls.playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            cls.shared = _Tabs(cls.browser)
        return cls.shared

    @classmethod
    def close(cls) -> None:
        if cls.playwright is not None:
            try:
                cls.browser.close()
            finally:
                cls.playwright.stop()
                cls.playwright = cls.browser = cls.shared = None


class _Tabs:
    """The shared Chromium as the tests use it. ``new_page(viewport=..., **options)`` hands out a tab of one browser
    context per set of context options (``is_mobile``, ``has_touch``), and the tab's ``close()`` gives it back: its
    storage is cleared and it goes to ``about:blank``, which ends its Streamlit session, and the next test's
    ``new_page`` takes it again. Each ``goto`` is a new document and a new session all the same; what a kept tab
    saves is its renderer, which has Streamlit's bundle compiled already. Measured on this 2-core machine, six page
    loads: 1.5-1.9 CPU-seconds a load in a kept tab, 3.3 in a new tab of a shared context, 4.2-4.7 in a new context
    (Playwright's ``Browser.new_page``). ``new_page(fresh=True)`` opens a tab of its own, really closed by ``close()``
    (a test of the browser history needs one that starts empty); anything else (``new_context``) is the browser's
    own. A tab a test leaves open is given back after it."""

    def __init__(self, browser):
        self._browser = browser
        self._contexts: dict = {}
        self._idle: dict = {}
        self._lent: list = []

    def new_page(self, viewport: dict | None = None, fresh: bool = False, **options):
        key = tuple(sorted(options.items()))
        idle = self._idle.setdefault(key, [])
        page = None
        while idle and not fresh and page is None:
            kept = idle.pop()
            page = None if kept.is_closed() else kept
        if page is None:
            if key not in self._contexts:
                self._contexts[key] = self._browser.new_context(**options)
            page = self._contexts[key].new_page()
            if not fresh:
                page.close = functools.partial(self._give_back, key, page)   # the tab is kept for the next test
        page.set_viewport_size(viewport or {"width": 1280, "height": 720})   # Playwright's default viewport
        self._lent.append(page)
        return page

    def _give_back(self, key, page, **_) -> None:
        if page in self._lent:
            self._lent.remove(page)
        if page.is_closed() or page in self._idle[key]:
            return
        try:
            page.evaluate("() => { try { sessionStorage.clear(); localStorage.clear(); } catch (e) {} }")
            page.goto("about:blank")
        except Exception:                  # a tab that cannot be reset is not kept
            type(page).close(page)
            return
        self._idle[key].append(page)

    def give_back_all(self) -> None:
        """Every tab a test left open goes back (or, opened ``fresh``, is closed)."""
        for page in list(self._lent):
            page.close()
        self._lent.clear()

    def __getattr__(self, name):
        return getattr(self._browser, name)


@pytest.fixture
def browser():
    """Debian's Chromium through Playwright, shared by consecutive browser tests, its tabs kept from test to test
    (:class:`_Tabs`); a tab a test leaves open is given back after it."""
    tabs = _Chromium.tabs()
    yield tabs
    tabs.give_back_all()


def pytest_configure(config):
    """No test writes the repository's own store (``data/costfrontier.duckdb``, what ``make run`` serves): a test
    that opens the default store without naming one gets a throwaway file of this test process instead."""
    if not os.environ.get("COSTFRONTIER_DB"):
        scratch = tempfile.mkdtemp(prefix="costfrontier-default-db-")
        atexit.register(shutil.rmtree, scratch, ignore_errors=True)
        os.environ["COSTFRONTIER_DB"] = str(Path(scratch) / "default.duckdb")
    # what commands keep of a store between runs (model.data.memo) goes to this test process's own folder
    kept = tempfile.mkdtemp(prefix="costfrontier-kept-")
    atexit.register(shutil.rmtree, kept, ignore_errors=True)
    os.environ["COSTFRONTIER_CACHE_DIR"] = kept


@pytest.hookimpl(trylast=True)         # after the test's fixtures are torn down (its tabs given back)
def pytest_runtest_teardown(item, nextitem):
    if nextitem is None or "browser" not in nextitem.fixturenames:
        _Chromium.close()


#: the browser journeys, in three units of work of about the same length (200 to 300 s each in a loaded ``make
#: test``): the journeys of tests/test_e2e.py; the proposal, the pinned versions and the page layouts; the numbers
#: typed, the mix and actuals, the reports, ramps and volumes
JOURNEYS = ("tests/test_e2e.py", "tests/test_e2e_[edges history layout proposal uncertainty versions]",
            "tests/test_e2e_[the others]")
_SECOND = ("edges", "history", "layout", "proposal", "uncertainty", "versions")


def _journey(nodeid: str) -> str | None:
    if nodeid.startswith("tests/test_e2e.py"):
        return JOURNEYS[0]
    if nodeid.startswith("tests/test_e2e_"):
        name = nodeid.removeprefix("tests/test_e2e_").split(".py", 1)[0]
        return JOURNEYS[1] if name in _SECOND else JOURNEYS[2]
    return None


@pytest.hookimpl(tryfirst=True)
def pytest_xdist_make_scheduler(config, log):
    """Under ``-n N --dist load`` (``make test``), each unit of :data:`JOURNEYS` goes to one worker, which runs its
    browser journeys in turn with one Chromium and one ``server``; every other test is handed out a few at a time to
    whichever worker is free, in the order :func:`pytest_collection_modifyitems` gives them, and a worker done with
    its journeys takes them too. A journey spends much of its time waiting for a page to settle (half a second with
    nothing drawn, tests/test_e2e.py), which the other workers' tests fill. (pytest-xdist's ``--dist loadgroup``
    would do this from an ``xdist_group`` mark, but with pytest 9.2 it no longer groups anything:
    pytest-dev/pytest-xdist#1386.)"""
    if config.getvalue("dist") != "load":
        return None
    return JourneysTogether(config, log)


def _scheduler():
    """:class:`xdist.scheduler.LoadScopeScheduling` with its scope being the journey's unit: the one private API of
    pytest-xdist the suite relies on (``_split_scope``), checked by tests/test_kit.py."""
    from xdist.scheduler import LoadScopeScheduling

    class JourneysTogether(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return _journey(nodeid) or nodeid

    return JourneysTogether


JourneysTogether = _scheduler()


def _function(nodeid: str) -> str:
    """A test function's id: its node id without the parameters."""
    return nodeid.split("[", 1)[0]


@cache
def _measured() -> dict[str, float]:
    import json

    return json.loads(DURATIONS.read_text()) if DURATIONS.exists() else {}


@pytest.hookimpl(tryfirst=True)          # before ``-m`` deselects: the measured ``slow`` marks count there
def pytest_collection_modifyitems(config, items):
    """Every test function :data:`DURATIONS` measured at :data:`QUICK_S` or more gets the ``slow`` mark (``make
    check`` leaves it out). In an xdist worker, the browser journeys come first (the scheduler above hands each
    unit to one worker), then the other long tests (marked e2e or slow), so a worker without journeys starts on
    those and no worker is left with one of them at the end, then the short ones. Run in one process, the
    collection's order stays."""
    measured = _measured()
    for item in items:
        if measured.get(_function(item.nodeid), 0.0) >= QUICK_S and not item.get_closest_marker("slow"):
            item.add_marker(pytest.mark.slow)
    if not hasattr(config, "workerinput"):          # not an xdist worker (whose own ``dist`` option reads "no")
        return

    def rank(item) -> int:
        if _journey(item.nodeid):
            return 0
        return 1 if any(item.get_closest_marker(mark) for mark in LONG) else 2

    items[:] = sorted(items, key=rank)


#: what a ``make durations`` run has measured so far (the controller's, or a run in one process)
_TIMES: dict[str, float] = {}


def pytest_runtest_logreport(report):
    if os.environ.get("COSTFRONTIER_DURATIONS"):
        _TIMES[report.nodeid] = _TIMES.get(report.nodeid, 0.0) + report.duration


def pytest_sessionfinish(session, exitstatus):
    """``make durations`` (COSTFRONTIER_DURATIONS=1): write :data:`DURATIONS`, each test function's slowest
    parameter's setup, call and teardown, from the reports the controller received."""
    import json

    if not os.environ.get("COSTFRONTIER_DURATIONS") or hasattr(session.config, "workerinput") or not _TIMES:
        return
    longest: dict[str, float] = {}
    for nodeid, seconds in _TIMES.items():
        longest[_function(nodeid)] = max(longest.get(_function(nodeid), 0.0), round(seconds, 2))
    DURATIONS.write_text(json.dumps(dict(sorted(longest.items())), indent=0) + "\n")
