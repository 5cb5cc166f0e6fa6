"""Plan against actual (issue 42): actuals from OpenCost and from a bill, and a pinned plan held against them.

The OpenCost fixtures are in the shape its ``docs/inference-cost-tracking.md`` documents (the ``code``/``data``
envelope of ``core/pkg/protocol``, the fields of ``pkg/inferencecost/apitypes.go``): a ``/inferenceCost/total``
response on the allocation basis (split by compute time, two namespaces, ``modelVersion`` and ``pod`` set), the
same window on the usage basis saved without the envelope (newer release: ``cacheSavingsFraction``), and a
``/inferenceCost/timeseries`` of two days split by OpenCost's fallback multiplier (2.5x) with an empty third day.
``bill_q1.csv`` is a finance export: January to March 2026 of GLM-5.2, half the plan's volume.
"""

from __future__ import annotations

import csv
import json
import math
from datetime import datetime
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from model.core.actual_rows import ALLOCATION_METHODS, aliases_of, model_key
from model.core.actuals import lmdi
from model.data.actuals import actuals_frame
from model.data.importers.base import IngestError
from model.data.ingest import ingest_actuals_file
from model.data.store import connect
from tests.checksums import table_checksums
from tests.kit import cli, cli_json

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "actuals"
#: the plan: GLM-5.2 20k/1k on MI355X at 36.5 B output tokens a month, pinned to the samples' data version 8
PLAN = "http://localhost:8501/Buy_rent_or_API?wl=GLM-5.2|20000|1000&hw=MI355X&tpm=3.65e10&v=8"


def _stored(con, file_name: str) -> list[dict]:
    frame = actuals_frame(con)
    return frame[frame["file_name"] == file_name].sort_values("source_line").to_dict("records")


def _when(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).replace(tzinfo=None)


def _entries(document: dict) -> list[dict]:
    body = document.get("data", document)
    sets = body.get("inferenceCostSets", [body])
    return [e for one in sets for e in (one.get("inferenceCosts") or {}).values()]


def _check_opencost_rows(stored: list[dict], entries: list[dict]) -> None:
    """Every stored value is the file's own (nothing derived from an OpenCost response)."""
    assert len(stored) == len(entries)
    for row, entry in zip(stored, entries):
        props = entry["properties"]
        assert row["model"] == props["modelName"] and row["namespace"] == props["namespace"]
        assert row["model_version"] == props.get("modelVersion")
        assert row["period_start"] == _when(entry["window"]["start"])
        assert row["period_end"] == _when(entry["window"]["end"])
        assert row["cost_basis"] == entry["costBasis"]
        for column, key in (("usd", "totalCost"), ("input_tokens", "promptTokens"),
                            ("output_tokens", "generationTokens"), ("total_tokens", "totalTokens"),
                            ("usd_per_mtok", "costPerMillionTokens"), ("input_usd", "inputCost"),
                            ("output_usd", "outputCost"), ("usd_per_m_input", "inputCostPerMillionTokens"),
                            ("usd_per_m_output", "outputCostPerMillionTokens")):
            assert row[column] == entry[key], column
        assert row["allocation_method"] == entry.get("allocationMethod")
        fraction = entry.get("cacheSavingsFraction")
        assert (row["cache_savings_fraction"] == fraction) if fraction is not None \
            else math.isnan(row["cache_savings_fraction"])
        assert math.isnan(row["gpu_hours"])                        # OpenCost does not state it: left empty
        # cached prompt tokens: stated by no release; derived only where the input $/M left some out (the earlier
        # releases' denominator, promptTokens − cached), and said in the row's notes
        divided_by = entry["inputCost"] / entry["inputCostPerMillionTokens"] * 1e6
        if divided_by < entry["promptTokens"] * 0.999:
            assert row["cached_input_tokens"] == round(entry["promptTokens"] - divided_by)
            assert "cached_input_tokens derived" in row["notes"] and "needed compute" in row["notes"]
        else:
            assert math.isnan(row["cached_input_tokens"])
            assert "every delivered prompt token" in row["notes"]


def test_opencost_responses_are_stored_as_the_files_state_them(con):
    results = {name: ingest_actuals_file(con, FIXTURES / name) for name in (
        "opencost_total_allocation.json", "opencost_total_usage.json", "opencost_timeseries_multiplier.json")}
    assert [r.format for r in results.values()] == ["opencost-total", "opencost-total", "opencost-timeseries"]
    assert [r.rows_added for r in results.values()] == [2, 1, 2]     # the empty third day adds nothing
    for name in results:
        _check_opencost_rows(_stored(con, name), _entries(json.loads((FIXTURES / name).read_text())))

    allocation = _stored(con, "opencost_total_allocation.json")
    assert json.loads(allocation[0]["extra"]) == {"properties.pod": "glm-decode-0"}   # a variant's field, kept
    assert allocation[0]["source_line"] == 5 and allocation[1]["source_line"] == 28   # each entry's line
    assert _stored(con, "opencost_total_usage.json")[0]["cost_basis"] == "usage"

    # the fallback split is said, in each row and in the source's notes
    daily = _stored(con, "opencost_timeseries_multiplier.json")
    assert all(r["allocation_method"] == "multiplier" and "fixed multiplier" in r["notes"] for r in daily)
    notes = con.execute("SELECT notes FROM sources WHERE file_name = 'opencost_timeseries_multiplier.json'"
                        ).fetchone()[0]
    assert "allocation method multiplier" in notes and ALLOCATION_METHODS["multiplier"] in notes
    # the multiplier split, checked against the file: output $/M = 2.5 x input $/M
    assert daily[0]["usd_per_m_output"] == pytest.approx(2.5 * daily[0]["usd_per_m_input"])
    compute = con.execute("SELECT notes FROM sources WHERE file_name = 'opencost_total_allocation.json'").fetchone()[0]
    assert "allocation method compute_time" in compute and "multiplier" not in compute


def test_a_bill_is_stored_with_its_derived_values_computed_and_said(con):
    result = ingest_actuals_file(con, FIXTURES / "bill_q1.csv")
    assert (result.format, result.kind, result.rows_added) == ("bill-csv", "actuals", 3)
    assert result.warnings == ["columns kept in extra: invoice"]
    with open(FIXTURES / "bill_q1.csv", newline="") as handle:
        lines = list(csv.DictReader(handle))
    stored = _stored(con, "bill_q1.csv")
    months = [(datetime(2026, 1, 1), datetime(2026, 2, 1)), (datetime(2026, 2, 1), datetime(2026, 3, 1)),
              (datetime(2026, 3, 1), datetime(2026, 4, 1))]
    for row, line, (start, end) in zip(stored, lines, months):
        assert (row["period_start"], row["period_end"]) == (start, end)
        assert row["model"] == line["model"] and row["cost_basis"] == "bill" and row["hardware"] == "MI355X"
        for column in ("input_tokens", "cached_input_tokens", "output_tokens", "gpu_hours"):
            assert row[column] == float(line[column]), column
        # "$52,853.76" as a finance export writes it is 52853.76
        assert row["usd"] == float(line["usd"].replace("$", "").replace(",", ""))
        # derived by the rules the importer names, and said in the row's notes
        assert row["total_tokens"] == float(line["input_tokens"]) + float(line["output_tokens"])
        assert row["usd_per_mtok"] == row["usd"] / row["total_tokens"] * 1e6
        assert row["notes"] == ("total_tokens derived: input_tokens + output_tokens; usd_per_mtok derived: usd ÷ "
                                "total_tokens × 1e6")
        assert json.loads(row["extra"]) == {"invoice": line["invoice"]}
        assert math.isnan(row["usd_per_m_input"]) and row["allocation_method"] is None
    assert stored[0]["usd"] == 52853.76 and stored[1]["usd"] == 47738.88


def test_actuals_are_versioned_removable_and_purgeable(db_path):
    db = str(db_path)
    assert cli(db, "actual", FIXTURES / "bill_q1.csv").code == 0
    assert cli(db, "ingest", FIXTURES / "opencost_total_allocation.json").code == 0   # ingest knows it
    with connect(db_path) as con:
        log = con.execute("SELECT version, action, what FROM store_versions ORDER BY version").fetchall()
        assert [(v, a) for v, a, _ in log] == [(1, "ingest"), (2, "ingest")]
        assert log[0][2] == "bill_q1.csv"
        ids = dict(con.execute("SELECT file_name, source_id FROM sources").fetchall())
        assert con.execute("SELECT kind FROM sources").fetchall() == [("actuals",), ("actuals",)]
    assert cli(db, "remove", ids["bill_q1.csv"]).code == 0
    with connect(db_path) as con:
        assert set(actuals_frame(con)["file_name"]) == {"opencost_total_allocation.json"}
        assert len(actuals_frame(con, version=2)) == 5           # the version before the remove still holds it
    assert cli(db, "purge").code == 0
    with connect(db_path) as con:
        assert con.execute("SELECT count(*) FROM actuals WHERE source_id = ?", [ids["bill_q1.csv"]]).fetchone() == (0,)
        assert len(actuals_frame(con)) == 2
    # removed, its content may come back as a new source
    again = cli(db, "actual", FIXTURES / "bill_q1.csv")
    assert again.code == 0
    assert "3 rows added as actuals" in again.out


@pytest.mark.parametrize("name, line, field, words", [
    ("bad_negative_tokens.json", 40, "generationTokens", "cannot be negative (got -60000000)"),
    ("bad_overlap.csv", 3, "period", "overlaps line 2's 2026-01-01 00:00–2026-02-01 00:00"),
    ("bad_malformed.json", 21, None, "invalid JSON"),
])
def test_bad_actuals_are_refused_naming_what_is_wrong(sample_con, name, line, field, words):
    before = table_checksums(sample_con)
    with pytest.raises(IngestError) as refused:
        ingest_actuals_file(sample_con, FIXTURES / name)
    assert (refused.value.file, refused.value.line, refused.value.field) == (name, line, field)
    assert words in refused.value.message
    assert table_checksums(sample_con) == before


def test_a_period_already_stored_and_a_model_the_plan_does_not_hold_are_refused(sample_db, tmp_path):
    db = str(sample_db)
    assert cli(db, "actual", FIXTURES / "bill_q1.csv", "--plan", PLAN).code == 0
    with connect(sample_db) as con:
        before = table_checksums(con)
    again = tmp_path / "february_again.csv"
    again.write_text("date,model,input_tokens,cached_input_tokens,output_tokens,usd\n"
                     "2026-02-10,glm-5.2,1000,0,10,1.5\n")
    code, _, err = cli(db, "actual", again)
    assert code == 1
    assert "february_again.csv, line 2, field 'period': the period 2026-02-10 00:00–2026-02-11 00:00 of glm-5.2 " \
           "(bill) overlaps one already stored: source #9 bill_q1.csv, 2026-02-01 00:00–2026-03-01 00:00" in err
    code, _, err = cli(db, "actual", FIXTURES / "bad_foreign_model.csv", "--plan", PLAN)
    assert code == 1
    assert "bad_foreign_model.csv, line 3, field 'model': model 'DeepSeek-R1' is not one the plan holds (its rows " \
           "are of GLM-5.2); nothing was stored" in err
    with connect(sample_db) as con:
        assert table_checksums(con) == before


def test_more_bad_values_name_their_line_and_field(con, tmp_path):
    cases = {
        "negative usd": ("period,model,input_tokens,output_tokens,usd\n2026-01,m,10,1,-4\n", 2, "usd", "negative"),
        "cached over input": ("period,model,input_tokens,cached_input_tokens,output_tokens,usd\n"
                              "2026-01,m,10,11,1,4\n", 2, "cached_input_tokens", "exceeds input"),
        "ambiguous comma": ("period,model,input_tokens,output_tokens,usd\n2026-01,m,10,1,\"1,480\"\n", 2, "usd",
                            "is ambiguous"),
        "no such month": ("period,model,input_tokens,output_tokens,usd\n2026-13,m,10,1,4\n", 2, "period",
                          "no month 13"),
        "fractional tokens": ("period,model,input_tokens,output_tokens,usd\n2026-01,m,10.5,1,4\n", 2,
                              "input_tokens", "whole number"),
    }
    before = table_checksums(con)
    for label, (text, line, field, words) in cases.items():
        path = tmp_path / f"{label.replace(' ', '_')}.csv"
        path.write_text(text)
        with pytest.raises(IngestError) as refused:
            ingest_actuals_file(con, path)
        assert (refused.value.line, refused.value.field) == (line, field), label
        assert words in refused.value.message, (label, refused.value.message)
    total = json.loads((FIXTURES / "opencost_total_allocation.json").read_text())
    entry = total["data"]["inferenceCosts"]["zai-org/GLM-5.2:llm-d-prod"]
    for change, field, words in (({"costPerMillionTokens": 9.9}, "costPerMillionTokens", "is not totalCost"),
                                 ({"totalTokens": 1}, "totalTokens", "is not promptTokens + generationTokens"),
                                 ({"costBasis": "amortized"}, "costBasis", "must be allocation or usage"),
                                 ({"totalCost": "40000"}, "totalCost", "must be a JSON number"),
                                 ({"window": {"start": "2026-04-01T00:00:00Z", "end": "null"}}, "window.end",
                                  "no end")):
        broken = json.loads(json.dumps(total))
        broken["data"]["inferenceCosts"]["zai-org/GLM-5.2:llm-d-prod"] = {**entry, **change}
        path = tmp_path / "broken.json"
        path.write_text(json.dumps(broken, indent=2))
        with pytest.raises(IngestError) as refused:
            ingest_actuals_file(con, path)
        assert refused.value.field == field and words in refused.value.message, refused.value
    error = tmp_path / "error.json"
    error.write_text(json.dumps({"code": 400, "message": "window is required"}))
    with pytest.raises(IngestError, match="an OpenCost error response \\(code 400\\): window is required"):
        ingest_actuals_file(con, error)
    assert table_checksums(con) == before


def test_model_names_match_whole_or_by_an_alias_never_by_a_part():
    assert model_key("GLM-5.2") == model_key("glm-5.2 ") == "glm-5.2"
    assert model_key("zai-org/GLM-5.2") == "glm-5.2"                 # the alias table (MODEL_ALIASES)
    for name in ("org-x/GLM-5.2", "=cmd|' /C calc'!A0/GLM-5.2", "GLM-5"):
        assert model_key(name) != model_key("GLM-5.2"), name
    assert model_key("org-x/GLM-5.2", aliases_of(["org-x/GLM-5.2=GLM-5.2"])) == "glm-5.2"


def test_a_bill_row_of_another_org_counts_against_the_plan_only_when_mapped(sample_db, tmp_path):
    """The plan is for GLM-5.2; a bill whose rows name ``org-x/GLM-5.2`` (or a formula ending in ``/GLM-5.2``) is
    another model: no comparison, until the user maps the name with ``--alias``; then the total is the bill's."""
    bill = tmp_path / "other_org.csv"
    bill.write_text("period,model,input_tokens,cached_input_tokens,output_tokens,usd\n"
                    "2026-01,org-x/GLM-5.2,372000000000,223200000000,18600000000,52853.76\n"
                    "2026-02,\"=cmd|' /C calc'!A0/GLM-5.2\",336000000000,201600000000,16800000000,47738.88\n")
    assert cli(sample_db, "actual", bill).code == 0
    code, _, err = cli(sample_db, "plan-vs-actual", "--plan", PLAN)
    assert code == 2
    assert "no actuals for the plan's model (GLM-5.2)" in err and "--alias NAME=MODEL" in err
    out = _pva(sample_db, "--alias", "org-x/GLM-5.2=GLM-5.2")
    assert out["total"]["usd"] == pytest.approx(52_853.76)          # January only: the formula row is not mapped
    assert "actuals of org-x/GLM-5.2 are counted as GLM-5.2 (an alias)" in out["notes"]
    code, _, err = cli(sample_db, "plan-vs-actual", "--plan", PLAN, "--alias", "GLM-5.2")
    assert code == 2
    assert "an alias is NAME=MODEL" in err


@given(st.floats(0.1, 1e4), st.lists(st.floats(0.05, 20), min_size=1, max_size=4))
def test_the_shares_of_a_variance_add_up_to_it(planned, factors):
    """LMDI-I is exact: the shares of the factors of realised ÷ planned add up to realised − planned."""
    realised = planned * math.prod(factors)
    shares = lmdi(planned, realised, {str(i): f for i, f in enumerate(factors)})
    assert sum(shares.values()) == pytest.approx(realised - planned, rel=1e-9, abs=1e-9 * planned)


# ------------------------------------------------------------------------------------------ plan against actual


def _pva(db, *argv) -> dict:
    return cli_json(db, "plan-vs-actual", "--plan", PLAN, *argv)


def test_plan_against_three_months_at_half_its_volume(sample_db):
    """The plan, by hand, from the bundled samples at data version 8:

    - the view: GLM-5.2, ISL 20,000 / OSL 1,000 on MI355X, 36.5 B output tokens a month (730 h); one MI355X node
      (8 GPUs) carries 2,626 output tok/s (wafer_glm52_mxfp4_ramp.csv line 7, the ramp's knee), so the volume,
      5e7 tokens an hour = 13,888.9 tok/s, needs ceil(13,888.9 / 2,626) = 6 nodes = 48 GPUs;
    - at the 2025-08 owning_hyperscaler preset, $1.48/GPU-hour: 48 × 1.48 × 730 = $51,859.20 a month, so
      51,859.20 ÷ 36,500 M = $1.4208/M output tokens;
    - the API it compared with: GLM-5.2 at $1.40 input, $0.26 cached, $4.40 output per M, 60 % cache hits:
      (20,000 × (0.4 × 1.40 + 0.6 × 0.26) + 1,000 × 4.40) ÷ 1,000 = $18.72/M output tokens.

    The actuals (bill_q1.csv): January (744 h), February (672 h), March (744 h) 2026, 2,160 h in all, each month
    2.5e7 output tokens an hour (half the plan's 5e7) and the fleet's cost at the plan's rate:
    54.0 B output tokens and 48 × 1.48 × 2,160 = $153,446.40.
    """
    assert cli(sample_db, "actual", FIXTURES / "bill_q1.csv").code == 0
    out = _pva(sample_db)
    plan, total = out["plan"], out["total"]
    assert (plan["pinned"], plan["data_version"], plan["models"]) == (True, 8, ["GLM-5.2"])
    assert (plan["nodes"], plan["gpus"], plan["basis"]) == (6, 48, "output")
    assert plan["usd_per_month"] == pytest.approx(48 * 1.48 * 730)
    assert plan["usd_per_mtok"] == pytest.approx(48 * 1.48 * 730 / 36_500)                     # $1.4208/M
    assert (plan["error"], plan["error_from"]) == (0.0, "measured")       # capacity read at a measured point
    assert out["cost_basis"] == "bill"

    hours = 744 + 672 + 744
    assert total["hours"] == hours and total["tokens_on_basis"] == 54e9
    assert total["planned_tokens_on_basis"] == pytest.approx(36.5e9 * hours / 730)             # 108 B
    assert total["volume_ratio"] == pytest.approx(0.5)
    # realised $/M: the bill ÷ the tokens served = 153,446.40 ÷ 54,000 M = $2.8416/M, twice the plan's
    mtok = total["usd_per_mtok"]["output"]
    assert total["usd"] == pytest.approx(153_446.40)
    assert mtok["realised"] == pytest.approx(153_446.40 / 54_000) == pytest.approx(2.8416)
    assert mtok["planned"] == pytest.approx(1.4208) and mtok["variance"] == pytest.approx(1.4208)
    assert mtok["explained_by"] == "volume" and mtok["shares"]["volume"] == pytest.approx(1.4208)
    assert mtok["factors"] == {"volume": pytest.approx(2.0), "utilisation": pytest.approx(1.0),
                               "rate": pytest.approx(1.0)}
    # input $/M, like with like: the whole bill over input tokens, 153,446.40 ÷ 1,080,000 M
    assert total["usd_per_mtok"]["input"]["realised"] == pytest.approx(153_446.40 / 1_080_000)
    assert total["usd_per_mtok"]["input"]["planned"] == pytest.approx(1.4208 / 20)
    # implied utilisation: 54 B ÷ (6 nodes × 2,626 tok/s × 3,600 s × 2,160 h) = 0.44075, half the plan's 0.88150
    assert total["implied_utilization"] == pytest.approx(54e9 / (6 * 2626 * 3600 * hours))
    assert round(total["implied_utilization"], 5) == 0.44075
    assert plan["utilization"] == pytest.approx(36.5e9 / (6 * 2626 * 3600 * 730))
    assert total["gpu_hours"] == 48 * hours and total["gpu_hours_from"] == "stated"
    assert total["cost"]["variance"] == pytest.approx(0, abs=1e-6) and total["cost"]["explained_by"] is None

    # at the realised volume, 54 B ÷ 2,160 h × 730 = 18.25 B output tokens a month:
    realised = out["at_realised_volume"]
    assert realised["tokens_per_month"] == pytest.approx(18.25e9)
    assert realised["cache_hit"] == pytest.approx(0.6)        # 669.6 B cached of 1,080 B input tokens
    options = {o["kind"]: o for o in realised["options"]}
    # the API: 18,250 M × $18.72 = $341,640 a month, × 2,160 / 730 months = $1,010,880 over the quarter
    assert options["api"]["usd_per_month"] == pytest.approx(18_250 * 18.72)
    assert options["api"]["usd_over_period"] == pytest.approx(341_640 * hours / 730) == pytest.approx(1_010_880)
    # ... and at the realised token mix: (1,080 B − 648 B) × 1.40 + 648 B × 0.26 + 54 B × 4.40, per M
    api = realised["api_at_realised_tokens"]
    assert api["usd"] == pytest.approx((432_000 * 1.40 + 648_000 * 0.26 + 54_000 * 4.40)) == pytest.approx(1_010_880)
    # owning at the realised volume: 18.25 B ÷ 2,628,000 s = 6,944 tok/s → 3 nodes, 24 × 1.48 × 730 a month
    assert options["owned"]["nodes"] == 3
    assert options["owned"]["usd_per_month"] == pytest.approx(24 * 1.48 * 730)
    assert options["owned"]["usd_over_period"] == pytest.approx(24 * 1.48 * hours)
    # month by month the same story
    assert [p["period_start"][:7] for p in out["periods"]] == ["2026-01", "2026-02", "2026-03"]
    for period in out["periods"]:
        assert period["volume_ratio"] == pytest.approx(0.5)
        assert period["usd_per_mtok"]["output"]["realised"] == pytest.approx(2.8416)
        assert period["implied_utilization"] == pytest.approx(0.5 * plan["utilization"])
    assert out["sentences"][0] == ("Realised $2.84/M output tokens against the plan's $1.42/M (+$1.42/M); volume "
                                   "explains most of it (+$1.42/M).")

    # the page and the report call comparison_of: the same figures as the CLI's --json
    from model.cli.as_json import jsonable
    from model.present.actual_answer import comparison_on

    with connect(sample_db) as con:
        assert jsonable(comparison_on(con, PLAN).payload()) == {k: v for k, v in out.items() if k != "command"}

    done = cli(sample_db, "plan-vs-actual", "--plan", PLAN)
    assert done.code == 0
    printed = done.lines
    page = (Path(__file__).resolve().parent.parent / "docs" / "numbers" / "actuals.md").read_text(encoding="utf-8")
    block = page.split("half the volume was served and it prints:\n\n```\n", 1)[1].split("```", 1)[0]
    assert block.splitlines() and all(line in printed for line in block.splitlines())   # the manual shows these


def test_both_opencost_bases_give_the_cost_of_capacity_kept_warm(sample_db):
    """OpenCost's allocation and usage costs of the same window (llm-d-prod, April 2026): allocation 40,000 − usage
    31,000 = $9,000 of capacity kept warm. llm-d-eval has no usage row, so it is not in the gap."""
    assert cli(sample_db, "actual", FIXTURES / "opencost_total_allocation.json",
               FIXTURES / "opencost_total_usage.json", FIXTURES / "opencost_timeseries_multiplier.json",
               "--plan", PLAN).code == 0
    out = _pva(sample_db)
    assert out["cost_basis"] == "allocation"
    april = out["periods"][0]
    assert april["allocation_minus_usage_usd"] == pytest.approx(40_000 - 31_000)
    assert april["usd"] == pytest.approx(40_000 + 1_200.5) and april["namespaces"] == ["llm-d-eval", "llm-d-prod"]
    assert april["gpu_hours_from"] == "the planned fleet (assumed)"
    # no GPU-hours stated: the planned fleet is assumed paid for; the $/GPU-hour difference is the rate factor
    assert april["usd_per_mtok"]["output"]["factors"]["rate"] == pytest.approx(41_200.5 / (48 * 720) / 1.48)
    split = april["opencost_split"]
    assert split["allocation_methods"] == ["compute_time"] and not split["fallback_multiplier"]
    days = out["periods"][1:]
    assert [d["opencost_split"]["fallback_multiplier"] for d in days] == [True, True]
    assert any("fallback fixed multiplier" in n for n in out["notes"])
    usage = _pva(sample_db, "--cost-basis", "usage")
    assert usage["cost_basis"] == "usage" and any("lower bound" in n for n in usage["notes"])
    assert usage["total"]["usd"] == pytest.approx(31_000)


# ------------------------------------------------------------------------------------ OpenCost's CSV pricing

#: the columns OpenCost's CSV provider decodes (the csv tags of the price struct in
#: pkg/cloud/provider/csvprovider.go; its samples configs/pricing_schema*.csv start with this header)
OPENCOST_HEADER = ["EndTimestamp", "InstanceID", "Region", "AssetClass", "InstanceIDField", "InstanceType",
                   "MarketPriceHourly", "Version"]
#: the issue-6 worked build-up (README, "On-prem TCO"): H200, $300,000 per 8-GPU node, ...
BUILD_UP = ["--hardware", "H200", "--server-usd", "300000", "--gpus-per-node", "8", "--network-pct", "15",
            "--install-usd", "0", "--years", "5", "--rate-pct", "10", "--kw-per-gpu", "1.37", "--pue", "1.3",
            "--usd-per-kwh", "0.08", "--colo-usd-per-kw-month", "184", "--maintenance-pct", "3"]


def _read_opencost_csv(path: Path) -> tuple[list[dict], list[str]]:
    """The rows OpenCost's CSV provider prices, read by its rules: a record per line of exactly the header's 8
    fields, a one-field record starting with '#' skipped; and the '#' lines."""
    rows, comments = [], []
    with open(path, newline="") as handle:
        records = list(csv.reader(handle))
    assert records[0] == OPENCOST_HEADER
    for record in records[1:]:
        if len(record) == 1 and record[0].startswith("#"):
            comments.append(record[0])
            continue
        assert len(record) == len(OPENCOST_HEADER), record
        rows.append(dict(zip(OPENCOST_HEADER, record)))
    return rows, comments


def _node_hourly(rows: list[dict], labels: dict[str, str], gpus: int) -> float:
    """A node's $/hour as the provider prices it: the node row its InstanceIDField label matches, plus the GPU
    row of its GPU-class label (matched lower-cased) times its GPU count."""
    node = next(r for r in rows if r["AssetClass"] == "node" and r["InstanceIDField"].startswith("metadata.labels.")
                and labels.get(r["InstanceIDField"].removeprefix("metadata.labels.")) == r["InstanceID"])
    gpu = next(r for r in rows if r["AssetClass"] == "gpu"
               and labels.get(r["InstanceIDField"], "").lower() == r["InstanceID"].lower())
    assert gpu["Region"] == ""              # GPU classes are looked up by the label value alone
    return float(node["MarketPriceHourly"]) + gpus * float(gpu["MarketPriceHourly"])


@pytest.mark.parametrize("utilisation", ["1", "0.7"])
def test_the_price_file_reads_back_as_opencost_pricing_at_the_tco_rate(tmp_path, utilisation):
    """The file parses as OpenCost's CSV pricing, and a node of 8 H200s costs 8 × the rate ``costfrontier tco``
    gives the same profile: its paid (full-use) $/GPU-hour, 1.9341 for the worked build-up (README), which is
    its headline rate at utilisation 1 (at 0.7 the headline is ÷ 0.7: OpenCost counts idle itself)."""
    out = tmp_path / "pricing.csv"
    tco = cli_json(None, "tco", *BUILD_UP, "--utilization", utilisation, "--purchase-date", "2026-01-15",
                   "--opencost-pricing", out)["rows"][0]
    rows, comments = _read_opencost_csv(out)
    assert [r["AssetClass"] for r in rows] == ["node", "gpu"]
    labels = {"node.kubernetes.io/instance-type": "h200", "nvidia.com/gpu_type": "H200"}
    assert _node_hourly(rows, labels, 8) == pytest.approx(8 * tco["usd_per_gpu_hour_full_use"], rel=1e-15)
    assert float(rows[1]["MarketPriceHourly"]) == tco["usd_per_gpu_hour_full_use"]
    assert round(tco["usd_per_gpu_hour_full_use"], 4) == 1.9341
    if utilisation == "1":
        assert float(rows[1]["MarketPriceHourly"]) == tco["usd_per_gpu_hour"]
    assert tco["opencost_pricing"]["purchase_date"] == "2026-01-15"
    assert all(r["EndTimestamp"] == "2031-01-15 00:00:00 UTC" for r in rows)
    assert "# purchase date 2026-01-15" in comments
    # the schedule: five years of the level annuity, 43,125 $/GPU of capital repaid to 0
    years = [c for c in comments if c.startswith("# year ")]
    assert len(years) == 5 and years[0].startswith("# year 1 2026-01-15 to 2027-01-15: capital 1.298661 $/GPU-hour")
    assert "interest 4312.50" in years[0] and years[-1].endswith("book value at the end 0.00 $/GPU")


def test_the_schedule_repays_the_capital_and_a_label_is_chosen(tmp_path):
    from datetime import date

    from model.core.opencost_pricing import schedule
    from model.core.tco import capital_recovery_factor

    straight = schedule(40_000.0, 0.0, 4, capital_recovery_factor(0, 4), date(2024, 2, 29))
    assert [y.principal for y in straight] == [10_000.0] * 4 and straight[-1].book_value_end == 0
    assert straight[0].end == date(2025, 2, 28)          # 29 February a year on is the 28th
    annuity = schedule(43_125.0, 0.10, 5, capital_recovery_factor(0.10, 5), date(2026, 1, 15))
    assert sum(y.principal for y in annuity) == pytest.approx(43_125.0)
    assert annuity[0].payment == pytest.approx(43_125.0 * 0.263797, rel=2e-6)   # CRF(10 %, 5) = 0.263797
    out = tmp_path / "p.csv"
    assert cli(None, "tco", *BUILD_UP, "--opencost-pricing", out, "--opencost-node", "pool=gpu-a",
               "--opencost-gpu", "gpu.nvidia.com/class=h200-sxm").code == 0
    rows, _ = _read_opencost_csv(out)
    assert _node_hourly(rows, {"pool": "gpu-a", "gpu.nvidia.com/class": "H200-SXM"}, 8) == pytest.approx(
        8 * 1.9341439679535837)
    code, _, err = cli(None, "tco", *BUILD_UP, "--opencost-pricing", out, "--opencost-gpu", "no-value")
    assert code == 2
    assert "--opencost-gpu expects LABEL=VALUE" in err


def test_the_decomposition_and_the_plans_error_by_hand():
    """A plan with a ± of 10 % (as an interpolated capacity would carry) against one 30-day month that paid for more
    GPU-hours than planned, at a higher $/GPU-hour, and served 80 % of the volume, by hand:

    plan: 2 nodes × 8 GPUs at $2/GPU-hour = $23,360 a month (730 h); 1e9 output tokens a month; $23.36/M ± 10 %;
    a node carries 250 tok/s, so 2 × 250 × 3,600 = 1.8e6 tokens an hour.
    actual (720 h): 20 GPUs × 720 h = 14,400 GPU-hours at $2.10 = $30,240; 1e9 × 720/730 × 0.8 tokens served.
    """
    import pandas as pd

    from model.core.actuals import Plan, plan_vs_actual

    plan = Plan(link="x", data_version=3, models=("m",), basis="output", tokens_per_month=1e9, isl=math.nan,
                osl=math.nan, series="s", option="owned s", nodes=2, gpus_per_node=8, usd_per_month=2 * 8 * 2 * 730,
                tokens_per_second_per_node=250, usd_per_mtok=23.36, error=0.10, error_from="own")
    served = 1e9 * 720 / 730 * 0.8
    actual = pd.DataFrame([{"source_id": 1, "file_name": "b.csv", "model": "M", "namespace": None,
                            "period_start": pd.Timestamp("2026-06-01"), "period_end": pd.Timestamp("2026-07-01"),
                            "cost_basis": "bill", "usd": 30_240.0, "input_tokens": math.nan,
                            "cached_input_tokens": math.nan, "output_tokens": served, "total_tokens": math.nan,
                            "gpu_hours": 14_400.0, "allocation_method": None, "input_usd": math.nan,
                            "output_usd": math.nan, "usd_per_m_input": math.nan, "usd_per_m_output": math.nan,
                            "cache_savings_fraction": math.nan}])
    comparison = plan_vs_actual(plan, actual)
    total = comparison.total
    mtok = total["usd_per_mtok"]["output"]
    planned = 2 * 8 * 2 * 720 / (1e9 * 720 / 730) * 1e6           # $23.36/M over the 720 hours too
    realised = 30_240 / served * 1e6
    assert mtok["planned"] == pytest.approx(planned) == pytest.approx(23.36)
    assert mtok["realised"] == pytest.approx(realised)
    # rate 2.10 / 2 = 1.05, utilisation 14,400 / (16 × 720) = 1.25, volume 1 / 0.8 = 1.25: product = realised/planned
    assert mtok["factors"] == {"volume": pytest.approx(1.25), "utilisation": pytest.approx(1.25),
                               "rate": pytest.approx(1.05)}
    assert realised / planned == pytest.approx(1.05 * 1.25 * 1.25)
    weight = (realised - planned) / math.log(realised / planned)
    assert mtok["shares"]["rate"] == pytest.approx(weight * math.log(1.05))
    assert mtok["shares"]["volume"] == pytest.approx(weight * math.log(1.25)) == pytest.approx(
        mtok["shares"]["utilisation"])
    assert sum(mtok["shares"].values()) == pytest.approx(realised - planned)
    assert mtok["explained_by"] == "volume"              # a tie with utilisation goes to the first named
    # the plan's ± carries to the planned $/M and the variance
    assert (mtok["planned_low"], mtok["planned_high"]) == (pytest.approx(planned * 0.9), pytest.approx(planned * 1.1))
    assert mtok["variance_error"] == pytest.approx(planned * 0.1)
    # implied utilisation: served ÷ (1.8e6 × 720), its range from the capacity's ± 10 %
    capacity = 2 * 250 * 3600 * 720
    assert total["implied_utilization"] == pytest.approx(served / capacity)
    assert total["implied_utilization_low"] == pytest.approx(served / (capacity * 1.1))
    assert total["implied_utilization_high"] == pytest.approx(served / (capacity * 0.9))
    # the cost: 30,240 against 2 × 8 × 2 × 720 = 23,040: rate and utilisation, no volume
    assert total["cost"]["variance"] == pytest.approx(30_240 - 23_040)
    assert total["cost"]["explained_by"] == "utilisation"
    assert sum(total["cost"]["shares"].values()) == pytest.approx(30_240 - 23_040)
    assert total["usd_per_mtok"]["input"]["realised"] is None    # no input tokens stated: nothing made up
    # issue 50: the chart of this one period spans the period (its axis ticked sub-milliseconds around one point)
    from model.present.actual_figures import plan_figure
    from model.present.tables import plan_frame

    axis = plan_figure(plan_frame(comparison), "output").layout.xaxis
    assert [pd.Timestamp(t) for t in axis.range] == [pd.Timestamp("2026-06-01"), pd.Timestamp("2026-07-01")]


def test_a_view_names_its_plan_and_the_report_says_why_there_is_no_comparison_yet(sample_db, tmp_path):
    """The view's ``plan`` is a share link holding a volume and no plan of its own, refused otherwise; the report
    of a view naming a plan whose model has no actuals says so in its section (no actuals stored yet), and a view
    holding a request mix without a demand says that in the mix's."""
    import re

    from model.core.view import View

    assert View(plan=f"  {PLAN} ").plan == PLAN
    for bad, words in (("GLM-5.2 plan", "the share link the proposal was made from"),
                       ("http://localhost:8501/Fleet?wl=GLM-5.2|20000|1000", "has no volume"),
                       ("http://x/?tpm=1e9&rps=abc", "the plan's link: ignored link parameter rps='abc'"),
                       (f"http://x/?tpm=1e9&plan={PLAN.replace('&', '%26')}", "names a plan of its own")):
        with pytest.raises(ValueError, match=re.escape(words)):
            View(plan=bad)
    out = tmp_path / "r.html"
    assert cli(sample_db, "report", "--where", "model=GLM-5", "--plan", PLAN, "--mix",
               "8192:1024:1", "--out", out).code == 0
    doc = out.read_text(encoding="utf-8")
    plan = re.search(r"<section id=plan-section.*?</section>", doc, flags=re.S).group(0)
    assert "No comparison: no actuals are stored: ingest an OpenCost response or a bill (costfrontier actual " \
           "FILE)." in plan
    mix = re.search(r"<section id=mix-section.*?</section>", doc, flags=re.S).group(0)
    assert "No mix: the view holds a request mix but no demand" in mix
