"""The limits a value must hold wherever it comes from (a widget, a link, a file, a profile, a command): the one
place each bound is declared, imported by the view's checks (:mod:`model.core.view_checks`) and by the code that
computes with the value (:mod:`model.core.cost`, :mod:`model.core.demand`). Constants only: it imports nothing.
"""

from __future__ import annotations

__all__ = ["MAX_USD_PER_GPU_HOUR", "MIN_USD_PER_GPU_HOUR", "MAX_DEMAND_RPS", "MAX_INTERACTIVITY",
           "MIN_INTERACTIVITY", "MIN_KW_PER_GPU", "DIGEST_CHARS"]

#: the most a $/GPU-hour may be, set by hand, rented or in a link: the one bound every surface imports
MAX_USD_PER_GPU_HOUR = 1000.0
#: the least a $/GPU-hour may be: below it a rate is a slip (a hundredth of a cent an hour), and fleet costs and
#: break-evens computed from it run to hundreds of digits
MIN_USD_PER_GPU_HOUR = 1e-4
#: the most peak demand a fleet is sized for [req/s]: the view's bound, and sizing's (model.core.demand)
MAX_DEMAND_RPS = 1e9
#: interactivity is below this [tok/s/user]
MAX_INTERACTIVITY = 100_000.0
#: and at least this [tok/s/user]: a hundredth of a token a second is no interactivity anyone needs, and a subnormal
#: one labels a target with hundreds of digits
MIN_INTERACTIVITY = 0.01
#: the least all-in power per GPU [kW] (5 W): below it a fleet's power, and what a power budget buys, are nonsense
#: (1e-320 kW bought 10^12 nodes a megawatt)
MIN_KW_PER_GPU = 0.005
#: hex characters of a data version's digest a pinned link carries (``vd=``, :func:`model.data.versions.version_digest`)
DIGEST_CHARS = 6
