"""``costfrontier report``: the proposal of one view, headless.

    costfrontier report --out proposal.html|proposal.pdf|tables.xlsx|tables.zip | --bundle DIR|DIR.zip [--sign KEY]
                 [the view and fleet options of ``iso``/``size``, or --link URL] [--base-url URL]

``--bundle`` writes the proposal bundle (:mod:`model.present.bundle`): the HTML, PDF, XLSX and CSVs, the inputs
the answer was computed from and ``manifest.json``, which ``costfrontier verify`` checks offline.

The report renders the same answer ``iso``, ``crossover`` and ``size`` print for the same options
(:func:`model.present.view_answer.answer_of_view`): cost profiles (``--profile NAME``) with their build-ups,
the fleet for ``--demand-rps``/``--tokens-per-day``/a budget, the cheapest mix of GPU types for ``--mix`` (the
answer ``costfrontier mix`` prints) and the plan ``--plan LINK`` against the stored actuals (``plan-vs-actual``'s)
are sections of it.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from model.cli.options import answer_of, view_from_args, view_of_link
from model.cli.parsers import OUTPUTS
from model.cli.running import in_store
from model.core.links import pinned_url
from model.core.notes import link_notices
from model.data.bundle import MANIFEST, SIGNATURE, BundleError, write_folder, zip_bytes
from model.data.export import write_whole
from model.data.signing import SigningError, sign_manifest
from model.data.versions import version_digest
from model.present.actual_answer import comparison_on
from model.present.bundle import bundle_files
from model.present.report import ReportError, build_report, view_link
from model.present.report_sections import report_extras, report_parts
from model.present.view_answer import answer_of_view
from model.present.workbook import report_xlsx

__all__ = ["main", "run"]


def main(args, ctrl_c) -> int:
    """Run ``report`` on the store (:func:`model.cli.running.in_store`)."""
    return in_store(args, ctrl_c, run)


def run(args: argparse.Namespace, con) -> int:
    """Write the report (``--out``), the proposal bundle (``--bundle``) or both."""
    if not args.out and not args.bundle:
        print("error: give --out FILE, --bundle DIR, or both", file=sys.stderr)
        return 2
    suffix = Path(args.out).suffix.lower() if args.out else None
    if suffix is not None and suffix not in OUTPUTS:
        print(f"error: --out must end in {', '.join(OUTPUTS)} (got {args.out!r})", file=sys.stderr)
        return 2
    if args.sign and not args.bundle:
        print("error: --sign signs a bundle: give --bundle DIR too", file=sys.stderr)
        return 2
    if args.sign:
        try:
            sign_manifest(b"", args.sign)          # the key is read before anything is made
        except SigningError as exc:
            print(f"error: --sign {exc}", file=sys.stderr)
            return 2
    if args.bundle and Path(args.bundle).exists() and (not Path(args.bundle).is_dir()
                                                       or any(Path(args.bundle).iterdir())):
        print(f"error: --bundle {args.bundle}: already exists and is not an empty folder; choose a new one",
              file=sys.stderr)
        return 2
    state, notices = view_from_args(args, con)
    answer = answer_of(args, con, state, notices, report_parts(state))
    for note in answer.notes:
        print(f"note: {note}", file=sys.stderr)
    same = args.link and answer.view == view_of_link(args.link)[0].replace(workload=answer.view.workload)
    link = args.link if same else None       # options beside --link changed the view: a link to what is shown
    version = answer.inputs.data_version     # the reopen link names what that version shows (its vd=)
    digest = version_digest(con, version) if version else None
    link = pinned_url(link or view_link(answer.view, args.base_url), version, digest)
    extras = report_extras(answer.view, lambda v, parts: answer_of_view(con, v, parts),
                           lambda plan, basis: comparison_on(con, plan, basis))
    report = build_report(answer, link, base_url=args.base_url, extras=extras)
    out = Path(args.out) if args.out else None
    written = {}
    try:
        if suffix == ".pdf":
            report.to_pdf(out)          # written whole or not at all
        elif suffix is not None:
            data = {".html": lambda: report.html.encode("utf-8"), ".xlsx": lambda: report_xlsx(report),
                    ".zip": report.tables_csv}[suffix]()
            write_whole(out, data)
        if out is not None:
            written[str(out)] = OUTPUTS[suffix]
        if args.bundle:
            written[args.bundle] = _bundle(args.bundle, con, answer, report, link, digest,
                                           out.read_bytes() if suffix == ".pdf" else None, args.sign)
    except (ReportError, BundleError, SigningError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"error: could not write {Path(exc.filename or args.bundle or out).name}: "
              f"{exc.strerror or 'write failed'}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps({"command": "report", "out": str(out) if out else None,
                          "what": OUTPUTS[suffix] if suffix else None, "bundle": args.bundle, "title": report.title,
                          "tables": list(report.tables), "notices": link_notices(answer.notes),
                          "recommendation": report.first_page.payload()},
                         indent=2))
    else:
        for path, what in written.items():
            print(f"wrote {path} ({what}): {report.title}")
        print(report.first_page.headline)
        if args.bundle:
            print(f"check it offline: costfrontier verify {args.bundle}")
    return 0


def _bundle(where: str, con, answer, report, link: str, digest, pdf: bytes | None, sign: str | None = None) -> str:
    """Write the proposal bundle at ``where``: a folder, or a zip when it ends in ``.zip``, signed with the private
    key at ``sign`` (:mod:`model.data.signing`); what was written."""
    files = bundle_files(con, answer, report, link, digest, pdf)
    if sign:
        files[SIGNATURE] = sign_manifest(files[MANIFEST], sign)
    path = Path(where)
    if path.suffix.lower() == ".zip":
        write_whole(path, zip_bytes(files, path.stem))
        return f"the proposal bundle, one zip of {len(files)} files" + (", signed" if sign else "")
    write_folder(path, files)
    return f"the proposal bundle, {len(files)} files" + (", signed" if sign else "")
