"""The share link's state: View -> query string -> View is the identity; bad values become notices."""

from __future__ import annotations

from model.core.view import View


def test_round_trip_of_a_non_default_view():
    state = View(workload="GLM-5|8192|1024", hardware=("B200", "MI355X"), spec_decoding=("mtp",),
                      by=("hardware",), basis="blended", method="monotone", price_set="2026-07",
                      rates=(("MI355X", 1.2), ("B200", 1.6)), targets=(55.0, 24.0), baseline="MI355X",
                      interactivity_needed=40.0, frontier_y="cost", optimal_only=True, sla="ttft_p95=2,tpot=50",
                      w_input=0.3, w_cached=0.03, compare=("a · x", "b · y"), compare_peaks=True)
    query = state.to_query()
    again, notices = View.from_query(query)
    assert notices == [] and again == state
    # normalised: rates and targets sorted, so equal views give equal links
    assert query["r"] == "B200:1.6,MI355X:1.2" and query["at"] == "24,55"


def test_defaults_make_an_empty_query():
    assert View().to_query() == {}


def test_each_bad_value_is_dropped_with_its_own_notice_and_the_rest_kept():
    state, notices = View.from_query({"r": "B200:-1", "by": "colour", "at": "24", "zz": "1", "sla": "tpot=fast"})
    assert state.targets == (24.0,) and state.rates == () and state.by == View().by
    assert len(notices) == 4
    assert any("unknown link parameter 'zz'" in n for n in notices)
    assert any("by=" in n and "cannot group by colour" in n for n in notices)


# ------------------------------------------------------------------ issue 17: links, names and words

import base64  # noqa: E402
import zlib  # noqa: E402

import duckdb  # noqa: E402
import pytest  # noqa: E402

from model.core.cost_profiles import cost_profile, profiles_from_text, profiles_to_text  # noqa: E402
from model.core.names import MAX_NAME_LENGTH, join_names, split_names  # noqa: E402
from model.core.tco import TcoInputError  # noqa: E402
from model.core.view import pair_text  # noqa: E402
from model.core.view_fields import BY_KEY  # noqa: E402
from model.data.profiles import load_profiles, save_profiles  # noqa: E402

ODD = ["H200, quote #2", 'a , $ % @ # " é || b', "x:1.5,y", "%2C already", "Ünïcødé · 測試", "||", "%"]


def test_a_repeated_rate_key_keeps_both_rates():
    state, notices = View.from_query({"r": ["B200:1.7", "MI355X:1.6"]})
    assert notices == [] and state.rates == (("B200", 1.7), ("MI355X", 1.6))


def test_a_hardware_given_two_rates_is_refused_by_name_and_the_others_kept():
    state, notices = View.from_query({"r": ["B200:1.7,H200:2.5", "b200:1.9,MI355X:1.6"]})
    assert state.rates == (("H200", 2.5), ("MI355X", 1.6))
    assert len(notices) == 1 and "'B200'" in notices[0] and "$1.7" in notices[0] and "$1.9" in notices[0]
    same, notices = View.from_query({"r": ["B200:1.7", "B200:1.7"]})   # the same rate twice is no conflict
    assert notices == [] and same.rates == (("B200", 1.7),)
    one, notices = View.from_query({"r": "B200:1.7,H200:2,B200:1.9"})   # in one value too
    assert one.rates == (("H200", 2.0),) and len(notices) == 1 and "'B200'" in notices[0]


def test_repeated_list_keys_merge():
    state, notices = View.from_query({"hw": ["B200", "MI355X"], "at": ["24", "55"], "by": ["hardware", "framework"]})
    assert notices == []
    assert state.hardware == ("B200", "MI355X") and state.targets == (24.0, 55.0)
    assert state.by == ("hardware", "framework")


def test_repeated_profiles_merge_and_two_profiles_of_one_name_are_refused():
    a = cost_profile(name="H200, quote #2", hardware="H200", usd_per_gpu_hour=2.1)
    b = cost_profile(name="B200 on-prem", hardware="B200", usd_per_gpu_hour=3.0)
    clash = cost_profile(name="H200, quote #2", hardware="H200", usd_per_gpu_hour=9.0)
    state, notices = View.from_query({"prof": [profiles_to_text([a]), profiles_to_text([b, clash])],
                                  "use": join_names([b.name], "||")})
    assert state.cost_profiles() == [b] and state.priced_by == (b.name,)
    assert len(notices) == 1 and "'H200, quote #2'" in notices[0] and "unique" in notices[0]
    state, notices = View.from_query({"prof": [profiles_to_text([a]), profiles_to_text([a, b])]})   # a twice, equal
    assert notices == [] and state.cost_profiles() == [a, b]


def test_a_repeated_scalar_keeps_the_first_value_and_says_so():
    state, notices = View.from_query({"basis": ["blended", "total"], "x": ["40", "40"]})
    assert state.basis == "blended" and state.interactivity_needed == 40.0
    assert len(notices) == 1 and "'basis'" in notices[0] and "2 times" in notices[0] and "'blended'" in notices[0]


@pytest.mark.parametrize("name", ODD)
def test_any_printable_name_round_trips_through_the_link(name):
    profile = cost_profile(name=name, hardware="H200", usd_per_gpu_hour=2.0)
    other = cost_profile(name=name + " 2", hardware="B200", usd_per_gpu_hour=3.0)
    hw = name.replace("H200", "Hx")   # a GPU name the data spells that way (H200... reads as H200)
    state = View(hardware=(hw, "B200"), framework=(name,), compare=(name, "b"), compare_base=name,
                      baseline=name, rates=((hw, 1.5), ("B200", 1.7)), pair=pair_text(name, "B200 · x"),
                      profiles=profiles_to_text([profile, other]), priced_by=(name, name + " 2"))
    again, notices = View.from_query(state.to_query())
    assert notices == [] and again == state
    assert again.pair_names() == (name, "B200 · x") and [p.name for p in again.cost_profiles()] == [name, name + " 2"]


def test_names_with_separators_round_trip_through_the_database():
    con = duckdb.connect()
    profiles = [cost_profile(name=n, hardware="H200", usd_per_gpu_hour=2.0 + i) for i, n in enumerate(ODD)]
    save_profiles(con, profiles)
    assert sorted(load_profiles(con), key=lambda p: p.name) == sorted(profiles, key=lambda p: p.name)


def test_links_written_before_names_could_hold_separators_still_parse():
    state, notices = View.from_query({"cmp": "a · x||b · y", "r": "B200:1.6,MI355X:1.2", "hw": "b200,MI355X",
                                  "pair": "B200 · sglang||MI355X · vllm"})
    assert notices == [] and state.compare == ("a · x", "b · y") and state.rates == (("B200", 1.6), ("MI355X", 1.2))
    assert state.hardware == ("B200", "MI355X") and state.pair_names() == ("B200 · sglang", "MI355X · vllm")


def test_split_names_inverts_join_names():
    for sep in (",", "||"):
        assert split_names(join_names(ODD, sep), sep) == tuple(ODD)


@pytest.mark.parametrize("bad", ["H200\tquote", "a\nb", "zero\u200bwidth", "bell\x07", "x" * (MAX_NAME_LENGTH + 1)])
def test_control_characters_and_overlong_names_are_refused_with_a_notice(bad):
    with pytest.raises(TcoInputError, match="name"):
        cost_profile(name=bad, hardware="H200", usd_per_gpu_hour=1.0)
    state, notices = View.from_query({"hw": join_names([bad]), "cmp": join_names([bad], "||")})
    assert state.hardware == () and state.compare == () and len(notices) == 2
    assert all(("control or invisible" in n) or (f"longer than {MAX_NAME_LENGTH}" in n) for n in notices)


_LEAKS = ("could not convert", "ValueError", "TypeError", "Input should", "invalid literal", "Traceback", "/work",
          "/tmp", "RecursionError", "Error)")
_GARBAGE = ["abc", "nan", "inf", "-inf", "1e999", "", "[[[[", "x" * 3000, "é測試", "1,,2", ":", "B200:", ":1.5",
            "B200:abc", "B200:nan", "0x1p3", "1.5.5", "||", "%zz", "p1.", "p1.!!!!", "p1.eJwLAAAA", "-1", "1e-320",
            "\x00", "true", "{}", "'", "\\", " ", "12abc"]


def test_every_bad_link_value_is_said_in_the_products_words():
    for key in BY_KEY:
        for text in _GARBAGE:
            for raw in (text, [text, "1"], ["1", text]):
                _, notices = View.from_query({key: raw})
                for n in notices:
                    assert not any(leak in n for leak in _LEAKS), (key, text, n)
    _, notices = View.from_query({"x": "abc", "win": "nan", "sp": "1.5", "hr": "1e999", "at": "10,x"})
    assert "ignored link parameter x='abc': not a number" in notices
    assert len(notices) == 5 and all(": not a" in n for n in notices), notices


def _packed(raw: bytes) -> str:
    return "p1." + base64.urlsafe_b64encode(zlib.compress(raw, 9)).decode("ascii").rstrip("=")


def test_a_deeply_nested_profiles_link_is_a_notice_not_a_crash():
    # issue 22, item 1: '[' nested 150,000 deep, packed into a link value of about 230 characters
    value = _packed(b"[" * 150_000)
    assert len(value) < 300
    with pytest.raises(TcoInputError, match="nested deeper"):
        profiles_from_text(value)
    state, notices = View.from_query({"prof": value, "use": "x"})
    assert state.profiles == "" and len(notices) == 2 and "nested deeper" in notices[0]
    for raw in (b'[{"n":"a","h":"B200","r":1,"x":' + b"[" * 5_000 + b"]" * 5_000 + b"}]", b"[" * 9 + b"]" * 9):
        with pytest.raises(TcoInputError, match="nested deeper"):
            profiles_from_text(_packed(raw))
    # brackets inside a name are text, not nesting
    deep_name = cost_profile(name="[[[[[[[[[[{{{{{{{{", hardware="B200", usd_per_gpu_hour=1.0)
    assert profiles_from_text(profiles_to_text([deep_name])) == [deep_name]


def test_a_zip_bomb_profiles_link_is_a_notice_not_a_crash():
    small = _packed(b"[" + b" " * 1_500_000 + b"]")      # under the link's 2,000 characters, 1.5 MB unpacked
    assert len(small) < 2000
    state, notices = View.from_query({"prof": small})
    assert state.profiles == "" and len(notices) == 1 and "more than 200,000 bytes" in notices[0]
    big = _packed(b"[" + b" " * 12_000_000 + b"]")     # the largest profiles_from_text reads: 16,000 characters
    with pytest.raises(TcoInputError, match="more than 200,000 bytes"):
        profiles_from_text(big)


# --------------------------------------------------------------------------- link limits (issue 22)

def _profiles(count: int, seed: int = 22) -> list:
    """``count`` cost profiles as people name them: quotes with a provenance each (hard to compress)."""
    import random

    rng = random.Random(seed)
    hardware = ["H200", "B200", "MI355X", "H100"]
    return [cost_profile(name=f"{hardware[i % 4]} quote {rng.randrange(10**6):06d}", hardware=hardware[i % 4],
                         usd_per_gpu_hour=round(rng.uniform(1, 9), 4), source=f"RFQ {rng.randrange(10**9)}-{rng.randrange(10**9)}")
            for i in range(count)]


@pytest.mark.parametrize("count, fits", [(16, True), (64, False)])
def test_a_link_holds_a_view_whole_or_says_what_it_left_out(count, fits):
    from model.core.view import MAX_VALUE_LENGTH, View

    profiles = _profiles(count)
    state = View(profiles=profiles_to_text(profiles), priced_by=(profiles[0].name, profiles[1].name),
                      targets=(40.0, 80.0))
    assert (len(profiles_to_text(profiles)) <= MAX_VALUE_LENGTH) == fits
    query = state.to_query()
    assert all(len(v) <= MAX_VALUE_LENGTH for v in query.values())
    again, notices = View.from_query({k: [v] for k, v in query.items()})
    assert notices == []   # nothing written is dropped when the link opens
    if fits:
        assert state.left_out_of_link() == () and again == state
        assert [p.name for p in again.cost_profiles()] == [p.name for p in profiles]
    else:
        assert state.left_out_of_link() == ("cost profiles",)
        assert "prof" not in query and "use" not in query   # nor the names that choose among them
        assert again == View(targets=(40.0, 80.0))


def test_a_thousand_unknown_link_keys_are_one_notice():
    from model.core.view import View

    params = {f"junk{i}": ["1"] for i in range(997)} | {"at": ["40"], "hw": ["H200"], "zz": ["x"]}
    state, notices = View.from_query(params)
    assert len(params) == 1000 and state.targets == (40.0,) and state.hardware == ("H200",)
    assert notices == ["ignored 998 unknown link parameters: 'junk0', 'junk1', 'junk2', 'junk3', 'junk4', …"]


def test_values_valid_alone_but_not_together_drop_the_later_one_not_the_view():
    """A link that prices the API both ways, or gives demand two ways, keeps the rest of its view: only the
    value later in the order of the link keys (model.core.view_fields.FIELDS) goes, with a notice naming it."""
    state, notices = View.from_query({"r": "B200:2.5", "api": "GLM-5.2", "apiusd": "1,0.2,3", "at": "20,40"})
    assert (state.rates, state.api, state.api_usd, state.targets) == ((("B200", 2.5),), "GLM-5.2", (), (20.0, 40.0))
    assert notices == ["ignored link parameter apiusd: price the API by a model name or by custom prices, not both"]
    state, notices = View.from_query({"tpd": "1e9", "tpm": "3e10"})
    assert (state.tokens_per_day, state.tokens_per_month) == (1e9, None)
    assert len(notices) == 1 and notices[0].startswith("ignored link parameter tpm: give the volume one way")
    # a peak and a volume are one demand (issue 31): the peak sizes the fleet, the volume prices it
    assert View.from_query({"tpm": "3e9", "rps": "6"}) == (View(tokens_per_month=3e9, demand_rps=6.0), [])
