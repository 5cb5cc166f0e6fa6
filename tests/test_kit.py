"""The private APIs of pytest-xdist and Streamlit's AppTest that the suite's kit relies on (tests/conftest.py's
scheduler, tests/kit.py's ``open_page``): an upgrade that moves them fails here, loudly and by name, rather than
scheduling the browser journeys onto every worker or opening every page on the Overview without a word."""

from __future__ import annotations

import inspect

from streamlit.testing.v1 import AppTest
from xdist.scheduler import LoadScopeScheduling

from tests.conftest import JOURNEYS, JourneysTogether, _journey
from tests.kit import OVERVIEW, open_page


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
