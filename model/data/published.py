"""Published tables in the store, checked against their own numbers (:mod:`model.core.published`)."""

from __future__ import annotations

import pandas as pd

from model.core.cost import DEFAULT_PRICE_SET, DEFAULT_TIER, load_presets, resolve_rates
from model.core.published import check_iso, check_rows, verdicts
from model.data.store import list_sources, load_points, stored_rates

__all__ = ["published_checks"]


def published_checks(con, price_set: str = DEFAULT_PRICE_SET, tier: str = DEFAULT_TIER,
                     overrides: dict[str, float] | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(one verdict per published table, every checked value) of the store ``con``.

    Published tables are the iso-interactivity tables (``published_iso``) and the point files whose rows
    state a published $/M beside their throughput. A rate the table does not state is the preset of
    ``price_set`` / ``tier`` (or ``overrides``), named in each check's detail.
    """
    cells = con.cursor().execute(
        "SELECT source_id, source_line, spec_decoding, interactivity, metric, hardware, hardware_b, value "
        "FROM published_iso ORDER BY source_id, source_line").df()
    rows = load_points(con)
    if not rows.empty:
        rows = rows[rows["published_usd_per_mtok"].notna()]
    hardware = sorted(set(rows["hardware"].astype(str)) | set(cells["hardware"].astype(str))) \
        if not (rows.empty and cells.empty) else []
    rates = resolve_rates(hardware, load_presets(stored_rates(con)), price_set, tier, overrides or {})
    checks = pd.concat([check_rows(rows, rates), check_iso(cells, rows, rates)], ignore_index=True) \
        if not (rows.empty and cells.empty) else check_rows(rows, rates)
    return verdicts(checks, list_sources(con)), checks
