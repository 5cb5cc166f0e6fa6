"""Dated assumptions (issue 30): every default carries the date it was read and its source, and one read more
than ``price_stale_days`` (default 365) before today is flagged as old in the CLI's ``note:`` lines, the report's
assumptions table and the TCO pages. The 2026-09 price set is shipped with its exact published numbers.

Oracles: the rates and dates of ``../shared/reference/tco_presets_2026-09.csv`` (published by the InferenceX-app
GPU registry and pull requests, read 2026-11) and the price-set months of ``tco_presets_usd_per_gpu_hr.csv``
(SemiAnalysis AI Cloud TCO Model), transcribed below. Ages are counted to a ``today`` the test gives, except
where a page or the CLI reads the clock: there the file's date is written relative to the same clock.
"""

from __future__ import annotations

import re
from datetime import date, timedelta

import duckdb
import pytest

from model.core.dated import is_old, old_words, read_on_of
from model.core.hardware import canonical_hardware
from model.core.view import View
from model.data.importers.base import IngestError
from model.data.ingest import ingest_file
from model.data.presets import onprem_default_dates, reference_values
from model.data.store import connect, stored_rates
from model.present.assumptions import assumptions_of
from model.present.report_sections import report_parts
from model.present.view_answer import answer_of_view
from tests.kit import cli, open_page

#: tco_presets_2026-09.csv of the reference set: (gpu, tier) -> ($/GPU-hour, all-in kW or None)
SEPT_2026 = {
    ("VR200", "owning_hyperscaler"): (3.61, 3.30), ("VR200", "rental_3yr"): (8.50, 3.30),
    ("TPU7x", "owning_hyperscaler"): (1.21, None), ("TPU7x", "rental_3yr"): (2.00, None),
    ("RTX PRO 6000", "owning_hyperscaler"): (0.677, None), ("RTX PRO 6000", "owning_neocloud"): (0.746, None),
    ("RTX PRO 6000", "rental_3yr"): (0.52, None),
}


def test_the_2026_09_set_loads_with_its_exact_numbers_dates_and_sources(sample_con):
    rates = stored_rates(sample_con)
    sept = rates[rates["price_set"] == "2026-09"]
    got = {(r.hardware, r.tier): (r.usd_per_gpu_hour, None if r.all_in_kw_per_gpu != r.all_in_kw_per_gpu
                                  else r.all_in_kw_per_gpu) for r in sept.itertuples()}
    assert got == SEPT_2026
    assert {d.date() for d in sept["read_on"]} == {date(2026, 11, 1)}      # "read 2026-11": the month's first day
    assert sept["source"].str.contains("InferenceX-app").all()
    older = rates[rates["price_set"] != "2026-09"]
    assert len(older) == 45 and {d.date() for d in older["read_on"]} == {date(2025, 8, 1), date(2026, 7, 1)}
    # the new set is ingested last: every older sample keeps its source id
    ids = dict(sample_con.execute("SELECT file_name, source_id FROM sources").fetchall())
    assert ids["tco_presets_2026-09.csv"] == max(ids.values()) and ids["api_prices_usd_per_mtok.csv"] == 7


def test_the_named_hardware_is_canonical_under_its_other_names():
    assert {canonical_hardware(n) for n in ("VR200", "vr200 nvl144", "NVIDIA Vera Rubin")} == {"VR200"}
    assert {canonical_hardware(n) for n in ("RTX PRO 6000", "rtx pro 6000 blackwell", "RTX-PRO-6000")} == \
        {"RTX PRO 6000"}
    assert {canonical_hardware(n) for n in ("TPU7x", "tpuv7", "TPU v7", "Google TPU7x")} == {"TPU7x"}
    assert canonical_hardware("gb200 nvl72") == "GB200" and canonical_hardware("ArcProB60") == "ArcProB60"


def test_the_dating_rule_and_the_limit():
    assert read_on_of("", "2025-08") == date(2025, 8, 1) and read_on_of("2026-11-23") == date(2026, 11, 23)
    assert read_on_of(None, "custom") is None and read_on_of("2026-11") == date(2026, 11, 1)
    with pytest.raises(ValueError, match="not a date"):
        read_on_of("last spring")
    read = date(2025, 8, 1)
    assert is_old(read, read + timedelta(days=400), 365) and not is_old(read, read + timedelta(days=364), 365)
    assert not is_old(read, read + timedelta(days=365), 365) and not is_old(None, date(2100, 1, 1), 365)
    assert old_words("x", read, read + timedelta(days=400), 365) == \
        "x was read on 2025-08-01, 400 days ago (more than 365): it may be old"


def test_reference_values_carry_their_dates():
    ref = reference_values().set_index("key")
    assert ref.loc["colo_usd_per_kw_month", "read_on"] == date(2025, 2, 26)      # the CBRE report's date
    assert ref.loc["usd_per_kwh", "read_on"] == date(2024, 1, 1) and ref.loc["pue", "read_on"] == date(2024, 1, 1)
    dates = onprem_default_dates("B200")
    assert dates["years"] is None and dates["server_usd"] is None     # an assumption, and no value: not dated


def test_the_report_flags_a_preset_read_400_days_before_today_not_364(sample_con):
    answer = answer_of_view(sample_con, View(), report_parts(View()))            # B200 and MI355X at the 2025-08 preset (read 2025-08-01)
    read = date(2025, 8, 1)
    old = assumptions_of(answer, read + timedelta(days=400)).set_index("Item")
    assert old.loc["$/GPU-hour, B200", "Read on"] == "2025-08-01"
    assert old.loc["$/GPU-hour, B200", "Old"] == "old: 400 days (more than 365)"
    assert old.loc["Workload", "Read on"] == "" and old.loc["Workload", "Old"] == ""
    fresh = assumptions_of(answer, read + timedelta(days=364)).set_index("Item")
    assert fresh.loc["$/GPU-hour, MI355X", "Read on"] == "2025-08-01" and fresh.loc["$/GPU-hour, MI355X", "Old"] == ""
    assert answer.old_notes(read + timedelta(days=364)) == []
    assert answer.old_notes(read + timedelta(days=400)) == [
        "the ingested price set $/GPU-hour of B200, MI355X (price set 2025-08, tier owning_hyperscaler) was read on "
        "2025-08-01, 400 days ago (more than 365): it may be old"]
    longer = answer_of_view(sample_con, View(price_stale_days=500), ("rates",))
    assert longer.old_notes(read + timedelta(days=400)) == []


def _unescape(text: str) -> str:
    """Text as the reader sees it: the page escapes Markdown characters."""
    return re.sub(r"\\(.)", r"\1", text)


def _rates_file(tmp_path, days: int):
    """A price set 'q<days>' whose B200 and MI355X rates were read ``days`` before today."""
    read = (date.today() - timedelta(days=days)).isoformat()
    path = tmp_path / f"quote_{days}.csv"
    path.write_text("gpu,tier,usd_per_gpu_hr,as_of,read_on,source\n"
                    f"B200,quote,2.10,q{days},{read},a supplier quote\nMI355X,quote,1.60,q{days},{read},a supplier quote\n")
    return path


@pytest.mark.parametrize("days, flagged", [(400, True), (364, False)])
def test_cli_note_lines_flag_a_rate_read_400_days_ago_not_364(sample_db, tmp_path, days, flagged):
    assert cli(sample_db, "ingest", _rates_file(tmp_path, days)).code == 0
    code, _, err = cli(sample_db, "iso", "--price-set", f"q{days}", "--tier", "quote")
    assert code == 0
    words = f"(price set q{days}, tier quote) was read on {date.today() - timedelta(days=days)}, {days} days ago " \
            "(more than 365): it may be old"
    assert (f"note: the ingested price set $/GPU-hour of B200, MI355X {words}" in err) is flagged, err


def test_an_impossible_read_on_is_refused_with_file_row_and_field(con, tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("gpu,tier,usd_per_gpu_hr,as_of,read_on\nB200,t,2.0,2026-01,2026-01-05\nB200,u,2.0,2026-01,soon\n")
    with pytest.raises(IngestError) as refused:
        ingest_file(con, path)
    assert "bad.csv" in str(refused.value) and "line 3" in str(refused.value) and "read_on" in str(refused.value)


def test_a_schema_2_store_gains_read_on_from_its_price_sets(tmp_path):
    path = tmp_path / "old.duckdb"
    con = connect(path)
    ingest_file(con, _rates_file(tmp_path, 10))
    con.close()
    raw = duckdb.connect(str(path))          # make it the layout of schema 2: no read_on, a month-named set
    raw.execute("ALTER TABLE tco_rates DROP COLUMN read_on")
    raw.execute("UPDATE tco_rates SET price_set = '2025-08'")
    raw.execute("UPDATE costfrontier_meta SET value = '2' WHERE key = 'schema_version'")
    raw.close()
    con = connect(path)
    try:
        assert {d.date() for d in stored_rates(con)["read_on"]} == {date(2025, 8, 1)}
    finally:
        con.close()


def test_the_tco_rates_page_flags_a_rate_read_400_days_ago(sample_db, tmp_path, monkeypatch):
    assert cli(sample_db, "ingest", _rates_file(tmp_path, 400)).code == 0
    monkeypatch.setenv("COSTFRONTIER_DB", str(sample_db))
    at = open_page("views/tco_rates.py", {"spec": "mtp", "ps": "q400", "tier": "quote"})
    assert not at.exception, at.exception
    warned = [w.value for w in at.warning if "Old default" in w.value]
    assert len(warned) == 1 and "400 days ago" in warned[0] and "B200, MI355X" in warned[0]
    shown = at.dataframe[0].value                         # the rates table: each hardware's preset and its date
    assert list(shown["hardware"]) == ["B200", "MI355X"]
    assert list(shown["preset read on"]) == [(date.today() - timedelta(days=400)).isoformat()] * 2
    assert list(shown["old"]) == ["old: 400 days", "old: 400 days"]


def test_the_tco_builder_flags_the_old_reference_defaults(sample_db, monkeypatch):
    monkeypatch.setenv("COSTFRONTIER_DB", str(sample_db))
    at = open_page("views/tco_builder.py", {"spec": "mtp", "pstale": "100000"})
    assert not at.exception and not [w for w in at.warning if "Old default" in w.value]   # 100,000 days: none old
    at = open_page("views/tco_builder.py", {"spec": "mtp"})
    warned = _unescape(" ".join(w.value for w in at.warning if "Old default" in w.value))
    # read 2024-01-01 (EIA's 2023 average, Uptime 2024) and 2025-02-26 (CBRE): old on any day from 2026-02-27
    assert "the default Electricity [$/kWh] was read on 2024-01-01" in warned
    assert "the default PUE" in warned and "read on 2025-02-26" in warned
    assert any("(the preset's)" in _unescape(c.value) for c in at.main.caption)
    # issue 50: values typed over the defaults are the user's own: after "Add to this view", no word about the
    # preset's power per GPU or an old default stays beside them
    hw = at.selectbox(key="tco_hw").value
    for name, value in (("server_usd", "300000"), ("kw_per_node", "13"), ("pue", "1.3"), ("usd_per_kwh", "0.11")):
        at.text_input(key=f"tco_{name}::{hw}").input(value)
    next(b for b in at.button if b.label == "Add to this view and price with it").click().run()
    assert not at.exception and at.query_params["use"], at.query_params
    warned = _unescape(" ".join(w.value for w in at.warning if "Old default" in w.value))
    assert "PUE" not in warned and "Electricity" not in warned and "power" not in warned.lower(), warned
    assert not any("(the preset's)" in _unescape(c.value) for c in at.main.caption)
    cited = _unescape(" ".join(c.value for c in at.main.caption if "Defaults" in c.value))
    assert "PUE" not in cited and "Electricity" not in cited and "All-in power per GPU" not in cited, cited


def test_an_onprem_profiles_cited_defaults_are_dated_in_the_assumptions(sample_con):
    from model.core.cost_profiles import CostProfile, profiles_to_text
    from model.core.tco import onprem_inputs

    own = CostProfile(name="B200 own", hardware="B200", onprem=onprem_inputs(
        server_usd=400000, kw_per_gpu=1.5, usd_per_kwh=0.0806, pue=1.56, colo_usd_per_kw_month=184.06))
    view = View(profiles=profiles_to_text([own]), priced_by=("B200 own",))
    answer = answer_of_view(sample_con, view, report_parts(view))
    rows = assumptions_of(answer, date(2026, 2, 26)).set_index("Item")   # 365 days after CBRE's 2025-02-26
    assert rows.loc["Colocation [$/kW-month], cost profile 'B200 own'", ["Read on", "Old"]].tolist() == \
        ["2025-02-26", ""]
    assert rows.loc["Electricity [$/kWh], cost profile 'B200 own'", ["Read on", "Old"]].tolist() == \
        ["2024-01-01", "old: 787 days (more than 365)"]
    assert rows.loc["$/GPU-hour, B200", "Read on"] == ""                 # the profile's own rate: not a default


def test_a_future_read_on_is_refused_but_a_price_set_named_for_next_year_is_undated(con, tmp_path):
    later = tmp_path / "later.csv"
    later.write_text(f"gpu,tier,usd_per_gpu_hr,as_of,read_on\nB200,t,2.0,x,{date.today() + timedelta(days=2)}\n")
    with pytest.raises(IngestError, match="is after today"):
        ingest_file(con, later)
    label = tmp_path / "label.csv"
    label.write_text(f"gpu,tier,usd_per_gpu_hr,as_of\nB200,t,2.0,{date.today().year + 1}-01\n")
    ingest_file(con, label)
    assert stored_rates(con)["read_on"].isna().all()


def test_buy_rent_or_api_notes_flag_the_owned_rate_read_400_days_before_today(sample_con):
    from model.present.volume_answer import volume_of

    answer = answer_of_view(sample_con, View(tokens_per_month=1e10, spec_decoding=("mtp",)), ("volume",))
    read, prices = date(2025, 8, 1), list(answer.inputs.api_prices)

    def volume_of_day(day):      # the volume step on another day, of this answer's parts
        return volume_of(answer.view, answer.capacity, answer.rates, answer.rows.points, answer.interactivity_needed,
                         prices, day)

    old = volume_of_day(read + timedelta(days=400)).notes
    assert any(n.startswith("the ingested price set $/GPU-hour of B200, MI355X (price set 2025-08") and
               "400 days ago (more than 365)" in n for n in old), old
    assert not any("price set 2025-08" in n for n in volume_of_day(read + timedelta(days=364)).notes)
