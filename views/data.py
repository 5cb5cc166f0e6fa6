"""Data: upload benchmark files (previewed before anything is stored), list and delete sources, download rows."""

import streamlit as st

from model.core.run_to_run import METRIC_OF_BASIS
from model.data.ingest import IngestError, ingest_file
from model.data.preview import FORM_FIELDS, for_form, form_pairs
from model.data.snapshot import write as store_write
from model.data.store import StoreError, remove_source
from model.data.uploads import BYTES_PER_MB, max_upload_mb
from model.data.versions import acting
from model.present import fmt
from ui import data, frame, uploads, versions, widgets
from ui.state import commit, plain

MAX_UPLOAD_MB = max_upload_mb()
#: the upload preview's columns: those the cost is read from first, then the ones behind "More columns"
PREVIEW_FIRST = ("hardware", "gpus", "interactivity", "total_tokens_per_second_per_gpu",
                 "output_tokens_per_second_per_gpu", "concurrency", "request_rate_rps")
PREVIEW_DETAILS = ("model", "framework", "precision", "spec_decoding", "tp", "isl", "osl", "ttft_p50_s", "source_line")
ctx = frame.context()
st.title("Data")
for text in st.session_state.pop("_ingest_report", []):
    (st.success if text[0] == "ok" else st.error if text[0] == "error" else st.warning)(plain(text[1]))
if data.read_only():
    st.info("This is a read-only deployment: uploads and deletions are off. Share links still work.")
else:
    st.subheader("Upload benchmark files")
    round_ = st.session_state.setdefault("_upload_round", 0)     # a new key empties the uploader after an ingest
    files = st.file_uploader("CSV or JSON result files (vLLM, SGLang, InferenceX, AIPerf, GenAI-Perf, trtllm-bench, "
                             "LLMPerf, GuideLLM, or a CSV)", accept_multiple_files=True, key=f"upload_{round_}",
                             type=["csv", "tsv", "txt", "json", "jsonl"])
    st.caption("Fields your files may not state (benchmark tools rarely name the GPU). They fill only what a file "
               "leaves empty; the preview below follows as you type.")
    cols = st.columns(4)
    values = {name: cols[i % 4].text_input(label, key=f"meta_{name}") for i, (name, label) in
              enumerate(FORM_FIELDS.items())}
    set_fields = tuple(form_pairs(values))
    ready = []
    if files:
        st.markdown("**Preview** (checked exactly as the ingest will; nothing is stored yet)")
    for upload in files or []:
        if upload.size > MAX_UPLOAD_MB * BYTES_PER_MB:
            st.error(plain(f"{upload.name}: {upload.size / BYTES_PER_MB:.0f} MB is over the upload limit of "
                           f"{MAX_UPLOAD_MB:g} MB."))
            continue
        dry, spool = uploads.preview(upload, set_fields)
        if not dry["ok"]:
            widgets.upload_error(upload.name, dry["error"])
            continue
        ready.append((upload, dry, spool))
        checked = f" (the first {fmt.count(dry['rows'], 'row')} checked)" if dry["sampled"] else ""
        st.success(plain(f"{upload.name}: {dry['format']} → "
                         f"{fmt.count(dry['rows'], 'row')} of {dry['kind']}{checked}"))
        for warning in dry["warnings"]:
            st.warning(plain(f"{upload.name}: {warning}"))
        if not dry["preview"].empty:   # what the cost needs first; the rest of the recipe behind "More columns"
            widgets.table(dry["preview"][[c for c in PREVIEW_FIRST if c in dry["preview"]]
                                         + [c for c in dry["preview"] if c not in PREVIEW_FIRST]],
                          key=f"preview_{upload.file_id}", details=PREVIEW_DETAILS)
    if ready and st.button(f"Ingest {fmt.count(len(ready), 'file')}", key="ingest", type="primary"):
        report, new_workloads = [], []
        progress = st.progress(0.0, text="Ingesting…")
        for i, (upload, dry, spool) in enumerate(ready):
            try:
                with acting("upload", data.page_name(), data.user()):   # its data version says so
                    result = store_write(data.db_path(), lambda con, spool=spool, name=upload.name: ingest_file(
                        con, spool, list(set_fields), display_name=name))
            except IngestError as exc:
                report.append(("error", for_form(str(exc))))
                continue
            except StoreError as exc:
                report.append(("error", f"{upload.name}: not stored: {exc.public}"))
                continue
            report.append(("ok", result.summary))
            report.extend(("warning", f"{upload.name}: {for_form(w)}") for w in result.warnings)
            new_workloads.extend(dry["workloads"] if result.rows_added else [])
            progress.progress((i + 1) / len(ready), text=f"{i + 1} of {len(ready)} files")
        data.clear()
        uploads.drop_previews()
        if new_workloads:   # show what was just added
            commit(workload=new_workloads[0])
        st.session_state["_ingest_report"] = report
        st.session_state["_upload_round"] = round_ + 1
        st.rerun()

st.subheader("Ingested sources")
sources = data.sources(data.version())
widgets.table(sources.drop(columns=["sha256"]), key="sources_table")
verdicts, checks = data.published_checks_of(ctx.state, data.version())
if not verdicts.empty:
    st.subheader("Published tables, checked")
    st.caption(f"Every published $/M recomputed from the table's own throughput and rate (a rate it does not state: "
               f"the view's price set, {ctx.state.price_set} / {ctx.state.tier}), and every ratio from its own cells; "
               "a value is flagged when it disagrees beyond the table's rounding (half a unit of its last printed "
               "digit, carried through the arithmetic).")
    widgets.table(verdicts, key="published_verdicts")
    flagged = checks[checks["agrees"] == False]  # noqa: E712
    if not flagged.empty:
        with st.expander(f"The {fmt.count(len(flagged), 'flagged value')}, with both numbers"):
            widgets.table(flagged[["source_id", "check", "line", "hardware", "spec_decoding", "interactivity",
                                   "published", "recomputed", "recomputed_lo", "recomputed_hi", "detail"]],
                          key="published_flagged")
stated = data.intervals(data.version())
if not stated.empty:
    st.subheader("Run-to-run intervals")
    throughput = stated[stated["metric"].isin(set(METRIC_OF_BASIS.values()))]
    flagged = stated[stated["status"] == "differs"]
    st.caption(f"Points measured over repeated runs (AIPerf --num-profile-runs) keep each metric's interval. Each was "
               f"checked: se = std ÷ √n and mean ± t·se recomputed and compared within the file's rounding. "
               f"{fmt.count(len(flagged), 'interval')} disagree: flagged and not used; a point of one run has none.")
    widgets.table(throughput[["file_name", "source_line", "metric", "runs", "mean", "ci_low", "ci_high", "t_critical",
                              "status", "detail"]], key="intervals_table", details=("t_critical", "detail"))
    if not flagged.empty:
        with st.expander(f"The {fmt.count(len(flagged), 'flagged interval')}, with what was recomputed"):
            widgets.table(flagged[["file_name", "source_line", "metric", "mean", "se", "se_recomputed", "ci_low",
                                   "ci_high", "ci_low_recomputed", "ci_high_recomputed", "t_critical", "t_implied",
                                   "detail"]], key="intervals_flagged")
if not ctx.points.empty:
    st.download_button("Download the filtered rows as CSV", data.export_csv(ctx.state, data.version()),
                       file_name="costfrontier.csv", mime="text/csv", key="download")
st.subheader("Change log")
log = versions.versions(data.version())
if log.empty:
    st.caption("No data versions yet: every ingest, upload, removal, saved profile or API price will be one.")
else:
    st.caption(f"Every write is a numbered data version ({fmt.count(len(log), 'version')}, newest first). A link "
               "pinned to a version (the Share box's second link, v=N) shows exactly its data; "
               "costfrontier versions --diff A B compares two.")
    widgets.table(log.sort_values("version", ascending=False), key="versions_table")
if not data.read_only() and not sources.empty:
    with st.expander("Delete a source"):
        st.caption("It is hidden from a new data version on: links pinned to earlier versions still show it. "
                   "costfrontier purge deletes hidden rows for good.")
        names = dict(zip(sources["source_id"], sources["file_name"]))
        choice = st.selectbox("Source", list(names), key="delete_choice", format_func=lambda i: f"#{i} {names[i]}")
        sure = st.checkbox("I have downloaded what I need; delete it", key="delete_confirm")
        if st.button("Delete", key="delete", disabled=not sure):
            removed = data.write(lambda con: remove_source(con, int(choice)), "delete the source")
            if removed is not None:
                st.session_state["_ingest_report"] = [("ok", f"Deleted source #{choice} "
                                                              f"({fmt.count(removed, 'row')}) from a new data "
                                                              "version on; links pinned to earlier ones keep it.")]
                st.rerun()
