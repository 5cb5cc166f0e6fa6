"""The one number rule (model.core.names.number) as a table of typed text -> value or refusal, the checks that
ask before a likely slip is applied (model.core.plausible), the limits the view states, and the command line's
notes for them."""

from __future__ import annotations

import json

import pytest

from model.core.names import number
from model.core.plausible import fleet_question, percent_question, rate_notes, rate_question
from model.core.view import View
from model.core.view_codecs import NUMBER, rate_pairs
from tests.kit import cli

# typed text -> the value it is read as
READ = [
    ("1.48", 1.48), ("1,48", 1.48), ("0,750", 0.75), ("0,7", 0.7), (",5", 0.5), (".5", 0.5), ("  2.5  ", 2.5),
    ("1,000,000", 1e6), ("2,000,000,000,000", 2e12), ("1,000.5", 1000.5), ("1.000.000,5", 1000000.5),
    ("1.000.000", 1e6), ("1 000 000", 1e6), ("1\u202f000\u202f000", 1e6), ("1'000'000", 1e6), ("1_000", 1000.0),
    ("1 000,5", 1000.5), ("1 000,000", 1000.0), ("2e12", 2e12), ("2E12", 2e12), ("1e15", 1e15), ("12,5e3", 12500.0), ("-1", -1.0),
    ("\u22121.5", -1.5), ("$1.48", 1.48), ("+3", 3.0), ("0", 0.0), ("1.000", 1.0),
]
# typed text -> words the refusal must hold (an ambiguous one quotes what was typed)
REFUSED = [
    ("1,480", "'1,480' is ambiguous"), ("43,216", "write 43216 or 43.216"), ("100,000", "write 100000 or 100.000"), ("1,2,3", "'1,2,3' is not a number"),
    ("1,48,5", "commas go between groups of three digits, as in 1,000,000"), ("1.2.3", "has one decimal point"),
    ("1..48", "'1..48' is not a number: two points in a row"), ("1,,5", "two commas in a row"),
    ("1,000.000,5", "two decimal marks"),
    ("abc", "not a number"), ("", "not a number"), ("inf", "not a number"), ("nan", "not a number"),
    ("1e999", "must be finite"), ("1 000'000", "mixes"), ("70%", "not a number"), ("1e", "not a number"),
    ("12 34", "spaces go between groups of three digits"), ("--1", "not a number"), ("$", "not a number"),
]


@pytest.mark.parametrize("typed,value", READ, ids=[t for t, _ in READ])
def test_typed_text_is_read_by_the_one_rule(typed, value):
    assert number(typed) == pytest.approx(value, rel=1e-15)


@pytest.mark.parametrize("typed,words", REFUSED, ids=[t or "empty" for t, _ in REFUSED])
def test_what_is_not_a_number_or_is_ambiguous_is_refused(typed, words):
    with pytest.raises(ValueError) as err:
        number(typed)
    assert words.lower() in str(err.value).lower(), str(err.value)


def test_never_148_for_1_48():
    # the issue: "1,48" typed in a rate box set $148/GPU-hour; a link value is read by the same rule
    assert number("1,48") == 1.48
    assert NUMBER.read("1,48") == 1.48
    assert View.from_query({"x": ["40,5"]})[0].interactivity_needed == 40.5
    assert rate_pairs("MI355X:1.48") == (("MI355X", 1.48),)


def test_percent_is_taken_only_where_the_field_is_in_percent():
    assert number("70%", percent=True) == 70.0 and number("70 %", percent=True) == 70.0
    assert "Did you mean 70 %" in percent_question(0.7, "Utilisation")
    assert percent_question(1.0, "Utilisation") is not None
    assert percent_question(1.01, "Utilisation") is None and percent_question(70, "Utilisation") is None


def test_rate_question_at_five_times_either_way():
    # MI355X's preset is $1.48/GPU-hour (2025-08, owning_hyperscaler; InferenceX)
    assert rate_question("MI355X", 7.40, 1.48) is None                 # exactly 5x: taken
    assert rate_question("MI355X", 0.296, 1.48) is None                # exactly 1/5: taken
    asked = rate_question("MI355X", 133.2, 1.48)
    assert asked.startswith("MI355X at $133.20/GPU-hour is 90× its preset ($1.48)")
    assert "1/10 of its preset" in rate_question("MI355X", 0.148, 1.48)
    assert rate_question("H20", 900, None) is None                    # nothing to compare with
    assert rate_notes((("mi355x", 148.0), ("B200", 2.0)), {"MI355X": 1.48, "B200": 1.95}) == [
        "unusual rate: mi355x at $148.00/GPU-hour is 100× its preset ($1.48); rates more than 5× or less than 1/5 of "
        "their preset are checked: is it what you meant?"]


def test_fleet_question_reads_the_smallest_fleet():
    assert fleet_question({"a": 1000.0, "b": 5000.0}) is None
    assert fleet_question({"a": float("nan")}) is None and fleet_question({}) is None
    asked = fleet_question({"a": 1001.0, "b": 88835.0, "c": float("nan")})
    assert asked.startswith("this demand needs at least 1,001 nodes (the smallest fleet in view, a)")


@pytest.mark.parametrize("field,typed,words", [
    ("tpm", "1e15", None), ("tpm", "2e12", None), ("tpm", "-1", "at most 1e18 tokens a month"),
    ("tpm", "1e19", "at most 1e18 tokens a month"), ("rps", "1e9", None), ("rps", "1e12", "at most 1e9 req/s"),
    ("tpd", "1e17", None), ("bud", "0", "at most $1e15"), ("mw", "-2", "at most 1e6 MW"),
])
def test_demand_and_volume_limits_are_the_ones_the_message_states(field, typed, words):
    state, notices = View.from_query({field: [typed]})
    if words is None:
        assert not notices and state.to_query()[field] == typed
    else:
        assert field not in state.to_query() and any(words in n and f"{field}='{typed}'" in n for n in notices), notices


def test_the_cli_reads_numbers_by_the_rule_and_notes_unusual_values(sample_db):
    code, _, err = cli(sample_db, "size", "--demand-rps", "1,480")
    assert code != 0 and "'1,480' is ambiguous" in err
    # 2,000,000,000,000 tokens a month (a provider's volume) is a volume, and equals 2e12
    code, out, _ = cli(sample_db, "volume", "--tokens-per-month", "2,000,000,000,000", "--json")
    assert code == 0
    assert json.loads(out)["tokens_per_month"] == 2e12
    code, out, _ = cli(sample_db, "volume", "--tokens-per-month", "1e15", "--json")
    assert code == 0 and json.loads(out)["tokens_per_month"] == 1e15
    code, _, err = cli(sample_db, "volume", "--tokens-per-month=-1")
    assert code != 0 and "at most 1e18 tokens a month" in err
    # a 90x rate and a demand of 100,000 req/s are answered, with a note each
    code, out, err = cli(sample_db, "size", "--demand-rps", "100000", "--rate", "MI355X=133.2")
    assert code == 0
    assert "note: unusual rate: MI355X at $133.20/GPU-hour is 90× its preset ($1.48)" in err
    assert "note: unusual demand: this demand needs at least" in err and "nodes are checked" in err
    code, out, err = cli(sample_db, "size", "--demand-rps", "10")
    assert code == 0 and "unusual" not in err


def test_costfrontier_tco_reads_its_numbers_by_the_rule(sample_db):
    # the worked example (2.7630 $/GPU-hour by hand), typed with decimal commas and thousands separators
    code, out, _ = cli(sample_db, "tco", "--hardware", "B200", "--server-usd", "300 000", "--network-pct",
                        "15", "--years", "5", "--rate-pct", "10", "--kw-per-gpu", "1,37", "--pue", "1,3",
                        "--usd-per-kwh", "0,08", "--colo-usd-per-kw-month", "184", "--maintenance-pct", "3",
                        "--utilization", "0,7", "--json")
    assert code == 0 and json.loads(out)["rows"][0]["usd_per_gpu_hour"] == pytest.approx(2.7630, abs=1e-4)
    code, _, err = cli(sample_db, "tco", "--hardware", "B200", "--server-usd", "300,000")
    assert code == 2 and err.startswith("usage:")          # refused by the argument parser (its SystemExit)
    assert "'300,000' is ambiguous" in err
