"""Published tables in the store, checked against their own numbers (:mod:`model.core.published`)."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from model.core.cost import DEFAULT_PRICE_SET, DEFAULT_TIER, resolve_rates
from model.core.published import plan_iso, plan_rows, price_iso, price_rows, verdicts
from model.data.presets import load_presets
from model.data.store import list_sources, load_points, stored_rates
from model.data.versions import visible_sql

__all__ = ["PublishedPlan", "published_plan", "priced_checks", "published_checks"]


@dataclass(frozen=True)
class PublishedPlan:
    """Everything the checks read from one version of the store, before a rate is chosen
    (:func:`published_plan`); :func:`priced_checks` prices it at any rates without reading the store."""

    rows: list                  # model.core.published.plan_rows
    iso: list | None            # model.core.published.plan_iso (None: no iso cells)
    empty: bool                 # neither published rows nor iso cells
    hardware: list[str]         # every hardware a published value names
    presets: pd.DataFrame       # model.data.presets.load_presets of the store
    sources: pd.DataFrame       # model.data.store.list_sources


def published_plan(con) -> PublishedPlan:
    """Read the published rows and iso cells of the store ``con`` and plan their checks (rate-free)."""
    shown, params = visible_sql(con, None)
    cells = con.cursor().execute(
        "SELECT source_id, source_line, spec_decoding, interactivity, metric, hardware, hardware_b, value "
        f"FROM published_iso{' WHERE ' + shown if shown else ''} ORDER BY source_id, source_line", params).df()
    rows = load_points(con)
    if not rows.empty:
        rows = rows[rows["published_usd_per_mtok"].notna()]
    empty = rows.empty and cells.empty
    hardware = sorted(set(rows["hardware"].astype(str)) | set(cells["hardware"].astype(str))) if not empty else []
    return PublishedPlan(plan_rows(rows), plan_iso(cells, rows), empty, hardware,
                         load_presets(stored_rates(con)), list_sources(con))


def priced_checks(plan: PublishedPlan, price_set: str = DEFAULT_PRICE_SET, tier: str = DEFAULT_TIER,
                  overrides: dict[str, float] | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """:func:`published_checks` of a planned store: the same two frames, from ``plan`` alone."""
    rates = resolve_rates(plan.hardware, plan.presets, price_set, tier, overrides or {})
    checks = pd.concat([price_rows(plan.rows, rates), price_iso(plan.iso, rates)], ignore_index=True) \
        if not plan.empty else price_rows(plan.rows, rates)
    return verdicts(checks, plan.sources), checks


def published_checks(con, price_set: str = DEFAULT_PRICE_SET, tier: str = DEFAULT_TIER,
                     overrides: dict[str, float] | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(one verdict per published table, every checked value) of the store ``con``.

    Published tables are the iso-interactivity tables (``published_iso``) and the point files whose rows
    state a published $/M beside their throughput. A rate the table does not state is the preset of
    ``price_set`` / ``tier`` (or ``overrides``), named in each check's detail.
    """
    return priced_checks(published_plan(con), price_set, tier, overrides)
