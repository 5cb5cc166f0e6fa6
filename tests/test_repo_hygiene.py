"""The repository as a reader gets it: no merge left half done in any tracked text file."""

from __future__ import annotations

import re
import subprocess

from tests.conftest import ROOT


def test_no_tracked_file_holds_a_merge_conflict_marker():
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    marker = re.compile(r"^(<{7} |>{7} |={7}$)", re.M)
    found = []
    for name in files:
        path = ROOT / name
        if path.suffix.lower() in (".png", ".pdf", ".duckdb", ".xlsx", ".gz") or not path.is_file():
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        found += [f"{name}:{text.count(chr(10), 0, m.start()) + 1}" for m in marker.finditer(text)]
    assert not found, found
