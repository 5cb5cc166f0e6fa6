"""The report box in the sidebar: the view on screen as a proposal (HTML, PDF) and its tables (XLSX).

One :class:`~model.present.report.Report` per (view, data version, share link) is built when a download is
first clicked (a deferred download: the button costs a rerun nothing) from the page's own answer
(:func:`ui.data.answer_of`: one per view and data version, shared, never a second answer), and kept in the
shared cache bounded in bytes (:data:`ui.lru.CACHE`), so the HTML and the XLSX of
one view come from one build. A page's CSV button renders one table of that same answer
(:func:`model.present.tables.rounded`), never a report. The PDF takes seconds to print, so it is printed only when asked
("Prepare PDF") and kept in the session with the key of its view: a PDF of another view is never offered.
"Download bundle" makes the proposal bundle when clicked (:func:`bundle_of`: the report, its PDF, tables, inputs and
manifest, one zip that ``costfrontier verify`` checks offline), from the same report and answer.
"""

from __future__ import annotations

import logging
import os
import re
from datetime import datetime, timezone
from typing import Callable

import streamlit as st

from model.core.links import pinned_url
from model.core.view import View
from model.data.bundle import MANIFEST, SIGNATURE, zip_bytes
from model.data.export import safe_csv
from model.data.signing import SigningError, sign_manifest
from model.data.versions import version_digest
from model.present.bundle import bundle_files
from model.present.report import Report, ReportError, build_report, chromium_path
from model.present.report_sections import report_extras, report_parts
from model.present.tables import TABLE_PARTS, rounded
from model.present.workbook import report_xlsx
from ui import data
from ui.lru import CACHE

__all__ = ["report_box", "table_download", "report_of", "table_csv", "file_stem", "pdf_problem", "bundle_of"]

_PDF = "_report_pdf"              # session state: (view key, PDF bytes) of the last PDF printed
PDF_TIMEOUT_S = 120               # 100 series print in 14-28 s (docs/performance.md, Reports)
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
_LOG = logging.getLogger(__name__)


def _report(path: str, ver: tuple, view_json: str, link: str, answer, extras=None) -> Report:
    # shared, never copied per hit (two ~4.6 MB pages); measured in bytes
    return CACHE.get_or_make(("report", ver, path, view_json, link),
                             lambda: build_report(answer, link, extras=extras() if extras else None))


def _extras(state: View, snap):
    """The report's mix and plan against actual (:func:`model.present.report_sections.report_extras`) from this data
    version's cached answers and comparison: the ones the GPU mix and Plan vs actual pages show."""
    return report_extras(state, lambda v, parts: data.answer_of(v, parts, snap),
                         lambda plan, basis: data.comparison(plan, basis, snap))


def report_of(state: View, link: str, snap=None) -> Report:
    """The report of ``state``, reopened by ``link``: :func:`model.present.report.build_report` of the view's answer
    (every part) on the snapshot ``snap`` (default: the newest published one). Cached per data version."""
    if snap is None:
        with data.reader(data.db_path()).hold() as held:   # open until the answer is read
            return report_of(state, link, held)
    answer = data.answer_of(state, report_parts(state), snap)
    return _report(data.db_path(), snap.version, state.model_dump_json(), link, answer,
                   lambda: _extras(answer.view, snap))


def bundle_of(state: View, link: str, root: str, pdf: bytes | None = None, snap=None) -> bytes:
    """The proposal bundle of ``state`` as one zip whose files sit in the folder ``root``
    (:func:`model.present.bundle.bundle_files`): the report :func:`report_of` gives (its PDF ``pdf`` when one was
    printed for this view, else printed now), and the inputs read from the snapshot ``snap`` (default: the newest
    published one, held while the bundle is made), the link pinned to that data version and its digest. Signed with
    the private key at ``$COSTFRONTIER_SIGNING_KEY`` when the server is given one (:mod:`model.data.signing`);
    unsigned otherwise."""
    if snap is None:
        with data.reader(data.db_path()).hold() as held:
            return bundle_of(state, link, root, pdf, held)
    answer = data.answer_of(state, report_parts(state), snap)
    # the same report the HTML button gives (cached under the same key): its first page and mix section included
    report = _report(data.db_path(), snap.version, state.model_dump_json(), link, answer,
                     lambda: _extras(answer.view, snap))
    version = answer.inputs.data_version
    digest = version_digest(snap.con.cursor(), version) if version else None
    pinned = pinned_url(link, version, digest)
    if pdf is None:
        try:
            pdf = report.pdf_bytes(timeout_s=PDF_TIMEOUT_S)
        except Exception as exc:   # the bundle goes without its PDF (the manifest lists what it holds)
            _LOG.warning("bundle PDF failed: %s", exc)
            pdf = b""
    files = bundle_files(snap.con, answer, report, pinned, digest, pdf)
    key = os.environ.get("COSTFRONTIER_SIGNING_KEY")      # unsigned unless the server is given the issuer's key
    if key:
        try:
            files[SIGNATURE] = sign_manifest(files[MANIFEST], key)
        except SigningError as exc:                     # said in the server's log, never to a viewer
            _LOG.warning("bundle not signed: %s", exc)
    return zip_bytes(files, root)


def table_csv(state: View, name: str, snap=None) -> str:
    """The table ``name`` of ``state``'s answer as a formula-safe CSV, rounded as the report's downloads are:
    what a page's CSV button returns (the parts that table reads, nothing else, are built)."""
    return safe_csv(rounded(data.answer_of(state, TABLE_PARTS.get(name), snap), name))


def file_stem(models: list[str], day: datetime | None = None) -> str:
    """``cost-frontier-GLM-5-2026-11-22``: the model in view (or how many), then the date [UTC]."""
    what = models[0] if len(models) == 1 else f"{len(models)}-models" if models else "no-data"
    what = re.sub(r"[^A-Za-z0-9._-]+", "-", str(what)).strip("-.") or "model"
    return f"cost-frontier-{what[:60]}-{(day or datetime.now(timezone.utc)):%Y-%m-%d}"


def _stem(ctx: data.Ctx) -> str:
    return file_stem(sorted(map(str, ctx.points["model"].dropna().unique())) if not ctx.points.empty else [])


def pdf_problem(exc: Exception | None) -> str:
    """What a viewer is told when the PDF cannot be made: what happened and what to do, no server detail."""
    if exc is None:
        return ("This server cannot print PDFs: Chromium is not installed on it (its administrator can install "
                "Debian's chromium). The HTML report has the same content; open it and print it from your browser.")
    if isinstance(exc, ReportError) and "did not finish" in str(exc):
        return (f"Printing the PDF took longer than {PDF_TIMEOUT_S} s and was stopped. Narrow the view (fewer "
                "series), or open the HTML report and print it from your browser.")
    return ("The PDF could not be printed on this server. The HTML report has the same content; open it and "
            "print it from your browser.")


def _prepare_pdf(key: tuple, make: Callable[[], Report], on_wait: Callable[[], None] | None = None) -> str | None:
    """Print the PDF into the session under ``key``; the problem to show if it cannot be printed. One print runs
    per server process at a time: ``on_wait`` is called when this one queues behind another."""
    if chromium_path() is None:
        return pdf_problem(None)
    try:
        st.session_state[_PDF] = (key, make().pdf_bytes(timeout_s=PDF_TIMEOUT_S, on_wait=on_wait))
    except Exception as exc:   # anything: the viewer gets a plain sentence, the log gets the detail
        _LOG.warning("report PDF failed: %s", exc)
        return pdf_problem(exc)
    return None


def report_box(ctx: data.Ctx, link: str) -> None:
    """Draw "Report of this view" in the sidebar: HTML report, Tables (XLSX), and Prepare PDF / PDF."""
    sb = st.sidebar
    sb.header("Report of this view")
    if ctx.empty:
        sb.caption("Load benchmark data to make a report.")
        return
    state = ctx.state
    key = (state.model_dump_json(), ctx.version, link)
    stem = _stem(ctx)

    def make() -> Report:
        return report_of(state, link)

    sb.download_button("HTML report", lambda: make().html, f"{stem}.html", "text/html", key="report_html",
                       on_click="ignore", icon=":material/description:", width="stretch",
                       help="One file with every chart, table, assumption and source; opens offline.")
    sb.download_button("Tables (XLSX)", lambda: report_xlsx(make()), f"{stem}.xlsx", XLSX, key="report_xlsx",
                       on_click="ignore", icon=":material/table:", width="stretch",
                       help="The report's tables, rounded for people; the assumptions on the second sheet.")
    slot = sb.empty()
    kept = st.session_state.get(_PDF)
    if not (kept and kept[0] == key) and slot.button("Prepare PDF", key="report_prepare_pdf",
                                                     icon=":material/picture_as_pdf:", width="stretch",
                                                     help="Prints the report with Chromium: a few seconds."):
        slot.info("Printing the PDF…", icon="spinner")     # in the button's place until the PDF is ready
        problem = _prepare_pdf(key, make, lambda: slot.info(
            "Another viewer's PDF is printing on this server (one at a time); yours is next…", icon="spinner"))
        if problem:
            slot.error(problem)
            return
        kept = st.session_state[_PDF]
    if kept and kept[0] == key:
        slot.download_button("PDF", kept[1], f"{stem}.pdf", "application/pdf", key="report_pdf", on_click="ignore",
                             icon=":material/picture_as_pdf:", type="primary", width="stretch")
    if chromium_path() is not None:       # a bundle holds the PDF: a server that cannot print offers none
        printed = kept[1] if kept and kept[0] == key else None
        sb.download_button("Download bundle", lambda: bundle_of(state, link, f"{stem}-bundle", printed),
                           f"{stem}-bundle.zip", "application/zip", key="report_bundle", on_click="ignore",
                           icon=":material/verified:", width="stretch",
                           help="The report, its PDF and tables, the rows and rates it was computed from and a "
                                "manifest of every figure, in one zip: costfrontier verify checks it offline. Made "
                                "when clicked (the PDF takes a few seconds).")
    sb.caption("Made from this view, with its rates, filters and targets, the assumptions and every source.")


def table_download(ctx: data.Ctx, name: str) -> None:
    """A CSV download of the table ``name`` (e.g. "Crossovers") under a page's table: the same rounded,
    formula-safe numbers as the report's downloads, from the page's answer, made when clicked (:func:`table_csv`)."""
    if ctx.empty or ctx.points.empty:
        return
    state = ctx.state
    stem = _stem(ctx)
    st.download_button(f"{name} (CSV)", lambda: table_csv(state, name),
                       f"{stem}-{re.sub(r'[^a-z0-9]+', '-', name.lower()).strip('-')}.csv", "text/csv",
                       key=f"csv::{name}", on_click="ignore", icon=":material/download:")
