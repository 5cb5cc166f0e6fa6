"""The Data page under AppTest: upload, metadata form, preview before commit, refusals, read-only mode;
and hostile share links thrown at every page."""

from __future__ import annotations

import re
import string

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

from model.core.view import View
from model.data.store import list_sources
from tests.checksums import table_checksums
from tests.conftest import FIXTURES, reading
from tests.kit import open_page
from tests.test_app import PAGES, _db

DATA = "views/data.py"
FORMATS = sorted(p for p in (FIXTURES / "formats").iterdir() if p.suffix in (".json", ".jsonl", ".csv"))


@pytest.fixture
def data_page(tmp_path, monkeypatch):
    def make(samples: bool = True) -> tuple[AppTest, str]:
        db = str(_db(tmp_path, samples))
        monkeypatch.setenv("COSTFRONTIER_DB", db)
        return open_page(DATA), db
    return make


def _checksums(db: str):
    with reading(db) as con:
        return table_checksums(con)


def _raw(elements) -> str:
    return "\n".join(e.value for e in elements)


def _texts(elements) -> str:
    """What the reader sees: the page escapes Markdown characters in text that came from files."""
    return re.sub(r"\\(.)", r"\1", _raw(elements))


@pytest.mark.parametrize("fixture", FORMATS, ids=lambda p: p.name)
def test_every_format_uploads_with_the_form_and_a_preview(data_page, fixture):
    at, db = data_page()
    at.file_uploader(key="upload_0").upload(fixture.name, fixture.read_bytes())
    at.text_input(key="meta_hardware").input("H100")
    at.text_input(key="meta_gpus").input("8")
    at.text_input(key="meta_concurrency").input("8")
    at.run()
    assert not at.exception
    assert not at.error, _texts(at.error)
    assert f"{fixture.name}:" in _texts(at.success)          # the preview line: format -> rows
    before = _checksums(db)
    assert before == _checksums(db)                          # previewing stored nothing
    at.button(key="ingest").click().run()
    assert not at.exception and not at.error, _texts(at.error)
    with reading(db) as con:
        assert fixture.name in set(list_sources(con)["file_name"])


def test_missing_fields_are_asked_for_then_filled_by_the_form(data_page):
    fixture = FIXTURES / "formats" / "vllm_serve.json"
    at, db = data_page()
    at.file_uploader(key="upload_0").upload(fixture.name, fixture.read_bytes())
    at.run()
    message = _texts(at.error)
    assert len(at.error) == 1 and message.startswith("**vllm_serve.json**")     # one box for the file,
    assert message.count("**Hardware**") == message.count("**GPUs serving each point**") == 1, message  # each field once
    assert not any(b.key == "ingest" for b in at.button)              # nothing to commit yet
    at.text_input(key="meta_hardware").input("H200")
    at.text_input(key="meta_gpus").input("8")
    at.run()
    assert not at.error
    before = _checksums(db)
    at.button(key="ingest").click().run()
    after = _checksums(db)
    assert after["points"][0] > before["points"][0]


@pytest.mark.parametrize("name,content,words", [
    ("bad.csv", b"hardware,tput_per_gpu,tok_s_user\nB200,12x,40\n", "line 2, field 'tput_per_gpu'"),
    ("empty.csv", b"", "empty"),
    ("garbage.json", b"{\"not\": [1, 2", "garbage.json"),
    ("<b>x</b>.csv", b"hardware,tput_per_gpu,tok_s_user\n=HYPERLINK(\"http://x\"),-1,40\n", "holds '='"),
])
def test_bad_files_are_refused_on_the_page_and_change_nothing(data_page, name, content, words):
    at, db = data_page()
    before = _checksums(db)
    at.file_uploader(key="upload_0").upload(name, content)
    at.run()
    assert not at.exception
    assert words in _texts(at.error)
    assert not any(b.key == "ingest" for b in at.button)         # nothing to commit
    assert _checksums(db) == before


def test_file_names_render_as_text_not_markup(data_page):
    at, _ = data_page()
    at.file_uploader(key="upload_0").upload("<img src=x onerror=alert(1)>.csv", b"hardware,tok_s_user\nB200,abc\n")
    at.run()
    # the markdown source carries escaped characters, so Streamlit shows them literally
    assert "\\<img src=x onerror=alert\\(1\\)\\>" in _raw(at.error)


def test_read_only_mode_hides_uploads_and_deletes(tmp_path, monkeypatch):
    monkeypatch.setenv("COSTFRONTIER_DB", str(_db(tmp_path, True)))  # built first: read-only mode writes nothing
    monkeypatch.setenv("COSTFRONTIER_READ_ONLY", "1")
    at = open_page(DATA)
    assert not at.exception
    assert "read-only" in _texts(at.info)
    assert not any(getattr(w, "key", None) in ("upload", "delete") for w in at.button) and not at.get("file_uploader")


_keys = st.sampled_from(["wl", "hw", "fw", "prec", "spec", "by", "basis", "method", "ps", "tier", "r", "at", "base",
                         "x", "y", "opt", "pair", "sla", "win", "wc", "tol", "cmp", "cmpb", "peak", "zz", "__proto__"])
_values = st.one_of(
    st.text(alphabet=string.printable, max_size=40),
    st.sampled_from(["-1", "0", "1e308", "nan", "inf", "B200:-5", "B200:1e9", "ttft_p95=-1", "tpot=abc",
                     "';DROP TABLE points;--", "<script>alert(1)</script>", "**bold**", "=1+1", "x" * 10_000,
                     "hardware,hardware", "||", "MI355X:1.2,B200:2.5"]),
    st.floats(allow_nan=True, allow_infinity=True).map(str),
)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                HealthCheck.too_slow])
@given(page=st.sampled_from(PAGES), query=st.dictionaries(_keys, st.lists(_values, min_size=1, max_size=3),
                                                         max_size=5))
def test_hostile_links_never_raise(tmp_path_factory, monkeypatch, page, query):
    db = tmp_path_factory.getbasetemp() / "hostile.duckdb"
    if not db.exists():
        _db(db.parent, True).rename(db)
    monkeypatch.setenv("COSTFRONTIER_DB", str(db))
    at = open_page(page, query)                    # repeated keys arrive as lists
    assert not at.exception, (page, query, at.exception)
    _, notices = View.from_query(query)
    if notices:                                    # every value the link parser refused is shown as a notice
        shown = _texts(at.warning) + "\n" + re.sub(r"\\(.)", r"\1", "\n".join(at.link_warnings))
        assert all(n.split(":")[0].lower() in shown.lower() for n in notices), (notices, shown)
