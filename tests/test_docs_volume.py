"""The README section "Buy, rent or call an API": its example runs on the bundled data and prints what the
README shows (the issue's worked example: $8,643 a month, 4.99 B tokens a month break-even, $4.32/M at 2 B)."""

from __future__ import annotations

import re
import shlex

from model.cli import main
from tests.conftest import ROOT


def test_the_worked_example_prints_what_the_readme_shows(sample_db, capsys):
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Buy, rent or call an API", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```\n(\$ costfrontier .*?)```", section, flags=re.S)
    assert len(blocks) == 1
    command, _, shown = blocks[0].partition("\n")
    assert main(["--db", str(sample_db), *shlex.split(command.removeprefix("$ costfrontier "))]) == 0
    printed = capsys.readouterr().out
    assert [line.rstrip() for line in printed.splitlines()] == [line.rstrip() for line in shown.splitlines()]
    for figure in ("$8,643 a month", "19.17 B tokens a month", "$1.733/M", "4.99 B tokens a month", "$4.32/M"):
        assert figure in section
    assert "above 4.99 B tokens a month" in printed and "$4.32/M effective" in printed
