"""The proposal bundle and ``costfrontier verify``: a bundle made from a view with a cost profile, a demand and a
volume comparison verifies on a machine with no store; one changed number, byte or rate is named (exit 1); rows
of a series deleted is a bundle that lacks data (exit 3); a folder that is not a bundle is bad arguments (exit 2).

ORACLE: the B200 row of /work/shared/reference's InferenceX presets (``tco_presets_usd_per_gpu_hr.csv``, bundled
as data/samples/): MI355X at $1.48/GPU-hour in price set 2025-08, tier owning_hyperscaler, the rate the bundle's
presets file must carry as read.
"""

from __future__ import annotations

import hashlib
import html
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import duckdb
import pytest

from model.data.bundle import zip_bytes
from model.present.bundle import EXIT_DIFFERS, EXIT_LACKS, EXIT_OK, EXIT_USAGE, VERIFY_LINE
from tests.conftest import ROOT
from tests.kit import cli
from tests.test_report import needs_chromium

pytestmark = needs_chromium

VIEW = ["--by", "hardware", "--where", "model=GLM-5", "--where", "spec_decoding=mtp", "--interactivity", "60",
        "--tokens-per-month", "16e9", "--profile", "B200 owned"]


@pytest.fixture(scope="module")
def bundle(samples_template, tmp_path_factory) -> Path:
    """One bundle for the module: the samples with a saved on-prem build-up pricing B200, a monthly volume (a fleet
    and buy-rent-or-API), written by ``report --bundle`` and signed with a key ``keygen`` made beside it
    (``issuer``, ``issuer.pub``); the store is deleted after."""
    folder = tmp_path_factory.mktemp("made")
    db = folder / "samples.duckdb"
    shutil.copy(samples_template, db)
    assert cli(db, "tco", "--hardware", "B200", "--server-usd", "300000", "--gpus-per-node", "8",
               "--name", "B200 owned", "--save").code == 0
    assert cli(None, "keygen", folder / "issuer", "--name", "Acme Inference Sales").code == 0
    assert cli(db, "report", *VIEW, "--bundle", folder / "bundle", "--sign", folder / "issuer").code == 0
    db.unlink()
    return folder / "bundle"


def _copy(bundle: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(bundle, tmp_path / "copy"))


def _verify(path: Path) -> tuple[int, dict]:
    code, out, _ = cli(None, "verify", path, "--json")
    return code, json.loads(out)


def test_the_bundle_holds_every_file_and_figure(bundle):
    manifest = json.loads((bundle / "manifest.json").read_text())
    assert set(manifest["files"]) >= {"report.html", "report.pdf", "tables.xlsx", "inputs/store.duckdb",
                                      "inputs/presets.csv", "tables/cost_at_matched_interactivity.csv",
                                      "tables/fleet.csv", "tables/buy__rent_or_api.csv", "tables/parts__b200_owned.csv"}
    assert {p.relative_to(bundle).as_posix() for p in bundle.rglob("*") if p.is_file()} == \
        {*manifest["files"], "manifest.json", "signature.json"}
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


def test_a_number_changed_in_the_manifest_is_named(bundle, tmp_path):
    copy = _copy(bundle, tmp_path)
    manifest = json.loads((copy / "manifest.json").read_text())
    (figure,) = [f for f in manifest["figures"] if f["id"] == "page 1 | MI355X | $/M tokens"]
    was = figure["text"]
    figure["value"], figure["text"] = 0.61, "$0.61"
    (copy / "manifest.json").write_text(json.dumps(manifest))
    code, out = _verify(copy)
    assert code == EXIT_DIFFERS and out["lacks"] == []
    assert out["differs"] == [{"what": "figure page 1 | MI355X | $/M tokens", "manifest": "$0.61", "bundle": was}]


def test_a_byte_of_the_pdf_is_named(bundle, tmp_path):
    copy = _copy(bundle, tmp_path)
    pdf = bytearray((copy / "report.pdf").read_bytes())
    pdf[len(pdf) // 2] ^= 0x01
    (copy / "report.pdf").write_bytes(bytes(pdf))
    code, out = _verify(copy)
    assert code == EXIT_DIFFERS
    (only,) = out["differs"]
    assert only["what"] == "file report.pdf" and only["manifest"] != only["bundle"]


def test_a_rate_changed_in_the_bundled_inputs_is_named(bundle, tmp_path):
    copy = _copy(bundle, tmp_path)
    presets = copy / "inputs/presets.csv"
    text = presets.read_text()
    assert text.count("2025-08,owning_hyperscaler,MI355X,1.48,") == 1
    presets.write_text(text.replace("2025-08,owning_hyperscaler,MI355X,1.48,", "2025-08,owning_hyperscaler,MI355X,1.58,"))
    code, out = _verify(copy)
    assert code == EXIT_DIFFERS and out["lacks"] == []
    found = {d["what"]: (d["manifest"], d["bundle"]) for d in out["differs"]}
    assert found["file inputs/presets.csv"][0] != found["file inputs/presets.csv"][1]
    assert found["figure inputs | $/GPU-hour | MI355X"] == ("$1.48", "$1.58")
    # MI355X's $/M moves by 1.58 / 1.48 (a rate scales its cost), printed to the cent
    manifest = json.loads((copy / "manifest.json").read_text())
    (was,) = [f["value"] for f in manifest["figures"] if f["id"] == "page 1 | MI355X | $/M tokens"]
    assert found["figure page 1 | MI355X | $/M tokens"] == (f"${was:.2f}", f"${was * 1.58 / 1.48:.2f}")


def test_the_rows_of_one_series_deleted_is_a_bundle_that_lacks_data(bundle, tmp_path):
    copy = _copy(bundle, tmp_path)
    con = duckdb.connect(str(copy / "inputs/store.duckdb"))
    try:
        # the view's 8 MI355X rows and the 7 of the other spec-decoding setting its bands were calibrated on
        assert con.execute("DELETE FROM points WHERE hardware = 'MI355X'").fetchone()[0] == 15
    finally:
        con.close()
    code, out = _verify(copy)
    assert code == EXIT_LACKS
    assert [x["what"] for x in out["lacks"]] == ["series MI355X"]
    differs = {d["what"]: d for d in out["differs"]}
    assert differs["figure page 1 | MI355X | $/M tokens"]["bundle"].startswith("(none")


def test_a_zip_verifies_and_what_is_not_a_bundle_is_refused(bundle, tmp_path):
    files = {p.relative_to(bundle).as_posix(): p.read_bytes() for p in bundle.rglob("*") if p.is_file()}
    archive = tmp_path / "proposal.zip"
    archive.write_bytes(zip_bytes(files, "proposal"))
    assert _verify(archive)[0] == EXIT_OK
    (tmp_path / "empty").mkdir()
    code, _, err = cli(None, "verify", tmp_path / "empty")
    assert code == EXIT_USAGE
    assert "no manifest.json, so it is not a proposal bundle" in err
    assert cli(None, "verify", tmp_path / "nothing-here").code == EXIT_USAGE


# ------------------------------------------------------------- a bundle that reads only itself (issues 53 and 50)

def _rehash(copy: Path, *names: str) -> dict:
    """The manifest with the SHA-256 of ``names`` set to their bytes now (as a forger would), written back."""
    manifest = json.loads((copy / "manifest.json").read_text())
    for name in names:
        manifest["files"][name] = hashlib.sha256((copy / name).read_bytes()).hexdigest()
    (copy / "manifest.json").write_text(json.dumps(manifest))
    return manifest


def test_a_symlink_to_a_file_or_a_folder_outside_is_refused_not_read(bundle, tmp_path):
    """``report.html`` replaced by a link to a file elsewhere (its hash in the manifest), or ``inputs/`` by a link to
    an identical folder elsewhere: named and refused, exit 1; the answer is not rebuilt from outside files."""
    copy = _copy(bundle, tmp_path)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "report.html").write_text("<p>a report from elsewhere</p>")
    (copy / "report.html").unlink()
    (copy / "report.html").symlink_to(outside / "report.html")
    manifest = _rehash(copy, "report.html")
    code, out = _verify(copy)
    assert code == EXIT_DIFFERS and out["figures"] == 0
    assert out["differs"] == [{"what": "file report.html", "manifest": "a regular file inside the bundle",
                               "bundle": "a symbolic link: refused, not read"}]
    copy = Path(shutil.copytree(bundle, tmp_path / "second"))
    shutil.move(copy / "inputs", outside / "inputs")
    (copy / "inputs").symlink_to(outside / "inputs", target_is_directory=True)
    code, out = _verify(copy)
    assert code == EXIT_DIFFERS and out["figures"] == 0 and out["lacks"] == []
    assert out["differs"] == [{"what": "file inputs", "manifest": "a regular file inside the bundle",
                               "bundle": "a symbolic link: refused, not read"}]
    assert manifest["files"]["report.html"] != json.loads((bundle / "manifest.json").read_text())["files"]["report.html"]


@pytest.mark.parametrize("text, words", [
    ("[" * 100_000 + "]" * 100_000, "manifest.json: nested more than 16 deep, so not a manifest"),
    (None, "manifest.json: figures[0] is 7, not a figure (an object with id, kind, value, text and status)"),
    (None, "manifest.json: files['report.html'] is 7, not a SHA-256 (64 hex digits)"),
    ('{"format": NaN}', "manifest.json: not JSON (NaN is not a JSON number)"),
])
def test_a_hostile_manifest_is_one_line_and_exit_2(bundle, tmp_path, text, words):
    """A manifest nested 100,000 deep gave a RecursionError traceback (exit 1), ``7`` as a figure an AttributeError:
    each is not a bundle's manifest, said in one line, exit 2."""
    copy = _copy(bundle, tmp_path)
    if text is None:
        manifest = json.loads((copy / "manifest.json").read_text())
        if "figures[0]" in words:
            manifest["figures"][0] = 7
        else:
            manifest["files"]["report.html"] = 7
        text = json.dumps(manifest)
    (copy / "manifest.json").write_text(text)
    code, out, err = cli(None, "verify", str(copy))
    assert code == EXIT_USAGE and out == "" and "Traceback" not in err
    assert err.splitlines() == [f"error: {words}"], err


def test_an_edited_headline_in_the_report_fails_naming_the_figure(bundle, tmp_path):
    """MI355X's $/M edited in report.html's first page (its new SHA-256 in the manifest): the figure is named with
    what the rebuilt answer prints and what the report prints; an edited table cell in the HTML is named too."""
    copy = _copy(bundle, tmp_path)
    manifest = json.loads((copy / "manifest.json").read_text())
    (was,) = [f["text"] for f in manifest["figures"] if f["id"] == "page 1 | MI355X | $/M tokens"]
    page = (copy / "report.html").read_text(encoding="utf-8")
    said = f"MI355X {was}/M"                    # the series sentence of page 1: "... MI355X $0.49/M ± 6 % ..."
    line = next(m for m in re.findall(r"<p class=lead data-line=\d+>[^<]*", page) if said in m)
    page = page.replace(line, line.replace(said, "MI355X $0.14/M", 1), 1)
    cell = 'data-figure="Cost at matched interactivity | 60.0 | B200 | $/M tokens">'
    (b200,) = [f["text"] for f in manifest["figures"] if f["id"] == "Cost at matched interactivity | 60.0 | B200 | $/M tokens"]
    assert page.count(cell + b200 + "<") == 1
    page = page.replace(cell + b200 + "<", cell + "$0.01<")
    (copy / "report.html").write_text(page, encoding="utf-8")
    _rehash(copy, "report.html")
    code, out = _verify(copy)
    assert code == EXIT_DIFFERS
    assert out["differs"] == [
        {"what": "figure Cost at matched interactivity | 60.0 | B200 | $/M tokens as report.html prints it",
         "manifest": b200, "bundle": "$0.01"},
        {"what": "figure page 1 | MI355X | $/M tokens as report.html prints it", "manifest": was, "bundle": "$0.14"}]


@pytest.mark.slow      # the module's bundle, and a PDF printed again
@needs_chromium
def test_an_edited_headline_in_the_pdf_fails_naming_the_figure(bundle, tmp_path):
    """Issue 53: the PDF's text is read back too. MI355X's $/M edited in the page the PDF is printed from, printed
    again by Chromium and rehashed into the manifest: verify names the figure with what the rebuilt answer prints and
    what the PDF's text holds there; the untouched bundle's PDF holds every figure report.html marks."""
    from model.present.report_output import html_to_pdf

    copy = _copy(bundle, tmp_path)
    manifest = json.loads((copy / "manifest.json").read_text())
    (was,) = [f["text"] for f in manifest["figures"] if f["id"] == "page 1 | MI355X | $/M tokens"]
    page = (copy / "report.html").read_text(encoding="utf-8")
    said = f"MI355X {was}/M"
    line = next(m for m in re.findall(r"<p class=lead data-line=\d+>[^<]*", page) if said in m)
    html_to_pdf(page.replace(line, line.replace(said, "MI355X $0.14/M", 1), 1), copy / "report.pdf")
    _rehash(copy, "report.pdf")
    code, out = _verify(copy)
    assert code == EXIT_DIFFERS
    assert out["differs"] == [{"what": "figure page 1 | MI355X | $/M tokens as report.pdf prints it",
                               "manifest": was, "bundle": "$0.14"}], out["differs"]


@pytest.mark.slow      # the module's bundle
def test_a_pdf_that_is_not_one_is_named_not_read_as_text(bundle, tmp_path):
    """A report.pdf replaced by bytes that are no PDF (its hash put in the manifest): named unreadable, exit 1, no
    traceback."""
    copy = _copy(bundle, tmp_path)
    (copy / "report.pdf").write_bytes(b"%PDF-1.7\n" + os.urandom(2048))
    _rehash(copy, "report.pdf")
    code, out = _verify(copy)
    assert code == EXIT_DIFFERS
    assert out["differs"] == [{"what": "file report.pdf", "manifest": "the report's PDF", "bundle": "unreadable"}]


def test_a_file_added_removed_or_edited_and_a_stated_input_are_named(bundle, tmp_path):
    """Issue 50: ``NOTES.txt`` and ``tables/extra.csv`` added, ``tables/crossovers.csv`` removed, a cell of the fleet
    table edited (its hash updated), MI355X's rate in the manifest's inputs changed from 1.48 to 1.58 (the figures
    still computed at 1.48): each is named, the table cell by row, column and both values."""
    copy = _copy(bundle, tmp_path)
    (copy / "NOTES.txt").write_text("call me")
    (copy / "tables/extra.csv").write_text("a,b\n1,2\n")
    (copy / "tables/crossovers.csv").unlink()
    fleet = (copy / "tables/fleet.csv").read_text()
    row = next(line for line in fleet.splitlines() if line.startswith("MI355X,"))
    nodes = row.split(",")[1]
    (copy / "tables/fleet.csv").write_text(fleet.replace(row, row.replace(f"MI355X,{nodes},", "MI355X,99,", 1)))
    manifest = _rehash(copy, "tables/fleet.csv")
    for rate in manifest["inputs"]["rates"]:
        if rate["hardware"] == "MI355X":
            rate["usd_per_gpu_hour"] = 1.58
    (copy / "manifest.json").write_text(json.dumps(manifest))
    code, out = _verify(copy)
    assert code == EXIT_DIFFERS and out["lacks"] == []
    found = {d["what"]: (d["manifest"], d["bundle"]) for d in out["differs"]}
    assert found == {
        "file tables/crossovers.csv": (f"sha256 {manifest['files']['tables/crossovers.csv']}", "missing"),
        "file NOTES.txt": ("(not listed)", "in the bundle: a file the manifest does not list"),
        "file tables/extra.csv": ("(not listed)", "in the bundle: a file the manifest does not list"),
        "input inputs.rates[MI355X].usd_per_gpu_hour": ("1.58", "1.48"),
        "table Fleet, row MI355X, column Nodes": (nodes, "99")}


def test_a_file_added_inside_the_zip_is_named(bundle, tmp_path):
    files = {p.relative_to(bundle).as_posix(): p.read_bytes() for p in bundle.rglob("*") if p.is_file()}
    files["tables/fleet_FINAL.csv"] = b"Series,Nodes\nMI355X,1\n"
    archive = tmp_path / "proposal.zip"
    archive.write_bytes(zip_bytes(files, "proposal"))
    code, out = _verify(archive)
    assert code == EXIT_DIFFERS
    assert out["differs"] == [{"what": "file tables/fleet_FINAL.csv", "manifest": "(not listed)",
                               "bundle": "in the bundle: a file the manifest does not list"}]
    files.pop("tables/fleet_FINAL.csv")
    with zipfile.ZipFile(archive, "w") as zipped:
        for name, data in files.items():
            zipped.writestr(f"proposal/{name}", data)
        zipped.writestr("report_v2.pdf", b"%PDF-1.4 forged")
    code, out, err = cli(None, "verify", str(archive))
    assert code == EXIT_USAGE and err.splitlines() == [
        "error: proposal.zip: report_v2.pdf lies outside the bundle's folder (proposal), so it is not one bundle"]


def test_a_signed_bundle_verifies_with_its_key_and_fails_with_another(bundle, tmp_path):
    """Signed with the issuer's key (``report --bundle --sign``): verify ``--key issuer.pub`` names the issuer and
    says nothing changed, in the folder and in the zip; with another key, unsigned, or a manifest figure edited
    after signing (hashes and all), it fails, exit 1."""
    issuer = bundle.parent / "issuer.pub"
    assert (bundle / "signature.json").is_file() and (bundle.parent / "issuer").stat().st_mode & 0o077 == 0
    files = {p.relative_to(bundle).as_posix(): p.read_bytes() for p in bundle.rglob("*") if p.is_file()}
    archive = tmp_path / "proposal.zip"
    archive.write_bytes(zip_bytes(files, "proposal"))
    for where in (bundle, archive):
        code, out, err = cli(None, "verify", str(where), "--key", str(issuer))
        assert code == EXIT_OK, out + err
        assert out.splitlines()[-2].startswith("signed: by Acme Inference Sales (SHA256:")
        assert out.splitlines()[-2].endswith("; nothing changed since")
    assert cli(None, "keygen", str(tmp_path / "other"), "--name", "Mallory").code == 0
    code, out, _ = cli(None, "verify", archive, "--key", tmp_path / "other.pub", "--json")
    assert code == EXIT_DIFFERS
    found = json.loads(out)
    assert found["signed"]["ok"] is False and found["signed"]["issuer"] == "Mallory"
    assert found["signed"]["why"].startswith("not signed with this key (signed with SHA256:")
    copy = _copy(bundle, tmp_path)
    (copy / "signature.json").unlink()
    code, out, err = cli(None, "verify", str(copy), "--key", str(issuer))
    assert code == EXIT_DIFFERS and "differs: signature: manifest signed by Acme Inference Sales" in out
    assert "bundle the bundle is unsigned: anyone could have made it" in out
    assert cli(None, "verify", str(copy)).err.splitlines()[-1] == (
        "note: the bundle is unsigned: the hashes show its files match each other, not who issued it")
    copy = Path(shutil.copytree(bundle, tmp_path / "forged"))
    manifest = json.loads((copy / "manifest.json").read_text())
    (figure,) = [f for f in manifest["figures"] if f["id"] == "inputs | $/GPU-hour | MI355X"]
    figure["text"] = "$1.48"                        # the same text, rewritten: the manifest's bytes change
    (copy / "manifest.json").write_text(json.dumps(manifest))
    code, out, err = cli(None, "verify", str(copy), "--key", str(issuer))
    assert code == EXIT_DIFFERS and "bundle the manifest changed since it was signed" in out


#: the issue-50 view: 10 req/s of GLM-5 as a request mix of which only 8000/1000 (30 %) is measured (at 8192/1024)
MIX_LINK = ("http://localhost:8501/GPU_mix?wl=GLM-5|8192|1024&x=50&rps=10"
            "&rmix=1000:200:0.6,8000:1000:0.3,2000:2000:0.1")


def test_the_first_page_of_a_mix_view_is_the_mix_sections_fleet_and_verifies(sample_db, tmp_path):
    """Issue 50: the report of a view with a request mix sized "13 nodes, $112,362 a month" on page 1, every request
    taken as 8192/1024, while its GPU mix section said "No mix beats MI355X alone: 4 MI355X nodes, $34,573 a month
    for the 30.0 % of requests measured". Page 1's fleet is now the mix's (``mix --json``'s), naming the 70 % no
    priced type measured, and the bundle, which carries the mix's rows too, verifies."""
    mix = json.loads(cli(sample_db, "mix", "--link", MIX_LINK, "--json").out)
    assert [(r["type"], r["nodes"], round(r["usd_per_month"])) for r in mix["fleet"]] == [("MI355X", 4, 34573)]
    done = cli(sample_db, "report", "--link", MIX_LINK, "--out", str(tmp_path / "r.html"), "--bundle",
               str(tmp_path / "bundle"))
    assert done.code == 0, done.err
    assert done.out.splitlines()[2].startswith("At 10 req/s at peak with its request mix (1000/200 60%, "
                                               "2000/2000 10%, 8000/1000 30%): no mix beats MI355X alone")
    doc = (tmp_path / "r.html").read_text(encoding="utf-8")
    first = [html.unescape(line) for line in re.findall(r"<p class=lead data-line=\d+>([^<]*)", doc)]
    fleet = "MI355X alone: 4 MI355X nodes, $34,573 a month for the 30.0% of requests measured"
    assert fleet in first[0] and f"No mix beats {fleet}" in html.unescape(doc.split("id=mix-section", 1)[1])
    assert first[1].startswith("70.0% of the requests (1000/200 (60.0%), 2000/2000 (10.0%)) were measured on no "
                               "priced type")
    assert not [line for line in first if "$112,362" in line or "13 nodes" in line]
    assert "Every request is sized here as ISL 8192 / OSL 1024" in doc.split("id=fleet-section", 1)[1]
    code, out = _verify(tmp_path / "bundle")
    assert code == EXIT_OK, out
