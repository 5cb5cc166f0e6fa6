"""Every page under Streamlit's AppTest, on the bundled data and on an empty database.

Widgets are found by key; links are seeded through query params before the first run.
"""

from __future__ import annotations

import json
import math
import os
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

from model.core.names import number
from model.data.store import connect
from model.present.answer_steps import DRAW_LIMIT
from tests.conftest import ROOT, reading, samples_copy
from tests.kit import OVERVIEW, cli_json, open_page, rate_box

PAGES = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "views").glob("*.py"))


def _db(tmp_path: Path, samples: bool) -> Path:
    """This test's own database: a copy of the samples template, or a new empty store."""
    if samples:
        return samples_copy(tmp_path / "samples.duckdb")
    path = tmp_path / "empty.duckdb"
    connect(path).close()
    return path


@pytest.fixture
def app(tmp_path, monkeypatch):
    """Factory: the app on one page over a fresh database (samples or empty), already run."""

    def make(page: str = OVERVIEW, samples: bool = True, query: dict | None = None, run: bool = True) -> AppTest:
        monkeypatch.setenv("COSTFRONTIER_DB", str(_db(tmp_path, samples)))
        return open_page(page, query, run)

    return make


#: a page whose answer needs more than the default view opens on one that has it (the GPU mix: a request mix with a
#: bucket no hardware measured, and a peak; Plan vs actual: a pinned plan, which the samples hold no actuals for)
PAGE_QUERIES = {"views/gpu_mix.py": {"wl": "GLM-5|8192|1024", "rmix": "8192:1024:0.8,500:100:0.2", "rps": "10",
                                     "x": "40"},
                "views/plan_vs_actual.py": {"plan": "http://localhost:8501/Buy_rent_or_API?wl=GLM-5.2|20000|1000"
                                                    "&hw=MI355X&tpm=3.65e10&v=8"}}


@pytest.mark.parametrize("samples", [True, False], ids=["samples", "empty"])
@pytest.mark.parametrize("page", PAGES)
def test_every_page_runs(app, page, samples):
    at = app(page, samples, query=PAGE_QUERIES.get(page) if samples else None)
    assert not at.exception, at.exception
    if not samples and page not in (OVERVIEW, "views/data.py", "views/tco_rates.py", "views/tco_builder.py"):
        assert any("No benchmark data" in i.value for i in at.info)


def _analysis(db: str, where: dict, **scenario):
    from model.core.analysis import analyse
    from model.core.view import View
    from model.data.presets import load_presets
    from model.data.store import load_points

    with reading(db) as con:
        return analyse(load_points(con, where), View(**{"method": "linear", **scenario}), load_presets())   # the published method


def _unescape(text: str) -> str:
    """Text as the reader sees it: the page escapes Markdown characters in file-sourced text."""
    return re.sub(r"\\(.)", r"\1", text)


def _markdown(at) -> str:
    return "\n".join(m.value for m in at.markdown)


def test_rate_slider_reprices_and_moves_the_crossover(app):
    import os

    at = app("views/crossovers.py", query={"spec": "mtp", "by": "hardware", "method": "linear"})
    assert not at.exception
    # published finding (InferenceX GLM-5 blog, linear as InferenceX interpolates): B200 cheaper again near 90 tok/s/user
    assert re.search(r"MI355X cheaper from [\d\\.]+ to 89\\.4 tok/s/user; B200 cheaper from 89\\.4 to ", _markdown(at))
    assert "(crossing 1)" in _markdown(at)   # the chart's marker number
    at.slider(key="rate::B200").set_value(1.5).run()
    assert not at.exception
    expected = _analysis(os.environ["COSTFRONTIER_DB"], {"spec_decoding": ["mtp"], "model": ["GLM-5"]},
                         by=("hardware",), rates=(("B200", 1.5),)).crossovers
    assert len(expected) == 1 and abs(expected.iloc[0]["interactivity"] - 89.39) > 1
    from model.core.iso import reach
    from model.present.answers import pair_intervals

    curves = _analysis(os.environ["COSTFRONTIER_DB"], {"spec_decoding": ["mtp"], "model": ["GLM-5"]},
                       by=("hardware",), rates=(("B200", 1.5),)).curves
    text = pair_intervals(expected, reach(curves))["text"].iloc[0]
    assert f"{expected.iloc[0]['cheaper_below']} cheaper from " in text and _unescape(_markdown(at)).count(text) == 1
    assert at.query_params["r"] == "B200:1.5"


def test_rate_slider_changes_costs_on_the_cost_page(app):
    at = app("views/matched_interactivity.py", query={"spec": "mtp", "by": "hardware", "at": "24"})
    before = at.table[0].value.loc["B200"].iloc[0]
    # published oracle: B200 with MTP costs $0.34/M at 24 tok/s/user at $1.95/GPU-h
    assert before.split(" ")[0] == "$0.34/M"      # then its interpolation error, "± N %"
    at.slider(key="rate::B200").set_value(3.9).run()      # doubling the rate doubles the cost
    after = at.table[0].value.loc["B200"].iloc[0]
    assert after.split(" ")[0] == "$0.67/M"


def test_query_params_restore_the_view(app):
    import os

    query = {"spec": "none", "by": "hardware", "r": "MI355X:1.2", "at": "15,30", "base": "B200", "method": "monotone"}
    at = app("views/matched_interactivity.py", query=query)
    assert not at.exception
    assert at.text_input(key="at").value == "15, 30"
    assert at.slider(key="rate::MI355X").value == 1.2
    assert at.slider(key="rate::B200").value == 1.95
    assert at.selectbox(key="base").value == "B200"
    assert at.radio(key="method").value == "monotone"
    expected = _analysis(os.environ["COSTFRONTIER_DB"], {"spec_decoding": ["none"], "model": ["GLM-5"]},
                         by=("hardware",), rates=(("MI355X", 1.2),), targets=(15.0, 30.0), method="monotone").iso
    shown = at.table[0].value
    for row in expected.itertuples():
        cell = shown.loc[row.series, f"{row.interactivity:.1f} tok/s/user"]
        assert cell.startswith(f"${row.usd_per_mtok:.2f}/M"), (cell, row)
    # the page writes the same state back into its URL
    assert at.query_params["r"] == "MI355X:1.2" and at.query_params["at"] == "15,30"


@pytest.mark.parametrize("query", [
    {"r": "B200:-3"}, {"zzz": "1"}, {"at": "abc"}, {"by": "hardware';DROP TABLE points;--"},
    {"method": "cubic"}, {"x": "1e308"}, {"wl": "nope|1|2"}, {"r": "B200:1e9,MI355X:x"}, {"at": "1" * 5000},
])
def test_bad_link_values_are_ignored_with_a_notice(app, query):
    at = app("views/matched_interactivity.py", query=query)
    assert not at.exception
    assert at.warning or at.link_warnings, "an ignored link value must be visible"
    assert at.table, "the page still renders with defaults"


def test_empty_database_offers_the_samples(app):
    at = app(samples=False)
    assert not at.exception
    assert any("No benchmark data" in s.value for s in at.subheader)
    at.button(key="load_samples").click().run()
    assert not at.exception
    assert at.number_input(key="x").value > 0   # the headline control appears once data exists


def test_overview_headline_names_the_cheapest(app):
    at = app(query={"spec": "mtp", "by": "hardware", "x": "55", "method": "linear"})
    # published (InferenceX MTP table at 55 tok/s/user, linear): MI355X $0.45/M vs B200 $0.55/M
    headline = at.subheader[0].value
    assert headline.startswith("At 55\\.0 tok/s/user, MI355X is cheapest at \\$0\\.45/M")
    assert "B200" in headline and "89\\.4" in headline


def test_ramps_page_reproduces_the_published_knee_from_a_link(app):
    # published (Wafer GLM-5.2 MXFP4 on 8x MI355X): TTFT p95 <= 1.1 s -> 2.0 req/s and 1,944 tok/s/node
    at = app("views/ramps.py", query={"wl": "GLM-5.2|20000|1000", "sla": "ttft_p95=1.1"})
    assert not at.exception
    knees = at.dataframe[0].value.set_index("Series")
    mi = knees.loc["MI355X · sglang · mxfp4 · mtp"]
    assert mi["Request rate [req/s]"] == "2" and mi["Throughput [tok/s/node]"] == "1,944.0"
    assert at.text_input(key="sla_ttft").value == "1.1" and at.selectbox(key="sla_pct").value == "p95"
    # loosening the SLA to 5 s moves the knee to the published 2.4 req/s and 2,626 tok/s/node
    at.text_input(key="sla_ttft").input("5").run()
    mi = at.dataframe[0].value.set_index("Series").loc["MI355X · sglang · mxfp4 · mtp"]
    assert mi["Request rate [req/s]"] == "2.4" and mi["Throughput [tok/s/node]"] == "2,626.0"
    assert at.query_params["sla"] == "ttft_p95=5"


def test_tokens_per_dollar_comparison_and_break_even(app):
    # published claim (Wafer): MI355X at 82% of B200's node throughput; at 2.75x cheaper per GPU ~2.3x better
    query = {"wl": "GLM-5.2|20000|1000", "peak": "1", "r": f"B200:{1.48 * 2.75:.2f}", "cmpb": "B200 · sglang"}
    at = app("views/ramps.py", query=query)
    assert not at.exception
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Throughput ratio"] == "0.82x"
    assert metrics["Tokens per $ ratio"] == "2.26x"
    # break-even MI355X price = B200 rate x 2626/3192; it moves with the B200 slider
    assert metrics["Break-even price"] == f"${4.07 * 2626 / 3192:.2f}/GPU-h"
    at.slider(key="rate::B200").set_value(2.0).run()
    assert {m.label: m.value for m in at.metric}["Break-even price"] == f"${2.0 * 2626 / 3192:.2f}/GPU-h"


def test_sla_in_the_link_filters_the_frontier(app):
    at = app("views/matched_interactivity.py",
             query={"spec": "mtp", "by": "hardware", "sla": "interactivity=60", "at": "50,80", "method": "linear"})
    assert not at.exception
    assert any("leaves out" in w.value for w in at.warning)
    table = at.table[0].value
    # only points at >= 60 tok/s/user are left: B200's frontier now starts at 77.82, so 50 is out of reach
    assert table.loc["B200", "50.0 tok/s/user"] == "out of reach (too slow)"
    # at 80, linear between 77.82 ($1.95/(3600*650.1e-6) = $0.8332/M) and 100.85 ($1.2990/M):
    # 0.8332 + (80-77.82)/(100.85-77.82) * (1.2990-0.8332) = $0.877/M
    assert table.loc["B200", "80.0 tok/s/user"].split(" ")[0] == "$0.88/M"


def _ingest_before_opening(tmp_path, text: str, *set_fields: str) -> None:
    """A CSV ingested into this test's database before the app opens it (the app then only reads)."""
    import os

    from model.data.ingest import ingest_file

    path = tmp_path / "extra.csv"
    path.write_text(text)
    con = connect(os.environ["COSTFRONTIER_DB"])
    try:
        ingest_file(con, path, list(set_fields))
    finally:
        con.close()


def test_hardware_without_a_preset_is_unpriced_until_a_rate_is_set(app, tmp_path):
    at = app(run=False)
    _ingest_before_opening(tmp_path, "hardware,gpus,tput_per_gpu,tok_s_user,model,isl,osl\n"
                                     "H20,8,900,30,GLM-5,8192,1024\nH20,8,500,60,GLM-5,8192,1024\n")
    at.run()
    assert not at.exception
    assert any("no $/gpu-hour for h20" in _unescape(w.value).lower() for w in at.warning)
    rate_box(at, "H20").input("1").run()
    assert not at.exception
    assert not any("no $/gpu-hour for h20" in _unescape(w.value).lower() for w in at.warning)
    assert at.slider(key="rate::H20").value == 1.0 and at.query_params["r"] == "H20:1"


# typed text -> what happens to B200's rate (preset $1.95, InferenceX): applied, held for a confirmation (more
# than 5x or less than 1/5 of the preset), or refused with a notice quoting the text and the limit
RATE_VALUES = [("0", "refused"), ("-1", "refused"), ("0.01", "held"), ("11", "held"), ("1000", "held"),
               ("1e9", "refused"), ("nan", "refused"), ("1.61", "applied"), ("1,61", "applied"),
               ("1,610", "refused"), ("999.99", "held"), ("1000.01", "refused"), ("abc", "refused"),
               ("5e-5", "refused"), ("1e-4", "held")]   # MIN_USD_PER_GPU_HOUR: $0.0001


@pytest.mark.parametrize("typed,fate", RATE_VALUES, ids=[t for t, _ in RATE_VALUES])
def test_any_typed_rate_is_taken_held_or_refused_with_a_notice(app, typed, fate):
    at = app("views/crossovers.py", query={"spec": "mtp", "by": "hardware"})
    rate_box(at, "B200").input(typed).run()
    assert not at.exception, at.exception
    warnings = [_unescape(w.value) for w in at.warning]
    if fate == "refused":    # a notice quotes what was typed; the rate stays the preset
        assert "r" not in at.query_params and at.slider(key="rate::B200").value == 1.95
        assert any(f"'{typed}' not applied" in w and "B200" in w for w in warnings), warnings
        return
    value = 1.61 if typed == "1,61" else float(typed)
    if fate == "held":       # asked, not applied until confirmed
        assert "r" not in at.query_params and at.slider(key="rate::B200").value == 1.95
        assert any("Not applied yet" in w and f"'{typed}'" in w for w in warnings), warnings
        at.button(key="confirm::sidebar:rate::B200").click().run()
        assert not at.exception
    assert at.slider(key="rate::B200").value == value and at.query_params["r"] == f"B200:{value:g}"


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(typed=st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-10**12, 10**12).map(float),
                       st.text(max_size=12)))
def test_no_typed_rate_raises(tmp_path_factory, monkeypatch, typed):
    db = tmp_path_factory.getbasetemp() / "typed-rates.duckdb"
    if not db.exists():
        _db(db.parent, True).rename(db)
    monkeypatch.setenv("COSTFRONTIER_DB", str(db))
    at = open_page("views/tco_rates.py", {"spec": "mtp"})
    rate_box(at, "MI355X").input(str(typed)).run()
    assert not at.exception, (typed, at.exception)
    try:
        value = number(str(typed))
    except ValueError:
        value = None
    plain = value is not None and 1.48 / 5 <= value <= 1.48 * 5   # taken without a question
    assert at.slider(key="rate::MI355X").value == (value if plain else 1.48)


def test_a_workload_without_a_model_shows_only_its_rows(app, tmp_path):
    at = app(run=False)
    _ingest_before_opening(tmp_path, "hardware,gpus,tput_per_gpu,tok_s_user,isl,osl\nH100,8,900,30,8192,1024\n"
                                     "H100,8,700,45,8192,1024\nH100,8,500,60,8192,1024\n")
    at.query_params["wl"] = "|8192|1024"
    at.run()
    assert not at.exception
    assert {m.label: m.value for m in at.metric}["Rows in view"] == "3"
    assert "GLM" not in at.subheader[0].value and "H100" in at.subheader[0].value
    at.switch_page("views/data.py").run()      # the Data page's download covers the same rows
    assert not at.exception and any(b.label.startswith("Download") for b in at.get("download_button"))


def test_frontier_page_draws_a_sample_of_a_big_cloud_until_asked_for_all(app, tmp_path):
    import json

    at = app(samples=False, run=False)
    rows = ["hardware,gpus,tput_per_gpu,tok_s_user,model,isl,osl"]
    rows += [f"H100,8,{900 - i * 0.1:.1f},{10 + i * 0.01:.2f},M,1000,100" for i in range(6_000)]
    _ingest_before_opening(tmp_path, "\n".join(rows) + "\n", "framework=vllm")
    at.query_params["r"] = "H100:2"
    at.run()
    at.switch_page("views/frontier.py").run()

    def measured() -> int:
        spec = json.loads(at.get("plotly_chart")[0].proto.spec)
        return sum(_count(t["x"]) for t in spec["data"] if t.get("meta", {}).get("kind") == "points")

    assert measured() == 3_000           # every 2nd of the 6,000 (the step is ceil(6000 / 5000) = 2)
    at.toggle(key="all").set_value(True).run()
    assert measured() == 6_000 and at.query_params["all"] == "1"


def _count(values) -> int:
    """Length of a plotly array, plain or typed (base64 ``bdata``)."""
    if isinstance(values, dict):
        import base64

        import numpy as np
        return len(np.frombuffer(base64.b64decode(values["bdata"]), dtype=np.dtype(values["dtype"])))
    return len(values)


@pytest.mark.parametrize("count, fits", [(16, True), (64, False)])
def test_the_share_box_says_when_a_view_does_not_fit_in_a_link(app, count, fits):
    """64 cost profiles (2,038 characters packed) do not fit the 2,000-character link value: the Share box says
    so and offers the report or the team's profiles; the link it shows opens without them, with no notice."""
    from urllib.parse import parse_qs

    from model.core.cost_profiles import profiles_to_text
    from model.core.view import MAX_VALUE_LENGTH, View
    from tests.test_viewstate import _profiles

    profiles = _profiles(count)
    at = app(run=False)
    at.session_state["_view"] = View(profiles=profiles_to_text(profiles), priced_by=(profiles[0].name,),
                                          targets=(40.0,))
    at.run()
    assert not at.exception, at.exception
    link = at.sidebar.code[0].value
    told = [w.value for w in at.sidebar.warning if "do not fit in a link" in w.value]
    if fits:
        assert told == [] and "prof=" in link and "use=" in link
    else:
        assert len(told) == 1 and "cost profiles" in told[0] and f"{MAX_VALUE_LENGTH:,} characters" in told[0]
        assert "report" in told[0] and "Team profiles" in told[0]
        assert "prof=" not in link and "use=" not in link and "at=40" in link
    query = parse_qs(link.split("?", 1)[1], keep_blank_values=True)
    assert all(len(value) <= MAX_VALUE_LENGTH for values in query.values() for value in values)
    assert View.from_query(query)[1] == []   # the link opens with nothing dropped


def test_a_link_of_1000_unknown_keys_gives_one_notice(app):
    at = app(query={**{f"junk{i}": "1" for i in range(999)}, "at": "40"})
    assert not at.exception, at.exception
    unknown = [w.replace("\\", "") for w in at.link_warnings if "unknown link parameter" in w]
    assert len(unknown) == 1 and unknown[0].startswith("Ignored 999 unknown link parameters: 'junk0'"), unknown


# ------------------------------------------------------------------ many series (issue 19)
# Past DRAW_LIMIT series the cost charts draw what a person can read: the baseline, every series on the lower
# envelope and the cheapest at the targets; one switch draws all; the tables keep every series.

MANY_SERIES = 60


def _many_series_csv() -> str:
    rows = ["hardware,gpus,tput_per_gpu,tok_s_user,model,isl,osl,framework"]
    for i in range(MANY_SERIES):
        peak, speed = 1000 + 300 * math.sin(i * 1.7), 60 + 25 * math.cos(i * 0.9)
        for x in (0.2, 0.4, 0.6, 0.8):    # each its own curve, so they cross
            rows.append(f"H100,8,{peak * (1 - x):.2f},{speed * x:.3f},M,1000,100,f{i:02d}")
    return "\n".join(rows) + "\n"


def _curve_series(at) -> list[str]:
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    return [t["meta"]["series"] for t in spec["data"] if t.get("meta", {}).get("kind") == "curve"]


def test_crossovers_draw_the_envelope_and_the_baseline_until_asked_for_all(app, tmp_path, capsys):
    at = app(samples=False, run=False)
    _ingest_before_opening(tmp_path, _many_series_csv())
    at.query_params["r"] = "H100:2"
    at.query_params["base"] = "H100 · f59"
    at.run()
    at.switch_page("views/crossovers.py").run()
    assert not at.exception
    drawn = _curve_series(at)
    envelope = cli_json(os.environ["COSTFRONTIER_DB"], "crossover", "--rate", "H100=2", "--baseline", "H100 · f59")
    owners = {s["series"] for s in envelope["envelope"]["segments"]} if "envelope" in envelope else set()
    assert 2 <= len(owners) < len(drawn) == DRAW_LIMIT < MANY_SERIES
    assert owners <= set(drawn) and "H100 · f59" in drawn
    assert any(c.value.startswith(f"Drawing {DRAW_LIMIT} of {MANY_SERIES} series") for c in at.caption)
    at.toggle(key="allc").set_value(True).run()
    assert len(_curve_series(at)) == MANY_SERIES and at.query_params["allc"] == "1"


def test_matched_interactivity_draws_the_cheapest_at_every_target(app, tmp_path, capsys):
    at = app(samples=False, run=False)
    _ingest_before_opening(tmp_path, _many_series_csv())
    at.query_params["r"] = "H100:2"
    at.query_params["at"] = "15,30,45"
    at.run()
    at.switch_page("views/matched_interactivity.py").run()
    assert not at.exception
    drawn = set(_curve_series(at))
    iso = cli_json(os.environ["COSTFRONTIER_DB"], "iso", "--rate", "H100=2", "--at", "15,30,45")["rows"]
    cheapest = {}
    for row in iso:
        if row["usd_per_mtok"] is not None and row["usd_per_mtok"] < cheapest.get(row["interactivity"], ("", 1e9))[1]:
            cheapest[row["interactivity"]] = (row["series"], row["usd_per_mtok"])
    assert len(cheapest) == 3 and {s for s, _ in cheapest.values()} <= drawn and len(drawn) == DRAW_LIMIT
    assert len(at.table[0].value) == MANY_SERIES          # the table keeps every series
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)   # 40 curves: no ± bands, and the page says where the ± is
    assert not [t for t in spec["data"] if t.get("meta", {}).get("kind") == "band"]
    assert any("± bands are drawn for up to 8 series" in c.value for c in at.caption)
