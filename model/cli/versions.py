"""``versions``, ``pin`` and ``purge``: the store's change log, pinned versions and deleting hidden rows for good."""

from __future__ import annotations

import json
import sys

import pandas as pd

from model.cli.as_json import records
from model.cli.options import view_from_args
from model.cli.running import UsageError, in_store
from model.data.identity import printable
from model.data.versions import (
    PurgeRefused,
    diff_sources,
    latest_version,
    list_pins,
    list_versions,
    purge,
    record_pin,
    version_digests,
)
from model.present.view_answer import answer_of_view

__all__ = ["main", "run", "headline_at"]


def main(args, ctrl_c) -> int:
    """Run ``versions``, ``pin`` or ``purge`` on the store (:func:`model.cli.running.in_store`)."""
    return in_store(args, ctrl_c, run)


def headline_at(args, con, version: int) -> str:
    """The headline of the view the options describe, as data version ``version`` answers it."""
    state, _ = view_from_args(args, con)
    return answer_of_view(con, state.replace(data_version=version), ("recommendation",)).recommendation.headline


def _diff(args, con) -> int:
    a, b = args.diff
    latest = latest_version(con)
    for v in (a, b):
        if not 1 <= v <= latest:
            raise UsageError(f"--diff: no data version {v} (versions 1-{latest} exist; costfrontier versions lists "
                             "them)")
    added, removed = diff_sources(con, a, b)
    heads = {v: headline_at(args, con, v) for v in (a, b)}
    if args.json:
        print(json.dumps({"a": a, "b": b, "added": records(added), "removed": records(removed),
                          "headline": {str(v): h for v, h in heads.items()}}, indent=2, default=str))
        return 0
    print(f"from version {a} to version {b}:")
    for label, frame in (("added", added), ("removed", removed)):
        names = [f"#{r['source_id']} {r['file_name']} ({r['kind']}, {r['rows']} rows)" for r in frame.to_dict("records")]
        print(f"  {label}: {'; '.join(names) if names else 'none'}")
    for v, text in heads.items():
        print(f"  headline at version {v}: {text}")
    return 0


def run(args, con) -> int | None:
    """Run ``versions``, ``pin`` or ``purge``; None for another command."""
    if args.command == "versions":
        if args.diff:
            return _diff(args, con)
        frame = list_versions(con)
        digests = version_digests(con)      # what each version shows, as a pinned link names it (vd=)
        frame.insert(1, "data", [digests.get(int(v), "") for v in frame["version"]])
        if args.json:
            print(json.dumps({"versions": records(frame), "pins": records(list_pins(con))}, indent=2, default=str))
            return 0
        if frame.empty:
            print("no data versions yet: nothing has been written to this store")
            return 0
        shown = frame.assign(at=frame["at"].dt.strftime("%Y-%m-%d %H:%M:%S")).fillna("")
        shown = shown.map(lambda v: printable(v) if isinstance(v, str) else v)   # stored text never drives a terminal
        with pd.option_context("display.width", 200, "display.max_colwidth", 80, "display.max_rows", 1000):
            print(shown.to_string(index=False))
        pins = list_pins(con)
        if not pins.empty:
            print("pinned: " + ", ".join(f"version {r['version']}" + (f" ({printable(r['what'])})" if r["what"] else "")
                                         for r in pins.to_dict("records")))
        return 0
    if args.command == "pin":
        latest = latest_version(con)
        if not 1 <= args.version <= latest:
            raise UsageError(f"no data version {args.version} (versions 1-{latest} exist)")
        digest = record_pin(con, args.version, args.note, "costfrontier pin")
        if digest is None:
            print(f"version {args.version} is already pinned with this note: nothing recorded again")
            return 0
        print(f"pinned version {args.version}: purge keeps what it shows")
        print(f"its data: {digest} (a link pinned to version {args.version} of this store carries vd={digest})")
        return 0
    if args.command == "purge":
        try:
            purged, warnings = purge(con, args.force)
        except PurgeRefused as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
        if not purged:
            print("nothing to purge: no removed source holds rows")
            return 0
        for name in purged:
            print(f"purged {name}")
        for text in warnings:
            print(f"note: {text}", file=sys.stderr)
        return 0
    return None
