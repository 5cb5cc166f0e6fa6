"""Cached data access at the edge: thin Streamlit cache wrappers over undecorated ``model`` functions.

The DuckDB connection is a cache resource; points and frontiers are cached as resources
(shared, never copied per hit); everything downstream treats them as read-only. Every key
holds the data version read once per rerun, so one rerun never mixes two versions.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import streamlit as st

from model.core.analysis import frontiers_for
from model.core.cost import load_presets, price_sets, resolve_rates, tiers
from model.core.iso import METHODS
from model.core.repeats import RunsInView, runs_in_view
from model.core.uncertainty import leave_one_out_methods
from model.core.view import View
from model.data.evals import load_evals
from model.data.export import safe_csv
from model.data.preview import dry_run
from model.data.published import PublishedPlan, priced_checks, published_plan
from model.data.snapshot import Snapshot, open_reader
from model.data.snapshot import write as store_write
from model.data.store import (
    StoreError,
    default_db_path,
    distinct_values,
    list_sources,
    load_points,
    stored_rates,
    workloads,
)
from model.present.answers import workload_label
from model.present.view_answer import ViewAnswer, answer_of_view

__all__ = ["Ctx", "db_path", "reader", "begin", "end", "snapshot", "write", "cursor", "version", "options", "presets", "points", "export_csv",
           "sources", "published_checks_of",
           "evals", "read_only", "max_upload_mb", "preview", "drop_previews", "clear"]


_SNAP = "_snapshot"


def db_path() -> str:
    return str(default_db_path())


@st.cache_resource(show_spinner=False)
def reader(path: str):
    """One reader per process: follows the live database, holds nothing a writer waits for."""
    return open_reader(path)


def begin() -> Snapshot:
    """Once per rerun (the frame): the newest published snapshot, which every read in this rerun uses.
    Raises :class:`model.data.store.StoreError` (show ``.public``) when the file cannot be served.

    The snapshot is held (:meth:`model.data.snapshot.Reader.acquire`) until :func:`end`, which
    ``app.py`` calls when the rerun finishes, or else until this session's next ``begin()``: a
    version replaced meanwhile is closed then, not kept for a fixed time."""
    rd = reader(db_path())
    snap = rd.acquire()
    old = st.session_state.get(_SNAP)
    st.session_state[_SNAP] = snap
    if old is not None:
        rd.release(old)
    return snap


def end() -> None:
    """When a rerun finishes (or stops): let go of its snapshot, so a replaced version closes now."""
    old = st.session_state.pop(_SNAP, None) if _SNAP in st.session_state else None
    if old is not None:
        reader(db_path()).release(old)


def snapshot() -> Snapshot:
    return st.session_state[_SNAP] if _SNAP in st.session_state else begin()


def cursor():
    """A cursor on this rerun's snapshot (read-only)."""
    return snapshot().con.cursor()


def version() -> tuple:
    """Changes whenever a new snapshot is published: part of every data cache key."""
    return snapshot().version


def write(fn, what: str):
    """Run ``fn(con)`` as one write (a new snapshot is published when it returns); a busy or refused
    write shows a message naming no path or process, and returns None."""
    try:
        result = store_write(db_path(), fn)
    except StoreError as exc:
        st.error(f"Could not {what}: {exc.public}")
        return None
    clear()
    return result


def read_only() -> bool:
    """Read-only deployments: COSTFRONTIER_READ_ONLY=1, or read_only = true in .streamlit/secrets.toml."""
    if os.environ.get("COSTFRONTIER_READ_ONLY", "").strip().lower() in ("1", "true", "yes"):
        return True
    try:
        return bool(st.secrets.get("read_only", False))
    except Exception:  # no secrets file
        return False


def max_upload_mb() -> float:
    """Largest upload the Data page takes [MB]: COSTFRONTIER_MAX_UPLOAD_MB, default 200."""
    try:
        return float(os.environ.get("COSTFRONTIER_MAX_UPLOAD_MB", "200"))
    except ValueError:
        return 200.0


def _where_key(state: View) -> tuple:
    return tuple(sorted((k, tuple(v)) for k, v in state.where().items()))


@st.cache_resource(show_spinner=False, max_entries=32)
def _points(path: str, ver: tuple, where: tuple) -> pd.DataFrame:
    return load_points(cursor(), {k: list(v) for k, v in where})


def points(state: View, ver: tuple) -> pd.DataFrame:
    return _points(db_path(), ver, _where_key(state))


@st.cache_resource(show_spinner=False, max_entries=32)
def _runs(path: str, ver: tuple, where: tuple, runs: tuple) -> RunsInView:
    """The rows that build the frontier: ``runs`` is (as_of, repeats, the view's series keys), applied as
    :func:`model.present.view_answer.answer_of_view` applies them (:func:`model.core.repeats.runs_in_view`);
    the fit and the answer share one result."""
    as_of, repeats, view_by = runs
    return runs_in_view(_points(path, ver, where), as_of, repeats, view_by)


@st.cache_resource(show_spinner=False, max_entries=64)
def _frontier(path: str, ver: tuple, where: tuple, by: tuple, basis: str, rates: tuple, sla: str,
              weights: tuple, disagg: str = "per-role", runs: tuple = (None, "pooled", ())) -> pd.DataFrame:
    rows = _runs(path, ver, where, runs).rows
    return frontiers_for(rows, by, basis, dict(rates), sla, *weights, disagg=disagg)


@st.cache_resource(show_spinner=False, max_entries=16)
def _shared_parts(path: str, ver: tuple, state: str) -> dict:
    """What every session showing one view on one data version shares: its analysis, crossings and priced
    points (:attr:`model.present.view_answer.ViewAnswer.shared`), so a room opening one link computes them once.
    Keyed by the whole view (its JSON), so two views share nothing; read-only for everyone."""
    return {}


@st.cache_resource(show_spinner=False, max_entries=64)
def _loo(path: str, ver: tuple, where: tuple, by: tuple, basis: str, rates: tuple, sla: str,
         weights: tuple, disagg: str = "per-role", runs: tuple = (None, "pooled", ())) -> dict:
    # leave-one-out of every method, kept with the frontier it is computed from: series of one hardware are
    # predicted at $1/GPU-hour (relative errors do not depend on the rate), so a rate slider reuses it
    frontier = _frontier(path, ver, where, by, basis, rates, sla, weights, disagg, runs)
    return leave_one_out_methods(frontier, METHODS, dict(rates) if "hardware" not in by else None)


@st.cache_data(show_spinner=False, max_entries=4)
def _export_csv(path: str, ver: tuple, where: tuple) -> str:
    return safe_csv(load_points(cursor(), {k: list(v) for k, v in where}, full=True))


def export_csv(state: View, ver: tuple) -> str:
    """Every column of the rows in view, formula-neutralised for spreadsheets."""
    return _export_csv(db_path(), ver, _where_key(state))


@st.cache_data(show_spinner=False, max_entries=8)
def _options(path: str, ver: tuple) -> dict:
    cur = cursor()
    out = {name: distinct_values(cur, name) for name in ("hardware", "framework", "precision", "spec_decoding")}
    rows = workloads(cur)
    out["workloads"] = ["|".join(row[:3]) for row in rows]
    out["workload_labels"] = {"|".join(row[:3]): workload_label(*row[:5]) for row in rows}
    table = _presets(path, ver)
    out["price_sets"] = {ps: tiers(table, ps) for ps in price_sets(table)}
    out["priced"] = sorted(table["hardware"].astype(str).unique())
    return out


@st.cache_data(show_spinner=False, max_entries=8)
def _presets(path: str, ver: tuple) -> pd.DataFrame:
    return load_presets(stored_rates(cursor()))


def presets(ver: tuple) -> pd.DataFrame:
    return _presets(db_path(), ver)


def options(ver: tuple) -> dict:
    """What the data holds: filter values, workloads, and the price sets with their tiers (computed once per
    data version; each call gets its own copy)."""
    return _options(db_path(), ver)


@st.cache_resource(show_spinner=False, max_entries=4)
def _published_plan(path: str, ver: tuple) -> PublishedPlan:
    # what the checks read from the store, before a rate is chosen: once per data version for every session
    # (deploy/warm.py's run of the Data page computes it), so a view's own rates only price it (about 10 ms)
    return published_plan(cursor())


@st.cache_data(show_spinner=False, max_entries=8)
def _published(path: str, ver: tuple, price_set: str, tier: str, rates: tuple) -> tuple[pd.DataFrame, pd.DataFrame]:
    return priced_checks(_published_plan(path, ver), price_set, tier, dict(rates))


def published_checks_of(state: View, ver: tuple) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(verdict per published table, every checked value) at the view's price set and rates."""
    return _published(db_path(), ver, state.price_set, state.tier, state.rates)


@st.cache_data(show_spinner=False, max_entries=8)
def _sources(path: str, ver: tuple) -> pd.DataFrame:
    return list_sources(cursor())


def sources(ver: tuple) -> pd.DataFrame:
    """The ingested sources (:func:`model.data.store.list_sources`) of data version ``ver``."""
    return _sources(db_path(), ver)


@st.cache_data(show_spinner=False, max_entries=8)
def _evals(path: str, ver: tuple) -> pd.DataFrame:
    return load_evals(cursor())


def evals(ver: tuple) -> pd.DataFrame:
    return _evals(db_path(), ver)


def preview(upload, set_fields: tuple[str, ...]) -> tuple[dict, Path]:
    """The upload preview (:func:`model.data.preview.dry_run` on a bounded sample), kept per upload and form
    values while the user types; the upload is copied to a temporary file once, without reading it
    into memory."""
    store = st.session_state.setdefault("_previews", {})
    key = (upload.file_id, set_fields)
    if key not in store:
        spool = Path(tempfile.mkdtemp(prefix="costfrontier-upload-")) / (Path(upload.name).name or "upload")
        upload.seek(0)
        with open(spool, "wb") as out:
            shutil.copyfileobj(upload, out)
        while len(store) >= 16:            # the oldest previews go, with their copies
            _, old = store.pop(next(iter(store)))
            shutil.rmtree(old.parent, ignore_errors=True)
        store[key] = (dry_run(spool, set_fields, display_name=upload.name), spool)
    return store[key]


def drop_previews() -> None:
    """After an ingest: the previews and their temporary copies go."""
    for _, spool in st.session_state.pop("_previews", {}).values():
        shutil.rmtree(spool.parent, ignore_errors=True)


def clear() -> None:
    """After a write: drop cached answers (the version key would also catch it on the next rerun)."""
    _options.clear()
    _presets.clear()


@dataclass
class Ctx:
    """What a page needs: the view state, the data in view and the answer, for this rerun."""

    state: View
    points: pd.DataFrame
    presets: pd.DataFrame
    options: dict
    version: tuple
    url_path: str = ""
    memo: dict = field(default_factory=dict)

    @property
    def empty(self) -> bool:
        return not self.options["workloads"]

    @property
    def answer(self) -> ViewAnswer:
        """The answer of this view (:func:`model.present.view_answer.answer_of_view`), once per rerun, on the cached
        rows and frontiers: every page renders parts of it."""
        if "answer" not in self.memo:
            self.memo["answer"] = answer_of_view(cursor(), self.state, presets=self.presets, rows=self.points,
                                                 fit=self._fit, loo=self._loo,
                                                 runs=_runs(db_path(), self.version, _where_key(self.state),
                                                            self._runs_key),
                                                 shared=_shared_parts(db_path(), self.version,
                                                                      self.state.model_dump_json()))
        return self.memo["answer"]

    def _key(self, points: pd.DataFrame, scenario) -> tuple:
        # the frontier depends on rates only when series mix hardware (then it is fitted on tokens per $)
        rates = ()
        if "hardware" not in scenario.by:
            hardware = sorted(points["hardware"].dropna().unique()) if not points.empty else []
            rates = tuple(sorted(resolve_rates(hardware, self.presets, scenario.price_set, scenario.tier,
                                               dict(scenario.rates)).items()))
        return (db_path(), self.version, _where_key(self.state), tuple(scenario.by), scenario.basis, rates,
                scenario.sla, (scenario.w_input, scenario.w_cached), scenario.disagg,
                self._runs_key)

    @property
    def _runs_key(self) -> tuple:
        return self.state.as_of, self.state.repeats, tuple(self.state.by)

    def _fit(self, points: pd.DataFrame, scenario) -> pd.DataFrame:
        return _frontier(*self._key(points, scenario))

    def _loo(self, points: pd.DataFrame, scenario) -> dict:
        return _loo(*self._key(points, scenario))

    def rates(self) -> dict[str, float]:
        """$/GPU-hour of every hardware in view, by the one rate rule (the answer's)."""
        return self.answer.usd_per_gpu_hour
