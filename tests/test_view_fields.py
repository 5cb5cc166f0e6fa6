"""Every field of a view, walked from its one declaration (model.core.view_fields.FIELDS): the link round trip,
one notice per invalid value, the command line and ``--link`` giving the same view, and the frontier key.

The tables are the declarations themselves (each field's ``example`` and ``bad`` link values), never a hand
list: a field added to FIELDS is walked here with no edit.
"""

from __future__ import annotations

from urllib.parse import urlencode

import duckdb
import pytest

from model.cli.options import view_from_args
from model.cli.parsers import commands
from model.cli.running import UsageError
from model.core.cost_profiles import profiles_from_text
from model.core.view import View
from model.core.view_fields import BY_KEY, BY_NAME, FIELDS, FIT, LINK, PROFILE, RATE, WHERE, options_of
from model.data.profiles import save_profiles

_IDS = [f.name for f in FIELDS]


def _query(field) -> dict[str, str]:
    """The field's example as a link, with the values it needs to mean something (the profiles a name chooses)."""
    needed = {f.key: f.example for f in FIELDS if field.key in f.needs}
    return {**needed, field.key: field.example}


# ------------------------------------------------------------------------------------------ one declaration

def test_each_field_is_declared_once_and_the_view_is_built_from_the_declarations():
    names = [f.name for f in FIELDS]
    keys = [f.key for f in FIELDS]
    assert len(set(names)) == len(names) and len(set(keys)) == len(keys)
    assert list(View.model_fields) == names                # the pydantic view has no field of its own
    assert all(View.model_fields[f.name].default == f.default for f in FIELDS)
    flags = [flag for opt in dict.fromkeys(f.option for f in FIELDS if f.option) for flag in opt.flags]
    assert len(set(flags)) == len(flags)                    # an option is declared once (shared ones by identity)


def test_every_view_option_of_a_command_comes_from_a_declaration():
    """The report command takes every group: each of its options is a declared one, or one of its own."""
    report = next(a for a in commands("")._actions if a.__class__.__name__ == "_SubParsersAction").choices["report"]
    given = {flag for action in report._actions for flag in action.option_strings}
    declared = {flag for group in ("selection", "runs", "view", "fleet", "sizing", "ramp", "volume", "report", "mix",
                                                  "sell", "solve", "chargeback")
                for opt in options_of(group) for flag in opt.flags}
    assert given - declared == {"-h", "--help", "--out", "--bundle", "--sign", "--base-url", "--json"}   # where, how
    assert declared <= given and LINK.flags[0] in given


@pytest.mark.parametrize("command", sorted(next(a for a in commands("")._actions
                                                 if a.__class__.__name__ == "_SubParsersAction").choices))
def test_every_commands_help_prints(command, capsys):
    with pytest.raises(SystemExit) as done:
        commands("").parse_args([command, "--help"])
    assert done.value.code == 0 and f"usage: costfrontier {command}" in capsys.readouterr().out


def test_api_and_api_usd_exclude_each_other_on_the_command_line(capsys):
    with pytest.raises(SystemExit) as done:
        commands("").parse_args(["volume", "--api", "GLM-5.2", "--api-usd", "1,0.2,3"])
    assert done.value.code == 2 and "not allowed with argument" in capsys.readouterr().err


# ------------------------------------------------------------------------------------------ the link

@pytest.mark.parametrize("field", FIELDS, ids=_IDS)
def test_link_to_view_to_link_is_the_identity_on_a_valid_value(field):
    query = _query(field)
    view, notices = View.from_query(query)
    assert notices == []
    assert getattr(view, field.name) != field.default      # the example means something
    assert view.to_query() == query
    assert View.from_query({k: [v, v] for k, v in query.items()}) == (view, [])   # a key repeated alike


@pytest.mark.parametrize("field", FIELDS, ids=_IDS)
def test_an_invalid_value_is_one_notice_naming_its_key_and_the_rest_of_the_view_stays(field):
    view, notices = View.from_query({field.key: field.bad, "at": "24"} if field.key != "at" else {"at": field.bad})
    assert len(notices) == 1, notices
    assert notices[0].startswith(f"ignored link parameter {field.key}") or \
        notices[0].startswith(f"ignored link parameter {field.key!r}")
    assert getattr(view, field.name) == field.default
    assert field.key == "at" or view.targets == (24.0,)


def test_the_share_box_says_what_a_link_leaves_out_in_the_fields_words():
    too_long = View(workload="x" * 2001)
    assert "wl" not in too_long.to_query() and too_long.left_out_of_link() == ("workload",)
    assert BY_KEY["prof"].said == "cost profiles" and BY_KEY["prof"].needs == ("use",)


# ------------------------------------------------------------------------------------------ the command line

def _argv(field) -> list[str]:
    """The field's example as the command line writes it (the declaration's option)."""
    opt, text = field.option, field.example
    if opt is WHERE:
        if field.name == "workload":
            return [a for k, v in zip(("model", "isl", "osl"), text.split("|")) for a in ("--where", f"{k}={v}")]
        if field.name == "filters":
            return ["--where", text]
        return [a for v in text.split(",") for a in ("--where", f"{field.name}={v}")]
    if opt is PROFILE:
        return ["--profile", profiles_from_text(BY_KEY["prof"].example)[0].name]
    if opt.kind == "flag":
        return [opt.flags[0]]
    if opt.kind == "append":      # HW:VALUE,HW:VALUE in a link; --rate HW=USD (--kw-per-gpu [HW=]KW) once per GPU
        return [a for item in text.split(",") for a in (opt.flags[0], item.replace(":", "="))]
    return [opt.flags[0], text]


@pytest.fixture(scope="module")
def store():
    con = duckdb.connect()
    save_profiles(con, profiles_from_text(BY_KEY["prof"].example))
    yield con
    con.close()


def _cli(store, *argv: str):
    args = commands("").parse_args(["report", "--out", "x.html", *argv])
    return view_from_args(args, store)


@pytest.mark.parametrize("field", [f for f in FIELDS if f.option], ids=[f.name for f in FIELDS if f.option])
def test_the_options_and_the_link_give_the_same_view(field, store):
    by_options, notices = _cli(store, *_argv(field))
    # --profile NAME both adds the stored profile and prices series by it
    query = {f.key: f.example for f in FIELDS if f.option is PROFILE} if field.option is PROFILE else _query(field)
    by_link, _ = View.from_query(query)
    assert notices == []
    # without --where naming one model, ISL and OSL, the options select every workload (a link leaves it unset)
    assert by_options == by_link.replace(workload=by_options.workload)
    assert getattr(by_options, field.name) != field.default
    by_link_option, notices = _cli(store, "--link", f"http://dashboard/?{urlencode(query)}")
    assert (by_link_option, notices) == (by_link, [])


@pytest.mark.parametrize("field", [f for f in FIELDS if f.option and f.option is not PROFILE],
                         ids=[f.name for f in FIELDS if f.option and f.option is not PROFILE])
def test_an_option_beside_link_changes_its_view_unless_it_chooses_rows(field, store):
    query = {"at": "24,55", "base": "MI355X"} if field.key != "at" else {"x": "40"}
    base, _ = View.from_query(query)
    view, notices = _cli(store, "--link", f"http://dashboard/?{urlencode(query)}", *_argv(field))
    if field.option.group == "selection":
        assert view == base and notices == [f"--link gives the view: {field.option.flags[0]} is ignored "
                                            "(set it in the link, or leave --link out)"]
    else:
        assert notices == [] and view == base.replace(**{field.name: View.from_query(_query(field))[0]
                                                        .model_dump()[field.name]})


@pytest.mark.parametrize("argv, words", [(["--at", "10,x"], "--at: not an interactivity ('x')"),
                                         (["--rent", "MI355X=abc"], "--rent: not a $/GPU-hour for MI355X"),
                                         (["--rate", "B200=2000"],
                                          "--rate: $/GPU-hour for B200 must be in [0.0001, 1000]"),
                                         (["--by", "colour"], "--by: unknown field 'colour'"),
                                         (["--as-of", "2025-13-01"], "--as-of: '2025-13-01' is not a date"),
                                         (["--interactivity", "0"], "--interactivity: interactivity must be at least 0.01")])
def test_a_bad_option_is_a_usage_error_naming_the_option(argv, words, store):
    with pytest.raises(UsageError) as caught:
        _cli(store, *argv)
    assert str(caught.value).startswith(words), str(caught.value)


# ------------------------------------------------------------------------------------------ the frontier key

@pytest.mark.parametrize("field", FIELDS, ids=_IDS)
def test_the_frontier_key_holds_what_changes_the_fit(field):
    """A field that changes the fit changes the key; one that sets a rate changes it only when series mix
    hardware (then fitted on tokens per dollar); one that only prices or shows never does."""
    example = View.from_query(_query(field))[0]
    changed = {f.name: getattr(example, f.name) for f in FIELDS if getattr(example, f.name) != f.default}
    kinds = {BY_NAME[name].changes for name in changed}
    assert changed and (example.frontier_key() != View().frontier_key()) == (FIT in kinds)
    if field.name != "by":
        mixed = View(by=("model",))
        assert (mixed.replace(**changed).frontier_key() != mixed.frontier_key()) == bool(kinds & {FIT, RATE})


# ------------------------------------------------------------------------------------------ the dashboard

def test_a_widget_is_keyed_by_its_fields_link_key_and_offers_the_declared_range(sample_db, monkeypatch):
    """The sidebar's blended weights name no key and no range: both come from the declarations."""
    from tests.kit import open_page

    monkeypatch.setenv("COSTFRONTIER_DB", str(sample_db))
    at = open_page(query={"basis": "blended", "win": "0.3"})
    assert not at.exception
    weight = at.text_input(key=BY_NAME["w_input"].key)
    assert weight.value == "0.3" and "[0, 10]" in weight.help     # the declared range, in the box's hint
    weight.input("0,5").run()                                    # a decimal comma
    assert at.query_params["win"] == "0.5"
    at.text_input(key=BY_NAME["w_input"].key).input("11").run()
    assert at.query_params["win"] == "0.5"
    assert any("'11' not applied: a token weight must be in [0, 10]" in w.value.replace("\\", "") for w in at.warning)


def _elements(node):
    """Every element of an AppTest tree, depth first."""
    yield node
    for child in getattr(node, "children", {}).values():
        yield from _elements(child)


def test_every_widget_bound_to_a_field_shows_the_help_its_declaration_and_help_option_give(sample_db, monkeypatch):
    """Issue 49: 31 of the 53 controls bound to a view field gave their own help beside their field's declared one.
    Every page, opened on the samples with a demand, a volume, a request mix, tenants and an interactivity (and with
    the blended basis and budgets, for the controls those show): each control keyed by a field shows exactly its
    declaration's help, the words ``costfrontier --help`` prints for the field's option."""
    from tests.kit import URL_PATH_OF, open_page

    monkeypatch.setenv("COSTFRONTIER_DB", str(sample_db))
    links = {page: [{"rps": "10", "tpm": "3e9", "rmix": "1024:256:0.7,8192:1024:0.3", "ten": "acme:9e8:1e8",
                     "x": "40"}] for page in URL_PATH_OF}
    links["views/overview.py"].append({"basis": "blended"})
    links["views/fleet.py"] += [{"mw": "2"}, {"bud": "1e6"}]
    shown: dict[str, str] = {}
    for page, queries in links.items():
        for query in queries:
            at = open_page(page, query)
            assert not at.exception, page
            for element in _elements(at._tree):
                key = getattr(element, "key", None)
                if isinstance(key, str) and key in BY_KEY:
                    shown[key] = element.help or ""
                    assert shown[key] == BY_KEY[key].help, (page, key)
    # the controls whose pages gave their own help before, each seen (and so the walk is not empty)
    assert {"by", "basis", "ia", "method", "rep", "asof", "plan", "cb", "gpn", "pue", "pta", "rps", "tpm", "hr", "sp",
            "apiusd", "ten", "ch", "good", "x", "mw", "bud", "opt", "hist", "at", "wl", "win"} <= set(shown)
    assert "from 1e-6 to 1e9" in shown["rps"] and "nodes bought in twos" in shown["gpn"]   # the pages' words, moved
    sub = next(a for a in commands("")._actions if a.__class__.__name__ == "_SubParsersAction").choices
    said = {a.dest: a.help.replace("%%", "%") for a in sub["size"]._actions if a.help}
    for field in (f for f in FIELDS if f.option not in (None, WHERE, PROFILE, LINK) and f.option.name in said):
        if field.explain:       # what a control can take differs from the option's: a FILE, another option's name
            assert "--" not in field.explain and "FILE" not in field.explain, field.name
            continue
        assert field.help == said[field.option.name][:1].upper() + said[field.option.name][1:], field.name
    # the review's five: the tenants box takes no file, the interactivity boxes the data's reach, the grouping is a
    # multiselect, a cached share is the API's bill or the revenue, a typed volume names no option
    assert "FILE" not in shown["ten"] and "reach of the data" in shown["x"] and "comma-separated" not in shown["by"]
    assert "revenue on Sell" in shown["ch"] and "--" not in BY_KEY["tb"].help and "FILE" not in BY_KEY["shape"].help


def test_no_page_gives_a_bound_control_help_of_its_own():
    """views/ and ui/ pass no help= to bind or field_box (ui.state.bind, ui.numbers.field_box take the field's), and a
    control keyed by a field by hand (key=key_of(...)) takes its help from the declaration too (ui.state.help_of)."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    found = []
    for path in [*root.glob("views/*.py"), *root.glob("ui/*.py")]:
        for call in (n for n in ast.walk(ast.parse(path.read_text(encoding="utf-8"))) if isinstance(n, ast.Call)):
            name = getattr(call.func, "attr", getattr(call.func, "id", ""))
            given = {k.arg: k.value for k in call.keywords}
            keyed = isinstance(given.get("key"), ast.Call) and getattr(given["key"].func, "id", "") == "key_of"
            if (name in ("bind", "field_box") and "help" in given) or (
                    keyed and not (isinstance(given.get("help"), ast.Call)
                                   and getattr(given["help"].func, "id", "") == "help_of")):
                found.append(f"{path.name}:{call.lineno}")
    assert not found
