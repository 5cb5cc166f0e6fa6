"""The inputs of a proposal bundle, written from the store and read back without it.

``inputs/store.duckdb`` is a small store (:data:`model.data.database.DDLS`, the same tables) holding only what one
view's answer read: the rows its filters selected in its data version (every column, from :func:`store_bytes`),
their per-request data, every source visible in that version (their records, so the version's digest
:func:`model.data.versions.version_digest` is the store's own and the pinned link opens), the data versions, the
saved cost profiles' history, and the TCO rates, API prices and evaluations of those sources. Any ``costfrontier``
command opens it (``--db``). ``inputs/presets.csv`` holds every $/GPU-hour preset the answer read (built in and
ingested, :func:`model.data.presets.load_presets`), with its source and the date it was read, so a rate is never taken
from the verifying machine's own presets.

:func:`bundle_store` opens these two files on a private copy (the bundle's files are never opened for writing), for
:func:`model.present.bundle_verify.answer_of_bundle` to rebuild the answer from them alone.
"""

from __future__ import annotations

import io
import os
import shutil
import stat
import tempfile
import zipfile
from contextlib import contextmanager
from pathlib import Path, PurePosixPath
from typing import Iterable, Iterator

import duckdb
import pandas as pd

from model.core.schema import SCHEMA_VERSION
from model.data.database import DDLS, DUCKDB_CONFIG, StoreError, registered
from model.data.readers import open_snapshot

__all__ = ["MANIFEST", "STORE", "PRESETS", "SIGNATURE", "BundleError", "BundleLacks", "store_bytes", "presets_csv",
           "read_presets", "bundle_store", "write_folder", "zip_bytes", "opened", "BUNDLE_FILE_LIMIT", "entries",
           "read_inside", "NotRegular"]

#: the manifest's name in a bundle
MANIFEST = "manifest.json"
#: where the inputs live in a bundle
STORE = "inputs/store.duckdb"
PRESETS = "inputs/presets.csv"
#: the issuer's signature of the manifest, when the bundle is signed (:mod:`model.data.signing`)
SIGNATURE = "signature.json"
#: the presets' columns, in order (:func:`model.data.presets.load_presets`)
_PRESET_COLUMNS = ["price_set", "tier", "hardware", "usd_per_gpu_hour", "all_in_kw_per_gpu", "source", "read_on"]
#: a zip holding more than this many files, or a file unpacking to more than this many bytes, is not a bundle
BUNDLE_FILE_LIMIT = (10_000, 4 << 30)


class BundleError(ValueError):
    """Not a bundle, or one that cannot be read: ``verify`` exits 2."""


class BundleLacks(ValueError):
    """The bundle lacks data the answer needs (an input file, the data version its link names): ``verify`` exits 3."""


class NotRegular(OSError):
    """A path of a bundle that is not a regular file inside it (a symbolic link, a device, a folder): never read."""


def _kind(mode: int) -> str | None:
    """None for a regular file or a folder; else what it is, in words."""
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    return "a device, pipe or socket"


def entries(folder: Path) -> tuple[list[str], list[tuple[str, str]]]:
    """Every regular file inside ``folder`` (its path in the bundle, ``/``-separated, sorted) and every other entry
    (path, what it is: a symbolic link, to a file or a folder, or a device), walked without following a link."""
    folder = Path(folder)
    files, refused = [], []
    for root, dirs, names in os.walk(folder, followlinks=False):
        for name in sorted(dirs + names):
            path = Path(root) / name
            rel = path.relative_to(folder).as_posix()
            mode = os.lstat(path).st_mode
            what = _kind(mode)
            if what is not None:
                refused.append((rel, what))
            elif stat.S_ISREG(mode):
                files.append(rel)
        dirs[:] = [d for d in dirs if stat.S_ISDIR(os.lstat(Path(root) / d).st_mode)]
    return sorted(files), sorted(refused)


def read_inside(folder: Path, name: str) -> bytes:
    """The bytes of the regular file ``name`` inside ``folder``, opened without following a link at any part of
    its path. Raises :class:`NotRegular` for a link, a device or a path outside, FileNotFoundError when absent."""
    parts = PurePosixPath(name)
    if parts.is_absolute() or ".." in parts.parts or "\\" in name:
        raise NotRegular(f"{name}: not a path inside the bundle")
    path = Path(folder)
    for part in parts.parts[:-1]:
        path = path / part
        if _kind(os.lstat(path).st_mode) is not None or not path.is_dir():
            raise NotRegular(f"{name}: {path.name} is not a folder of the bundle")
    path = path / parts.name
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        if os.path.lexists(path) and _kind(os.lstat(path).st_mode):
            raise NotRegular(f"{name}: {_kind(os.lstat(path).st_mode)}") from None
        raise exc
    with os.fdopen(fd, "rb") as handle:
        what = _kind(os.fstat(handle.fileno()).st_mode)
        if what is not None or stat.S_ISDIR(os.fstat(handle.fileno()).st_mode):
            raise NotRegular(f"{name}: {what or 'a folder'}")
        return handle.read()


def _copy(src, dst: duckdb.DuckDBPyConnection, table: str, sql: str, params: Iterable = ()) -> int:
    """Rows of ``sql`` on the store ``src`` into ``table`` of ``dst``, by column name, through Arrow (types kept)."""
    arrow = src.sql(sql, params=list(params) or None).to_arrow_table()
    if arrow.num_rows == 0:
        return 0
    with registered(dst, "bundle_rows", arrow):
        dst.execute(f"INSERT INTO {table} BY NAME SELECT * FROM bundle_rows")   # table: ours, from the list below
    return arrow.num_rows


def _tables(con) -> set[str]:
    return {r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}


def store_bytes(con, point_ids: Iterable[int], version: int | None) -> bytes:
    """A small store holding what one answer read from ``con`` (:mod:`model.data.database`'s tables): the rows
    ``point_ids`` (every column), their per-request data and their run-to-run intervals; the sources data version
    ``version`` shows or showed before (None: every source) with the data versions and the saved profiles' history
    (the version's digest is the store's); the TCO rates, API prices and evaluations of those sources."""
    ids = pd.DataFrame({"point_id": pd.array(list(point_ids), dtype="int64")})
    with tempfile.TemporaryDirectory(prefix="costfrontier-bundle-") as tmp:
        path = Path(tmp) / "store.duckdb"
        out = duckdb.connect(str(path), config=dict(DUCKDB_CONFIG))
        try:
            for ddl in DDLS:
                out.execute(ddl)
            out.execute("INSERT OR REPLACE INTO costfrontier_meta VALUES ('schema_version', ?)", [str(SCHEMA_VERSION)])
            src = con.cursor()
            try:
                present = _tables(src)
                shown = "" if version is None else " WHERE added_in <= ?"
                params = [] if version is None else [version]
                _copy(src, out, "sources", "SELECT * FROM sources" + shown, params)
                _copy(src, out, "store_versions", "SELECT * FROM store_versions")
                if "cost_profile_versions" in present:
                    _copy(src, out, "cost_profile_versions", "SELECT * FROM cost_profile_versions")
                kept = "source_id IN (SELECT source_id FROM sources" + shown + ")"
                for table in ("tco_rates", "api_prices", "evals"):
                    if table in present:
                        _copy(src, out, table, f"SELECT * FROM {table} WHERE {kept}", params)
                with registered(src, "bundle_ids", ids):
                    _copy(src, out, "points", "SELECT * FROM points WHERE point_id IN (SELECT point_id FROM bundle_ids)")
                    for table in ("point_requests", "point_intervals"):    # optional tables keyed by point
                        if table in present:
                            _copy(src, out, table,
                                  f"SELECT * FROM {table} WHERE point_id IN (SELECT point_id FROM bundle_ids)")
            finally:
                src.close()
            out.execute("CHECKPOINT")
        finally:
            out.close()
        return path.read_bytes()


def presets_csv(presets: pd.DataFrame) -> bytes:
    """Every preset the answer read (:func:`model.data.presets.load_presets`), as CSV: floats written exactly, the
    read date as ``YYYY-MM-DD`` (empty when undated)."""
    frame = presets[_PRESET_COLUMNS].copy()
    frame["read_on"] = [v.isoformat() if hasattr(v, "isoformat") and v == v else "" for v in frame["read_on"]]
    return frame.to_csv(index=False, float_format=None, lineterminator="\n").encode("utf-8")


def read_presets(data: bytes) -> pd.DataFrame:
    """The presets of :func:`presets_csv`, as :func:`model.data.presets.load_presets` returns them. Raises
    :class:`BundleError` naming the column or row that is not a preset."""
    try:
        frame = pd.read_csv(io.BytesIO(data), dtype={"price_set": str, "tier": str, "hardware": str, "source": str,
                                                     "read_on": str}, keep_default_na=False,
                            na_values={"usd_per_gpu_hour": [""], "all_in_kw_per_gpu": [""]})
    except (ValueError, pd.errors.ParserError) as exc:
        raise BundleError(f"{PRESETS}: not a presets table ({str(exc).splitlines()[0]})") from None
    missing = [c for c in _PRESET_COLUMNS if c not in frame.columns]
    if missing:
        raise BundleError(f"{PRESETS}: no column {', '.join(missing)}")
    for column in ("usd_per_gpu_hour", "all_in_kw_per_gpu"):
        values = pd.to_numeric(frame[column], errors="coerce")
        bad = frame.index[values.isna() & (frame[column].astype(str) != "") & frame[column].notna()]
        if len(bad):
            raise BundleError(f"{PRESETS} row {bad[0] + 2}: {column} {frame.at[bad[0], column]!r} is not a number")
        frame[column] = values.astype(float)
    frame["read_on"] = pd.to_datetime(frame["read_on"].replace("", None), errors="coerce").dt.date
    return frame[_PRESET_COLUMNS].reset_index(drop=True)


@contextmanager
def bundle_store(folder: Path) -> Iterator[tuple[object, pd.DataFrame]]:
    """A read-only connection to a private copy of ``folder``'s :data:`STORE` and the presets of its
    :data:`PRESETS` (a context manager: the copy is removed after). Raises :class:`BundleLacks` when either file is
    missing or cannot be read: the answer cannot be rebuilt without it."""
    folder = Path(folder)
    data = {}
    for name in (STORE, PRESETS):
        try:
            data[name] = read_inside(folder, name)
        except NotRegular as exc:
            raise BundleLacks(f"{exc}: not read") from None
        except OSError:
            raise BundleLacks(f"{name} is missing: the answer cannot be rebuilt without it") from None
    try:
        presets = read_presets(data[PRESETS])
    except BundleError as exc:
        raise BundleLacks(str(exc)) from None
    with tempfile.TemporaryDirectory(prefix="costfrontier-verify-") as tmp:
        copy = Path(tmp) / "store.duckdb"
        copy.write_bytes(data.pop(STORE))
        try:
            con = open_snapshot(copy)
        except StoreError as exc:
            said = str(exc).split(": ", 1)[-1].replace(str(copy), STORE)    # the bundle's file, not the copy
            raise BundleLacks(f"{STORE} cannot be read: {said}") from None
        try:
            yield con, presets
        finally:
            con.close()


def write_folder(folder: Path, files: dict[str, bytes]) -> Path:
    """Write ``files`` (a path inside the bundle -> bytes) as the folder ``folder``, whole or not at all: built
    beside it, then renamed into place. Raises :class:`BundleError` when ``folder`` exists and is not empty."""
    folder = Path(folder)
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise BundleError(f"{folder.name}: already exists and is not an empty folder; choose a new one")
    parent = folder.absolute().parent
    parent.mkdir(parents=True, exist_ok=True)
    building = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=parent))
    mask = os.umask(0)
    os.umask(mask)
    building.chmod(0o777 & ~mask)            # a folder as mkdir makes it, not mkdtemp's private one
    try:
        for name, data in files.items():
            target = building / PurePosixPath(name)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        if folder.exists():
            folder.rmdir()
        os.replace(building, folder)
    except BaseException:
        shutil.rmtree(building, ignore_errors=True)
        raise
    return folder


def zip_bytes(files: dict[str, bytes], root: str) -> bytes:
    """``files`` as one zip whose entries sit under the folder ``root`` (a bundle unpacks as one folder)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(f"{root}/{name}", data)
    return buffer.getvalue()


@contextmanager
def opened(path: str | os.PathLike) -> Iterator[Path]:
    """The bundle at ``path`` as a folder holding its manifest: the folder itself, or a zip unpacked into a private
    temporary folder (removed after). Raises :class:`BundleError` when ``path`` is neither, or the zip is damaged or
    would unpack outside its folder."""
    path = Path(path)
    if path.is_dir():
        yield path
        return
    if not path.is_file():
        raise BundleError(f"{path.name}: no such folder or file")
    if not zipfile.is_zipfile(path):
        raise BundleError(f"{path.name}: neither a bundle folder nor a zip")
    with tempfile.TemporaryDirectory(prefix="costfrontier-bundle-") as tmp:
        root = Path(tmp)
        try:
            with zipfile.ZipFile(path) as archive:
                infos = archive.infolist()
                count, size = BUNDLE_FILE_LIMIT
                if len(infos) > count or sum(i.file_size for i in infos) > size:
                    raise BundleError(f"{path.name}: too large to be a proposal bundle")
                for info in infos:
                    name = PurePosixPath(info.filename)
                    if name.is_absolute() or ".." in name.parts:
                        raise BundleError(f"{path.name}: entry {info.filename!r} would unpack outside the bundle")
                archive.extractall(root)
        except (zipfile.BadZipFile, OSError) as exc:
            raise BundleError(f"{path.name}: the zip cannot be read ({exc})") from None
        found = [p.parent for p in root.rglob(MANIFEST)]
        if len(found) != 1:
            raise BundleError(f"{path.name}: holds {'no' if not found else len(found)} {MANIFEST}")
        outside = sorted(p.relative_to(root).as_posix() for p in root.rglob("*")
                         if not p.is_dir() and found[0] not in p.parents)
        if outside:                   # a file beside the bundle's folder would travel with it unchecked
            raise BundleError(f"{path.name}: {outside[0]} lies outside the bundle's folder "
                              f"({found[0].relative_to(root).as_posix() or 'the top'}), so it is not one bundle")
        yield found[0]
