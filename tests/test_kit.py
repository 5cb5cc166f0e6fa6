"""The private APIs of pytest-xdist and Streamlit's AppTest that the suite's kit relies on (tests/conftest.py's
scheduler, tests/kit.py's ``open_page``): an upgrade that moves them fails here, loudly and by name, rather than
scheduling the browser journeys onto every worker or opening every page on the Overview without a word. And the kit
is the one way in: no other file of tests/ calls the CLI's ``main`` or makes an ``AppTest`` itself."""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

from streamlit.testing.v1 import AppTest
from xdist.scheduler import LoadScopeScheduling

from tests.conftest import JOURNEYS, JourneysTogether, _journey
from tests.kit import OVERVIEW, open_page

TESTS = Path(__file__).resolve().parent
#: what only tests/kit.py may call: the CLI's entry point and AppTest's constructors
CLI_MAIN = "model.cli.main"
APPTEST = "streamlit.testing.v1.AppTest"
APPTEST_MAKERS = {APPTEST, *(f"{APPTEST}.{name}" for name in ("from_file", "from_string", "from_function"))}


def test_the_xdist_scheduler_hook_groups_the_journeys_by_the_api_it_overrides():
    assert "_split_scope" in vars(LoadScopeScheduling), (
        "pytest-xdist no longer has LoadScopeScheduling._split_scope: tests/conftest.py's JourneysTogether must "
        "group the browser journeys another way")
    assert list(inspect.signature(LoadScopeScheduling._split_scope).parameters) == ["self", "nodeid"]
    assert JourneysTogether._split_scope is not LoadScopeScheduling._split_scope
    split = JourneysTogether._split_scope
    assert split(None, "tests/test_e2e.py::test_x[a]") == split(None, "tests/test_e2e.py::test_y") == JOURNEYS[0]
    assert split(None, "tests/test_e2e_layout.py::t") == split(None, "tests/test_e2e_versions.py::t") == JOURNEYS[1]
    assert split(None, "tests/test_e2e_numbers.py::t") == split(None, "tests/test_e2e_report.py::t") == JOURNEYS[2]
    assert split(None, "tests/test_app.py::t") == "tests/test_app.py::t" and _journey("tests/test_app.py::t") is None


def test_apptest_opens_a_page_by_the_hash_its_address_carries(sample_db, monkeypatch):
    source = inspect.getsource(AppTest)
    for name in ("_page_hash", "_finished_page_script_hash"):
        assert name in source, f"Streamlit's AppTest no longer reads {name}: tests/kit.py's open_page must change"
    monkeypatch.setenv("COSTFRONTIER_DB", str(sample_db))
    at = open_page("views/frontier.py", run=True)          # asserts the page it opened is the one asked for
    assert not at.exception and at.title[0].value == "Frontier"
    assert open_page(OVERVIEW).title[0].value == "Cost Frontier"


def _bypasses(source: str) -> list[tuple[int, str]]:
    """(line, what) of each call in ``source`` of the CLI's ``main`` or of an AppTest constructor, by the dotted name
    it resolves to through the file's imports (``from model.cli import main as run``, ``import model.cli as m`` then
    ``m.main``, ``model.cli.main``, ``from streamlit.testing.v1 import AppTest`` then ``AppTest.from_file``), wherever
    the import is (a function's own imports count)."""
    tree = ast.parse(source)
    bound: dict[str, str] = {}                  # a name in the file -> the dotted name it stands for
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    bound[alias.asname] = alias.name
                else:
                    top = alias.name.split(".")[0]
                    bound[top] = top
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                bound[alias.asname or alias.name] = f"{node.module}.{alias.name}"

    def dotted(func: ast.expr) -> str | None:
        parts = []
        while isinstance(func, ast.Attribute):
            parts.append(func.attr)
            func = func.value
        if not isinstance(func, ast.Name) or func.id not in bound:
            return None
        return ".".join([bound[func.id], *reversed(parts)])

    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and (name := dotted(node.func)) in (CLI_MAIN, *APPTEST_MAKERS):
            found.append((node.lineno, name))
    return sorted(found)


def test_the_guard_finds_each_way_of_calling_main_or_making_an_apptest():
    calls = {
        "from model.cli import main\nmain(['iso'])": [(2, CLI_MAIN)],
        "from model.cli import main as run\ndef f():\n    return run([]) == 0": [(3, CLI_MAIN)],
        "import model.cli\nmodel.cli.main(['iso'])": [(2, CLI_MAIN)],
        "import model.cli as m\nm.main([])": [(2, CLI_MAIN)],
        "from model import cli\ncli.main([])": [(2, CLI_MAIN)],
        "def t():\n    from streamlit.testing.v1 import AppTest\n    AppTest.from_file('app.py').run()":
            [(3, f"{APPTEST}.from_file")],
        "from streamlit.testing.v1 import AppTest as A\nA.from_string('x')": [(2, f"{APPTEST}.from_string")],
        "import streamlit.testing.v1 as t\nt.AppTest('app.py', 'app.py', 3)": [(2, APPTEST)],
    }
    for source, expected in calls.items():
        assert _bypasses(source) == expected, source
    # the kit's own names, another ``main`` and a command named in a process's argument list are not the CLI's main
    fine = ("from tests.kit import cli, open_page\ncli(None, 'iso')\nopen_page()\n"
            "from deploy.warm import main\nmain([])\nimport subprocess\n"
            "subprocess.run(['python', '-m', 'model.cli', 'iso'])\nfrom model.cli.options import view_of_link\n"
            "view_of_link('x')")
    assert _bypasses(fine) == []


def test_only_the_kit_calls_the_cli_main_or_makes_an_apptest():
    """Every test runs the command line and opens a page through tests/kit.py (``cli``, ``cli_json``,
    ``cli_process``, ``cli_started``, ``open_page``): one place that captures output, handles argparse's exit and
    opens a page as its link does."""
    sources = {path: path.read_text(encoding="utf-8") for path in sorted(TESTS.rglob("*.py"))
               if path != TESTS / "kit.py"}
    # every call the guard finds has the word main or AppTest in its file: only those files are parsed
    found = [f"{path.relative_to(TESTS.parent)}:{line}: {name}" for path, text in sources.items()
             if re.search(r"\bmain\b", text) or "AppTest" in text for line, name in _bypasses(text)]
    assert not found, "call these through tests/kit.py instead:\n" + "\n".join(found)
