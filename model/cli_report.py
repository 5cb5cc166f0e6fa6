"""``costfrontier report``: the proposal of one view, headless.

    costfrontier report --out proposal.html|proposal.pdf|tables.xlsx|tables.zip
                 [the selection options of ``iso``/``crossover``] [--x X] [--link URL] [--base-url URL]

``--link`` builds the report of a share link's view (its query string is parsed like the
dashboard's); the selection options are then ignored. Registered by :mod:`model.cli`.
"""

from __future__ import annotations

import argparse
import json
import os
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
    """(ViewState, notices) of a share link's query string, read as the dashboard reads it."""
    from model.viewstate import parse_query

    return parse_query(parse_qs(urlsplit(url).query, keep_blank_values=True))


def run(args: argparse.Namespace, con) -> int | None:
    """Write the report; ``None`` when the command is not ``report``."""
    if args.command != "report":
        return None
    from model.cli import _scenario, split_workloads
    from model.report import DEFAULT_BASE_URL, ReportError, build_report, report_of_view
    from model.store import load_points

    suffix = Path(args.out).suffix.lower()
    if suffix not in OUTPUTS:
        print(f"error: --out must end in {', '.join(OUTPUTS)} (got {args.out!r})", file=sys.stderr)
        return 2
    notices: list[str] = []
    if args.link:
        state, notices = view_of_link(args.link)
        for notice in notices:
            print(f"note: {notice}", file=sys.stderr)
        report = report_of_view(con, state, args.link, link_notes=notices,
                                **({"headline_x": args.x} if args.x else {}))
    else:
        scenario, where = _scenario(args)
        scenario, notes = split_workloads(scenario, load_points(con, where), args.mix_workloads)
        for note in notes:
            print(f"note: {note}", file=sys.stderr)
        report = build_report(con, scenario, where, None, headline_x=args.x,
                              base_url=args.base_url or DEFAULT_BASE_URL)
    out = Path(args.out)
    try:
        if suffix == ".pdf":
            report.to_pdf(out)          # written whole or not at all
        else:
            data = {".html": lambda: report.html.encode("utf-8"), ".xlsx": report.tables_xlsx,
                    ".zip": report.tables_csv}[suffix]()
            partial = out.with_name(f".{out.name}.partial")
            partial.write_bytes(data)
            os.replace(partial, out)
    except ReportError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps({"command": "report", "out": str(out), "what": OUTPUTS[suffix], "title": report.title,
                          "tables": list(report.tables), "notices": notices}, indent=2))
    else:
        print(f"wrote {out} ({OUTPUTS[suffix]}): {report.title}")
    return 0
