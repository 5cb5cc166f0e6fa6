"""``costfrontier verify``: a proposal bundle checked against everything it holds and states.

:func:`verify_folder` reads only regular files inside the bundle (:func:`model.data.bundle.entries`: a symbolic
link, to a file or a folder, or a device is named and refused, never read), and the manifest with bounded size,
depth and types (:func:`read_manifest`: anything else is not a bundle, one line). Then:

- the files: every file the manifest lists by its SHA-256, and no file more or less (named);
- the figures: the answer rebuilt from the bundled inputs alone against every figure of the manifest
  (:func:`model.present.bundle.compare`), against the inputs the manifest states (each rate, profile, API price
  and the demand, by its path: ``inputs.rates[MI355X].usd_per_gpu_hour``), against the figures ``report.html``
  and ``report.pdf`` print (:mod:`model.present.printed`: read back, not scraped), and against every table's CSV,
  named by row, column and both values.

The PDF is also checked by its hash (and, signed, by the signature: :mod:`model.data.signing`).
"""

from __future__ import annotations

import io
import json
import math
import re
from dataclasses import replace
from datetime import datetime
from pathlib import Path, PurePosixPath
from urllib.parse import parse_qs, urlsplit

import pandas as pd

from model.core.view import View
from model.data.bundle import (
    MANIFEST,
    SIGNATURE,
    STORE,
    BundleError,
    BundleLacks,
    bundle_store,
    entries,
    read_inside,
)
from model.data.export import safe_csv
from model.data.inputs import load_inputs, with_workload
from model.data.versions import OtherData, pin_notes
from model.present.assumptions import assumptions_of
from model.present.bundle import (
    BUNDLE_FORMAT,
    INPUT_FILES,
    Findings,
    compare,
    figures_of,
    jsonable_inputs,
    key_headers,
    lacking,
    series_of,
    sha256,
)
from model.present.printed import PDF, REPORT, check_pdf, check_report
from model.present.report_output import file_name, row_labels, table_frames
from model.present.report_sections import first_page, report_extras, report_parts
from model.present.tables import tables
from model.present.view_answer import build_answer, reading

__all__ = ["verify_folder", "read_manifest", "MANIFEST_DEPTH", "MANIFEST_BYTES", "REPORT", "PDF"]

#: a manifest nested deeper than this is not one (ours is 5 deep)
MANIFEST_DEPTH = 16
#: nor one larger than this [bytes]
MANIFEST_BYTES = 64 << 20
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_BRACKET = re.compile(r"[\[\]{}]")
_SHA = re.compile(r"[0-9a-f]{64}")


def _short(value, limit: int = 40) -> str:
    text = repr(value) if not isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")


def read_manifest(data: bytes) -> dict:
    """The manifest in ``data``, checked: at most :data:`MANIFEST_BYTES`, UTF-8 JSON nested at most
    :data:`MANIFEST_DEPTH` deep (counted before it is parsed), no NaN or Infinity, and each key a manifest holds of
    its type. Raises :class:`model.data.bundle.BundleError` in one line for anything else."""
    if len(data) > MANIFEST_BYTES:
        raise BundleError(f"{MANIFEST}: {len(data):,} bytes, more than a manifest holds ({MANIFEST_BYTES:,})")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise BundleError(f"{MANIFEST}: not UTF-8 text, so not a manifest") from None
    depth = 0
    for match in _BRACKET.finditer(_STRING.sub('""', text)):
        depth += 1 if match.group() in "[{" else -1
        if depth > MANIFEST_DEPTH:
            raise BundleError(f"{MANIFEST}: nested more than {MANIFEST_DEPTH} deep, so not a manifest")
    try:
        manifest = json.loads(text, parse_constant=_refuse_constant)
    except (ValueError, RecursionError) as exc:
        raise BundleError(f"{MANIFEST}: not JSON ({str(exc).splitlines()[0][:120]})") from None
    _check_manifest(manifest)
    return manifest


def _number_or_none(value) -> bool:
    return value is None or (isinstance(value, (int, float)) and not isinstance(value, bool)
                             and math.isfinite(value))


def _check_manifest(manifest) -> None:
    if not isinstance(manifest, dict) or manifest.get("format") != BUNDLE_FORMAT:
        said = manifest.get("format") if isinstance(manifest, dict) else type(manifest).__name__
        raise BundleError(f"{MANIFEST}: not a manifest of this kind ({BUNDLE_FORMAT!r}; it says {_short(said)})")
    for key, kind in (("files", dict), ("figures", list), ("link", str)):
        if not isinstance(manifest.get(key), kind):
            raise BundleError(f"{MANIFEST}: no {key!r} ({kind.__name__})")
    for name, digest in manifest["files"].items():
        if not isinstance(digest, str) or not _SHA.fullmatch(digest):
            raise BundleError(f"{MANIFEST}: files[{_short(name)}] is {_short(digest)}, not a SHA-256 (64 hex digits)")
    for i, f in enumerate(manifest["figures"]):
        if not (isinstance(f, dict) and all(isinstance(f.get(k), str) for k in ("id", "kind", "text"))
                and _number_or_none(f.get("value")) and (f.get("status") is None or isinstance(f.get("status"), str))):
            raise BundleError(f"{MANIFEST}: figures[{i}] is {_short(f)}, not a figure (an object with id, kind, "
                              "value, text and status)")
    series = manifest.get("series", [])
    if not isinstance(series, list) or not all(isinstance(s, dict) and isinstance(s.get("series"), str)
                                               for s in series):
        raise BundleError(f"{MANIFEST}: 'series' is not a list of series with their status")
    for key, ok in (("inputs", lambda v: isinstance(v, dict)), ("data_version", _number_or_none),
                    ("made_at", lambda v: isinstance(v, str)), ("tool_version", lambda v: isinstance(v, str))):
        if key in manifest and manifest[key] is not None and not ok(manifest[key]):
            raise BundleError(f"{MANIFEST}: {key!r} is {_short(manifest[key])}, not what a manifest holds there")


# --------------------------------------------------------------------------------------------------- the files

def _check_files(folder: Path, listed: dict, present: list[str], refused: list[tuple[str, str]],
                 findings: Findings) -> None:
    """Every file listed against its hash; every file present and not listed named; a refused entry (a link, a
    device) already named is not read."""
    gone = [name for name, _ in refused]
    for name, digest in listed.items():
        findings.files += 1
        parts = PurePosixPath(str(name))
        if parts.is_absolute() or ".." in parts.parts or "\\" in name or name in (MANIFEST, SIGNATURE):
            findings.differs.append((f"file {name}", "listed in the manifest", "not a file of the bundle"))
            continue
        if any(name == g or name.startswith(g + "/") for g in gone):
            continue
        if name not in present:
            (findings.lacks.append((f"file {name}", "missing: the answer cannot be rebuilt without it"))
             if name in INPUT_FILES else findings.differs.append((f"file {name}", f"sha256 {digest}", "missing")))
            continue
        found = sha256(read_inside(folder, name))
        if found != digest:
            findings.differs.append((f"file {name}", f"sha256 {digest}", f"sha256 {found}"))
    for name in present:
        if name not in listed and name not in (MANIFEST, SIGNATURE):
            findings.differs.append((f"file {name}", "(not listed)", "in the bundle: a file the manifest does not list"))


# -------------------------------------------------------------------------------------------------- the inputs

def _label(item, i: int) -> str:
    if isinstance(item, dict):
        for key in ("hardware", "name", "model", "series"):
            if isinstance(item.get(key), str):
                extra = item.get("profile") if key == "hardware" and isinstance(item.get("profile"), str) else None
                return item[key] + (f" ({extra})" if extra else "")
    return str(i)


def _same(a, b) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b or math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-15)
    return a == b


def _diff(said, rebuilt, path: str):
    """(path, the manifest's, the rebuilt) for each leaf that differs."""
    if isinstance(said, dict) and isinstance(rebuilt, dict):
        for key in [*rebuilt, *(k for k in said if k not in rebuilt)]:
            yield from _diff(said.get(key), rebuilt.get(key), f"{path}.{key}")
    elif isinstance(said, list) and isinstance(rebuilt, list):
        if len(said) != len(rebuilt):
            yield path, f"{len(said)} entries", f"{len(rebuilt)} entries"
        for i, (a, b) in enumerate(zip(said, rebuilt)):
            yield from _diff(a, b, f"{path}[{_label(b, i)}]")
    elif not _same(said, rebuilt):
        yield path, json.dumps(said, ensure_ascii=False)[:80], json.dumps(rebuilt, ensure_ascii=False)[:80]


def _check_inputs(manifest: dict, answer, findings: Findings) -> None:
    """The inputs, series and data version the manifest states against those of the rebuilt answer."""
    stated = {"inputs": manifest.get("inputs"), "series": manifest.get("series"),
              "data_version": manifest.get("data_version")}
    rebuilt = {"inputs": jsonable_inputs(answer), "series": series_of(answer),
               "data_version": answer.inputs.data_version}
    for path, said, found in _diff(stated, rebuilt, "manifest"):
        findings.differs.append((f"input {path.removeprefix('manifest.')}", said, found))


# ------------------------------------------------------------------------------------------------- the tables

def _read_csv(text: str) -> pd.DataFrame | None:
    try:
        return pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
    except (ValueError, pd.errors.ParserError):
        return None


def _check_table(name: str, path: str, expected: str, found: str, headers: list[str], findings: Findings) -> None:
    want, got = _read_csv(expected), _read_csv(found)
    if got is None or want is None or list(got.columns) != list(want.columns):
        findings.differs.append((f"table {name} ({path})", f"columns {', '.join(map(str, want.columns))}"
                                 if want is not None else "a table", "other columns, or not a CSV"))
        return
    keys = [h for h in headers if h in want.columns] or list(want.columns[:1])
    mine = dict(zip(row_labels(want, keys), want.to_dict("records")))
    theirs = dict(zip(row_labels(got, keys), got.to_dict("records")))
    for row, record in mine.items():
        other = theirs.get(row)
        if other is None:
            findings.differs.append((f"table {name}, row {row}", "present", "missing"))
            continue
        for column, value in record.items():
            if other[column] != value:
                findings.differs.append((f"table {name}, row {row}, column {column}", value, other[column]))
    for row in theirs:
        if row not in mine:
            findings.differs.append((f"table {name}, row {row}", "(no such row)", "added"))


def _check_tables(folder: Path, present: list[str], answer_tables: dict, answer, made_at, findings: Findings) -> None:
    """Each table's CSV against the one the rebuilt answer gives, cell by cell (the Assumptions too, aged to the
    day the bundle was made)."""

    expected = {name: (safe_csv(table_frames(frame, spec)[1]), key_headers(name, spec))
                for name, (frame, spec) in answer_tables.items()}
    try:
        day = datetime.fromisoformat(str(made_at)).date()
        expected["Assumptions"] = (safe_csv(assumptions_of(answer, day)), ["item"])
    except ValueError:
        pass
    for name, (text, headers) in expected.items():
        path = f"tables/{file_name(name)}.csv"
        if path not in present:
            continue
        found = read_inside(folder, path).decode("utf-8", errors="replace")
        if found != text:
            _check_table(name, path, text, found, headers, findings)


# ---------------------------------------------------------------------------------------------------- verify

def verify_folder(folder: Path) -> tuple[Findings, dict]:
    """Check the bundle in ``folder`` (:func:`model.data.bundle.opened`): its entries, its manifest, each file,
    then the answer rebuilt from the bundled inputs against every figure, input, printed figure and table cell (the
    module's docstring). Returns what was found (its :attr:`Findings.code` is the exit code) and the manifest (empty
    when the manifest itself was refused). Raises :class:`model.data.bundle.BundleError` for a folder that is not
    a bundle."""
    folder = Path(folder)
    present, refused = entries(folder)
    findings = Findings()
    for name, what in refused:
        findings.differs.append((f"file {name}", "a regular file inside the bundle", f"{what}: refused, not read"))
    if MANIFEST not in present:
        if any(name == MANIFEST for name, _ in refused):
            return findings, {}
        raise BundleError(f"{folder.name}: no {MANIFEST}, so it is not a proposal bundle")
    manifest = read_manifest(read_inside(folder, MANIFEST))
    _check_files(folder, manifest["files"], present, refused, findings)
    if refused:                       # nothing is rebuilt from a bundle that points outside itself
        return findings, manifest
    try:
        answer, page = answer_of_bundle(folder, manifest["link"])
    except BundleLacks as exc:
        findings.lacks.append(("the answer", str(exc)))
        return findings, manifest

    answer_tables = tables(answer)
    rebuilt = figures_of(answer, answer_tables, page)
    findings.lacks.extend(lacking(manifest.get("series") or [], series_of(answer)))
    compare(manifest["figures"], rebuilt, findings)
    _check_inputs(manifest, answer, findings)
    marked = []
    if REPORT in present and REPORT in manifest["files"]:
        marked = check_report(read_inside(folder, REPORT), page, rebuilt, findings)
    if PDF in present and PDF in manifest["files"]:
        check_pdf(read_inside(folder, PDF), page, rebuilt, marked, findings)
    _check_tables(folder, present, answer_tables, answer, manifest.get("made_at"), findings)
    return findings, manifest


def answer_of_bundle(folder: Path, link: str):
    """The answer of the view ``link`` names, with every part its report renders, and what its report's first page
    says (:func:`model.present.report_sections.first_page`: with its request mix's fleet, answered too), rebuilt from
    ``folder``'s inputs alone (:func:`model.data.bundle.bundle_store`): its rows, sources and data versions, and its
    presets, never the verifying machine's. Raises :class:`model.data.bundle.BundleLacks` when the inputs lack the
    link's data version."""
    view, _ = View.from_query(parse_qs(urlsplit(link).query, keep_blank_values=True))
    with bundle_store(folder) as (con, presets):
        try:
            pin_notes(con, view.data_version, view.data_digest)
        except OtherData as exc:
            raise BundleLacks(f"{STORE}: {exc}") from None
        view = with_workload(con, view)

        def answer_of(v, parts):
            return build_answer(v, replace(load_inputs(con, reading(v, parts)), presets=presets), parts)

        answer = answer_of(view, report_parts(view))
        extras = report_extras(answer.view, answer_of, lambda plan, basis: None) if view.request_mix else None
        return answer, first_page(answer, extras)
