"""``costfrontier report``: the proposal of one view, headless.

    costfrontier report --out proposal.html|proposal.pdf|tables.xlsx|tables.zip
                 [the selection options of ``iso``/``crossover``] [--x X] [--link URL] [--base-url URL]

``--link`` builds the report of a share link's view (its query string is parsed like the
dashboard's); the selection options are then ignored. Registered by :mod:`model.cli`.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

__all__ = ["add_parsers", "run", "OUTPUTS"]

#: file suffix -> what is written
OUTPUTS = {".html": "the report, one self-contained file", ".pdf": "the report as PDF, printed by Chromium",
           ".xlsx": "the tables as a workbook", ".zip": "the tables as CSV files"}


def add_parsers(sub) -> None:
    """Add ``report`` to the subcommands, with exactly the options ``iso`` takes (its parser is the parent)."""
    iso = sub.choices["iso"]
    # iso's -h comes along with its options (argparse shares the actions; none is changed here)
    rep = sub.add_parser("report", parents=[iso], add_help=False,
                         help="the proposal of a view: HTML, PDF, or its tables as XLSX/CSV zip")
    rep.add_argument("--out", required=True, metavar="FILE",
                     help="; ".join(f"{suffix}: {text}" for suffix, text in OUTPUTS.items()))
    rep.add_argument("--x", type=float, metavar="TOK_S_USER",
                     help="interactivity the answer paragraph is given at [tok/s/user] (default: the middle target)")
    rep.add_argument("--link", metavar="URL", help="a share link: report its view (replaces the selection options)")
    rep.add_argument("--base-url", help="dashboard address the report's share link points to, without --link "
                                        "(default http://localhost:8501/)")


def view_of_link(url: str):
    """(Scenario, where, headline_x, notices) of a share link's query string."""
    from model.viewstate import parse_query

    state, notices = parse_query(parse_qs(urlsplit(url).query, keep_blank_values=True))
    return state.scenario(), state.where(), state.headline_x, notices


def run(args: argparse.Namespace, con) -> int | None:
    """Write the report; ``None`` when the command is not ``report``."""
    if args.command != "report":
        return None
    from model.cli import _scenario
    from model.report import DEFAULT_BASE_URL, ReportError, build_report

    suffix = Path(args.out).suffix.lower()
    if suffix not in OUTPUTS:
        print(f"error: --out must end in {', '.join(OUTPUTS)} (got {args.out!r})", file=sys.stderr)
        return 2
    notices: list[str] = []
    if args.link:
        scenario, where, x, notices = view_of_link(args.link)
        x = args.x or x
        for notice in notices:
            print(f"note: {notice}", file=sys.stderr)
    else:
        scenario, where = _scenario(args)
        x = args.x
    report = build_report(con, scenario, where, args.link, headline_x=x, base_url=args.base_url or DEFAULT_BASE_URL,
                          link_notes=notices)
    out = Path(args.out)
    try:
        if suffix == ".html":
            out.write_text(report.html, encoding="utf-8")
        elif suffix == ".pdf":
            report.to_pdf(out)
        elif suffix == ".xlsx":
            out.write_bytes(report.tables_xlsx())
        else:
            out.write_bytes(report.tables_csv())
    except ReportError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps({"command": "report", "out": str(out), "what": OUTPUTS[suffix], "title": report.title,
                          "tables": list(report.tables), "notices": notices}, indent=2))
    else:
        print(f"wrote {out} ({OUTPUTS[suffix]}): {report.title}")
    return 0
