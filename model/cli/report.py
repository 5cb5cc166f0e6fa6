"""``costfrontier report``: the proposal of one view, headless.

    costfrontier report --out proposal.html|proposal.pdf|tables.xlsx|tables.zip
                 [the view and fleet options of ``iso``/``size``, or --link URL] [--base-url URL]

The report renders the same answer ``iso``, ``crossover`` and ``size`` print for the same options
(:func:`model.present.view_answer.answer_of_view`): cost profiles (``--profile NAME``) with their build-ups,
the fleet for ``--demand-rps``/``--tokens-per-day``/a budget, the cheapest mix of GPU types for ``--mix`` (the
answer ``costfrontier mix`` prints) and the plan ``--plan LINK`` against the stored actuals (``plan-vs-actual``'s)
are sections of it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from model.cli.options import (
    add_options,
    fleet_args,
    report_args,
    selection_args,
    view_args,
    view_from_args,
    view_of_link,
    volume_args,
)

__all__ = ["add_parsers", "run", "OUTPUTS"]

#: file suffix -> what is written
OUTPUTS = {".html": "the report, one self-contained file", ".pdf": "the report as PDF, printed by Chromium",
           ".xlsx": "the tables as a workbook", ".zip": "the tables as CSV files"}


def add_parsers(sub) -> None:
    """Add ``report`` to the subcommands, with the options ``iso`` and ``size`` take."""
    rep = sub.add_parser("report", help="the proposal of a view: HTML, PDF, or its tables as XLSX/CSV zip")
    selection_args(rep)
    view_args(rep)
    fleet_args(rep)
    volume_args(rep, with_fleet=False)
    rep.add_argument("--out", required=True, metavar="FILE",
                     help="; ".join(f"{suffix}: {text}" for suffix, text in OUTPUTS.items()))
    rep.add_argument("--base-url", help="dashboard address the report's share link points to, without --link "
                                        "(default $COSTFRONTIER_PUBLIC_URL, else http://localhost:8501/)")
    report_args(rep)
    add_options(rep, "mix")          # the view's request mix (the report's section on the cheapest mix of GPU types)
    rep.add_argument("--json", action="store_true")


def run(args: argparse.Namespace, con) -> int | None:
    """Write the report; ``None`` when the command is not ``report``."""
    if args.command != "report":
        return None
    from model.cli.query import answer_of_args
    from model.core.links import pinned_url
    from model.core.notes import of_kind
    from model.data.versions import version_digest
    from model.present.actual_answer import comparison_on
    from model.present.report import ReportError, build_report, report_extras, report_parts, view_link
    from model.present.view_answer import answer_of_view

    suffix = Path(args.out).suffix.lower()
    if suffix not in OUTPUTS:
        print(f"error: --out must end in {', '.join(OUTPUTS)} (got {args.out!r})", file=sys.stderr)
        return 2
    state, _ = view_from_args(args, con)
    answer = answer_of_args(args, con, report_parts(state))
    for note in answer.notes:
        print(f"note: {note}", file=sys.stderr)
    same = args.link and answer.view == view_of_link(args.link)[0].replace(workload=answer.view.workload)
    link = args.link if same else None       # options beside --link changed the view: a link to what is shown
    version = answer.inputs.data_version     # the reopen link names what that version shows (its vd=)
    link = pinned_url(link or view_link(answer.view, args.base_url), version,
                      version_digest(con, version) if version else None)
    extras = report_extras(answer.view, lambda v, parts: answer_of_view(con, v, parts),
                           lambda plan, basis: comparison_on(con, plan, basis))
    report = build_report(answer, link, base_url=args.base_url, extras=extras)
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
    except OSError as exc:
        print(f"error: could not write {out.name}: {exc.strerror or 'write failed'}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps({"command": "report", "out": str(out), "what": OUTPUTS[suffix], "title": report.title,
                          "tables": list(report.tables), "notices": of_kind(answer.notes, "link"),
                          "recommendation": answer.recommendation.payload()},
                         indent=2))
    else:
        print(f"wrote {out} ({OUTPUTS[suffix]}): {report.title}")
        print(answer.recommendation.headline)
    return 0
