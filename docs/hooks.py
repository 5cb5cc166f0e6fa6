"""MkDocs hooks: the manual's reference tables, generated at build time from the code they describe.

A page asks for a table with a marker line of its own:

- ``<!-- generated: cli -->``: every ``costfrontier`` command and option, walked from the parser
  (:func:`model.cli.parser`); options that several commands share are listed once, by the group the view's
  declarations give them (:data:`model.core.view_fields.FIELDS`), and a command that takes a whole group links
  to it;
- ``<!-- generated: link-keys -->``: every field of a view with its link key, default, an example, what it
  changes and its command-line option (:data:`model.core.view_fields.FIELDS`).

So a renamed option or a new field changes the manual at its next build, and ``tests/test_docs.py`` checks the
built pages name every command, option and key the code has.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))   # the repository's model/, as the tests run it

from model.cli import parser as cli_parser  # noqa: E402
from model.core.view_fields import FIELDS, LINK, PROFILE, WHERE, options_of  # noqa: E402

#: the shared option groups, in the order a reader meets them: (group, heading, what they choose)
GROUPS = (
    ("selection", "Selection options", "which rows, grouped how, priced at which rates; beside `--link` they are "
                                       "ignored, with a notice"),
    ("runs", "Run options", "which repeat runs and run dates, and which data version"),
    ("view", "View options", "basis, SLA, method, targets, baseline, cost profiles, the interactivity you need, "
                             "and `--link`"),
    ("fleet", "Fleet options", "a demand or a budget to size a fleet for"),
    ("sizing", "Demand options", "the demand's peak, volume and shape, and how a fleet follows it"),
    ("volume", "Volume options", "buy, rent or call an API at a monthly volume"),
    ("report", "Report options", "what only a report adds to the view"),
)
#: options every command takes, described once at the top
GLOBAL = ("-h", "--help", "--db")
#: what a field is, where its option does not say it (no option, or one several fields share)
DESCRIBED = {
    "workload": "the workload: model, ISL and OSL (`model|isl|osl`; an empty part matches rows that state none)",
    "hardware": "the hardware shown (all when empty)",
    "framework": "the serving frameworks shown",
    "precision": "the precisions shown",
    "spec_decoding": "the speculative-decoding settings shown",
    "filters": "other row filters, `key=value` on any field",
    "profiles": "the view's cost profiles, packed (`p1.` + zlib + base64url of their non-default inputs)",
    "priced_by": "the names of the cost profiles that price their hardware",
    "frontier_y": "the Frontier chart's y axis: `throughput` (tok/s/GPU) or `cost` ($/M)",
    "optimal_only": "the Frontier chart shows frontier points only",
    "pair": "the pair of series the Crossovers page's break-even box compares (`A||B`)",
    "eval_tolerance": "an accuracy drop larger than this is flagged (Ramps page)",
    "compare": "the series the Ramps page's tokens-per-dollar table compares",
    "compare_base": "the baseline of that comparison",
    "compare_peaks": "compare the ramps' peaks instead of their knees under the SLA",
    "all_points": "the Frontier chart draws every measured point, past 20,000",
    "all_curves": "the cost charts draw every series, past 40",
}


def on_page_markdown(markdown: str, page, config, files) -> str:
    """Replace each marker line with its generated table."""
    for marker, make in (("<!-- generated: cli -->", cli_reference),
                         ("<!-- generated: link-keys -->", link_keys)):
        if marker in markdown:
            markdown = markdown.replace(marker, make())
    return markdown


# ------------------------------------------------------------------------------------------------ the CLI

def _cell(text: str) -> str:
    """Text for one table cell: no line breaks, and a pipe outside a code span escaped (inside one, a table
    reads it as text already)."""
    parts = " ".join(str(text or "").split()).split("`")
    return "`".join(p if i % 2 else p.replace("|", "\\|") for i, p in enumerate(parts))


def _subparsers(parser: argparse.ArgumentParser) -> argparse._SubParsersAction:
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))


def _value(action: argparse.Action) -> str:
    """How the option's value is written: its choices, its metavar, or nothing for a flag."""
    if action.nargs == 0:
        return ""
    if action.choices:
        return " \\| ".join(f"`{c}`" for c in action.choices)
    metavar = action.metavar or action.dest.upper()
    return " ".join(f"`{m}`" for m in metavar) if isinstance(metavar, tuple) else f"`{metavar}`"


def _flags(action: argparse.Action) -> str:
    if not action.option_strings:
        return f"`{action.metavar or action.dest}`" + (" …" if action.nargs in ("+", "*") else "")
    return ", ".join(f"`{flag}`" for flag in action.option_strings)


def _help(action: argparse.Action) -> str:
    text = action.help.replace("%%", "%") if action.help not in (None, argparse.SUPPRESS) else ""   # as --help prints it
    if action.option_strings and action.option_strings[0] == "--json":
        text = text or "print one JSON object instead of tables"
    repeat = "repeatable. " if isinstance(action, argparse._AppendAction) else ""
    required = "required. " if action.required and action.option_strings else ""
    return _cell(f"{required}{repeat}{text}")


def _synopsis(action: argparse.Action) -> str:
    """The action as a usage line writes it: ``[--rule {first_failure,highest_pass}]``, ``paths [paths ...]``."""
    if not action.option_strings:
        return f"{action.dest} [{action.dest} ...]" if action.nargs in ("+", "*") else action.dest
    value = "" if action.nargs == 0 else " {" + ",".join(action.choices) + "}" if action.choices else \
        " " + (" ".join(action.metavar) if isinstance(action.metavar, tuple) else action.metavar or action.dest.upper())
    written = f"{action.option_strings[0]}{value}"
    return written if action.required else f"[{written}]"


def _table(actions: list[argparse.Action]) -> list[str]:
    lines = ["| option | value | what it does |", "|---|---|---|"]
    lines += [f"| {_flags(a)} | {_value(a)} | {_help(a)} |" for a in actions]
    return lines


def cli_reference() -> str:
    """Markdown: the global options, each command (its usage, its own options, the groups it takes), then the
    shared option groups once."""
    parser = cli_parser()
    sub = _subparsers(parser)
    said = {choice.dest: choice.help for choice in sub._choices_actions}
    group_flags = {group: {flag for opt in options_of(group) for flag in opt.flags} for group, _, _ in GROUPS}
    out = ["## Every command takes", "",
           *_table([a for a in parser._actions if a.option_strings]), "",
           "`--db` may also come after the command. The database is `--db`, else `$COSTFRONTIER_DB`, else "
           "`data/costfrontier.duckdb`.", ""]
    for name, command in sub.choices.items():
        flags = {flag for a in command._actions for flag in a.option_strings}
        groups = [g for g, _, _ in GROUPS if group_flags[g] and group_flags[g] <= flags]
        covered = {flag for g in groups for flag in group_flags[g]} | set(GLOBAL)
        own = [a for a in command._actions
               if not set(a.option_strings) & covered and not isinstance(a, argparse._HelpAction)]
        flags_own = [a for a in own if a.option_strings]
        usage = " ".join([f"costfrontier {name}", *([_synopsis(a) for a in flags_own] if len(flags_own) <= 6 else
                                                     [f"[{len(flags_own)} options below]"]),
                          *(f"[{heading.lower()}]" for g, heading, _ in GROUPS if g in groups),
                          *(_synopsis(a) for a in own if not a.option_strings)])
        out += [f"## costfrontier {name} {{#{name}}}", "", _cell(said.get(name, "")), "",
                "```text", usage, "```", ""]
        if own:
            out += _table(own) + [""]
        if groups:
            links = ", ".join(f"[{heading.lower()}](#options-{g})" for g, heading, _ in GROUPS if g in groups)
            out += [f"It takes the {links}.", ""]
    out += ["## Shared options", "",
            "The commands that describe a view take the same options with the same meaning, generated from the "
            "view's field declarations (the [link keys](link-keys.md) say which field each fills).", ""]
    actions = {flag: a for command in sub.choices.values() for a in command._actions for flag in a.option_strings}
    for group, heading, text in GROUPS:
        opts = options_of(group)
        if not opts:
            continue
        out += [f"### {heading} {{#options-{group}}}", "", text[0].upper() + text[1:] + ".", "",
                *_table([actions[opt.flags[0]] for opt in opts if opt.flags[0] in actions]), ""]
    return "\n".join(out)


# ------------------------------------------------------------------------------------------- link keys

def _option_of(field) -> str:
    opt = field.option
    if opt is None:
        return ""
    if opt is WHERE:
        keys = ("model", "isl", "osl") if field.name == "workload" else ("KEY",) if field.name == "filters" \
            else (field.name,)
        return ", ".join(f"`--where {k}=…`" for k in keys)
    if opt is PROFILE:
        return "`--profile NAME`"
    return ", ".join(f"`{flag}`" for flag in opt.flags)


def _default(field) -> str:
    if field.default in (None, "", ()):
        return ""
    return f"`{field.codec.write(field.default)}`"


def link_keys() -> str:
    """Markdown: one row per field of a view, in the order a link is read."""
    lines = ["| key | field | default | example | changes | option | what it is |", "|---|---|---|---|---|---|---|"]
    for f in FIELDS:
        text = f.option.help if f.option is not None and f.option not in (WHERE, PROFILE) else ""
        text = text or DESCRIBED.get(f.name) or f.said
        lines.append(f"| `{f.key}` | {f.name} | {_default(f)} | `{f.key}={f.example}` | {f.changes} | "
                     f"{_option_of(f)} | {_cell(text)} |")
    lines += ["", f"`--link URL` ({_cell(LINK.help)}) reads all of them at once."]
    return "\n".join(lines)
