"""``ingest``, ``load-samples``, ``sources``, ``export`` and ``remove``: what the store holds."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pandas as pd

from model.data.ingest import IngestError, ingest_file
from model.data.samples import load_samples
from model.data.store import list_sources, load_points, remove_source

__all__ = ["run"]


def run(args, con) -> int | None:
    """Run a data command; ``None`` when ``args.command`` is another command."""
    if args.command == "ingest":
        return _ingest(args, con)
    if args.command == "load-samples":
        if args.if_empty and not list_sources(con).empty:
            return 0
        for result in load_samples(con):
            print(result.summary)
        return 0
    if args.command == "sources":
        with pd.option_context("display.width", 200, "display.max_columns", 20):
            print(list_sources(con).drop(columns=["sha256"]).to_string(index=False))
        return 0
    if args.command == "export":
        from model.data.export import safe_csv

        Path(args.file).write_text(safe_csv(load_points(con, full=True)), encoding="utf-8")
        print(f"wrote {args.file}")
        return 0
    if args.command == "remove":
        print(f"removed source #{args.source_id}: {remove_source(con, args.source_id)} rows")
        return 0
    return None


def _ingest(args, con) -> int:
    files: list[Path] = []
    for raw in args.paths:
        path = Path(raw)
        if path.is_dir():
            files.extend(sorted(p for p in path.rglob("*") if p.is_file() and not p.name.startswith(".")
                                and p.suffix.lower() in (".csv", ".tsv", ".json", ".jsonl", ".txt")))
        else:
            files.append(path)
    failed, results = 0, []
    set_fields = list(args.set)
    for path in files:
        try:
            result = ingest_file(con, path, set_fields, fmt=args.fmt)
        except IngestError as exc:
            failed += 1
            print(f"error: {exc}", file=sys.stderr)
            results.append({"file": str(path), "error": str(exc), "line": exc.line, "field": exc.field})
            continue
        print(result.summary)
        for warning in result.warnings:
            print(f"  warning: {warning}")
        results.append({"file": str(path), "rows_added": result.rows_added, "duplicate_of": result.duplicate_of,
                        "format": result.format, "kind": result.kind, "unknown_columns": result.unknown_columns,
                        "warnings": result.warnings})
    if args.json:
        print(json.dumps({"rows": results}, indent=2))
    if failed:
        print(f"{failed} of {len(files)} files refused; nothing from them was stored", file=sys.stderr)
    return 1 if failed else 0
