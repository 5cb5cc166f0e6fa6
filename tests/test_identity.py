"""Who the change log names (issue 38): a name only from a trusted proxy, never from a header a viewer sends;
stored names without control characters; text from the store printed so it cannot drive a terminal.

The end-to-end test is real: Debian's nginx from the shipped template (deploy/nginx.conf.template), a writable
``streamlit run`` replica, Chromium sending a forged ``X-Forwarded-User``, and the pin it records read back from
the store."""

from __future__ import annotations

import time

import pytest

from deploy.serve import free_port, nginx_binary, start_nginx, start_replica, stop, wait_healthy
from model.data.identity import PROXY_SECRET_HEADER, UNTRUSTED, clean, identity, printable
from model.data.ingest import ingest_file
from model.data.snapshot import write
from model.data.versions import acting, list_pins, list_versions, record_pin, version_digest
from tests.conftest import reading
from tests.kit import cli_process
from tests.test_deploy import needs_chromium

SECRET = {"COSTFRONTIER_PROXY_SECRET": "s3cret-of-the-proxy"}
FORGED = {"X-Forwarded-User": "cfo@example.com"}


def test_a_header_counts_only_from_a_trusted_proxy():
    # no trust configured: a name in the header is ignored and said to be
    assert identity(FORGED, "203.0.113.9", {}) == (UNTRUSTED, False)
    assert identity(FORGED, None, {}) == (UNTRUSTED, False)
    # the shared secret, sent by the proxy: trusted; a wrong or missing secret is not
    assert identity({**FORGED, PROXY_SECRET_HEADER: "s3cret-of-the-proxy"}, "10.0.0.2", SECRET) == \
        ("cfo@example.com", True)
    assert identity({**FORGED, PROXY_SECRET_HEADER: "guess"}, "10.0.0.2", SECRET) == (UNTRUSTED, False)
    assert identity(FORGED, "10.0.0.2", SECRET) == (UNTRUSTED, False)
    # a trusted address (None is how Streamlit reports loopback)
    env = {"COSTFRONTIER_TRUSTED_PROXIES": "10.0.0.2, 127.0.0.1"}
    assert identity(FORGED, "10.0.0.2", env) == ("cfo@example.com", True)
    assert identity(FORGED, None, env) == ("cfo@example.com", True)
    assert identity(FORGED, "10.0.0.3", env) == (UNTRUSTED, False)
    # another header name, matched case-insensitively
    env = {**SECRET, "COSTFRONTIER_USER_HEADER": "X-Auth-Request-Email"}
    assert identity({"x-auth-request-email": "ana@example.com", PROXY_SECRET_HEADER.lower(): "s3cret-of-the-proxy",
                     **FORGED}, None, env) == ("ana@example.com", True)
    # no header: the operator's own setting, else nobody
    assert identity({}, None, {"COSTFRONTIER_USER": "ops"}) == ("ops", False)
    assert identity({}, None, {}) == (None, False)


def test_names_are_stored_clean_and_printed_escaped(db_path):
    assert clean("ev\x1b[31mil\x07 \u202eadmin\n  two") == "ev[31mil admin two"
    assert clean("x" * 500) == "x" * 120
    assert clean("\x1b\x07") is None
    assert printable("a\x1b[2Jb\x07\u202e") == "a\\x1b[2Jb\\x07\\u202e"

    csv = db_path.with_name("one.csv")
    csv.write_text("hardware,gpus,concurrency,tokens_per_second_per_gpu,interactivity\nB200,8,4,900,40\n")

    def hostile(con):
        with acting("ingest", "test", "mallory\x1b]0;owned\x07"):
            ingest_file(con, csv)
            record_pin(con, 1, "board\x1b[2J deck")

    write(db_path, hostile)
    with reading(db_path) as con:
        pins = list_pins(con)
        assert pins["user"].tolist() == ["mallory]0;owned"]
        # the pin names the data it pins (issue 38: the version's digest), after the cleaned note
        assert pins["what"].tolist() == [f"board[2J deck [data {version_digest(con, 1)}]"]
        assert list_versions(con)["user"].tolist() == ["mallory]0;owned"]
    # rows an older version stored raw are printed escaped
    write(db_path, lambda con: con.execute("UPDATE pins SET user_name = 'raw\x1b[31m\x07'"))
    out = cli_process(db_path, "versions")
    assert out.returncode == 0, out.stderr
    assert "\x1b" not in out.stdout and "\x07" not in out.stdout
    out = cli_process(db_path, "versions", "--json")
    assert "\x1b" not in out.stdout and "\\u001b" in out.stdout


def _pins(db) -> list:
    with reading(db) as con:
        return [None if u != u else u for u in list_pins(con)["user"].tolist()]   # NaN: nobody named


def _pin_by_browser(browser, base: str, db, **context) -> None:
    """Open the dashboard at ``base`` in a context of its own, press "Record this pin" and wait for the pin."""
    before = len(_pins(db))
    ctx = browser.new_context(**context)
    try:
        page = ctx.new_page()
        page.goto(base + "/")
        page.get_by_text("Interactivity you need").first.wait_for(timeout=60_000)   # the page has run
        button = page.get_by_role("button", name="Record this pin")
        deadline = time.monotonic() + 30
        while len(_pins(db)) == before:
            assert time.monotonic() < deadline, "no pin was recorded"
            button.click()
            page.wait_for_timeout(1500)
    finally:
        ctx.close()


@pytest.mark.e2e
@needs_chromium
@pytest.mark.skipif(nginx_binary() is None, reason="needs Debian's nginx (.ci/run installs it with apt-get)")
def test_through_the_shipped_nginx_a_forged_header_is_never_the_who(browser, sample_db, tmp_path, monkeypatch):
    monkeypatch.delenv("COSTFRONTIER_USER", raising=False)
    htpasswd = tmp_path / "htpasswd"
    htpasswd.write_text("alice:{PLAIN}wonderland\n", encoding="utf-8")
    port, open_port, signed_port = free_port(), free_port(), free_port()
    replica = start_replica(sample_db, port, read_only=False)
    proxies = []
    try:
        wait_healthy(f"http://127.0.0.1:{port}", replica)
        proxies.append(start_nginx(tmp_path / "open", open_port, [port]))
        proxies.append(start_nginx(tmp_path / "signed", signed_port, [port], htpasswd=htpasswd))
        wait_healthy(f"http://127.0.0.1:{open_port}", proxies[0])   # the signed one answers 401 to a health check
        # 1. through nginx with no sign-in: the forged header is removed; nobody is named
        _pin_by_browser(browser, f"http://127.0.0.1:{open_port}", sample_db, extra_http_headers=FORGED)
        # 2. through nginx that signs alice in: alice, whatever header she sends
        _pin_by_browser(browser, f"http://127.0.0.1:{signed_port}", sample_db, extra_http_headers=FORGED,
                        http_credentials={"username": "alice", "password": "wonderland"})
        # 3. straight to the replica, around the proxy: the header did not come through it, so it is ignored
        _pin_by_browser(browser, f"http://127.0.0.1:{port}", sample_db, extra_http_headers=FORGED)
        users = _pins(sample_db)
        assert users == [None, "alice", UNTRUSTED]
        assert "cfo@example.com" not in str(users)
    finally:
        stop(*proxies, replica)
