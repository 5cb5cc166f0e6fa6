"""The recommendation's words: the sentence for the series at the interactivity you need (the cheapest with its ±,
or the contenders the data do not settle), for the options at the volume (the cheapest way to serve it, or the
options about the same), for series without a rate or clamped where they may be the cheapest, the ± in a sentence a
buyer can use, and a choice's $/M as text. :mod:`model.present.recommendation` ranks; this module says it.
"""

from __future__ import annotations

import math
from dataclasses import replace

from model.core.view import View
from model.core.volume import NEAR_TIE
from model.present import fmt
from model.present.answers import changes_of, method_words
from model.present.parts import Choice, Cost, Crossed
from model.present.volume_answer import about_the_same

__all__ = ["PLUS_MINUS", "NOT_SETTLED", "PAID", "with_text", "series_sentence", "with_method", "tied_sentence",
           "volume_sentence", "unpriced_sentence", "held_sentence", "workload_words"]

#: the band in one sentence a buyer can use (the report's first page, the Overview, the CLI)
PLUS_MINUS = ("The range beside an interpolated $/M is how far our interpolation can be off: we left each measured "
              "point out in turn and predicted it from its neighbours, and 9 in 10 fell inside a range built this way "
              "(zero at a measured point; not run-to-run noise).")


#: the words for a ranking the bands do not decide
NOT_SETTLED = "not settled by the data"


PAID = " (every hour of every GPU paid for)."


def with_text(choice: Choice) -> Choice:
    """``choice`` with its words (:attr:`model.present.parts.Choice.text`): ``$0.37/M −8/+11 %``; a measured point
    ``$0.36/M (measured)``; an option at the volume ``$0.24/M`` (a price, or capacity whose band moves no node), or
    ``$1.73/M ($1.73 to $3.46/M)`` when its capacity's band spans a node boundary."""
    c = choice
    if c.kind != "series":
        text = f"{fmt.usd(c.usd_per_mtok)} ({fmt.usd_span(c.low, c.high)})" \
            if c.banded and fmt.usd(c.low) != fmt.usd(c.high) else fmt.usd(c.usd_per_mtok)
    else:
        text = fmt.usd_band(c.usd_per_mtok, c.low, c.high, c.error_from)
    return replace(c, text=text)


def series_sentence(cost: Cost, crossed: Crossed, series: list[Choice], settled, contenders, head: str) -> str:
    if not series:
        return f"{head}, no series in this view can be priced."
    best = series[0]
    if len(series) == 1:
        return f"{head}, {best.name} is the only series priced: {best.text}."
    second = series[1]
    if settled is False:
        tied = [c for c in series if c.name in contenders]
        ranges = "; ".join(f"{c.name} {c.text} ({fmt.usd_span(c.low, c.high)})" for c in tied)
        return (f"{head}, which series is cheapest is {NOT_SETTLED}: {ranges}. The gap between the best two "
                f"({fmt.usd(second.usd_per_mtok - best.usd_per_mtok)}) lies inside their ranges: {second.name} may "
                f"cost as little as {fmt.usd(second.low)}, {best.name} as much as {fmt.usd(best.high)}.")
    saving = 1 - best.usd_per_mtok / second.usd_per_mtok
    if settled is None:              # no range: the data cannot be said to settle it, so no series is named
        each = "; ".join(f"{c.name} {c.text}" for c in series)
        return (f"{head}, no series is named cheapest: no range can be estimated to say whether the data settle "
                f"it. {each} ({best.name} {fmt.percent(saving)} below {second.name} as interpolated).")
    text = f"{head}, {best.name} is cheapest at {best.text}, {fmt.percent(saving)} below {second.name} ({second.text})"
    text += "; their ranges do not overlap"

    crossings = changes_of(crossed.analysis)
    if not crossings.empty:
        mine = crossings[(crossings["series_a"] == best.name) | (crossings["series_b"] == best.name)]
        if not mine.empty:
            x = cost.interactivity_needed
            nearest = mine.iloc[(mine["interactivity"] - x).abs().argsort()].iloc[0]
            other = nearest["series_b"] if nearest["series_a"] == best.name else nearest["series_a"]
            side = "above" if nearest["interactivity"] > x else "below"
            text += f"; {other} takes over {side} {fmt.interactivity(nearest['interactivity'])}"
    return text + "."


def with_method(sentence: str, view: View, cost: Cost, series: list[Choice]) -> str:
    """The series sentence and which interpolation method priced it, and why (:func:`model.present.answers.
    method_words`): the one the data fit better unless the view pins one."""
    if not series:
        return sentence

    return f"{sentence} {method_words(view.method, cost.uncertainty)}"


def tied_sentence(options: list[Choice], demand: str, volume) -> str:
    """The options the ranking does not separate, each with its effective $/M and $ a month within its ±."""

    tied = [o for o in options if o.name in volume.contenders]
    each = []
    for o in tied:
        text = f"{o.name} {o.text} effective, ${o.usd_per_month:,.0f} a month"
        if o.kind != "api" and math.isfinite(o.nodes):
            text += f" ({fmt.count(int(o.nodes), 'node')}"
            if o.nodes_span is not None and all(map(math.isfinite, o.nodes_span)) and o.nodes_span[0] != o.nodes_span[1]:
                text += f"; {int(o.nodes_span[0]):,} to {int(o.nodes_span[1]):,} within the capacity's " \
                        f"{fmt.band_pm(*(o.capacity_band or (o.error, o.error)))}: " \
                        f"${o.usd_per_month_span[0]:,.0f} to ${o.usd_per_month_span[1]:,.0f} a month"
            text += ")"
        each.append(text)
    return (f"At {demand}, {about_the_same(volume.rows, volume.contenders)}: no option is cheaper beyond its "
            f"capacity's range or {fmt.percent(NEAR_TIE)}. " + "; ".join(each) + ".")


def volume_sentence(options: list[Choice], demand: str, series: list[Choice], volume=None) -> str:
    if volume is not None and volume.settled is False:
        return tied_sentence(options, demand, volume)
    best = options[0]
    text = f"At {demand}, {best.name} is the cheapest way to serve it: {best.text} effective, ${best.usd_per_month:,.0f} a month"
    owned = next((o for o in options if o.kind == "owned"), None)
    if best.kind != "owned" and owned is not None:
        used = f", {fmt.percent(owned.utilization)} of its capacity used" if math.isfinite(owned.utilization) else ""
        text += (f". Owning costs {owned.text} effective at this volume ({owned.name}: ${owned.usd_per_month:,.0f} a "
                 f"month, {fmt.count(int(owned.nodes), 'node')}{used}; idle capacity included)")
    elif best.kind == "owned":
        used = f", {fmt.percent(best.utilization)} used" if math.isfinite(best.utilization) else ""
        text += f" ({fmt.count(int(best.nodes), 'node')}{used}; idle capacity included)"
        other = next((o for o in options[1:]), None)
        if other is not None:
            text += f"; next: {other.name} at {other.text} effective"
    return text + "."


def unpriced_sentence(unpriced: list[dict], x: float | None) -> str:
    """No winner named: which series have no rate, and the rate at which each would match each priced one."""
    where = fmt.interactivity(x) if x is not None else "the interactivity you need"
    reaching = [u for u in unpriced if u["reaches"]]
    names = ", ".join(u["series"] for u in reaching)
    text = (f"At {where}, no series is named cheapest: {names} {'has' if len(reaching) == 1 else 'have'} no "
            "$/GPU-hour (no preset, none typed, no cost profile).")
    for u in reaching:
        if not u["matches"]:
            text += f" {u['series']} reaches {where}, but no series with a rate does."
            continue
        each = ", ".join(f"{m['against']} ({fmt.usd(m['usd_per_mtok'])}) at "
                         f"{fmt.usd(m['break_even_usd_per_gpu_hour'], '/GPU-hour')}" for m in u["matches"])
        lowest = u["matches"][0]["break_even_usd_per_gpu_hour"]
        text += (f" {u['series']} would match {each}: below {fmt.usd(lowest, '/GPU-hour')} it would be the "
                 "cheapest of these.")
    return text


def held_sentence(held: list[dict], x: float | None) -> str:
    """No winner named: which series are clamped at x, at what held $/M."""
    where = fmt.interactivity(x) if x is not None else "the interactivity you need"
    each = "; ".join(f"{h['series']} lies just outside its measured range, so its {fmt.usd(h['usd_per_mtok'])} is "
                     f"held at its {'slowest' if h['side'] == 'below' else 'fastest'} measured point" for h in held)
    return (f"At {where}, no series is named cheapest: {each}, not priced, and it may be the cheapest here; measure "
            "it at this interactivity, or choose one inside its range.")


def workload_words(view: View) -> str:
    """``ISL 8192 / OSL 1024``: the lengths of the view's workload (its ``model|isl|osl``)."""
    parts = (view.workload or "").split("|")
    return f"ISL {parts[1]} / OSL {parts[2]}" if len(parts) == 3 else "the view's lengths"
