"""The answer the dashboard caches: an :class:`~model.present.view_answer.Answer` whose fit-and-rate parts are kept
once in the shared byte-bounded cache for every view that shares them (:data:`ui.lru.CACHE`)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property

from model.core.analysis import analyse
from model.data.store import shared_strings
from model.present.view_answer import Answer
from ui.lru import CACHE

__all__ = ["SharedAnswer", "CLOUD_COLUMNS"]

#: the columns of the labelled points the Frontier chart reads (:func:`model.present.figures.frontier_figure`: axes,
#: series, and the hover's hardware, recipe, parallelism, concurrency, run date and source:line), the report's
#: chart too: the shared cloud keeps these (at 1M rows the other columns would be about 150 MB more)
CLOUD_COLUMNS = ("series", "hardware", "interactivity", "tokens_per_second_per_gpu", "usd_per_mtok", "framework",
                 "precision", "spec_decoding", "tp", "ep", "dp", "pp", "concurrency", "run_date", "source_file",
                 "source_line")


def _slim(points):
    """``points`` in :data:`CLOUD_COLUMNS` (those it has), its own copy (a slice would keep the whole frame's blocks),
    each text value held once (:func:`model.data.store.shared_strings`)."""
    return shared_strings(points[[c for c in CLOUD_COLUMNS if c in points.columns]].copy())


@dataclass(frozen=True, eq=False)
class SharedAnswer(Answer):
    """An :class:`~model.present.view_answer.Answer` whose parts that only its fit and rates decide are kept once
    for every view of that fit and those rates (``group``: data version, frontier key, rates) in the shared cache:
    the priced frontier and its cost curves, every point labelled and priced (the Frontier chart), the repeats'
    spread and the frontier table. The values are those :class:`Answer` computes; only the copies are shared, and the
    labelled points (:attr:`with_points`) keep the columns their chart reads (:data:`CLOUD_COLUMNS`)."""

    group: tuple = ()
    anchors: tuple = ()           # the groups of what it is made of (rows, fit, store parts): kept while it is

    def _part(self, name: str, make):
        return CACHE.get_or_make((*self.group, name), make, group=self.group, groups=self.anchors)

    @cached_property
    def analysis(self):
        result = Answer.analysis.func(self)
        frontier = self._part("priced_frontier", lambda: result.frontier)
        curves = self._part("curves", lambda: result.curves)
        return replace(result, frontier=frontier, curves=curves)

    @cached_property
    def with_points(self):
        cloud = CACHE.get((*self.group, "cloud"))
        if cloud is None:
            result = Answer.with_points.func(self)
        else:   # the labelled points are the group's: the rest is this view's (as Answer.with_points builds it)
            self.inputs.refuse("with_points")
            result = analyse(self.points, self.scenario, self.inputs.presets, frontier=self.analysis.frontier,
                             with_points=False, crossovers="none")
        cloud = self._part("cloud", lambda: _slim(result.points) if cloud is None else cloud)
        return replace(result, points=cloud, frontier=self._part("cloud_frontier", lambda: result.frontier))

    @cached_property
    def spread(self):
        return self._part("spread", lambda: Answer.spread.func(self))

    @cached_property
    def frontier_table(self):
        return self._part("frontier_table", lambda: Answer.frontier_table.func(self))
