"""The proposal bundle and ``costfrontier verify``: a bundle made from a view with a cost profile, a demand and a
volume comparison verifies on a machine with no store; one changed number, byte or rate is named (exit 1); rows
of a series deleted is a bundle that lacks data (exit 3); a folder that is not a bundle is bad arguments (exit 2).

ORACLE: the B200 row of /work/shared/reference's InferenceX presets (``tco_presets_usd_per_gpu_hr.csv``, bundled
as data/samples/): MI355X at $1.48/GPU-hour in price set 2025-08, tier owning_hyperscaler, the rate the bundle's
presets file must carry as read.
"""

from __future__ import annotations

import html
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from model.cli import main
from model.data.bundle import zip_bytes
from model.present.bundle import EXIT_DIFFERS, EXIT_LACKS, EXIT_OK, EXIT_USAGE, VERIFY_LINE
from tests.conftest import ROOT
from tests.test_report import needs_chromium

pytestmark = needs_chromium

VIEW = ["--by", "hardware", "--where", "model=GLM-5", "--where", "spec_decoding=mtp", "--interactivity", "60",
        "--tokens-per-month", "16e9", "--profile", "B200 owned"]


@pytest.fixture(scope="module")
def bundle(samples_template, tmp_path_factory) -> Path:
    """One bundle for the module: the samples with a saved on-prem build-up pricing B200, a monthly volume (a fleet
    and buy-rent-or-API), written by ``report --bundle``; the store is deleted after."""
    folder = tmp_path_factory.mktemp("made")
    db = folder / "samples.duckdb"
    shutil.copy(samples_template, db)
    assert main(["--db", str(db), "tco", "--hardware", "B200", "--server-usd", "300000", "--gpus-per-node", "8",
                 "--name", "B200 owned", "--save"]) == 0
    assert main(["--db", str(db), "report", *VIEW, "--bundle", str(folder / "bundle")]) == 0
    db.unlink()
    return folder / "bundle"


def _copy(bundle: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(bundle, tmp_path / "copy"))


def _verify(capsys, path: Path) -> tuple[int, dict]:
    capsys.readouterr()
    code = main(["verify", str(path), "--json"])
    return code, json.loads(capsys.readouterr().out)


def test_the_bundle_holds_every_file_and_figure(bundle):
    manifest = json.loads((bundle / "manifest.json").read_text())
    assert set(manifest["files"]) >= {"report.html", "report.pdf", "tables.xlsx", "inputs/store.duckdb",
                                      "inputs/presets.csv", "tables/cost_at_matched_interactivity.csv",
                                      "tables/fleet.csv", "tables/buy__rent_or_api.csv", "tables/parts__b200_owned.csv"}
    assert {p.relative_to(bundle).as_posix() for p in bundle.rglob("*") if p.is_file()} == \
        {*manifest["files"], "manifest.json"}
    assert manifest["data_version"] >= 1 and f"v={manifest['data_version']}&vd=" in manifest["link"]
    assert [p["name"] for p in manifest["inputs"]["profiles"]] == ["B200 owned"]
    assert manifest["inputs"]["demand"]["tokens_per_month"] == 16e9
    rates = {r["hardware"]: r for r in manifest["inputs"]["rates"]}
    assert rates["MI355X"]["usd_per_gpu_hour"] == 1.48 and rates["MI355X"]["read_on"] == "2025-08-01"
    assert rates["B200"]["profile"] == "B200 owned"
    figures = {f["id"]: f for f in manifest["figures"]}
    assert figures["page 1 | MI355X | $/M tokens"]["status"] == "interpolated"
    assert figures["Cost at matched interactivity | 60.0 | B200 | $/M tokens"]["status"] == "interpolated"
    assert any(f["where"] == "Fleet" and f["status"] == "measured" for f in manifest["figures"])
    assert any(f["where"] == "Buy, rent or API" for f in manifest["figures"])
    assert html.escape(VERIFY_LINE) in (bundle / "report.html").read_text(encoding="utf-8")
    assert manifest["series"] == [{"series": "B200", "status": "interpolated"},
                                  {"series": "MI355X", "status": "interpolated"}]
    # the presets file carries the published rate as read (oracle: the InferenceX presets, 2025-08)
    assert "2025-08,owning_hyperscaler,MI355X,1.48,2.65," in (bundle / "inputs/presets.csv").read_text()


def test_verify_on_a_fresh_machine_with_no_store(bundle, tmp_path):
    home = tmp_path / "machine"
    home.mkdir()
    copy = Path(shutil.copytree(bundle, home / "proposal"))
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "COSTFRONTIER_DB": str(home / "no-store.duckdb"),
           "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "model.cli", "verify", "proposal"], cwd=home, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == EXIT_OK, done.stdout + done.stderr
    assert done.stdout.strip().splitlines()[-1] == "verified: every figure and file holds (exit 0)"
    assert sorted(p.name for p in home.iterdir()) == ["proposal"]          # no store was created or read
    assert not any(p.name.endswith((".wal", ".tmp")) for p in copy.rglob("*"))


def test_a_number_changed_in_the_manifest_is_named(bundle, tmp_path, capsys):
    copy = _copy(bundle, tmp_path)
    manifest = json.loads((copy / "manifest.json").read_text())
    (figure,) = [f for f in manifest["figures"] if f["id"] == "page 1 | MI355X | $/M tokens"]
    was = figure["text"]
    figure["value"], figure["text"] = 0.61, "$0.61"
    (copy / "manifest.json").write_text(json.dumps(manifest))
    code, out = _verify(capsys, copy)
    assert code == EXIT_DIFFERS and out["lacks"] == []
    assert out["differs"] == [{"what": "figure page 1 | MI355X | $/M tokens", "manifest": "$0.61", "bundle": was}]


def test_a_byte_of_the_pdf_is_named(bundle, tmp_path, capsys):
    copy = _copy(bundle, tmp_path)
    pdf = bytearray((copy / "report.pdf").read_bytes())
    pdf[len(pdf) // 2] ^= 0x01
    (copy / "report.pdf").write_bytes(bytes(pdf))
    code, out = _verify(capsys, copy)
    assert code == EXIT_DIFFERS
    (only,) = out["differs"]
    assert only["what"] == "file report.pdf" and only["manifest"] != only["bundle"]


def test_a_rate_changed_in_the_bundled_inputs_is_named(bundle, tmp_path, capsys):
    copy = _copy(bundle, tmp_path)
    presets = copy / "inputs/presets.csv"
    text = presets.read_text()
    assert text.count("2025-08,owning_hyperscaler,MI355X,1.48,") == 1
    presets.write_text(text.replace("2025-08,owning_hyperscaler,MI355X,1.48,", "2025-08,owning_hyperscaler,MI355X,1.58,"))
    code, out = _verify(capsys, copy)
    assert code == EXIT_DIFFERS and out["lacks"] == []
    found = {d["what"]: (d["manifest"], d["bundle"]) for d in out["differs"]}
    assert found["file inputs/presets.csv"][0] != found["file inputs/presets.csv"][1]
    assert found["figure inputs | $/GPU-hour | MI355X"] == ("$1.48", "$1.58")
    # MI355X's $/M moves by 1.58 / 1.48 (a rate scales its cost), printed to the cent
    manifest = json.loads((copy / "manifest.json").read_text())
    (was,) = [f["value"] for f in manifest["figures"] if f["id"] == "page 1 | MI355X | $/M tokens"]
    assert found["figure page 1 | MI355X | $/M tokens"] == (f"${was:.2f}", f"${was * 1.58 / 1.48:.2f}")


def test_the_rows_of_one_series_deleted_is_a_bundle_that_lacks_data(bundle, tmp_path, capsys):
    copy = _copy(bundle, tmp_path)
    con = duckdb.connect(str(copy / "inputs/store.duckdb"))
    try:
        # the view's 8 MI355X rows and the 7 of the other spec-decoding setting its bands were calibrated on
        assert con.execute("DELETE FROM points WHERE hardware = 'MI355X'").fetchone()[0] == 15
    finally:
        con.close()
    code, out = _verify(capsys, copy)
    assert code == EXIT_LACKS
    assert [x["what"] for x in out["lacks"]] == ["series MI355X"]
    differs = {d["what"]: d for d in out["differs"]}
    assert differs["figure page 1 | MI355X | $/M tokens"]["bundle"].startswith("(none")


def test_a_zip_verifies_and_what_is_not_a_bundle_is_refused(bundle, tmp_path, capsys):
    files = {p.relative_to(bundle).as_posix(): p.read_bytes() for p in bundle.rglob("*") if p.is_file()}
    archive = tmp_path / "proposal.zip"
    archive.write_bytes(zip_bytes(files, "proposal"))
    assert _verify(capsys, archive)[0] == EXIT_OK
    (tmp_path / "empty").mkdir()
    assert main(["verify", str(tmp_path / "empty")]) == EXIT_USAGE
    assert "no manifest.json, so it is not a proposal bundle" in capsys.readouterr().err
    assert main(["verify", str(tmp_path / "nothing-here")]) == EXIT_USAGE
