"""The dashboard's stated answers as pure functions (model.present.answers, model.present.fmt, the rate rule,
link reconciliation, the upload preview), against the bundled samples and the published numbers."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from model.core.analysis import analyse
from model.core.cost import resolve_rates
from model.core.view import View, reconcile
from model.data.ingest import ingest_file
from model.data.presets import load_presets
from model.data.preview import dry_run, for_form
from model.data.store import load_points
from model.present import fmt
from model.present.answers import (
    break_even_answer,
    cheapest_at,
    common_range,
    default_pair,
    headline,
    iso_pivot,
    pair_intervals,
    parse_targets,
    workload_label,
)


@pytest.fixture
def mtp(sample_con):
    points = load_points(sample_con, {"spec_decoding": ["mtp"], "model": ["GLM-5"]})
    # linear reproduces the published InferenceX tables (the default, "auto", picks monotone on this data)
    return analyse(points, View(by=("hardware",), targets=(24.0, 55.0), method="linear"), load_presets())


def test_people_formats():
    assert fmt.usd(0.4249) == "$0.42/M" and fmt.usd(0.0612) == "$0.061/M" and fmt.usd(None) == "—"
    assert fmt.usd(1.6125, "/GPU-hour") == "$1.61/GPU-hour" and fmt.usd(float("nan")) == "—"
    assert fmt.interactivity(89.3949) == "89.4 tok/s/user" and fmt.ratio(1.4123) == "1.41x"
    assert fmt.percent(0.004) == "0.4%" and fmt.percent(0.2345) == "23%"
    assert fmt.date(pd.Timestamp("2026-05-20 00:00:00")) == "2026-05-20" and fmt.date(None) == "not stated"
    assert fmt.count(1, "row") == "1 row" and fmt.count(1200, "row") == "1,200 rows"
    people = fmt.for_people(pd.DataFrame({"usd_per_mtok": [0.42, None], "min_interactivity": [7.123, 8.0]}))
    assert list(people.columns) == ["Cost [$/M tokens]", "Lowest interactivity [tok/s/user]"]
    assert people.iloc[1, 0] == "—" and people.iloc[0, 1] == "7.1"


def test_headline_reproduces_the_published_mtp_table(mtp):
    # published (InferenceX GLM-5 MTP iso table at 55 tok/s/user): MI355X $0.45/M, B200 $0.55/M;
    # the blog: B200 is cheaper again near 90 tok/s/user
    at = cheapest_at(mtp.curves, 55.0)
    assert at["series"].tolist() == ["MI355X", "B200"]
    text = headline(at, mtp.crossovers, 55.0)
    assert text.startswith("At 55.0 tok/s/user, MI355X is cheapest at $0.45/M, ")
    assert "below B200 ($0.55/M)" in text and text.endswith("B200 takes over above 89.4 tok/s/user.")


def test_headline_when_nothing_reaches(mtp):
    assert headline(cheapest_at(mtp.curves, 500.0), mtp.crossovers, 500.0) == "No series reaches 500.0 tok/s/user."


def test_default_pair_is_the_runner_up_against_the_cheapest(mtp):
    assert default_pair(cheapest_at(mtp.curves, 55.0)) == ("B200", "MI355X")
    assert default_pair(cheapest_at(mtp.curves, 95.0)) == ("MI355X", "B200")   # past the 89.4 crossover


def test_break_even_answer_is_a_number(mtp):
    answer = break_even_answer(mtp.curves, "B200", "MI355X", 55.0)
    # at one interactivity cost is linear in the rate: B200 matches MI355X at 1.95 x cost_MI355X / cost_B200
    b200, mi = (mtp.iso.set_index(["series", "interactivity"]).loc[(s, 55.0), "usd_per_mtok"]
                for s in ("B200", "MI355X"))
    assert answer["rate"] == pytest.approx(1.95 * mi / b200)
    assert answer["current"] == 1.95 and answer["cheaper_now"] is False
    assert answer["text"] == (f"At 55.0 tok/s/user, B200 becomes cheaper than MI355X below "
                              f"{fmt.usd(1.95 * mi / b200, '/GPU-hour')} (now $1.95/GPU-hour).")
    # priced at the break-even rate, B200 costs exactly what MI355X costs there
    repriced = analyse(mtp.points, View(by=("hardware",), targets=(55.0,), rates=(("B200", answer["rate"]),),
                                        method="linear"), load_presets())
    costs = repriced.iso.set_index("series")["usd_per_mtok"]
    assert costs["B200"] == pytest.approx(costs["MI355X"])


def test_break_even_out_of_reach_says_why(mtp):
    answer = break_even_answer(mtp.curves, "B200", "MI355X", 500.0)
    assert math.isnan(answer["rate"]) and "cannot both be priced at 500.0 tok/s/user" in answer["text"]
    lo, hi = common_range(mtp.curves, "B200", "MI355X")
    assert f"both reach {lo:.1f}–{hi:.1f} tok/s/user" in answer["text"]


def test_iso_pivot_is_people_ready(mtp):
    analysis = analyse(mtp.points, View(by=("hardware",), targets=(24.0, 55.0, 200.0), baseline="MI355X"), load_presets())
    costs, ratios = iso_pivot(analysis.iso)
    assert list(costs.columns) == ["24.0 tok/s/user", "55.0 tok/s/user", "200.0 tok/s/user"]
    assert costs.loc["MI355X", "55.0 tok/s/user"] == "$0.45/M"      # published oracle (InferenceX)
    assert costs.loc["B200", "200.0 tok/s/user"] == "out of reach (too fast)"
    assert ratios.loc["MI355X", "24.0 tok/s/user"] == "1.00x" and ratios.loc["B200", "200.0 tok/s/user"] == "—"


def test_parse_targets():
    assert parse_targets("55, 24; 24") == (24.0, 55.0) and parse_targets(" ") == ()
    for bad, words in (("abc", "'abc' is not a number"), ("-1", "above 0"), ("1e9", "below 100,000")):
        with pytest.raises(ValueError, match=words):
            parse_targets(bad)
    with pytest.raises(ValueError, match="at most 20"):
        parse_targets(",".join(str(i) for i in range(1, 22)))


def test_workload_label():
    assert workload_label("GLM-5", "8192", "1024", 24, 29) == "GLM-5 · ISL 8192 / OSL 1024 · 29 rows"
    assert workload_label("", "8192", "1024", 0, 1) == "model not stated · ISL 8192 / OSL 1024 · 1 row, load ramp"


def test_the_rate_rule_is_one_function():
    presets = load_presets()
    # published: InferenceX prices B200 at $1.95 and MI355X at $1.48 per GPU-hour (2025-08, owning_hyperscaler)
    assert resolve_rates(["B200", "mi355x"], presets) == {"B200": 1.95, "mi355x": 1.48}
    assert resolve_rates(["B200", "ArcProB60"], presets, overrides={"arcprob60": 0.9}) == \
        {"B200": 1.95, "ArcProB60": 0.9}
    # an unknown price set prices only what is set by hand
    assert resolve_rates(["B200", "MI355X"], presets, "1999", overrides={"B200": 2.0}) == {"B200": 2.0}
    everything = resolve_rates(None, presets)
    assert everything["B200"] == 1.95 and "H100" in everything


def test_reconcile_says_what_it_drops(sample_con):
    options = {"workloads": ["GLM-5|8192|1024"], "hardware": ["B200", "MI355X"], "framework": ["sglang"],
               "precision": ["fp8"], "spec_decoding": ["mtp", "none"],
               "price_sets": {"2025-08": ["owning_hyperscaler", "rental_3yr"], "2026-07": ["owning_hyperscaler"]}}
    state, notices = View.from_query({"ps": "1999", "hw": "b200,TPU", "tier": "gold", "r": "mi355x:1.2,H20:3",
                                  "wl": "x|1|2"})
    assert notices == []                      # all well-formed: only the data can refuse them
    fixed, notices = reconcile(state, options)
    assert fixed.price_set == "2025-08" and fixed.tier == "owning_hyperscaler"
    assert fixed.hardware == ("B200",) and fixed.rates == (("MI355X", 1.2),) and fixed.workload is None
    assert any("price set '1999' is not known; showing 2025-08" in n for n in notices)
    assert any("'TPU'" in n for n in notices) and any("'H20'" in n for n in notices)
    assert any("tier 'gold'" in n for n in notices) and any("workload 'x|1|2'" in n for n in notices)
    assert reconcile(fixed, options) == (fixed, [])


def test_hostile_names_are_refused_in_links():
    # names are any printable text (issue 17): markup is text, which the data then does not hold
    state, notices = View.from_query({"r": "TPU<script>:1.5", "hw": "<b>x</b>"})
    assert notices == [] and state.rates == (("TPU<script>", 1.5),) and state.hardware == ("<b>x</b>",)
    fixed, notices = reconcile(state, {"hardware": ["B200"]})
    assert fixed.rates == () and fixed.hardware == () and len(notices) == 2
    # control and invisible characters are refused in the link itself, each with a notice
    state, notices = View.from_query({"r": "TPU\x07:1.5", "hw": "x\u200by", "use": "a\nb"})
    assert state.rates == () and state.hardware == () and state.priced_by == () and len(notices) == 3
    assert all("control or invisible character" in n for n in notices)


def test_an_empty_workload_field_matches_only_rows_without_it(sample_con, tmp_path):
    # issue 9, item 8: three H100 rows with no model name beside the GLM-5 samples at the same ISL/OSL
    path = tmp_path / "nomodel.csv"
    path.write_text("hardware,gpus,tput_per_gpu,tok_s_user,isl,osl\nH100,8,900,30,8192,1024\n"
                    "H100,8,700,45,8192,1024\nH100,8,500,60,8192,1024\n")
    ingest_file(sample_con, path)
    where = View(workload="|8192|1024").where()
    assert where == {"model": [None], "isl": ["8192"], "osl": ["1024"]}
    rows = load_points(sample_con, where)
    assert len(rows) == 3 and set(rows["hardware"]) == {"H100"}
    assert len(load_points(sample_con, View(workload="GLM-5|8192|1024").where())) == 29


def test_preview_speaks_the_forms_language(tmp_path):
    assert for_form("missing: name the accelerator in a 'hardware' column or with --set hardware=NAME") == \
        "missing: name the accelerator in a 'hardware' column or with the form's 'Hardware' field"
    bad = tmp_path / "x.csv"
    bad.write_bytes(b"hardware,tput_per_gpu,tok_s_user\nB200,12x,40\n")
    dry = dry_run(bad, ())
    assert not dry["ok"] and "line 2" in dry["error"]
    good = tmp_path / "y.csv"
    good.write_bytes(b"tput_per_gpu,tok_s_user,isl,osl\n900,30,8192,1024\n")
    ok = dry_run(good, ("hardware=H100", "gpus=8"), display_name="y.csv")
    assert ok["ok"] and ok["rows"] == 1 and ok["workloads"] == ["|8192|1024"] and not ok["sampled"]
    assert ok["preview"]["hardware"].tolist() == ["H100"]


def test_money_keeps_two_significant_digits_below_ten_cents():
    assert fmt.usd(0.000423) == "$0.00042/M" and fmt.usd(0.0612) == "$0.061/M" and fmt.usd(0.2194) == "$0.22/M"
    assert fmt.usd(0.0) == "$0.00/M" and fmt.usd(0.00999) == "$0.0100/M" and fmt.usd(1234.5, "") == "$1,234.50"
    assert fmt.usd(2e-7, "/h") == "$0.00000020/h"
    from model.present import figures
    from model.present.report_output import round_usd
    assert figures.usd is fmt.usd and round_usd(0.000423) == 0.00042 and round_usd(0.2194) == 0.22


def test_a_tenth_of_a_cent_per_gpu_hour_is_never_level_at_zero(sample_con):
    points = load_points(sample_con, {"spec_decoding": ["mtp"], "model": ["GLM-5"]})
    result = analyse(points, View(by=("hardware",), rates=(("B200", 0.001), ("MI355X", 0.001))), load_presets())
    at = cheapest_at(result.curves, 55.0)
    text = headline(at, result.crossovers, 55.0)
    best, second = at["usd_per_mtok"].iloc[0], at["usd_per_mtok"].iloc[1]
    assert 0 < best < second < 0.001           # both far below a tenth of a cent per million tokens
    assert "$0.000/M" not in text and "$0.00/M" not in text and "level with" not in text
    first, runner = at["series"].iloc[0], at["series"].iloc[1]
    assert f"{first} is cheapest at {fmt.usd(best)}, 8% below {runner} ({fmt.usd(second)})" in text
    assert fmt.usd(best) == "$0.00028/M" and fmt.usd(second) == "$0.00031/M"   # 2 significant digits


def _crossings(*rows):
    return pd.DataFrame([dict(zip(("series_a", "series_b", "interactivity", "cheaper_below", "cheaper_above"), r),
                              usd_per_mtok=1.0) for r in rows])


def test_pair_intervals_say_one_pairs_crossings_as_intervals():
    crossings = _crossings(("B200", "MI355X", 50.6, "B200", "MI355X"), ("B200", "MI355X", 34.3, "MI355X", "B200"),
                           ("B200", "H200", 40.0, "H200", "B200"), ("B200", "MI355X", 55.7, "MI355X", "B200"))
    reach = pd.DataFrame({"series": ["B200", "MI355X", "H200"], "min_interactivity": [10.0, 18.1, 5.0],
                          "max_interactivity": [89.4, 120.0, 60.0]})
    out = pair_intervals(crossings, reach)
    assert out[["series_a", "series_b", "crossings"]].values.tolist() == [["B200", "MI355X", (2, 1, 4)],
                                                                          ["B200", "H200", (3,)]]
    assert out["text"].tolist() == [
        "MI355X cheaper from 18.1 to 34.3 and from 50.6 to 55.7 tok/s/user; "
        "B200 cheaper from 34.3 to 50.6 and from 55.7 to 89.4 tok/s/user",
        "H200 cheaper from 10.0 to 40.0 tok/s/user; B200 cheaper from 40.0 to 60.0 tok/s/user"]
    # without the reach the ends are open; a touching crossing (the same series on both sides) is one interval
    touching = _crossings(("A", "B", 20.0, "A", "B"), ("A", "B", 30.0, "B", "B"))
    assert pair_intervals(touching, reach.iloc[0:0])["text"].tolist() == [
        "A cheaper below 20.0 tok/s/user; B cheaper above 20.0 tok/s/user"]
    assert pair_intervals(crossings.iloc[0:0], reach).empty


def test_pair_intervals_agree_with_the_costs_on_the_samples(mtp):
    out = pair_intervals(mtp.crossovers, mtp.reach)
    assert len(out) == mtp.crossovers.groupby(["series_a", "series_b"]).ngroups >= 1
    for _, row in out.iterrows():
        for part in row["text"].split("; "):
            owner = part.split(" cheaper ")[0]
            other = row["series_b"] if owner == row["series_a"] else row["series_a"]
            for span in part.split(" cheaper ")[1].removesuffix(" tok/s/user").replace(" and ", ", ").split(", "):
                words = span.split()
                x = (float(words[1]) + float(words[3])) / 2 if words[0] == "from" else \
                    float(words[1]) * (0.9 if words[0] == "below" else 1.1)
                costs = cheapest_at({k: mtp.curves[k] for k in (owner, other)}, x)
                assert costs["series"].iloc[0] == owner, (row["text"], x)
