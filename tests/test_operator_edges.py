"""Operator edges of a shared deployment (issue 32): ``deploy/warm.py`` against malformed addresses and a server
that keeps sending, ``COSTFRONTIER_PUBLIC_URL`` checked, workbook sheet names Excel opens, money with significant
digits, and one PDF print job at a time per replica.

Real processes (``warm.py``, ``costfrontier``), a real TCP server, real Chromium prints, openpyxl round trips.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.kit import cli, cli_process
from tests.test_reliability import assert_no_traceback

# ------------------------------------------------------------------ money with significant digits

def test_money_never_runs_to_hundreds_of_digits(sample_db):
    from model.present import fmt
    from model.present.report_output import round_usd

    assert fmt.usd(5e-324) == "$4.9e-324/M"
    assert fmt.usd(6.559e307, "") == "$6.56e+307"
    assert fmt.usd(0.000423) == "$0.00042/M" and fmt.usd(0.2194) == "$0.22/M" and fmt.usd(0) == "$0.00/M"
    assert fmt.dollars(156604.2) == "$156,604" and fmt.dollars(5e-324) == "$4.9e-324"
    assert fmt.usd_decimals(1e-9) == 8 and fmt.usd(2e-7, "/h") == "$0.00000020/h"
    assert round_usd(5e-324) == 4.9e-324 and round_usd(0.0612) == 0.061
    # a subnormal API price is no price (issue 53: refused in words); the smallest one taken prints in a few digits
    done = cli(sample_db, "volume", "--tokens-per-month", "1e9", "--api-usd", "5e-324,0,5e-324")
    assert_no_traceback(done)
    assert done.code == 2 and "at least 1e-6" in done.err
    done = cli(sample_db, "volume", "--tokens-per-month", "1e9", "--api-usd", "2e-6,0,2e-6")
    assert_no_traceback(done)
    assert done.code == 0
    assert "API price: custom prices (provider not stated), $0.0000020/M input, $0.00/M cached input, " \
           "$0.0000020/M output, read on an unstated date" in done.out
    assert max(len(w) for w in (done.out + done.err).split()) < 60


# ------------------------------------------------------------------ sheet names

def test_sheet_names_within_31_characters_and_unique(tmp_path):
    """Many similarly named profiles' tables once got 32-character names (openpyxl's "1" on a repeat)."""
    from openpyxl import Workbook, load_workbook

    from model.present.report_output import SHEET_NAME_LIMIT, sheet_names

    names = [f"Cost profile 'H200 quote for the team {i}' rates" for i in range(12)] + \
        ["Assumptions", "assumptions", "a[b]:c*d?e/f\\g", "'quoted'", ""]
    titles = sheet_names(names)
    assert SHEET_NAME_LIMIT == 31
    assert all(0 < len(t) <= 31 for t in titles), titles
    assert len({t.lower() for t in titles}) == len(titles)
    assert titles[1] == "Cost profile 'H200 quote fo (2)" and titles[13] == "assumptions (2)"
    assert titles[14] == "abcdefg" and titles[15] == "quoted" and titles[16] == "Sheet"
    book = Workbook()
    book.remove(book.active)   # as model.present.workbook.report_xlsx does
    for t in titles:
        book.create_sheet(t)
    book.save(tmp_path / "x.xlsx")
    assert load_workbook(tmp_path / "x.xlsx").sheetnames == titles


# ------------------------------------------------------------------ operator edges: warm.py

@pytest.mark.parametrize("url, words", [("http://127.0.0.1:NNNNabc", "is not an address (a port must be a number"),
                                        ("http://[::1", "is not an address"),
                                        ("", "no address given; write it as http://HOST:PORT"),
                                        ("ftp://127.0.0.1:1", "is not an http:// or https:// address")])
def test_warm_says_what_is_wrong_with_its_url(url, words):
    done = subprocess.run([sys.executable, str(ROOT / "deploy" / "warm.py"), "--url", url, "--wait", "5"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert done.stdout.startswith("--url: ") and words in done.stdout and done.stdout.endswith("; not warmed\n")
    assert "Traceback" not in done.stderr, done.stderr


def test_warm_honours_its_wait_against_a_server_that_keeps_sending():
    """A server that answers the health check with bytes without end once held warm.py 150 s into an 8 s wait
    (and serve.py from starting nginx)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    port = listener.getsockname()[1]
    stop = threading.Event()

    def serve():
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                continue
            threading.Thread(target=drip, args=(conn,), daemon=True).start()

    def drip(conn):
        try:
            conn.sendall(b"HTTP/1.1 200 OK\r\n")
            while not stop.is_set():
                conn.sendall(b"X-More: 1\r\n")
                time.sleep(0.05)
        except OSError:
            pass
        finally:
            conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        start = time.monotonic()
        done = subprocess.run([sys.executable, str(ROOT / "deploy" / "warm.py"), "--url",
                               f"http://127.0.0.1:{port}", "--wait", "3"], capture_output=True, text=True,
                              timeout=60)
        took = time.monotonic() - start
    finally:
        stop.set()
        thread.join(5)
        listener.close()
    assert done.returncode == 1
    assert done.stdout == f"no answer from http://127.0.0.1:{port} within 3 s; not warmed\n"
    assert took < 3 + 4, took   # the wait, plus the interpreter's start


# ------------------------------------------------------------------ operator edges: the public address

@pytest.mark.parametrize("value, why", [("https://", "names no host"), ("ftp://cf.example/", "must start with http"),
                                        ("http://[::1", "is not an address"),
                                        ("https://cf.example:99999/", "is not an address"),
                                        ("https://cf.example/?a=1", "must not carry a query")])
def test_a_bad_public_url_is_named_and_links_fall_back(value, why, monkeypatch, capsys):
    from model.core import links

    monkeypatch.setenv("COSTFRONTIER_PUBLIC_URL", value)
    assert why in links.public_url_problem()
    assert links.public_url_problem().startswith(f"COSTFRONTIER_PUBLIC_URL={value!r} ")
    assert links.public_base_url() is None
    assert links.view_url({"x": "50"}, "Crossovers", links.public_base_url() or "http://10.0.0.5:8501/") == \
        "http://10.0.0.5:8501/Crossovers?x=50"
    assert "warning: COSTFRONTIER_PUBLIC_URL=" in capsys.readouterr().err
    monkeypatch.setenv("COSTFRONTIER_PUBLIC_URL", "https://cf.example/team")
    assert links.public_url_problem() is None and links.public_base_url() == "https://cf.example/team/"


def test_the_cli_report_link_falls_back_on_a_bad_public_url(sample_db, tmp_path):
    """A process of its own: the address is read, and a bad one warned about, once per process."""
    out = tmp_path / "r.html"
    done = cli_process(sample_db, "report", "--out", out, env={"COSTFRONTIER_PUBLIC_URL": "https://"})
    assert done.returncode == 0, done.stderr
    assert "COSTFRONTIER_PUBLIC_URL='https://' names no host" in done.stderr
    html = out.read_text()
    assert "https:/Crossovers" not in html and "https:///" not in html
    assert "http://localhost:8501/" in html


# ------------------------------------------------------------------ one PDF print at a time per replica

def _chromium_children() -> int:
    """Chromium processes this test process started itself (one per print job)."""
    me, count = str(os.getpid()), 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        name, rest = text[text.index("(") + 1:text.rindex(")")], text[text.rindex(")") + 2:].split()
        count += rest[1] == me and "chrom" in name
    return count


@pytest.mark.slow
def test_three_pdfs_at_once_print_one_at_a_time(tmp_path):
    """Three viewers pressing "Prepare PDF" at once once started three Chromium print jobs (4.1 GB peak):
    a replica now prints one at a time, the two others told they wait, and all three PDFs come out whole."""
    from model.present.report_output import chromium_path, html_to_pdf

    if chromium_path() is None:
        pytest.skip("no Chromium")
    waited, results, peak, done = [], {}, [0], threading.Event()

    def watch():
        while not done.is_set():
            peak[0] = max(peak[0], _chromium_children())
            time.sleep(0.02)

    def one(i):
        path = html_to_pdf(f"<h1>Report {i}</h1>" + "<p>x</p>" * 200, tmp_path / f"r{i}.pdf",
                           on_wait=lambda: waited.append(i))
        results[i] = path.read_bytes()

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    threads = [threading.Thread(target=one, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)
    done.set()
    watcher.join(5)
    assert sorted(results) == [0, 1, 2] and all(b.startswith(b"%PDF") for b in results.values())
    assert len(waited) == 2, waited          # the first prints at once, the two others queue and are told
    assert peak[0] == 1, peak                 # never two Chromium print jobs at a time
