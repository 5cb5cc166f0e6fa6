"""A rerun that ends with the process grown by more than :data:`ui.lru.GROWN_BYTES` since the last trim hands freed
memory back (issue 32: a replica idle after its first views of a 1M-row store sat at 1,021 MB, 840 MB with this)."""

from __future__ import annotations

import numpy as np

from ui.lru import GROWN_BYTES, trim_if_grown


def test_a_rerun_trims_only_after_the_process_grew():
    trim_if_grown()                                  # whatever this worker did before: the baseline is now
    assert trim_if_grown() is False                  # nothing grew
    held = np.ones(int(1.5 * GROWN_BYTES) // 8)      # resident (written), kept while the rerun ends
    assert trim_if_grown() is True
    assert trim_if_grown() is False                  # the baseline moved up with what is held
    assert held.sum() == len(held)
