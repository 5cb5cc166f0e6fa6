"""The dashboard's shared cache, bounded in bytes: one least-recently-used store per process (:data:`CACHE`), its
budget ``$COSTFRONTIER_CACHE_MB`` (default :data:`DEFAULT_CACHE_MB`).

Why bytes and not Streamlit's entry bound: at 1M rows one view's inputs are about 290 MB and its labelled points
(the Frontier chart) about 130 MB, so an entry bound either keeps gigabytes or refits on every slider step;
``bench/bench_memory.py`` measures one replica at 1M rows under 1 GB with this bound. Every entry is measured once
when it is stored (:func:`size_of`: the deep size of the frames it holds, a conservative estimate for the rest),
not counting what it shares with the entries it is made of (``deps``: an answer holds its inputs, fit and labelled
points without counting them again); the least recently used go when the total passes the budget, and an entry
goes with any entry it is made of, so nothing the cache no longer counts stays reachable from it. An entry larger
than the whole budget is not kept: it is computed, used and dropped. Thread-safe (one lock; values are computed
outside it; two callers of one missing key may both compute it, the first stored is the one every caller gets).
"""

from __future__ import annotations

import ctypes
import gc
import os
import sys
import threading
from collections import OrderedDict
from dataclasses import dataclass, fields, is_dataclass
from typing import Any, Callable, Hashable

import numpy as np
import pandas as pd
import pyarrow

__all__ = ["ByteLRU", "CACHE", "DEFAULT_CACHE_MB", "CACHE_ENV", "cache_budget", "size_of", "held_ids", "trim_if_grown",
           "GROWN_BYTES"]

CACHE_ENV = "COSTFRONTIER_CACHE_MB"
#: the default budget [MB of 2**20 bytes]: with the rows of a 1M-row store (about 430 MB, held by the cache) and
#: the process itself (about 250 MB), one replica stays under about 1 GB
DEFAULT_CACHE_MB = 640
_MB = 1 << 20
#: a list or tuple longer than this is measured from a sample of its items
_SAMPLE = 64
#: a frame of fewer rows is measured whole (what it may share with others is not worth finding) [rows]
_SMALL = 2048


def cache_budget() -> int:
    """The budget of :data:`CACHE` [bytes]: ``$COSTFRONTIER_CACHE_MB`` (a positive number of MB), else
    :data:`DEFAULT_CACHE_MB`; a value that is not a positive number is ignored (the default is used)."""
    text = os.environ.get(CACHE_ENV, "").strip()
    try:
        mb = float(text) if text else DEFAULT_CACHE_MB
    except ValueError:
        mb = DEFAULT_CACHE_MB
    if not np.isfinite(mb) or mb <= 0:
        mb = DEFAULT_CACHE_MB
    return int(mb * _MB)


def _addresses(frame: pd.DataFrame) -> list:
    """Where each column's numbers are (a numpy column's data pointer; None for others): a frame made from
    another (pandas copies on write) shares the columns it did not change."""
    out = []
    for _, column in frame.items():
        if isinstance(column.dtype, np.dtype) and column.dtype != object:
            out.append(("at", np.asarray(column.array).__array_interface__["data"][0]))
        else:
            out.append(None)
    return out


def _column_bytes(column: pd.Series) -> int:
    """The bytes of one column: ``memory_usage(deep=True)``, except a column of Python objects whose rows share one
    object per distinct value (:func:`model.data.store.shared_strings`: text of a 1M-row load), which holds a pointer
    a row and each distinct object once (``deep`` would count the object once per row, 5x too much)."""
    values = np.asarray(column.array) if column.dtype == object or getattr(column.dtype, "storage", "") == "python" \
        else None
    if values is None or values.dtype != object or len(values) < 2 * _SAMPLE:
        return int(column.memory_usage(deep=True, index=False))
    sample = values[:: len(values) // _SAMPLE]
    distinct = pd.unique(sample)
    if len({id(v) for v in sample}) > len(distinct):     # equal values in separate objects: not shared
        return int(column.memory_usage(deep=True, index=False))
    return int(values.nbytes) + sum(sys.getsizeof(v) for v in pd.unique(values))


def size_of(value: Any, skip: set[int] | None = None, _seen: set[int] | None = None) -> int:
    """A conservative estimate of the bytes ``value`` holds [bytes]: DataFrames and Series by
    ``memory_usage(deep=True)``, arrays by ``nbytes``, containers, dataclasses, objects with a ``__dict__``
    (a Plotly figure, an answer and its computed parts) by walking them; a long list by a sample of its items.
    Objects whose ``id`` is in ``skip`` (shared parts counted elsewhere), a frame's numeric columns whose data
    are in ``skip`` (``("at", address)``: shared with a frame counted elsewhere) and objects already walked
    count 0."""
    seen = set() if _seen is None else _seen
    if id(value) in seen or (skip and id(value) in skip) or value is None:
        return 0
    seen.add(id(value))
    if isinstance(value, pd.DataFrame):
        if len(value) < _SMALL:              # a small frame shares little worth finding: measured whole, at once
            return int(value.memory_usage(index=True, deep=True).sum())
        own = [c for c, address in zip(value.columns, _addresses(value)) if not skip or address not in skip]
        return int(value.index.memory_usage(deep=True)) + sum(_column_bytes(value.iloc[:, i]) for i in
                                                              np.flatnonzero(value.columns.isin(own)))
    if isinstance(value, pd.Series):
        return int(value.index.memory_usage(deep=True)) + _column_bytes(value)
    if isinstance(value, pd.Index):
        return int(value.memory_usage(deep=True))
    if isinstance(value, np.ndarray):
        return int(value.nbytes) + (sum(size_of(v, skip, seen) for v in value.ravel()[:_SAMPLE]) * value.size
                                    // max(1, min(value.size, _SAMPLE)) if value.dtype == object else 0)
    if isinstance(value, (str, bytes, bytearray, int, float, bool, np.generic)):
        return sys.getsizeof(value)
    if isinstance(value, dict) or hasattr(value, "items") and callable(value.items) and not hasattr(value, "__dict__"):
        items = list(value.items())
        return sys.getsizeof(value) + sum(size_of(k, skip, seen) + size_of(v, skip, seen) for k, v in items)
    if isinstance(value, (list, tuple, set, frozenset)):
        items = list(value)
        if len(items) > _SAMPLE:
            sample = items[:: max(1, len(items) // _SAMPLE)][:_SAMPLE]
            return sys.getsizeof(value) + sum(size_of(v, skip, set()) for v in sample) * len(items) // len(sample)
        return sys.getsizeof(value) + sum(size_of(v, skip, seen) for v in items)
    total = sys.getsizeof(value)
    if is_dataclass(value) and not isinstance(value, type):
        total += sum(size_of(getattr(value, f.name, None), skip, seen) for f in fields(value))
    attrs = getattr(value, "__dict__", None)
    if isinstance(attrs, dict):
        total += sum(size_of(v, skip, seen) for v in attrs.values())
    return total


@dataclass
class _Entry:
    value: Any
    size: int
    deps: tuple = ()                          # the keys of the entries it is made of (it goes with any of them)
    held: set | None = None                   # held_ids(value), once an entry made of it asked


#: entries of at least this many bytes gone at once are worth a collection and a trim [bytes]
TRIM_BYTES = 4 * _MB


def _trim() -> None:
    """Hand the memory of entries that went back to the system, so a replica's resident memory comes back down:
    a full collection (frames caught in reference cycles; the server runs none after a rerun), Arrow's pool
    (string columns) and glibc's (both keep freed memory otherwise). About 0.1 s, after an eviction only."""
    gc.collect()
    pyarrow.default_memory_pool().release_unused()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


#: resident memory this much above what the last trim left is worth a trim when a rerun ends [bytes]
GROWN_BYTES = 64 * _MB
_after_trim = [0]


def _resident() -> int:
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def trim_if_grown() -> bool:
    """When a rerun ends: hand freed memory back (:func:`_trim`) if the process holds :data:`GROWN_BYTES` more than
    after the last trim. A first view of a big store builds several times what it keeps (the frames the answer is
    made from, the chart's points, the page's messages) and glibc keeps the difference otherwise: a replica idle
    after its first views would sit hundreds of MB above what it holds. About 0.1 s, rarely (only after growth)."""
    now = _resident()
    if not now or now - _after_trim[0] < GROWN_BYTES:
        return False
    _trim()
    _after_trim[0] = _resident()
    return True


def held_ids(*values) -> set:
    """The ids of ``values`` and of what they directly hold (a tuple's items, a dataclass's fields), and where the
    numeric columns of the frames among them are: what an entry made of them does not count again."""
    held = list(values)
    for value in values:
        if isinstance(value, (tuple, list)):
            held += list(value)
        elif is_dataclass(value) and not isinstance(value, type):
            held += [getattr(value, f.name, None) for f in fields(value)]
    ids = {id(v) for v in held}
    for frame in held:
        if isinstance(frame, pd.DataFrame):
            ids.update(a for a in _addresses(frame) if a is not None)
    return ids


class ByteLRU:
    """A thread-safe least-recently-used cache bounded by the measured size of its entries [bytes].

    Keys are tuples whose second item is the data version (:meth:`retain` drops the others)."""

    def __init__(self, budget: int | Callable[[], int] = cache_budget):
        self._budget = budget
        self._lock = threading.RLock()
        self._entries: OrderedDict[Hashable, _Entry] = OrderedDict()
        self._total = 0                        # the sum of the entries' sizes, kept as they come and go
        self.evictions = 0

    @property
    def budget(self) -> int:
        return self._budget() if callable(self._budget) else int(self._budget)

    @property
    def total(self) -> int:
        """The measured bytes of every entry held [bytes]."""
        with self._lock:
            return self._total

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key) -> bool:
        return key in self._entries

    def size(self, key) -> int:
        """The measured bytes of the entry ``key`` (0 when it is not held)."""
        with self._lock:
            entry = self._entries.get(key)
            return entry.size if entry is not None else 0

    def keys(self) -> list:
        with self._lock:
            return list(self._entries)

    def get(self, key, default=None):
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return default
            self._entries.move_to_end(key)
            return entry.value

    def get_or_make(self, key, make: Callable[[], Any], *, deps: tuple = (), size: Callable[[Any], int] | None = None):
        """The value of ``key``, made by ``make()`` (outside the lock) when missing and kept if it fits.

        ``deps``: the keys of the entries the value is made of (not counted again; it goes with any of them);
        ``size``: how to measure it (default :func:`size_of` less what its ``deps`` hold)."""
        found = self.get(key, _MISSING)
        if found is not _MISSING:
            return found
        value = make()
        with self._lock:
            if key in self._entries:          # another thread made it meanwhile: one value for every caller
                self._entries.move_to_end(key)
                return self._entries[key].value
            shared = [self._entries[d] for d in deps if d in self._entries]
        held: set = set()
        for entry in shared:                  # what an entry holds is found once, however many are made of it
            if entry.held is None:
                entry.held = held_ids(entry.value)
            held |= entry.held
        nbytes = size(value) if size else size_of(value, held or None)
        self.put(key, value, nbytes, deps=tuple(d for d in deps if d in self._entries))
        return self.get(key, value)

    def put(self, key, value, nbytes: int, *, deps: tuple = ()) -> None:
        with self._lock:
            if key in self._entries:
                return
            if nbytes > self.budget:
                return                         # larger than the whole budget: used once, not kept
            self._entries[key] = _Entry(value, int(nbytes), tuple(deps))
            self._total += int(nbytes)
            freed = self._evict(key)
        if freed >= TRIM_BYTES:
            _trim()

    def retain(self, keep: Callable[[Hashable], bool]) -> None:
        """Drop every entry whose key ``keep`` refuses (e.g. of another data version)."""
        with self._lock:
            before = self.total
            for key in [k for k in self._entries if not keep(k)]:
                self._drop(key)
            freed = before - self.total
        if freed >= TRIM_BYTES:
            _trim()

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._total = 0
        _trim()

    def _drop(self, key) -> None:
        entry = self._entries.pop(key, None)
        if entry is None:
            return
        self._total -= entry.size
        for other in [k for k, e in self._entries.items() if key in e.deps]:
            self._drop(other)                  # made of what went: it holds it uncounted, so it goes too
            self.evictions += 1

    def _evict(self, newest) -> int:
        """Make the total fit the budget after ``newest`` was stored: the least recently used go first, never what
        ``newest`` is made of (evicting the rows an answer is made of to make room for it would only load them
        again); when that is not enough, ``newest`` goes (it is used once, not kept). The bytes dropped."""
        budget, start = self.budget, self.total
        keep = {newest, *self._entries[newest].deps}
        if sum(self._entries[k].size for k in keep if k in self._entries) > budget:
            self._drop(newest)              # it cannot fit beside what it is made of: evict nothing else
            self.evictions += 1
            return start - self.total
        if start <= budget:
            return 0
        for key in list(self._entries):
            if self.total <= budget:
                break
            if key not in keep and key in self._entries:
                self._drop(key)
                self.evictions += 1
        if self.total > budget and newest in self._entries:
            self._drop(newest)
            self.evictions += 1
        return start - self.total


_MISSING = object()

#: the one byte-bounded cache of this process (every session shares it)
CACHE = ByteLRU()
