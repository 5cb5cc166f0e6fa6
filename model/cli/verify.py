"""``costfrontier verify BUNDLE``: check a proposal bundle offline, without the store or a server.

    costfrontier verify DIR|DIR.zip [--json]

Rebuilds the answer from the bundle's own inputs (:func:`model.present.bundle.verify_folder`), compares every
figure of its manifest to its printed rounding and every file to its SHA-256, and names each that differs with both
values. Exit codes: 0 every figure and file holds, 1 a figure or a file differs, 3 the bundle lacks data a figure
needs, 2 bad arguments or not a bundle.
"""

from __future__ import annotations

import argparse
import json
import sys

__all__ = ["add_parsers", "run"]


def add_parsers(sub) -> None:
    """Add ``verify`` to the subcommands."""
    ver = sub.add_parser("verify", help="check a proposal bundle offline: recompute every figure from its inputs and "
                                        "every file's SHA-256 (exit 0 all hold, 1 a figure or file differs, 3 the "
                                        "bundle lacks data a figure needs, 2 bad arguments)")
    ver.add_argument("bundle", metavar="BUNDLE", help="the bundle's folder, or its zip")
    ver.add_argument("--json", action="store_true")


def run(args: argparse.Namespace, con=None) -> int:
    """Verify ``args.bundle``; the exit code (:data:`model.present.bundle.EXIT_CODES`)."""
    import duckdb

    from model.data.bundle import BundleError, opened
    from model.data.store import StoreError
    from model.present.bundle import EXIT_CODES, EXIT_USAGE
    from model.present.bundle_verify import verify_folder

    try:
        with opened(args.bundle) as folder:
            findings, manifest = verify_folder(folder)
    except (BundleError, StoreError, ValueError, OSError, duckdb.Error) as exc:
        # a bundle that is not one, or that cannot be read as one: said in a line, never a traceback
        print(f"error: {args.bundle}: not a proposal bundle that can be checked ({exc})"
              if not isinstance(exc, BundleError) else f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    code = findings.code
    if args.json:
        print(json.dumps({"command": "verify", "bundle": args.bundle, "exit": code, "said": EXIT_CODES[code],
                          "made_at": manifest.get("made_at"), "tool_version": manifest.get("tool_version"),
                          "data_version": manifest.get("data_version"), "link": manifest.get("link"),
                          "files": findings.files, "figures": findings.figures,
                          "differs": [{"what": w, "manifest": a, "bundle": b} for w, a, b in findings.differs],
                          "lacks": [{"what": w, "why": why} for w, why in findings.lacks]}, indent=2))
        return code
    print(f"note: the bundle was made {manifest.get('made_at', '?')} with Cost Frontier "
          f"{manifest.get('tool_version', '?')} on data version {manifest.get('data_version')}", file=sys.stderr)
    print(f"checked {findings.files} files and {findings.figures} figures")
    for what, why in findings.lacks:
        print(f"lacks: {what}: {why}")
    for what, said, found in findings.differs:
        print(f"differs: {what}: manifest {said}, bundle {found}")
    print(f"{'verified' if code == 0 else 'not verified'}: {EXIT_CODES[code]} (exit {code})")
    return code
