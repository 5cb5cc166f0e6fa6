"""What one view reads from the store, read once: :func:`load_inputs` returns an :class:`Inputs` value that the
answer (:func:`model.present.view_answer.build_answer`) is computed from without a connection.

What is read is a :class:`Reading` (a typed key): the view's filters, the columns its answer's steps read
(:func:`analysis_columns` of the view, and each step's own, declared beside the step), its data version, as-of,
repeats and series keys, and which other stored inputs (:data:`READS`) a step asked for. The rows are loaded by the
filters, then the as-of and repeats are applied (:func:`model.core.repeats.runs_in_view`); beside them: the
$/GPU-hour presets and which TCO rates file set each, and the stored API prices, sources, evaluations and
per-request data and run-to-run intervals a step reads.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from types import MappingProxyType
from typing import Iterable, Mapping

import pandas as pd

from model.core.analysis import WORKLOAD_KEYS
from model.core.cost import load_presets
from model.core.frontier import throughput_column
from model.core.repeats import CONFIG_KEYS, runs_in_view
from model.core.sla import SLA
from model.core.uncertainty import Calibration
from model.core.view import View
from model.data.calibration import load_calibration
from model.data.store import list_sources, load_points, shared_strings, stored_rates, workloads
from model.data.traces import with_stored_trace
from model.data.versions import latest_version, visible_sql

__all__ = ["Inputs", "Reading", "reading_of", "load_inputs", "analysis_columns", "first_workload", "with_workload",
           "rate_files", "READS"]

#: what an answer may read from the store beside the rows and the presets
READS = ("api_prices", "sources", "evals", "requests", "calibration", "intervals")

#: the columns every analysis reads: rates, the frontier's x (by TPOT or ITL: model.core.interactivity), the
#: workload split, series labels (a disaggregated series says so) and the disaggregation note
_ANALYSIS_BASE = ("hardware", "interactivity", "tpot_median_ms", "itl_median_ms", "disaggregated", *WORKLOAD_KEYS)
#: what each token basis reads beyond its own column: the per-role rates of disaggregated rows; blended tokens
#: weigh output (else total) tok/s/GPU by ISL, OSL and the prefix-cache hit rate (workload keys, read anyway)
_BASIS_EXTRA = {"input": ("input_tokens_per_second_per_prefill_gpu",),
                "output": ("output_tokens_per_second_per_decode_gpu",),
                "blended": ("output_tokens_per_second_per_gpu", "total_tokens_per_second_per_gpu")}
#: the ``share`` disaggregation mode splits total tok/s/GPU by the measured system rates
_SHARE_EXTRA = ("input_tokens_per_second", "output_tokens_per_second", "total_tokens_per_second",
                "total_tokens_per_second_per_gpu")
#: configurations are told apart by these (the repeats' choice)
_CONFIGURATIONS = (*CONFIG_KEYS, "run_date", "source_file", "source_line")


def analysis_columns(view: View, extra: Iterable[str] = ()) -> tuple[str, ...]:
    """The columns of the store an analysis of ``view`` reads (its basis, SLA, series keys, as-of and repeats),
    then ``extra`` (what the answer's other steps read: :func:`model.present.view_answer.reading`), for
    ``load_points(columns=)``: a pure function of the view. At 1M rows what is left out is most of a load's time
    and memory."""
    basis = view.basis
    out = [*_ANALYSIS_BASE, *view.by, *_BASIS_EXTRA.get(basis, ())]
    if basis != "blended":
        out.append(throughput_column(basis))
    if basis in ("input", "output") and view.disagg == "share":
        out += _SHARE_EXTRA
    if view.sla:
        out += [column for _, column, _, _ in SLA.from_text(view.sla).limits()]
    if view.as_of is not None:
        out.append("run_date")
    if view.repeats != "pooled":
        out += _CONFIGURATIONS
    out += extra
    return tuple(dict.fromkeys(out))


@dataclass(frozen=True)
class Reading:
    """What a view reads from the store, as a typed key: two views with one reading share one read (and the
    dashboard's cache of it). Build it with :func:`reading_of`."""

    where: tuple[tuple[str, tuple], ...]     # field -> accepted values (:meth:`model.core.view.View.where`)
    columns: tuple[str, ...] | None          # the projection (None: every column)
    version: int | None                      # the data version pinned (None: the latest)
    as_of: date | None                       # rows run on or before it
    repeats: str                             # pooled, latest or median
    by: tuple[str, ...]                      # the series keys (the repeats' choice is per configuration in them)
    reads: tuple[str, ...] = ()              # of :data:`READS`


def reading_of(view: View, columns: tuple[str, ...] | None, reads: Iterable[str] = ()) -> Reading:
    """The :class:`Reading` of ``view`` loading ``columns`` (None: every one) and ``reads`` (:data:`READS`)."""
    unknown = set(reads) - set(READS)
    if unknown:
        raise ValueError(f"unknown reads {sorted(unknown)}; choose from {', '.join(READS)}")
    return Reading(tuple(sorted((k, tuple(v)) for k, v in view.where().items())), columns, view.data_version,
                   view.as_of, view.repeats, tuple(view.by), tuple(r for r in READS if r in set(reads)))


@dataclass(frozen=True, eq=False)
class Inputs:
    """Everything an answer reads, read once (:func:`load_inputs`). Read-only: shared by every answer and session
    that is handed it (every view of one :class:`Reading`)."""

    reading: Reading
    loaded: pd.DataFrame                     # the rows the view's filters select, before as-of and repeats
    rows: pd.DataFrame                       # ... after as-of and the repeats choice: what builds the frontier
    pooled: pd.DataFrame                     # ... after as-of only (the repeats whose spread is shown)
    presets: pd.DataFrame                    # model.core.cost.load_presets of the store
    rate_files: Mapping[tuple[str, str, str], str]   # (price set, tier, lower hardware) -> TCO rates file
    notes: tuple[str, ...] = ()              # what as-of and repeats left out
    api_prices: tuple = ()                   # model.data.api_prices.load_api_prices (if read)
    sources: pd.DataFrame | None = None      # model.data.store.list_sources (if read)
    evals: pd.DataFrame | None = None        # model.data.evals.load_evals (if read)
    requests: Mapping = field(default_factory=lambda: MappingProxyType({}))  # point_id -> per-request data
    data_version: int | None = None          # the data version read (the view's pin, else the latest then)
    calibration: Calibration | None = None   # the band's calibration on every frontier of that version (if read)
    intervals: pd.DataFrame | None = None    # model.data.intervals.load_intervals of the rows (if read)


def first_workload(con, version: int | None = None) -> str | None:
    """The workload a view without one shows (``model|isl|osl``): the one with most frontier points (of data
    version ``version``; None: the latest)."""
    rows = workloads(con, version)
    return "|".join(rows[0][:3]) if rows else None


def with_workload(con, view: View) -> View:
    """``view``, or, when it names no workload, ``view`` showing the store's first (:func:`first_workload`), as a
    link without ``wl=`` opens: the one rule for every reader of the store (the CLI's and the dashboard's). A
    stored trace the view names by reference is read in too (:func:`model.data.traces.with_stored_trace`)."""
    view = with_stored_trace(con, view)     # a stored trace the view names (s1;...) read in (model.data.traces)
    if view.workload is None and (first := first_workload(con, view.data_version)) is not None:
        return view.replace(workload=first)
    return view


def rate_files(con, version: int | None = None) -> Mapping[tuple[str, str, str], str]:
    """(price set, tier, lower-case hardware) -> the ingested TCO rates file that set that preset (in data
    version ``version``; None: the latest)."""
    try:
        shown, params = visible_sql(con, version, "r.source_id")
        rows = con.execute("SELECT r.price_set, r.tier, lower(r.hardware), s.file_name FROM tco_rates r "
                           f"JOIN sources s USING (source_id){' WHERE ' + shown if shown else ''}",
                           params).fetchall()
    except Exception:   # an older store without the table: every preset is built in
        return MappingProxyType({})
    return MappingProxyType({(str(p), str(t), str(h)): str(f) for p, t, h, f in rows})


def load_inputs(con, reading: Reading, shared: bool = False, calibration: Calibration | None = None) -> Inputs:
    """Read once from the store ``con`` (a DuckDB connection or cursor, read-only is enough) what ``reading``
    names: the rows (its filters and projection, in its data version), then its as-of and repeats
    (:func:`model.core.repeats.runs_in_view`), the presets and which TCO rates file set each, and each of its
    :data:`READS`. A pinned data version reads exactly that version's rows, rates, prices, sources and
    evaluations (:mod:`model.data.versions`). Per-request data is read only when asked for, and only when the
    store holds some (:func:`model.data.requests.load_samples`). ``shared``: the rows are kept (the dashboard's
    cache), so each text value is held once (:func:`model.data.store.shared_strings`: 70 ms a column at 1M rows,
    which a one-shot command does not pay). ``calibration``: the data version's, where the caller keeps one
    (:func:`model.data.calibration.load_calibration`, read here when asked for and not given)."""
    version = reading.version
    loaded = load_points(con, {k: list(v) for k, v in reading.where}, columns=reading.columns, version=version)
    if shared:
        loaded = shared_strings(loaded)
    api, sources, evals, samples = (), None, None, None
    if "api_prices" in reading.reads:
        from model.data.api_prices import load_api_prices

        api = tuple(load_api_prices(con, version))
    if "sources" in reading.reads:
        sources = list_sources(con, version)
    if "evals" in reading.reads:
        from model.data.evals import load_evals

        evals = load_evals(con, version=version)
    if "requests" in reading.reads:
        from model.data.requests import load_samples

        samples = load_samples(con, loaded["point_id"])
    if "calibration" in reading.reads and calibration is None:
        calibration = load_calibration(con, version)
    intervals = None
    if "intervals" in reading.reads:
        from model.data.intervals import load_intervals

        intervals = load_intervals(con, loaded["point_id"])
    runs = runs_in_view(loaded, reading.as_of, reading.repeats, reading.by)
    return Inputs(reading, loaded, runs.rows, runs.pooled, load_presets(stored_rates(con, version)),
                  rate_files(con, version), tuple(runs.notes), api, sources, evals,
                  samples if samples is not None else MappingProxyType({}), version or latest_version(con) or None,
                  calibration if "calibration" in reading.reads else None, intervals)
