"""``costfrontier volume``: buy, rent or call an API at a monthly volume (the view's volume answer).

    costfrontier volume (--volume N | --peak-rps R | --trace FILE) [--shape SHAPE | --peak-to-average F]
                        [--trace-window MIN] [--interactivity X]
                        [--api MODEL | --api-usd IN,CACHED,OUT] [--cache-hit H] [--profile NAME ...]
                        [--rent HW=USD ...] [--on-demand [--min-nodes N] [--scale-step N]] [--lens full|marginal]
                        [selection and view options, or --link URL] [--json]

It prints :attr:`model.present.parts.Answer.volume`, the same numbers as the Buy, rent or API page
and the report's section.
"""

from __future__ import annotations

import json
import sys

import pandas as pd

from model.cli.as_json import jsonable
from model.cli.options import answer_of_args
from model.cli.running import UsageError, in_store
from model.core.notes import for_every_answer
from model.present.volume_answer import ROW_COLUMNS, option_range

__all__ = ["main", "run"]


def main(args, ctrl_c) -> int:
    """Run ``volume`` on the store (:func:`model.cli.running.in_store`)."""
    return in_store(args, ctrl_c, run)


def run(args, con) -> int:
    """Print the view's buy, rent or API answer."""
    answer = answer_of_args(args, con, ("volume", "notes"))
    volume = answer.volume
    if volume is None:
        raise UsageError("volume needs a demand: --volume (--tokens-per-month) N, --peak-rps R or --trace FILE "
                         "(or a link with one)")
    notes = list(volume.notes) + for_every_answer(answer.notes)
    if volume.question:
        notes.append(f"unusual volume: {volume.question}: is it what you meant?")
    if args.json:
        print(json.dumps(jsonable({"command": "volume", "view": answer.view.to_query(), "where": answer.view.where(),
                                   **volume.payload(), "notes": notes}), indent=2, allow_nan=False))
        return 0
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    if volume.said:
        print(volume.said)
    print(volume.verdict)
    if not volume.rows.empty:
        table = volume.rows[ROW_COLUMNS[:8]].drop(columns=["kind"]).copy()
        within = [option_range(r) for r in volume.rows.to_dict("records")]
        if any(within):
            table["within_the_capacitys_error"] = within
        if (table["mean_nodes"].dropna() == table["nodes"].dropna()).all():    # no option follows a curve
            table = table.drop(columns=["mean_nodes", "node_hours"])
        table["usd_per_month"] = table["usd_per_month"].map(lambda v: f"{v:,.0f}")
        table["effective_usd_per_mtok"] = table["effective_usd_per_mtok"].map(lambda v: f"{v:.3f}")
        table["utilization"] = table["utilization"].map(lambda v: "" if v is None or v != v else f"{v:.1%}")
        table["nodes"] = table["nodes"].map(lambda v: "" if v is None or v != v else f"{v:.0f}")
        if "mean_nodes" in table:
            table["mean_nodes"] = table["mean_nodes"].map(lambda v: "" if v is None or v != v else f"{v:.3g}")
            table["node_hours"] = table["node_hours"].map(lambda v: "" if v is None or v != v else f"{v:,.0f}")
        with pd.option_context("display.width", 250, "display.max_colwidth", 60):
            print(table.to_string(index=False))
    for b in volume.break_evens:
        print(b["text"])
    if volume.api_line:
        print(volume.api_line)
    return 0
