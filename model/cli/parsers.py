"""The ``costfrontier`` parser: every command and option, declared here and nowhere else.

The options every view command shares are generated from the view's declarations
(:data:`model.core.view_fields.FIELDS`, by group: :func:`add_options`); the commands' own options are below.
Building the parser imports the standard library, the declarations and :mod:`model.cli.choices` only, so
``costfrontier --help`` and a usage error import none of pandas, pydantic, DuckDB, SciPy or Plotly
(``tests/test_cli_startup.py``); what a command runs is in its own module (:data:`model.cli.COMMANDS`), which
reads what the options give (:func:`model.cli.options.view_from_args`).
"""

from __future__ import annotations

import argparse

from model.cli.choices import SAMPLE_DIR
from model.core.names import number
from model.core.onprem_labels import ONPREM_COUNTS, ONPREM_LABELS
from model.core.view_fields import BY_NAME, COST_BASES, options_of

__all__ = ["parser", "add_options", "selection_args", "view_args", "fleet_args", "volume_args", "report_args",
           "json_args", "number_type", "ONPREM_OPTIONS", "OUTPUTS"]

#: ``report --out``: file suffix -> what is written
OUTPUTS = {".html": "the report, one self-contained file", ".pdf": "the report as PDF, printed by Chromium",
           ".xlsx": "the tables as a workbook", ".zip": "the tables as CSV files"}


# ------------------------------------------------------------------------------------ the shared options

def add_options(q, group: str) -> None:
    """Add the options of ``group`` (:class:`model.core.view_fields.Option`) to a parser or argument group; a help
    text is the declaration's, written as people read it (argparse's ``%`` escaped here)."""
    exclusive: dict[str, object] = {}
    for opt in options_of(group):
        kwargs: dict[str, object] = {"dest": opt.name, "help": opt.help.replace("%", "%%") or None}
        if opt.kind == "flag":
            kwargs["action"] = "store_true"
        else:
            kwargs.update(action="append", default=[]) if opt.kind == "append" else kwargs.update(default=opt.default)
            kwargs.update({k: getattr(opt, k) for k in ("metavar", "type", "choices") if getattr(opt, k) is not None})
        if opt.exclusive and opt.exclusive not in exclusive:
            exclusive[opt.exclusive] = q.add_mutually_exclusive_group()
        (exclusive[opt.exclusive] if opt.exclusive else q).add_argument(*opt.flags, **kwargs)


def selection_args(q: argparse.ArgumentParser) -> None:
    """Which rows, grouped how, priced at which rates, and which repeat runs up to which run date."""
    add_options(q, "selection")
    add_options(q, "runs")


def view_args(q: argparse.ArgumentParser) -> None:
    """Basis, SLA, method, targets, baseline, cost profiles, the interactivity you need and ``--link``."""
    add_options(q, "view")


def fleet_args(q: argparse.ArgumentParser) -> None:
    """A demand (req/s or tokens/day) or a budget to size a fleet for, and how a fleet is sized (the knee rule,
    GPUs per node, kW per GPU, PUE, rack kW, what a typed volume counts)."""
    need = q.add_argument_group("fleet: a demand or a budget, and how it is sized")
    add_options(need, "fleet")
    add_options(need, "sizing")
    add_options(need, "ramp")


def volume_args(q: argparse.ArgumentParser, with_fleet: bool = True) -> None:
    """Buy, rent or call an API: the monthly volume and the ways to serve it (``costfrontier volume``; ``report``
    has the fleet options already: ``with_fleet=False``)."""
    g = q.add_argument_group("volume: buy, rent or call an API")
    add_options(g, "volume")
    if with_fleet:
        add_options(g, "sizing")


def report_args(q: argparse.ArgumentParser) -> None:
    """What only a report adds to the view (its history section)."""
    add_options(q, "report")


def json_args(q) -> None:
    """``--json`` (one line, compact: at 900 series it is megabytes) and ``--indent N`` (for a person reading it)."""
    q.add_argument("--json", action="store_true", help="print the answer as JSON, on one line")
    q.add_argument("--indent", type=int, default=None, metavar="N",
                   help="with --json: indent N spaces per level (default: one compact line)")


def number_type(whole: bool = False):
    """An argparse type reading a number by the one rule (:func:`model.core.names.number`: 1,5 is 1.5,
    1,000,000 a million); a refusal quotes what was typed."""
    def read(text: str):
        try:
            value = number(text, "a whole number" if whole else "a number")
            if whole and not value.is_integer():
                raise ValueError("not a whole number")
        except ValueError as exc:
            said = str(exc)
            raise argparse.ArgumentTypeError(said if repr(text) in said else f"{text!r}: {said}") from None
        return int(value) if whole else value
    read.__name__ = "whole number" if whole else "number"
    return read


# ------------------------------------------------------------------------------------------ the commands

def _view_command(sub, name: str, text: str, *groups, **kwargs) -> argparse.ArgumentParser:
    """A command that answers a view: the selection and view options, then ``groups`` (functions adding options)."""
    q = sub.add_parser(name, help=text, **kwargs)
    selection_args(q)
    view_args(q)
    for add in groups:
        add(q)
    return q


def _store_parsers(sub) -> None:
    """``ingest``, ``load-samples``, ``sources``, ``export`` and ``remove`` (model.cli.data); ``versions``, ``pin``
    and ``purge`` (model.cli.versions)."""
    ing = sub.add_parser("ingest", help="load benchmark files (CSV/JSON) or directories of them")
    ing.add_argument("paths", nargs="+")
    ing.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                     help="a field every row gets where the file lacks it, e.g. --set hardware=H200 --set gpus=4")
    ing.add_argument("--format", dest="fmt", help="force a format instead of detecting it")
    ing.add_argument("--json", action="store_true")
    samples = sub.add_parser("load-samples", help=f"ingest the bundled samples from {SAMPLE_DIR.name}/")
    samples.add_argument("--if-empty", action="store_true", help="only when the database has no sources yet")
    src = sub.add_parser("sources", help="list ingested files, and the verdict on every published table")
    src.add_argument("--published", action="store_true",
                     help="only the published tables' verdicts (each value recomputed from the table's own numbers)")
    exp = sub.add_parser("export", help="write every point (with its source) to a CSV file")
    exp.add_argument("file")
    rem = sub.add_parser("remove", help="hide one ingested source from a new data version on (earlier versions and "
                                        "their pinned links keep it; purge deletes it for good)")
    rem.add_argument("source_id", type=int)
    ver = sub.add_parser("versions", help="the change log: every data version (time, action, what, by); --diff A B "
                                          "names the sources added and removed and the answer's headline at each")
    ver.add_argument("--diff", nargs=2, type=int, metavar=("A", "B"), help="compare data versions A and B")
    selection_args(ver)             # the view whose headline --diff gives at each version
    view_args(ver)
    ver.add_argument("--json", action="store_true")
    pin = sub.add_parser("pin", help="record that a pinned link or report names data version N (purge keeps it)")
    pin.add_argument("version", type=int)
    pin.add_argument("--note", default="", help="what names it (a proposal, a customer)")
    pur = sub.add_parser("purge", help="delete removed sources' rows for good (refused while a recorded pin still "
                                       "shows them, unless --force)")
    pur.add_argument("--force", action="store_true", help="purge even when a recorded pin still shows them")


def _answer_parsers(sub) -> None:
    """The commands that print a part of a view's answer: ``frontier``, ``iso``, ``crossover``, ``history``
    (model.cli.query), ``capacity``, ``compare`` (model.cli.capacity), ``size`` (model.cli.size), ``volume``,
    ``mix``, ``sell`` and ``solve``."""
    for name, text in (("frontier", "Pareto frontier points of every series"),
                       ("iso", "$/M of every series at matched interactivity"),
                       ("crossover", "where one series becomes cheaper than another")):
        # iso's recommendation weighs owning, renting and the API at a monthly volume
        _view_command(sub, name, text, fleet_args, *((lambda q: volume_args(q, with_fleet=False),)
                                                     if name == "iso" else ()), json_args)
    _view_command(sub, "history", "each series' $/M at --at X run date by run date: that date's runs alone and the "
                                  "best so far", json_args)
    for name, text in (("capacity", "the knee of every load ramp under an SLA: req/s, tok/s/node, $/M"),
                       ("compare", "tokens per dollar of ramp knees (or peaks, without --sla) against a baseline")):
        _view_command(sub, name, text, lambda q: add_options(q, "ramp"), lambda q: q.add_argument("--json", action="store_true"),
                      description=text + ". The view's options mean what they mean for iso and size; --basis total "
                      "(or auto) counts total, else output, else input tokens, as each row has them"
                      + ("; --baseline is the series or hardware the others are divided by"
                         if name == "compare" else "") + ".")
    size = _view_command(sub, "size", "fleet for a demand, or capacity for a power or money budget", fleet_args,
                         lambda q: add_options(q, "chargeback"))      # the planned fleet's cost by tenant
    size.add_argument("--json", action="store_true")
    vol = _view_command(sub, "volume", "buy, rent or call an API: monthly cost of each at a volume, and break-evens",
                        volume_args)
    vol.add_argument("--json", action="store_true")
    _mix_parser(sub)
    _view_command(sub, "sell", "what each series earns selling tokens at an API price: revenue, profit and "
                               "break-even utilisation per GPU-hour and per GW-year", fleet_args,
                  lambda q: volume_args(q, with_fleet=False),
                  lambda q: add_options(q.add_argument_group("sell: the token mix, the licence fee and the "
                                                             "utilisation"), "sell"), json_args)
    _view_command(sub, "solve", "the highest interactivity under a $/M cap; the cheapest measured fleet meeting a "
                                "demand, its SLA and a budget", fleet_args,
                  lambda q: add_options(q.add_argument_group("solve: the $/M cap"), "solve"), json_args)


def _mix_parser(sub) -> None:
    """``mix``: the view and fleet options of ``size``, the request mix and the limits (model.cli.mix)."""
    q = _view_command(sub, "mix", "the cheapest mix of GPU types for a request mix (buckets of ISL/OSL)", fleet_args,
                      lambda q: add_options(q, "mix"),
                      description="The cheapest whole nodes per GPU type, and the share of each bucket of requests "
                      "each serves, for the view's demand: an integer program over the measured capacities. It "
                      "assumes each bucket's requests can be routed to any type.")
    g = q.add_argument_group("mix: buckets and limits")
    g.add_argument("--isl-edges", metavar="E,E,...",
                   help="ISL edges [tokens] a --trace is bucketed by (default 1024,4096,16384)")
    g.add_argument("--osl-edges", metavar="E,E,...",
                   help="OSL edges [tokens] a --trace is bucketed by (default 256,1024)")
    g.add_argument("--match-factor", type=number_type(), metavar="F",
                   help="a bucket matches a measured ISL/OSL within this factor of each (default 2)")
    g.add_argument("--max-nodes", action="append", default=[], metavar="HW=N",
                   help="nodes of a type available, spares included (repeat per type)")
    g.add_argument("--max-kw", action="append", default=[], metavar="HW=KW",
                   help="IT power a type may draw [kW] (repeat per type); --budget-mw limits the whole mix")
    q.add_argument("--json", action="store_true")


def _report_parsers(sub) -> None:
    """``report`` (model.cli.report), ``verify`` and ``keygen`` (model.cli.verify)."""
    rep = _view_command(sub, "report", "the proposal of a view: HTML, PDF, or its tables as XLSX/CSV zip", fleet_args,
                        lambda q: volume_args(q, with_fleet=False))
    rep.add_argument("--out", metavar="FILE",
                     help="; ".join(f"{suffix}: {text}" for suffix, text in OUTPUTS.items()))
    rep.add_argument("--bundle", metavar="DIR",
                     help="write the proposal bundle: a new folder (or DIR.zip) holding the HTML, PDF, XLSX and CSVs, "
                          "the inputs the answer was computed from and manifest.json, every file's SHA-256 and every "
                          "figure with its status; costfrontier verify DIR checks it offline")
    rep.add_argument("--base-url", help="dashboard address the report's share link points to, without --link "
                                        "(default $COSTFRONTIER_PUBLIC_URL, else http://localhost:8501/)")
    rep.add_argument("--sign", metavar="KEY", help="with --bundle: sign it with the issuer's private key (costfrontier "
                                                    "keygen makes one); costfrontier verify DIR --key KEY.pub then "
                                                    "says who issued it and that nothing changed since")
    report_args(rep)
    add_options(rep, "mix")          # the view's request mix (the report's section on the cheapest mix of GPU types)
    for group in ("sell", "solve", "chargeback"):     # the seller's side, the $/M cap, the bill by tenant (issue 52)
        add_options(rep, group)
    rep.add_argument("--json", action="store_true")
    ver = sub.add_parser("verify", help="check a proposal bundle offline: recompute every figure from its inputs and "
                                        "every file's SHA-256 (exit 0 all hold, 1 a figure or file differs, 3 the "
                                        "bundle lacks data a figure needs, 2 bad arguments)")
    ver.add_argument("bundle", metavar="BUNDLE", help="the bundle's folder, or its zip")
    ver.add_argument("--key", metavar="KEY.pub", help="the issuer's public key (costfrontier keygen writes it): say who "
                                                      "issued the bundle and that nothing changed since it was signed "
                                                      "(exit 1 when unsigned or signed with another key)")
    ver.add_argument("--json", action="store_true")
    gen = sub.add_parser("keygen", help="make an Ed25519 key pair to sign proposal bundles with: KEY (private, keep it) "
                                        "and KEY.pub (give it to customers: costfrontier verify DIR --key KEY.pub)")
    gen.add_argument("key", metavar="KEY", help="the private key's file (the public key is KEY.pub)")
    gen.add_argument("--name", required=True, help="the issuer's name, as customers should read it")


#: the build-up options of ``tco``: each input of :class:`model.core.tco.OnPremInputs` but the colocation switch,
#: as (``--name-with-dashes``, dest, type, help: its one label (ONPREM_LABELS) and the default it takes)
_ONPREM_DEFAULTS = {
    "gpus_per_node": "default 8", "network_usd": "instead of --network-pct", "years": "default 5",
    "rate_pct": "0 = straight-line; default 0", "kw_per_gpu": "default: the preset's",
    "pue": "default 1.56, Uptime Institute 2024", "usd_per_kwh": "default 0.0806, EIA US industrial 2023",
    "colo_usd_per_kw_month": "default 184.06, CBRE H2 2024", "rack_usd_per_month": "instead of colocation",
    "nodes_per_rack": "with --rack-usd-per-month", "utilization": "a fraction, 0..1; default 1",
}
ONPREM_OPTIONS = tuple(
    ("--" + name.replace("_", "-"), name, number_type(whole=name in ONPREM_COUNTS),
     (label + (f" ({_ONPREM_DEFAULTS[name]})" if name in _ONPREM_DEFAULTS else "")).replace("%", "%%"))
    for name, label in ONPREM_LABELS.items() if name != "colo_includes_power")

#: the help of --alias (models match by their whole name; a name is counted as another model only when mapped)
_ALIAS_HELP = ("count the actuals' model NAME as the plan's MODEL (repeat for more); models match by their whole "
               "name, ignoring case, or by the built-in aliases (zai-org/GLM-5.2=GLM-5.2, ...), never by a part")


def _cost_parsers(sub) -> None:
    """``tco`` (model.cli.tco), ``actual`` and ``plan-vs-actual`` (model.cli.actual)."""
    tco = sub.add_parser("tco", help="on-prem $/GPU-hour from a server quote and a power bill (cost profiles)")
    tco.add_argument("--hardware", help="GPU, e.g. H200")
    for option, dest, kind, text in ONPREM_OPTIONS:
        tco.add_argument(option, dest=dest, type=kind, help=text)
    tco.add_argument("--colo-includes-power", action="store_true", help=ONPREM_LABELS["colo_includes_power"])
    tco.add_argument("--usd-per-gpu-hour", type=number_type(), help="a plain rate instead of a build-up (a cloud quote)")
    tco.add_argument("--name", help="profile name (default '<hardware> on-prem <years>y')")
    tco.add_argument("--source", default="", help="where the numbers come from (kept with a saved profile)")
    tco.add_argument("--save", action="store_true", help="store the profile in the database (replaces one of that name)")
    tco.add_argument("--vs-rate", type=number_type(), metavar="USD",
                     help="a cloud $/GPU-hour: print the break-even server price and electricity price")
    tco.add_argument("--price-set", help="price set whose all-in kW per GPU is the default (default: newest)")
    stale = BY_NAME["price_stale_days"].option          # the view's declaration (model.core.view_fields)
    tco.add_argument(*stale.flags, dest=stale.name, metavar=stale.metavar, help=stale.help)
    tco.add_argument("--list", action="store_true", help="list the stored cost profiles")
    tco.add_argument("--opencost-pricing", metavar="FILE",
                     help="also write the profile's paid $/GPU-hour as OpenCost's custom CSV pricing (CSV_PATH), with "
                          "the purchase date and the depreciation schedule")
    tco.add_argument("--purchase-date", metavar="YYYY-MM-DD", help="when the hardware was bought (default: today)")
    tco.add_argument("--opencost-node", metavar="LABEL=VALUE",
                     help="the node label that marks these nodes (default node.kubernetes.io/instance-type=<gpu>)")
    tco.add_argument("--opencost-gpu", metavar="LABEL=VALUE",
                     help="the node label naming their GPU class (default nvidia.com/gpu_type=<GPU>)")
    tco.add_argument("--json", action="store_true")
    act = sub.add_parser("actual", help="ingest actuals: OpenCost /inferenceCost responses (JSON) or a bill (CSV of "
                                        "date, model, tokens, usd); --list shows them")
    act.add_argument("paths", nargs="*", metavar="FILE", help="OpenCost responses or bills to store (each one data "
                     "version, stored whole or not at all)")
    act.add_argument("--plan", metavar="LINK", help="refuse rows of a model this plan (a share link) does not hold")
    act.add_argument("--alias", action="append", default=[], metavar="NAME=MODEL", help=_ALIAS_HELP)
    act.add_argument("--list", action="store_true", help="list the stored actuals")
    act.add_argument("--json", action="store_true")
    pva = sub.add_parser("plan-vs-actual", help="a plan (a pinned share link) against the stored actuals of its "
                                                "model: $/M, volume, utilisation, and what owning, renting and the "
                                                "API would have cost at the realised volume")
    pva.add_argument("--plan", metavar="LINK", required=True,
                     help="the share link the proposal was made from (pinned: with v=N)")
    pva.add_argument("--cost-basis", choices=COST_BASES,
                     help="which stored cost to read (default: bill, else allocation, else usage)")
    pva.add_argument("--alias", action="append", default=[], metavar="NAME=MODEL", help=_ALIAS_HELP)
    pva.add_argument("--json", action="store_true")


def commands(description: str) -> argparse.ArgumentParser:
    """Every command and its options (``--db`` before the command only: :func:`parser` adds it after)."""
    top = argparse.ArgumentParser(prog="costfrontier", description=description)
    top.add_argument("--db", help="database file (default: $COSTFRONTIER_DB or data/costfrontier.duckdb)")
    sub = top.add_subparsers(dest="command", required=True)
    _store_parsers(sub)
    _answer_parsers(sub)
    _cost_parsers(sub)
    _report_parsers(sub)
    return top


def db_everywhere(top: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Accept ``--db`` after the subcommand too (``costfrontier ingest x.csv --db my.duckdb``)."""
    sub = next(a for a in top._actions if isinstance(a, argparse._SubParsersAction))
    for command in sub.choices.values():
        if not any("--db" in action.option_strings for action in command._actions):
            command.add_argument("--db", default=argparse.SUPPRESS, help="database file (as before the command)")
    return top


def parser(description: str = "") -> argparse.ArgumentParser:
    """The whole command line, as :func:`model.cli.main` reads it (the manual's CLI reference is generated from it)."""
    return db_everywhere(commands(description))
