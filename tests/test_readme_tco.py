"""The README section "On-prem TCO and fleet sizing": every example runs on the bundled data and
prints what the README shows (run in order on one database, as a reader would)."""

from __future__ import annotations

import re
import shlex

from model.cli import main
from tests.conftest import ROOT


def examples() -> list[tuple[list[str], str]]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## On-prem TCO and fleet sizing", 1)[1].split("\n## ", 1)[0]
    out = []
    for block in re.findall(r"```\n(\$ costfrontier .*?)```", section, flags=re.S):
        command, _, shown = block.partition("\n")
        out.append((shlex.split(command.removeprefix("$ costfrontier ")), shown))
    return out


def test_every_example_prints_what_the_readme_shows(sample_db, capsys):
    cases = examples()
    assert len(cases) == 3
    for args, shown in cases:
        assert main(["--db", str(sample_db), *args]) == 0
        printed = capsys.readouterr().out
        assert [line.rstrip() for line in printed.splitlines()] == [line.rstrip() for line in shown.splitlines()], args
