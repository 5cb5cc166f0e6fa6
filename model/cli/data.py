"""``ingest``, ``load-samples``, ``sources``, ``export`` and ``remove``: what the store holds."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pandas as pd

from model.cli.interrupt import EXIT_INTERRUPTED
from model.cli.running import in_store
from model.data.bulk import ingest_many
from model.data.export import safe_csv
from model.data.importers.base import IngestError, NotResults
from model.data.importers.same_run import same_run_exports
from model.data.published import published_checks
from model.data.samples import load_samples
from model.data.snapshot import refuse_read_only, write
from model.data.store import StoreError, list_sources, load_points, remove_source
from model.data.versions import latest_version

__all__ = ["main", "run", "ingest", "ingest_files", "BATCH_FILES", "BATCH_S"]


def main(args, ctrl_c) -> int:
    """Run a data command on the store (:func:`model.cli.running.in_store`); ``ingest`` in batches, each published
    on its own (:func:`ingest`)."""
    return in_store(args, ctrl_c, run, batches=ingest if args.command == "ingest" else None)


def run(args, con) -> int | None:
    """Run ``load-samples``, ``sources``, ``export`` or ``remove``; ``None`` for another command."""
    if args.command == "load-samples":
        if args.if_empty and not list_sources(con).empty:
            return 0
        for result in load_samples(con):
            print(result.summary)
        return 0
    if args.command == "sources":
        if not getattr(args, "published", False):
            with pd.option_context("display.width", 200, "display.max_columns", 20):
                print(list_sources(con).drop(columns=["sha256"]).to_string(index=False))
        verdicts, _ = published_checks(con)
        if getattr(args, "published", False) and verdicts.empty:
            print("no published tables (iso-interactivity tables, or rows stating a published $/M) in the store")
        if not verdicts.empty:
            print(("" if getattr(args, "published", False) else "\n") + "published tables, every value recomputed from the table's own numbers (rates it does not "
                  "state: preset 2025-08 / owning_hyperscaler):")
            for row in verdicts.to_dict("records"):
                print(f"  #{row['source_id']} {row['file_name']}: {row['verdict']}")
        return 0
    if args.command == "export":
        Path(args.file).write_text(safe_csv(load_points(con, full=True)), encoding="utf-8")
        print(f"wrote {args.file}")
        return 0
    if args.command == "remove":
        rows = remove_source(con, args.source_id)
        print(f"removed source #{args.source_id}: {rows} rows hidden from data version {latest_version(con)} on "
              "(earlier versions and links pinned to them keep it; costfrontier purge deletes it for good)")
        return 0
    return None


#: a directory ingest publishes a batch every BATCH_FILES files or BATCH_S seconds, whichever comes first,
#: and lets go of the writer lock between batches (docs/operating/failures.md)
BATCH_FILES = 5000
BATCH_S = 2.0
#: a batch is ingested in chunks of files staged and validated together (:func:`model.data.bulk.ingest_many`),
#: each sized to take about CHUNK_S at the rate of the last, between CHUNK_FILES[0] and CHUNK_FILES[1] files
CHUNK_S = 0.4
CHUNK_FILES = (10, 500)
#: ... but a batch lasts at least this many times what publishing the last one cost (copy, checkpoint,
#: fsync, rename: about 0.2 s per 100 MB of database), so publishing stays under a fifth of the time
BATCH_OVERHEAD_RATIO = 4.0
#: the pause between batches, so a writer waiting for the lock (it polls every 0.05 s) gets it first [s]
BATCH_PAUSE_S = 0.15


def ingest_files(paths: list[str]) -> list[Path]:
    """The files ``ingest`` reads: each path, or every benchmark file under a directory (sorted)."""
    files: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            files.extend(sorted(p for p in path.rglob("*") if p.is_file() and not p.name.startswith(".")
                                and p.suffix.lower() in (".csv", ".tsv", ".json", ".jsonl", ".txt")))
        else:
            files.append(path)
    return files


class _Batches:
    """``ingest``: the files go in in batches, each published (a snapshot of its own) before the next starts."""

    def __init__(self, args, files: list[Path], ctrl_c) -> None:
        self.args, self.files, self.ctrl_c = args, files, ctrl_c
        self.done = 0        # files handled (stored, duplicate or refused) and published
        self.failed = 0
        self.results: list[dict] = []
        self.budget_s = BATCH_S
        self.ingest_s = 0.0
        self.chunk = 50      # files in the next chunk
        # one run's JSON and CSV exports are one point: the CSV is named as the JSON's run, not stored
        self.same_run = same_run_exports(files) if len(files) > 1 else {}

    def run(self, db: Path) -> int:
        try:
            refuse_read_only("this command, which writes,")   # before any batch, as every other write command
            while self.done < len(self.files):
                if self.done:
                    time.sleep(BATCH_PAUSE_S)
                lines: list[tuple[str, dict]] = []
                began = time.monotonic()
                end = write(db, lambda con: self._batch(con, lines))
                overhead = time.monotonic() - began - self.ingest_s   # copying and publishing
                self.budget_s = max(BATCH_S, BATCH_OVERHEAD_RATIO * overhead)
                self.results.extend(r for _, r in lines)   # published: say so
                self.failed += sum("error" in r for _, r in lines)
                for text, _ in lines:
                    if text:
                        print(text)
                first, self.done = self.done + 1, end
                if len(self.files) > 1:
                    print(f"published: files {first}-{end} of {len(self.files)}", flush=True)
                self.ctrl_c.release()
        except KeyboardInterrupt:
            print(f"interrupted: {self._kept()}", file=sys.stderr)
            return EXIT_INTERRUPTED
        except Exception as exc:
            if self.ctrl_c.pending:
                # Ctrl-C inside a query that some layer turned into another error (a "damaged" store too): still
                # Ctrl-C, said as such
                print(f"interrupted: {self._kept()}", file=sys.stderr)
                return EXIT_INTERRUPTED
            if not isinstance(exc, StoreError):
                raise
            self.ctrl_c.held = False
            print(f"error: {exc}" + (f"; {self._kept()}" if self.done else ""), file=sys.stderr)
            return 2
        if self.args.json:
            print(json.dumps({"rows": self.results}, indent=2))
        if self.failed:
            print(f"{self.failed} of {len(self.files)} files refused; nothing from them was stored", file=sys.stderr)
        return 1 if self.failed else 0

    def _kept(self) -> str:
        if not self.done:
            return "nothing was stored"
        rest = f"; nothing from files {self.done + 1}-{len(self.files)} was stored" \
            if self.done < len(self.files) else ""
        refused = f" (but the {self.failed} refused)" if self.failed else ""
        return f"files 1-{self.done} of {len(self.files)} are stored{refused}, as published above{rest}"

    def _batch(self, con, lines: list) -> int:
        """Ingest the next batch into the write's copy; Ctrl-C waits from its end to its publication."""
        started, i = time.monotonic(), self.done
        self.ingest_s = 0.0
        set_fields = list(self.args.set)
        while i < len(self.files) and i - self.done < BATCH_FILES \
                and (i == self.done or time.monotonic() - started < self.budget_s):
            chunk = self.files[i:min(i + self.chunk, self.done + BATCH_FILES)]
            began = time.monotonic()
            stored = iter(ingest_many(con, [p for p in chunk if p not in self.same_run], set_fields, self.args.fmt))
            self.ctrl_c.check()   # before saying anything: an interrupted query some layer turned into an error
            for path in chunk:
                same = self.same_run.get(path)
                lines.append((same, {"file": str(path), "skipped": same}) if same else self._line(path, next(stored)))
            i += len(chunk)
            rate = len(chunk) / max(time.monotonic() - began, 1e-3)
            # at most double: a rate measured while the machine was idle must not make a chunk of many seconds
            self.chunk = int(min(max(rate * CHUNK_S, CHUNK_FILES[0]), CHUNK_FILES[1], 2 * len(chunk)))
        self.ingest_s = time.monotonic() - started
        self.ctrl_c.hold()
        return i

    def _line(self, path: Path, outcome) -> tuple[str, dict]:
        """What the command says of one file: stored (with warnings), skipped, or refused (said at once)."""
        if isinstance(outcome, NotResults):
            if len(self.files) == 1:   # alone, it is refused with its reason
                print(f"error: {outcome}", file=sys.stderr)
                return "", {"file": str(path), "error": str(outcome), "line": None, "field": None}
            return outcome.line_text, {"file": str(path), "skipped": outcome.line_text}   # a tool's side file
        if isinstance(outcome, IngestError):
            print(f"error: {outcome}", file=sys.stderr)
            return "", {"file": str(path), "error": str(outcome), "line": outcome.line, "field": outcome.field}
        return _result_line(path, outcome)


def _result_line(path: Path, result) -> tuple[str, dict]:
    text = "\n".join([result.summary, *(f"  warning: {w}" for w in result.warnings)])
    return text, {"file": str(path), "rows_added": result.rows_added, "duplicate_of": result.duplicate_of,
                  "format": result.format, "kind": result.kind, "unknown_columns": result.unknown_columns,
                  "warnings": result.warnings}


def ingest(args, db: Path, ctrl_c) -> int:
    """``costfrontier ingest``: every file in batches of at most :data:`BATCH_FILES` files or :data:`BATCH_S`
    seconds, each published before the next begins; Ctrl-C keeps the batches already published. Within a
    batch, files go in in chunks staged and validated together (:func:`model.data.bulk.ingest_many`)."""
    return _Batches(args, ingest_files(args.paths), ctrl_c).run(db)
