"""The suite's one test kit: how a test runs the command line and opens a page.

- :func:`cli` runs ``costfrontier`` in this process (``model.cli.main``: the code the console script runs), with its
  standard output and error captured; :func:`cli_json` adds ``--json`` and reads the object it prints;
  :func:`cli_process` runs it as a real process of its own, for the tests whose subject is the process (Ctrl-C,
  concurrent writers, a cold start), and :func:`cli_started` starts one and leaves it running (a test that reads
  its output as it goes, or signals it).
- No other file of tests/ calls ``model.cli.main`` or makes an ``AppTest`` itself (``tests/test_kit.py`` checks).
- :func:`open_page` opens the app (its frame, ``app.py``) on one page from a link under Streamlit's AppTest.

AppTest's internals this kit relies on (the page hash a first request carries) are pinned by the Streamlit version in
pyproject.toml and checked by ``tests/test_kit.py``, which fails loudly when they change.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from streamlit.testing.v1 import AppTest
from streamlit.util import calc_hash

from model.cli import main
from ui.frame import PAGES as FRAME_PAGES

__all__ = ["ROOT", "Run", "cli", "cli_json", "cli_process", "cli_started", "open_page", "report_of_view", "rate_box", "OVERVIEW",
           "URL_PATH_OF"]

ROOT = Path(__file__).resolve().parent.parent
OVERVIEW = "views/overview.py"
#: each page's script -> its URL path (ui.frame.PAGES)
URL_PATH_OF = {script: path for script, _, path, _ in FRAME_PAGES}


@dataclass(frozen=True)
class Run:
    """What one ``costfrontier`` command did: its exit code and what it printed."""

    code: int
    out: str
    err: str

    @property
    def lines(self) -> list[str]:
        return self.out.splitlines()

    def __iter__(self):                   # code, out, err = cli(...)
        return iter((self.code, self.out, self.err))


def cli(db: str | os.PathLike | None, *argv: str) -> Run:
    """``costfrontier [--db DB] ARGV...`` run in this process; its exit code and output (nothing is printed)."""
    out, err = io.StringIO(), io.StringIO()
    args = [*(["--db", str(db)] if db is not None else []), *map(str, argv)]
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(args)
        except SystemExit as exc:         # argparse's usage errors and --help
            code = exc.code if isinstance(exc.code, int) else 2
    return Run(int(code or 0), out.getvalue(), err.getvalue())


def cli_json(db: str | os.PathLike | None, *argv: str) -> dict:
    """The object ``costfrontier ... --json`` prints; the command must succeed."""
    done = cli(db, *argv, "--json")
    assert done.code == 0, done.err
    return json.loads(done.out)


def _process_args(db: str | os.PathLike | None, argv: tuple) -> list[str]:
    return [sys.executable, "-m", "model.cli", *(["--db", str(db)] if db is not None else []), *map(str, argv)]


def cli_process(db: str | os.PathLike | None, *argv: str, env: dict | None = None,
                timeout: float = 300) -> subprocess.CompletedProcess:
    """``python -m model.cli [--db DB] ARGV...`` as a process of its own, from the repository's root."""
    return subprocess.run(_process_args(db, argv), cwd=ROOT, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})})


def cli_started(db: str | os.PathLike | None, *argv: str, env: dict | None = None, **popen) -> subprocess.Popen:
    """The same process started and left running: its output as text pipes (unless ``popen`` says otherwise)."""
    options = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, "text": True, **popen}
    return subprocess.Popen(_process_args(db, argv), cwd=ROOT, env={**os.environ, **(env or {})}, **options)


def open_page(page: str = OVERVIEW, query: dict | None = None, run: bool = True) -> AppTest:
    """The app (its frame, ``app.py``) opened on ``page`` from a link carrying ``query``, as its address opens it: a
    browser's first request names the page by its URL path, whose hash picks the page in ``st.navigation``, so the
    first run draws that page (and the shared sidebar), not the Overview first. AppTest's ``switch_page`` finds a
    page only after a run has registered the pages, so the first run is given the page's hash as a session opened
    at ``/<url path>`` is (``_page_hash``: AppTest's request, pinned by the Streamlit version in pyproject.toml)."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    for key, value in (query or {}).items():
        at.query_params[key] = value
    if page != OVERVIEW:
        at._page_hash = calc_hash(URL_PATH_OF[page])
    if run:
        at.run()
        at.link_warnings = [w.value for w in at.warning]   # a link's notices show on the page it opens
        if page != OVERVIEW and not at.exception:
            assert at._finished_page_script_hash == at._page_hash, f"{page} did not open"
    return at


def rate_box(at: AppTest, hw: str):
    """The sidebar's exact-rate box of ``hw`` (its key names the text it was drawn with: ui.sidebar.exact_rate_key)."""
    return next(t for t in at.text_input if str(t.key).startswith(f"rate_exact::{hw}::"))


def report_of_view(con, state, link: str | None = None, **kwargs) :
    """The report of a view (a :class:`model.core.view.View`) on the store ``con``, as ``costfrontier report`` makes
    it: :func:`model.present.report.build_report` of its answer, with the mix and the plan against actual
    (:func:`model.present.report_sections.report_extras`) when the view holds them. ``kwargs`` go to
    :func:`~model.present.report.build_report`."""
    from model.present.actual_answer import comparison_on
    from model.present.report import build_report
    from model.present.report_sections import report_extras, report_parts
    from model.present.view_answer import answer_of_view


    answer = answer_of_view(con, state, report_parts(state))
    extras = report_extras(answer.view, lambda v, parts: answer_of_view(con, v, parts),
                           lambda plan, basis: comparison_on(con, plan, basis))
    return build_report(answer, link, extras=extras, **kwargs)
