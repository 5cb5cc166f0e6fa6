"""``size`` and ``volume`` with one demand and its shape (issue 31), on the bundled samples.

Oracle: the Wafer MI355X ramp's knee under TTFT p95 <= 5 s is 2.4 req/s a node (docs/numbers/fleet.md, "From demand to fleet"); at
$1.48/GPU-hour an 8-GPU node costs 8 × 1.48 × 730 = $8,643.20 a month. Business hours weigh 4 from 09:00 to
18:00 and 1 otherwise, so 6 req/s at peak is 1.5 req/s at night: 3 nodes by day, 1 by night.
"""

from __future__ import annotations

import pytest

from tests.kit import cli, cli_json

RAMP = ["--sla", "ttft_p95=5", "--rate", "MI355X=1.48", "--where", "hardware=MI355X", "--where", "precision=mxfp4",
        "--where", "model=GLM-5.2", "--where", "isl=20000", "--where", "osl=1000", "--by", "hardware"]
NODE_MONTH = 8 * 1.48 * 730


def test_size_follows_a_business_hours_day(sample_db):
    # rented on demand at $2.10 (issue 41: only billing that can follow the load has a following-the-load cost)
    out = cli_json(sample_db, "size", "--peak-rps", "6", "--shape", "business-hours", "--rent", "MI355X=2.1",
                "--on-demand", *RAMP)
    (row,) = [r for r in out["rows"] if r["method"] == "ramp knee"]
    assert row["nodes"] == 3 and row["usd_per_month"] == pytest.approx(3 * NODE_MONTH)
    assert row["mean_nodes"] == pytest.approx((9 * 3 + 15 * 1) / 24)
    assert row["node_hours"] == pytest.approx((9 * 3 + 15 * 1) / 24 * 730)
    assert row["usd_per_gpu_hour_autoscaled"] == 2.1
    assert row["usd_per_month_autoscaled"] == pytest.approx((9 * 3 + 15 * 1) / 24 * 8 * 2.1 * 730)
    # the same fleet on demand as Buy, rent or API prices it
    volume = cli_json(sample_db, "volume", "--peak-rps", "6", "--shape", "business-hours", "--rent",
                   "MI355X=2.1", "--on-demand", *RAMP)
    (od,) = [o for o in volume["options"] if o["option"].startswith("rented MI355X, on demand")]
    assert od["usd_per_month"] == pytest.approx(row["usd_per_month_autoscaled"])
    # owned (or priced by a profile), the fleet pays the peak: no hourly-following cost, not even a mean node count
    owned = cli_json(sample_db, "size", "--peak-rps", "6", "--shape", "business-hours", *RAMP)
    (plain,) = [r for r in owned["rows"] if r["method"] == "ramp knee"]
    assert plain["usd_per_month"] == row["usd_per_month"]
    assert plain["usd_per_month_autoscaled"] is None and plain["mean_nodes"] is None
    mean = 6 / (4 / (51 / 24))
    assert row["mean_rps"] == pytest.approx(mean) and row["utilization"] == pytest.approx(mean / (3 * 2.4))
    # the volume counts on the capacity's basis: the ramp states output tokens (1,000 a request)
    assert row["tokens_per_month"] == pytest.approx(mean * 1_000 * 730 * 3600)
    assert row["effective_usd_per_mtok"] == pytest.approx(3 * NODE_MONTH / (row["tokens_per_month"] / 1e6))
    assert "6 req/s (typed)" in out["demand_said"] and "(derived)" in out["demand_said"]


def test_a_peak_and_a_volume_together_and_each_option_at_its_own_billing(sample_db):
    out = cli_json(sample_db, "volume", "--peak-rps", "6", "--volume", "3e9", "--shape", "business-hours",
                "--rent", "MI355X=2.1", "--on-demand", "--min-nodes", "0", *RAMP)
    options = {o["option"]: o for o in out["options"]}
    owned = options["owned MI355X"]
    assert owned["nodes"] == 3 and owned["usd_per_month"] == pytest.approx(3 * NODE_MONTH)   # the typed peak
    assert owned["mean_nodes"] == 3 and owned["node_hours"] == 3 * 730
    od = next(o for k, o in options.items() if k.startswith("rented MI355X, on demand"))
    # 3e9 output tokens a month of 1,000 a request: 1.14 req/s on average, 2.15 req/s by day: 1 node all day
    assert od["nodes"] == 1 and od["mean_nodes"] == 1 and od["usd_per_month"] == pytest.approx(8 * 2.1 * 730)
    assert out["tokens_per_month"] == 3e9 and "Peak 6 req/s (typed)" in out["demand"]


def test_a_trace_file_sizes_the_fleet_and_a_bad_one_names_its_row(sample_db, tmp_path):
    good = tmp_path / "azure.csv"
    rows = ["TIMESTAMP,ContextTokens,GeneratedTokens"]
    # 600 requests in the first 5 minutes (2 req/s), 60 in each of the next 11 (0.2 req/s)
    rows += [f"2023-11-16 00:0{i // 120}:{i % 120 // 2:02d}.0000000,20000,1000" for i in range(600)]
    rows += [f"2023-11-16 {(5 + w * 5) // 60:02d}:{(5 + w * 5) % 60:02d}:{j:02d}.0000000,20000,1000" for w in range(11)
             for j in range(60)]
    good.write_text("\n".join(rows) + "\n")
    out = cli_json(sample_db, "size", "--trace", str(good), "--min-nodes", "0", *RAMP)
    (row,) = [r for r in out["rows"] if r["method"] == "ramp knee"]
    assert row["demand_rps"] == pytest.approx(2.0) and row["nodes"] == 1
    assert row["mean_rps"] == pytest.approx(1260 / 3600)
    bad = tmp_path / "bad.csv"
    bad.write_text("timestamp,input_tokens,output_tokens\n0,10,5\n1,ten,5\n")
    code, _, err = cli(sample_db, "size", "--trace", bad, *RAMP)
    assert code == 2
    assert "--trace: bad.csv, row 3, field input_tokens" in err and "Traceback" not in err


def test_on_demand_follows_a_business_hours_day_at_its_own_billing(sample_db):
    # 30 B output tokens a month of 1,000 a request: 11.4 req/s on average; by day × 4 / (51/24) = 21.5 req/s,
    # 9 nodes; by night × 1 / (51/24) = 5.37 req/s, 3 nodes: (9 × 9 + 15 × 3) / 24 = 5.25 nodes on average
    out = cli_json(sample_db, "volume", "--volume", "30e9", "--shape", "business-hours", "--rent", "MI355X=2.1",
                "--on-demand", "--min-nodes", "1", *RAMP)
    options = {o["option"]: o for o in out["options"]}
    od = options["rented MI355X, on demand (at least 1 node kept up)"]
    assert od["nodes"] == 9 and od["mean_nodes"] == pytest.approx(5.25)
    assert od["node_hours"] == pytest.approx(5.25 * 730) and od["usd_per_month"] == pytest.approx(5.25 * 8 * 2.1 * 730)
    owned = options["owned MI355X"]
    assert owned["nodes"] == 9 and owned["usd_per_month"] == pytest.approx(9 * NODE_MONTH)
    assert od["utilization"] == pytest.approx(owned["utilization"] * 9 / 5.25)
    assert out["cheapest"] == od["option"] and "peak 21.5 req/s (derived)" in out["demand"]


def test_a_traces_volume_is_stated_from_its_own_requests(sample_db, tmp_path):
    """Issue 41: a trace of 600 requests of 18,000 + 900 tokens over an hour (0.1667 req/s on average) states its own
    volume on the view's basis (output tokens, as the ramp states them): 0.1667 × 900 × 730 × 3,600 = 394 M output
    tokens a month, not the 438 M its requests would be at the view's 1,000 output tokens; the fleet is sized (and
    priced) at the view's workload, and the sentence says so."""
    trace = tmp_path / "t.csv"
    trace.write_text("timestamp,input_tokens,output_tokens\n"
                     + "".join(f"{i * 6},18000,900\n" for i in range(600)))
    out = cli_json(sample_db, "size", "--trace", str(trace), *RAMP)
    mean = 600 / 3600
    said = out["demand_said"]
    assert f"{mean * 900 * 730 * 3600 / 1e6:.0f} M output tokens a month of the trace's own requests" in said, said
    assert f"({mean * 1000 * 730 * 3600 / 1e6:.0f} M at the view's workload" in said, said
