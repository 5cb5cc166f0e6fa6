"""The one label of each on-prem build-up input (:class:`model.core.tco.OnPremInputs`), with its unit.

The TCO builder's form, the report's inputs table and the help of ``costfrontier tco``'s options all read
these. Plain data, no pydantic: the CLI builds its parser from it without importing the analysis stack.
"""

from __future__ import annotations

__all__ = ["ONPREM_LABELS", "ONPREM_COUNTS", "onprem_label"]

#: build-up input -> what it is, with its unit: the one label of each input (the TCO builder's form, the
#: report's inputs table, the help of ``costfrontier tco``'s options)
ONPREM_LABELS = {
    "server_usd": "Server price per node [$]", "gpus_per_node": "GPUs per node",
    "network_pct": "Network and storage [% of server]", "network_usd": "Network and storage per node [$]",
    "install_usd": "Installation per node [$]", "years": "Depreciation [years]",
    "rate_pct": "Cost of capital [%/year]", "kw_per_gpu": "All-in power per GPU [kW]", "pue": "PUE",
    "usd_per_kwh": "Electricity [$/kWh]", "colo_usd_per_kw_month": "Colocation [$/kW-month]",
    "colo_includes_power": "Colocation price includes electricity",
    "rack_usd_per_month": "Rack space [$/rack-month]", "nodes_per_rack": "Nodes per rack",
    "maintenance_pct": "Support and maintenance [% of capital/year]",
    "licence_usd_per_gpu_year": "Software licences [$/GPU-year]", "staff_usd_per_year": "Staff [$/year, whole fleet]",
    "fleet_gpus": "Fleet size for staff cost [GPUs]", "utilization": "Utilisation [fraction of hours billable]",
}
#: the inputs counted in whole numbers (``int`` fields of OnPremInputs); the others are amounts (``float``)
ONPREM_COUNTS = ("gpus_per_node", "nodes_per_rack", "fleet_gpus")


def onprem_label(name: str, percent: bool = False) -> str:
    """The label of the build-up input ``name``, with its unit (:data:`ONPREM_LABELS`); ``percent``: for a
    fraction entered as a percentage (the TCO builder's utilisation: "[% of hours billable]")."""
    label = ONPREM_LABELS[name]
    return label.replace("[fraction of", "[% of") if percent else label
