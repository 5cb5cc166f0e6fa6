"""What one view reads from the store, read once: :func:`load_inputs` returns an :class:`Inputs` value that the
answer (:func:`model.present.view_answer.build_answer`) is computed from without a connection.

The rows are loaded by the view's filters, then its ``as_of`` and ``repeats`` are applied
(:func:`model.core.repeats.runs_in_view`); beside them: the $/GPU-hour presets, which TCO rates file set each
preset, the stored API prices, the ingested sources and the evaluations, each only when a part asked for
reads it. :func:`analysis_columns` is the 1M-row path's column projection: a pure function of the view and
the parts asked for.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Iterable, Mapping

import pandas as pd

from model.core.analysis import WORKLOAD_KEYS
from model.core.cost import load_presets
from model.core.frontier import MEASURED_BASES, throughput_column
from model.core.repeats import CONFIG_KEYS, runs_in_view
from model.core.sla import SLA, TTFT_PERCENTILES
from model.core.view import View
from model.data.store import list_sources, load_points, stored_rates, workloads
from model.data.traces import with_stored_trace
from model.data.versions import latest_version, visible_sql

__all__ = ["Inputs", "load_inputs", "inputs_of", "analysis_columns", "first_workload", "with_workload", "rate_files",
           "ANALYSIS_PARTS", "EVERY_PART", "PART_COLUMNS", "DASHBOARD_PARTS"]

#: the parts of an answer that :func:`analysis_columns` serves with the analysis's columns alone (the ``iso`` and
#: ``crossover`` commands)
ANALYSIS_PARTS = ("analysis", "crossed", "baseline", "iso", "uncertainty", "iso_error", "crossovers_marked",
                  "interactivity_needed", "x_range", "usd_per_gpu_hour", "rates", "notes", "drawn", "goodput_caps")
#: ``parts`` of :func:`load_inputs` meaning every part but the evaluations (the default)
EVERY_PART = None

#: the columns every analysis reads: rates, the frontier's x, the workload split, series labels (a disaggregated
#: series says so) and the disaggregation note
_ANALYSIS_BASE = ("hardware", "interactivity", "tpot_median_ms", "disaggregated", *WORKLOAD_KEYS)
#: what each token basis reads beyond its own column: the per-role rates of disaggregated rows; blended tokens
#: weigh output (else total) tok/s/GPU by ISL, OSL and the prefix-cache hit rate (workload keys, read anyway)
_BASIS_EXTRA = {"input": ("input_tokens_per_second_per_prefill_gpu",),
                "output": ("output_tokens_per_second_per_decode_gpu",),
                "blended": ("output_tokens_per_second_per_gpu", "total_tokens_per_second_per_gpu")}
#: the ``share`` disaggregation mode splits total tok/s/GPU by the measured system rates
_SHARE_EXTRA = ("input_tokens_per_second", "output_tokens_per_second", "total_tokens_per_second",
                "total_tokens_per_second_per_gpu")
#: where a row comes from (a frontier point's hover and table, the repeats' and the history's files and dates)
_PROVENANCE = ("run_date", "source_file", "source_line")
#: the repeats' choice and spread tell configurations apart by :data:`model.core.repeats.CONFIG_KEYS`
_CONFIGURATIONS = (*CONFIG_KEYS, *_PROVENANCE)
#: what one node carries (:func:`model.present.fleet_answer.capacity_of`): ramp knees on the ``auto`` basis (each
#: measured tok/s/GPU in turn), frontier points' GPUs, concurrency and tokens per request
_CAPACITY = ("request_rate_rps", "gpus", "concurrency", "isl", "osl", "prefix_cache_hit_rate", "model",
             *(throughput_column(basis) for basis in MEASURED_BASES), "output_tokens_per_second_per_gpu",
             "source_file", "source_line")
#: the columns each part outside the analysis reads beyond it; a part not named here reads every column
PART_COLUMNS = MappingProxyType({
    **{part: () for part in ANALYSIS_PARTS},
    "at_x": (), "pair": (), "break_even": (), "profiles": (), "evals": (),
    "provenance": (),                                               # the sources and the rows' source ids
    "with_points": ("tp", "ep", "dp", "pp", "concurrency", "framework", "precision", "spec_decoding", *_PROVENANCE),
    "spread": _CONFIGURATIONS,
    "frontier_table": (*_CONFIGURATIONS, "tp", "ep", "dp", "pp", "concurrency"),
    "history": _CONFIGURATIONS,
    "capacity": _CAPACITY, "fleet": _CAPACITY, "volume": _CAPACITY,
    **{part: (*_CAPACITY, *_CONFIGURATIONS) for part in ("recommendation", "headline", "summary")},
    "ramps": (*_CAPACITY, *(f"ttft_{p}_s" for p in TTFT_PERCENTILES)),   # the ramp chart draws each TTFT
})
#: every part a dashboard page, its report and its downloads read: the dashboard loads their columns once per view
DASHBOARD_PARTS = tuple(PART_COLUMNS)


def analysis_columns(state: View, parts: Iterable[str] | None = ANALYSIS_PARTS) -> tuple[str, ...] | None:
    """The columns of the store that the ``parts`` of ``state``'s answer read, for ``load_points(columns=)``: a pure
    function of the view and the parts asked for (:data:`PART_COLUMNS`); None when they read them all (every part,
    ``parts=None``, or a part :data:`PART_COLUMNS` does not name). A repeats choice other than ``pooled`` reads the
    configuration keys and run dates as well (configurations are told apart by :data:`model.core.repeats.CONFIG_KEYS`,
    the latest by run date and file). At 1M rows what is left out is most of a load's time and memory."""
    if parts is None or not set(parts) <= set(PART_COLUMNS):
        return None
    basis = state.basis
    out = [*_ANALYSIS_BASE, *state.by, *_BASIS_EXTRA.get(basis, ())]
    if basis != "blended":
        out.append(throughput_column(basis))
    if basis in ("input", "output") and state.disagg == "share":
        out += _SHARE_EXTRA
    if state.sla:
        out += [column for _, column, _, _ in SLA.from_text(state.sla).limits()]
    if state.as_of is not None:
        out.append("run_date")
    if state.repeats != "pooled":
        out += _CONFIGURATIONS
    for part in parts:
        out += PART_COLUMNS[part]
    return tuple(dict.fromkeys(out))


@dataclass(frozen=True, eq=False)
class Inputs:
    """Everything an answer reads, read once (:func:`load_inputs`). Read-only: shared by every answer and
    session that is handed it."""

    view: View                          # the view, its workload set (a view without one shows the first)
    loaded: pd.DataFrame                     # the rows the view's filters select, before as-of and repeats
    rows: pd.DataFrame                       # ... after as-of and the repeats choice: what builds the frontier
    pooled: pd.DataFrame                     # ... after as-of only (the repeats whose spread is shown)
    presets: pd.DataFrame                    # model.core.cost.load_presets of the store
    rate_files: Mapping[tuple[str, str, str], str]   # (price set, tier, lower hardware) -> TCO rates file
    notes: tuple[str, ...] = ()              # what as-of and repeats left out
    columns: tuple[str, ...] | None = None   # the columns the rows hold (analysis_columns); None: every one
    api_prices: tuple | None = None          # model.data.api_prices.load_api_prices; None: not read
    sources: pd.DataFrame | None = None      # model.data.store.list_sources; None: not read
    evals: pd.DataFrame | None = None        # model.data.evals.load_evals; None: not read
    requests: Mapping = field(default_factory=lambda: MappingProxyType({}))  # point_id -> per-request data (model.data.requests.load_samples)
    data_version: int | None = None          # the data version read (the view's pin, else the latest then)

    def refuse(self, part: str, needs: str = "columns") -> None:
        """Raise ``RuntimeError`` for a part these inputs cannot answer (they were loaded for fewer parts: a
        projection without every column :data:`PART_COLUMNS` names for ``part``)."""
        missing = {"columns": self.columns is not None and not set(PART_COLUMNS.get(part, ("*",))) <= set(self.columns),
                   "api_prices": self.api_prices is None,
                   "sources": self.sources is None, "evals": self.evals is None}[needs]
        if missing:
            raise RuntimeError(f"{part} reads {needs.replace('_', ' ')} these inputs did not load "
                               f"(load_inputs(parts=...) loads the columns of the parts asked for)")


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


def inputs_of(view: View, loaded: pd.DataFrame, presets: pd.DataFrame,
              rate_sources: Mapping[tuple[str, str, str], str], *, runs=None, columns: tuple[str, ...] | None = None,
              api_prices=None, sources: pd.DataFrame | None = None, evals: pd.DataFrame | None = None,
              requests: Mapping | None = None, data_version: int | None = None) -> Inputs:
    """:class:`Inputs` from what was read (``loaded``: ``load_points`` of ``view.where()``); ``runs`` is
    :func:`model.core.repeats.runs_in_view` of ``loaded`` for the view's as-of, repeats and series keys
    (computed here when None)."""
    runs = runs_in_view(loaded, view.as_of, view.repeats, view.by) if runs is None else runs
    return Inputs(view, loaded, runs.rows, runs.pooled, presets, rate_sources, tuple(runs.notes), columns,
                  tuple(api_prices) if api_prices is not None else None, sources, evals,
                  requests if requests is not None else MappingProxyType({}), data_version)


def load_inputs(con, view: View, parts: Iterable[str] | None = EVERY_PART) -> Inputs:
    """Read once from the store ``con`` (a DuckDB connection or cursor, read only is enough) everything the
    ``parts`` of ``view``'s answer read (None: every part).

    A view without a workload gets the store's first (:func:`first_workload`), as a link without ``wl=``
    opens. A view pinned to a data version (``view.data_version``, link key ``v``) reads exactly that version's
    rows, TCO rates, API prices, sources and evaluations (:mod:`model.data.versions`). Parts within :data:`ANALYSIS_PARTS` load only :func:`analysis_columns` of the rows.
    """
    view = with_workload(con, view)
    version = view.data_version     # None: the latest; N: exactly the rows, rates and prices of version N
    wanted = None if parts is None else set(parts)
    columns = analysis_columns(view, wanted)
    loaded = load_points(con, view.where(), columns=columns, version=version)
    api = sources = evals = None
    if wanted is None or "volume" in wanted:
        from model.data.api_prices import load_api_prices

        api = load_api_prices(con, version)
    if wanted is None or "provenance" in wanted:
        sources = list_sources(con, version)
    if wanted is None or wanted & {"evals", "ramps"}:
        from model.data.evals import load_evals

        evals = load_evals(con, version=version)
    samples = None
    if view.goodput or wanted is None or "goodput_caps" in wanted:
        from model.data.requests import load_samples

        samples = load_samples(con, loaded["point_id"]) if "point_id" in loaded.columns else None
    return inputs_of(view, loaded, load_presets(stored_rates(con, version)), rate_files(con, version),
                     columns=columns, api_prices=api, sources=sources, evals=evals, requests=samples,
                     data_version=version or latest_version(con) or None)
