"""The manual cannot drift from the code.

- The site builds with ``mkdocs build --strict`` (what ``make docs`` serves) (a broken link, a missing page or an unknown anchor fails it), and
  its generated pages name every command and option the parser has and every field of a view with its link key.
- Every ``costfrontier`` line in a fenced block of docs/**/*.md and README.md runs on the bundled samples (one copy
  of the store per page, the examples in the page's order, as a reader would type them) and exits 0; after
  ``$ costfrontier ...`` the lines shown are what it prints on stdout (a line ``...`` stands for any number of
  lines; stderr's ``note:`` lines, some of which age by the day, are not compared). A command quoted in running
  text names only options its command has.
- README.md is a front door: short, and it links every page of the manual.
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from model.cli import parser
from model.core.view_fields import FIELDS
from tests.conftest import ROOT, samples_copy
from tests.kit import cli

DOCS = ROOT / "docs"
README = ROOT / "README.md"
#: a shown line that stands for any number of printed lines
ELIDED = ("...", "…")


@dataclass
class Example:
    """One ``costfrontier`` line of a page: where it is, the command, and the lines shown after it (None: the page
    shows no output for it)."""

    page: Path
    line: int
    command: str
    shown: list[str] | None = field(default=None)

    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def examples(page: Path) -> list[Example]:
    """Every ``costfrontier`` line in the page's fenced blocks. ``$ costfrontier ...`` is followed by the output
    the page shows; a bare ``costfrontier ...`` line shows none. Synopses (``[--option ...]``, ``...``) are not
    examples."""
    found: list[Example] = []
    fenced, shown = False, None
    for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced, shown = not fenced, None
            continue
        if not fenced:
            continue
        command = line.removeprefix("$ ")
        if command.startswith("costfrontier "):
            shown = None
            if not re.search(r" \[|\.\.\.|…", command):
                found.append(Example(page, number, command, [] if line.startswith("$ ") else None))
                shown = found[-1].shown
        elif line.startswith("$ "):
            shown = None
        elif shown is not None:
            shown.append(line.rstrip())
    for example in found:    # a block's trailing blank lines are not output
        while example.shown and not example.shown[-1]:
            example.shown.pop()
    return found


def pages() -> list[Path]:
    return [README, *sorted(DOCS.rglob("*.md"))]


def _matches(shown: list[str], printed: list[str]) -> bool:
    """The printed lines are the shown ones, a shown ``...`` standing for any number of printed lines."""
    if not shown:
        return not printed
    if shown[0].strip() in ELIDED:
        return any(_matches(shown[1:], printed[i:]) for i in range(len(printed) + 1))
    return bool(printed) and printed[0] == shown[0] and _matches(shown[1:], printed[1:])


def _reader_folder(tmp_path: Path) -> Path:
    """A working folder as a reader's checkout looks to an example: ``data/samples`` and ``tests/fixtures`` of the
    repository, and ``data/costfrontier.duckdb`` a copy of the samples store (``$COSTFRONTIER_DB`` points at it)."""
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "samples").symlink_to(ROOT / "data" / "samples")
    (tmp_path / "tests").symlink_to(ROOT / "tests")
    samples_copy(tmp_path / "data" / "costfrontier.duckdb")
    return tmp_path


def run_examples(found: list[Example]) -> list[str]:
    """Run the examples in order in the current folder; the problems found, each naming the page and line."""
    problems = []
    for example in found:
        captured = cli(None, *shlex.split(example.command, comments=True)[1:])   # argparse's exit is a code too
        code = captured.code
        printed = [x.rstrip() for x in captured.out.splitlines()]
        if code != 0:
            said = [x for x in captured.err.splitlines() if not x.startswith(("usage:", " "))]
            problems.append(f"{example.where()}: {example.command}\nexit {code}: " + "\n".join(said))
        elif example.shown is not None and not _matches(example.shown, printed):
            diff = "\n".join(difflib.unified_diff(example.shown, printed, "shown", "printed", lineterm="", n=1))
            problems.append(f"{example.where()}: {example.command}\n{diff}")
    return problems


WITH_EXAMPLES = [p for p in pages() if examples(p)]


@pytest.mark.parametrize("page", WITH_EXAMPLES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_example_runs_and_prints_what_the_page_shows(page, samples_template, tmp_path, monkeypatch):
    monkeypatch.chdir(_reader_folder(tmp_path))
    monkeypatch.setenv("COSTFRONTIER_DB", str(tmp_path / "data" / "costfrontier.duckdb"))
    problems = run_examples(examples(page))
    assert not problems, "\n\n".join(problems)


def test_the_manual_has_examples_with_output():
    found = [e for p in pages() for e in examples(p)]
    assert len(found) >= 30 and sum(e.shown is not None for e in found) >= 20
    assert {p.name for p in WITH_EXAMPLES} >= {"README.md", "getting-started.md", "procurement.md"}


def test_an_example_that_prints_something_else_is_caught():
    assert _matches(["a", "...", "d"], ["a", "b", "c", "d"]) and _matches(["a", "..."], ["a"])
    assert not _matches(["a", "b"], ["a", "c"]) and not _matches(["a"], ["a", "b"]) and not _matches(["a"], [])


def test_every_command_in_the_text_takes_the_options_it_is_shown_with():
    """Commands quoted in running text (`` `costfrontier size --demand-rps 100` ``, `` `iso --link` ``) do not run, but
    each option they name must be one the parser gives that command: a renamed option fails here too."""
    top = parser()
    sub = next(a for a in top._actions if isinstance(a, argparse._SubParsersAction))
    common = {flag for a in top._actions for flag in a.option_strings}
    checked, wrong = 0, []
    for page in pages():
        text = " ".join(re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S).splitlines())
        for span in re.findall(r"`([^`]+)`", text):
            words = span.split()
            words = words[1:] if words[:1] == ["costfrontier"] else words if words[1:2] and \
                words[1].startswith("--") else []
            while words[:1] == ["--db"]:
                words = words[2:]
            if not words or words[0] not in sub.choices:
                continue
            checked += 1
            takes = common | {flag for a in sub.choices[words[0]]._actions for flag in a.option_strings}
            wrong += [f"{page.relative_to(ROOT)}: `{span}`: {flag}"
                      for flag in re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", span) if flag not in takes]
    assert checked >= 30 and not wrong, wrong


# ------------------------------------------------------------------------------------------ the site

def _sections(html: str, level: int) -> dict[str, str]:
    """The HTML after each heading of ``level`` with an id, up to the next heading of that level or above."""
    parts = re.split(rf"(<h[1-{level}] id=\"[^\"]+\")", html)
    return {re.search(r'id="([^"]+)"', head).group(1): body for head, body in zip(parts[1::2], parts[2::2])}


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The manual built with ``mkdocs build --strict``, once per test process (a folder of its own: the tests that
    read it may run in several xdist workers at once)."""
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)], cwd=ROOT,
                          capture_output=True, text=True, timeout=300, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    said = [line for line in (done.stdout + done.stderr).splitlines() if "WARNING" in line or "Error" in line]
    assert done.returncode == 0, "mkdocs build --strict failed (pip install -e '.[docs]' if mkdocs is missing):\n" + \
        "\n".join(said or [done.stderr[-3000:]])
    return out


def test_the_manual_builds_with_strict(site):
    assert (site / "index.html").exists() and (site / "reference" / "cli" / "index.html").exists()
    assert not (site / "hooks.py").exists()


def test_the_cli_reference_lists_every_command_and_option_of_the_parser(site):
    html = (site / "reference" / "cli" / "index.html").read_text(encoding="utf-8")
    h2, h3 = _sections(html, 2), _sections(html, 3)
    top = parser()
    sub = next(a for a in top._actions if isinstance(a, argparse._SubParsersAction))
    every = h2["every-command-takes"]
    assert all(f"<code>{flag}</code>" in every for a in top._actions for flag in a.option_strings)
    missing = []
    for name, command in sub.choices.items():
        assert name in h2, f"no section for costfrontier {name}"
        own = h2[name].split('<h3 id="', 1)[0]
        groups = [h3[g] for g in re.findall(r'href="#(options-[a-z]+)"', own)]
        for action in command._actions:
            for flag in action.option_strings or [action.metavar or action.dest]:
                if not any(f"<code>{flag}</code>" in text for text in (own, every, *groups)):
                    missing.append(f"costfrontier {name} {flag}")
    assert not missing, missing
    documented = set(re.findall(r'<h2 id="([a-z-]+)">costfrontier ', html))
    assert documented == set(sub.choices), "the reference documents a command the parser does not have"


def test_the_link_key_table_lists_every_field_of_a_view(site):
    html = (site / "reference" / "link-keys" / "index.html").read_text(encoding="utf-8")
    rows = {re.search(r"<td><code>([^<]+)</code></td>\s*<td>([^<]+)</td>", row).groups()
            for row in re.findall(r"<tr>(.*?)</tr>", html, flags=re.S)[1:]}
    assert rows == {(f.key, f.name) for f in FIELDS}


# ------------------------------------------------------------------------------------------ the README

def test_the_readme_is_a_front_door_that_links_every_page_of_the_manual():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 150
    for needed in ("make run", "make test", "make check", "make docs"):
        assert needed in text, needed
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text)
    local = [t for t in targets if not re.match(r"[a-z]+://", t)]
    assert all((ROOT / t).exists() for t in local), [t for t in local if not (ROOT / t).exists()]
    manual = {p.relative_to(ROOT).as_posix() for p in DOCS.rglob("*.md")}
    assert manual <= set(local), sorted(manual - set(local))
    images = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text)
    assert {"docs/img/overview.png", "docs/img/proposal_page1.png"} <= set(images)


def _write_what_they_print(page: Path) -> None:
    """Rewrite the output a page shows after each ``$ costfrontier`` line with what the line prints now (on the
    bundled samples, as the test runs it). Blocks that elide lines (``...``) are left for a person to edit."""
    import tempfile

    from _pytest.monkeypatch import MonkeyPatch

    found = examples(page)
    lines = page.read_text(encoding="utf-8").splitlines()
    with tempfile.TemporaryDirectory() as tmp, MonkeyPatch.context() as mp:
        mp.chdir(_reader_folder(Path(tmp)))
        mp.setenv("COSTFRONTIER_DB", str(Path(tmp) / "data" / "costfrontier.duckdb"))
        printed = []
        for example in found:
            out, err = _run_capturing(example.command)
            printed.append([x.rstrip() for x in out.splitlines()])
    for example, now in reversed(list(zip(found, printed))):
        if example.shown is None or any(x.strip() in ELIDED for x in example.shown):
            continue
        lines[example.line:example.line + len(example.shown)] = now
    page.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _run_capturing(command: str) -> tuple[str, str]:
    done = cli(None, *shlex.split(command, comments=True)[1:])
    if done.code != 0:
        print(f"exit {done.code}: {command}\n{done.err}", file=sys.stderr)
    return done.out, done.err


if __name__ == "__main__":
    # python -m tests.test_docs docs/x.md ...: regenerate the output the pages show (then read the diff)
    for name in sys.argv[1:]:
        _write_what_they_print(Path(name).resolve())
