"""Report benchmark: generation time for the bundled samples and for 100 synthetic series.
Prints figures; asserts nothing.

    python bench/bench_report.py [--series 100] [--rows 20000] [--no-pdf]

Measured in the same run, for each data set:
- baseline: plain Plotly ``to_html`` of one cost figure with plotly.js inlined (what any report of
  one chart costs), and the analysis alone (what ``costfrontier iso``/``crossover`` compute);
- ``build_report`` (the HTML and its print variant), the XLSX and the CSV zip;
- the PDF: Debian Chromium's ``--print-to-pdf`` (what :meth:`Report.to_pdf` uses) against
  Playwright's ``page.pdf`` driving the same Chromium, both including the browser start;
- the proposal bundle without its PDF (the inputs copied from the store, the CSVs, the XLSX, the manifest of every
  figure: :func:`model.present.bundle.bundle_files`) and ``verify`` of it (the answer rebuilt from the bundle,
  every figure and file compared: :func:`model.present.bundle.verify_folder`).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import plotly.graph_objects as go  # noqa: E402
from bench_core import make_rows, timed  # noqa: E402

from model.core.analysis import analyse  # noqa: E402
from model.core.links import pinned_url  # noqa: E402
from model.core.view import View  # noqa: E402
from model.data.bundle import write_folder  # noqa: E402
from model.data.ingest import ingest_file  # noqa: E402
from model.data.presets import load_presets  # noqa: E402
from model.data.samples import load_samples  # noqa: E402
from model.data.store import connect, load_points, stored_rates  # noqa: E402
from model.data.versions import version_digest  # noqa: E402
from model.present import figures  # noqa: E402
from model.present.bundle import bundle_files  # noqa: E402
from model.present.bundle_verify import verify_folder  # noqa: E402
from model.present.report import PRINT_WIDTH_PX, build_report, chromium_path, view_link  # noqa: E402
from model.present.report_sections import report_parts  # noqa: E402
from model.present.view_answer import answer_of_view  # noqa: E402
from model.present.workbook import report_xlsx  # noqa: E402

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]


def playwright_pdf(page_html: str, out: Path, chromium: str) -> None:
    """The alternative: Playwright's page.pdf on the same Chromium (browser start included)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": PRINT_WIDTH_PX + 60, "height": 1000})
        page.set_content(page_html, wait_until="load")
        page.wait_for_selector(".main-svg")
        page.pdf(path=str(out), format="A4", print_background=True, prefer_css_page_size=True)
        browser.close()


def bench(label: str, con, scenario: View, where: dict, pdf: bool, tmp: Path) -> None:
    presets = load_presets(stored_rates(con))
    points = load_points(con, where)
    analysis_s, result = timed(lambda: analyse(points, scenario, presets, with_points=True))

    def one_figure():
        fig = figures.crossover_figure(result.curves, result.crossovers, result.reach, scenario.method)
        return go.Figure(fig).to_html(include_plotlyjs=True, full_html=True)   # validated, as the report does

    baseline_s, _ = timed(one_figure)
    state = View(workload="all", mix_workloads=True, by=scenario.by, rates=scenario.rates, targets=scenario.targets,
                      hardware=tuple(where.get("hardware", ())), spec_decoding=tuple(where.get("spec_decoding", ())))
    report_s, report = timed(lambda: build_report(answer_of_view(con, state, report_parts(state))))
    xlsx_s, xlsx = timed(lambda: report_xlsx(report))
    csv_s, csv = timed(report.tables_csv)
    answer = answer_of_view(con, state, report_parts(state))
    version = answer.inputs.data_version
    link = pinned_url(view_link(answer.view), version, version_digest(con, version) if version else None)
    bundle_s, files = timed(lambda: bundle_files(con, answer, report, link, None, b""), repeat=2)
    folder = tmp / f"bundle-{len(result.curves)}"
    write_folder(folder, files)
    verify_s, (found, manifest) = timed(lambda: verify_folder(folder), repeat=2)
    print(f"\n{label}: {len(points):,} rows, {len(result.curves)} series, {len(result.crossovers)} crossovers, "
          f"{len(result.frontier):,} frontier points")
    print(f"  baseline: one figure to_html (plotly.js inlined) {baseline_s * 1000:8.0f} ms")
    print(f"  baseline: analysis alone (iso + crossovers)      {analysis_s * 1000:8.0f} ms")
    print(f"  build_report (HTML + print HTML)                 {report_s * 1000:8.0f} ms  "
          f"= {report_s / baseline_s:.1f}x one figure; HTML {len(report.html) / 1e6:.1f} MB")
    print(f"  tables_xlsx                                      {xlsx_s * 1000:8.0f} ms  ({len(xlsx) / 1e3:.0f} kB)")
    print(f"  tables_csv (zip)                                 {csv_s * 1000:8.0f} ms  ({len(csv) / 1e3:.0f} kB)")
    print(f"  bundle without its PDF                           {bundle_s * 1000:8.0f} ms  "
          f"= {bundle_s / report_s:.2f}x build_report; {sum(map(len, files.values())) / 1e6:.1f} MB in {len(files)} "
          f"files, store {len(files['inputs/store.duckdb']) / 1e6:.1f} MB, {len(manifest['figures']):,} figures")
    print(f"  verify (answer rebuilt, every figure compared)   {verify_s * 1000:8.0f} ms  "
          f"= {verify_s / analysis_s:.1f}x the analysis alone; exit {found.code}")
    chromium = chromium_path()
    if not pdf or chromium is None:
        print("  PDF: skipped" + ("" if pdf else " (--no-pdf)") + ("" if chromium else " (no Chromium)"))
        return
    cli_s, _ = timed(lambda: report.to_pdf(tmp / "cli.pdf"), repeat=2)
    print(f"  PDF, Chromium --print-to-pdf (used)              {cli_s * 1000:8.0f} ms  "
          f"({(tmp / 'cli.pdf').stat().st_size / 1e3:.0f} kB)")
    try:
        pw_s, _ = timed(lambda: playwright_pdf(report.print_html, tmp / "pw.pdf", chromium), repeat=2)
        print(f"  PDF, Playwright page.pdf (alternative)           {pw_s * 1000:8.0f} ms  "
              f"({(tmp / 'pw.pdf').stat().st_size / 1e3:.0f} kB) = {pw_s / cli_s:.2f}x the CLI print")
    except ImportError:
        print("  PDF, Playwright page.pdf: skipped (playwright not installed: pip install -e '.[test]')")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--series", type=int, default=100)
    parser.add_argument("--rows", type=int, default=20_000)
    parser.add_argument("--no-pdf", action="store_true")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench-report-"))
    try:
        con = connect(tmp / "samples.duckdb")
        with contextlib.redirect_stdout(io.StringIO()):
            load_samples(con)
        bench("bundled samples (default view)", con, View(), {}, not args.no_pdf, tmp)
        con.close()

        con = connect(tmp / "synthetic.duckdb")
        csv = tmp / "synthetic.csv"
        make_rows(args.rows, args.series).to_csv(csv, index=False)
        ingest_file(con, csv, [])
        by = ("hardware", "precision", "spec_decoding", "model", "isl", "osl")   # one series per synthetic system
        bench(f"synthetic, {args.series} series", con, View(by=by), {}, not args.no_pdf, tmp)
        con.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    start = time.perf_counter()
    main()
    print(f"\ntotal {time.perf_counter() - start:.0f} s")
