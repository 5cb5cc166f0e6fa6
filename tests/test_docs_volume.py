"""The manual's worked example of buy, rent or API (docs/numbers/volume.md, "A worked example"): the figures its prose
states ($8,643 a month, 19.17 B tokens a month, $1.733/M, 4.99 B tokens a month break-even, $4.32/M at 2 B) are the
ones its command prints on the bundled data. tests/test_docs.py checks the printed lines the page shows; this checks
the sentences around them."""

from __future__ import annotations

import shlex

from tests.kit import cli
from tests.test_docs import DOCS, examples


def test_the_worked_example_says_what_its_command_prints(sample_db):
    page = DOCS / "numbers" / "volume.md"
    section = page.read_text(encoding="utf-8").split("## A worked example", 1)[1].split("\n## ", 1)[0]
    (example,) = [e for e in examples(page) if e.command in section]
    code, printed, _ = cli(sample_db, *shlex.split(example.command)[1:])
    assert code == 0
    for figure in ("$8,643 a month", "19.17 B tokens a month", "$1.733/M", "4.99 B tokens a month", "$4.32/M",
                   "7.08 B"):
        assert figure in section, figure
    assert "above 4.99 B tokens a month" in printed and "$4.32/M effective" in printed
    assert "above 7.08 B tokens a month" in printed and "8,643" in printed and "1.733" in printed
