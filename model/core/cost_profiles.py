"""Cost profiles (:class:`model.core.profile.CostProfile`, re-exported here): how they price series, and their
round trip through a table and a share link."""

from __future__ import annotations

import base64
import json
import math
import zlib

import pandas as pd

from model.core.profile import PROFILE_KINDS, CostProfile, cost_profile, profile_of, unique_profiles
from model.core.tco import (
    ONPREM_FIELDS,
    PARTS,
    TcoInputError,
    onprem_inputs,
)

__all__ = [
    "CostProfile", "PROFILE_COLUMNS", "PROFILE_KINDS", "unique_profiles", "breakdown_frame", "cost_profile",
    "price_with_profiles", "points_with_profiles", "rates_with_profiles", "profile_rates", "profiles_frame",
    "profiles_from_frame", "profiles_from_text", "profiles_to_text", "relabel_by_profile",
]


def _dollars(value: float) -> str:
    """A rate as people read it, to the cent (``$2.87``); below 10 cents three significant digits."""
    return f"${value:,.2f}" if abs(value) >= 0.1 else f"${value:.3g}"


def profile_rates(profiles) -> dict[str, float]:
    """{profile name: $/GPU-hour} of every priced profile (on-prem: effective, ÷ utilisation).

    Unpriced profiles are left out (a series is never priced at zero); duplicate names raise
    :class:`TcoInputError`.
    """
    return {p.name: r for p in unique_profiles(profiles) if (r := p.rate()) is not None}


def relabel_by_profile(points: pd.DataFrame, profiles, names) -> tuple[pd.DataFrame, dict[str, float]]:
    """Points repeated once per chosen profile, so one hardware can be priced two ways side by side.

    Each copy keeps the rows of its profile's hardware, moves the GPU name to ``base_hardware``,
    sets ``hardware`` and ``cost_profile`` to the profile name, and the returned rates are keyed by
    profile name: ``analyse(points, View(rates=tuple(rates.items())))`` then draws one series
    per (series, profile). Unpriced profiles are kept (their series stay unpriced).

    Returns
    -------
    (DataFrame, {profile name: $/GPU-hour})
    """
    by_name = {p.name: p for p in unique_profiles(profiles)}
    frames = []
    for name in names:
        if name not in by_name:
            raise TcoInputError(f"unknown cost profile {name!r}; known: {', '.join(by_name) or 'none'}")
        profile = by_name[name]
        part = points[points["hardware"] == profile.hardware]
        frames.append(part.assign(base_hardware=part["hardware"], hardware=name, cost_profile=name))
    out = pd.concat(frames, ignore_index=True) if frames else points.iloc[0:0].assign(base_hardware=[], cost_profile=[])
    return out, {n: r for n in names if (r := by_name[n].rate()) is not None}


#: columns of the editable profiles table (:func:`profiles_frame`)
PROFILE_COLUMNS = ("name", "hardware", "kind", "usd_per_gpu_hour", *ONPREM_FIELDS, "source")


def profiles_frame(profiles) -> pd.DataFrame:
    """Profiles as one table row each, for an editable table: :data:`PROFILE_COLUMNS`.

    ``usd_per_gpu_hour`` is the plain rate of a ``rate`` profile and the computed effective rate of
    an ``on-prem`` one (ignored when read back by :func:`profiles_from_frame`). Empty cells are NaN/None.
    """
    rows = []
    for p in profiles:
        row: dict[str, object] = {"name": p.name, "hardware": p.hardware, "kind": p.kind,
                                  "usd_per_gpu_hour": p.rate() if p.rate() is not None else math.nan,
                                  "source": p.source}
        for f in ONPREM_FIELDS:
            row[f] = getattr(p.onprem, f) if p.onprem is not None else None
        rows.append(row)
    return pd.DataFrame(rows, columns=list(PROFILE_COLUMNS))


def breakdown_frame(profiles) -> pd.DataFrame:
    """One row per profile for a stacked bar of the breakdown [$/GPU-hour].

    Columns: ``profile``, ``hardware``, ``kind``, the four :data:`PARTS` (at full use; NaN for a plain
    rate, whose parts are unknown), ``usd_per_gpu_hour_full_use``, ``utilization`` and
    ``usd_per_gpu_hour`` (effective: what prices tokens; NaN when unpriced).
    """
    rows = []
    for p in unique_profiles(profiles):
        row: dict[str, object] = {"profile": p.name, "hardware": p.hardware, "kind": p.kind}
        b = p.breakdown()
        if b is not None:
            row.update(b.parts(), usd_per_gpu_hour_full_use=b.usd_per_gpu_hour_full_use, utilization=b.utilization,
                       usd_per_gpu_hour=b.usd_per_gpu_hour)
        else:
            rate = p.usd_per_gpu_hour if p.usd_per_gpu_hour is not None else math.nan
            row.update(dict.fromkeys(PARTS, math.nan), usd_per_gpu_hour_full_use=rate, utilization=1.0,
                       usd_per_gpu_hour=rate)
        rows.append(row)
    return pd.DataFrame(rows, columns=["profile", "hardware", "kind", *PARTS, "usd_per_gpu_hour_full_use",
                                       "utilization", "usd_per_gpu_hour"])


def _cell(value):
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return None
    if isinstance(value, str) and not value.strip():
        return None
    if hasattr(value, "item"):
        return value.item()
    return value


def profiles_from_frame(frame: pd.DataFrame) -> list[CostProfile]:
    """Read back an edited :func:`profiles_frame` table.

    ``kind`` decides: ``on-prem`` reads the build-up columns, ``rate`` (or empty) reads
    ``usd_per_gpu_hour``. Rows without a name are skipped (an empty new row). The first bad
    row raises :class:`TcoInputError` naming the row (1-based), the profile and the field.
    """
    out = []
    for i, row in enumerate(frame.to_dict("records"), start=1):
        cells = {k: _cell(v) for k, v in row.items()}
        if cells.get("name") is None:
            continue
        kind = str(cells.get("kind") or "rate").strip().lower()
        if kind not in PROFILE_KINDS:
            raise TcoInputError(f"row {i} ({cells['name']}): kind must be one of {', '.join(PROFILE_KINDS)}, "
                                f"got {kind!r}")
        values: dict[str, object] = {"name": cells["name"], "hardware": cells.get("hardware"),
                                     "source": cells.get("source") or ""}
        if kind == "on-prem":
            try:
                values["onprem"] = onprem_inputs(**{f: cells.get(f) for f in ONPREM_FIELDS})
            except TcoInputError as exc:
                raise TcoInputError(f"row {i} ({cells['name']}): {exc}") from None
        else:
            values["usd_per_gpu_hour"] = cells.get("usd_per_gpu_hour")
        out.append(profile_of(values, f"row {i} ({cells['name']})"))
    return unique_profiles(out)


#: stable short keys for the share link; never reuse a retired key
_SHORT = {"name": "n", "hardware": "h", "usd_per_gpu_hour": "r", "source": "s", "onprem": "o",
          "server_usd": "sv", "gpus_per_node": "g", "network_pct": "np", "network_usd": "nu", "install_usd": "in",
          "years": "y", "rate_pct": "rp", "kw_per_gpu": "kw", "pue": "pu", "usd_per_kwh": "e",
          "colo_usd_per_kw_month": "co", "colo_includes_power": "ci", "rack_usd_per_month": "ra",
          "nodes_per_rack": "nr", "maintenance_pct": "m", "licence_usd_per_gpu_year": "l",
          "staff_usd_per_year": "st", "fleet_gpus": "fg", "utilization": "u"}


_LONG = {v: k for k, v in _SHORT.items()}


_LINK_PREFIX = "p1."


_MAX_LINK_CHARS = 16_000


_MAX_JSON_BYTES = 200_000


#: profiles nest 3 deep (list, profile, build-up); anything much deeper is not a profile list
_MAX_JSON_DEPTH = 8


def profiles_to_text(profiles) -> str:
    """A compact URL-safe text holding ``profiles`` (for a share link's query parameter).

    Only values that differ from the defaults are kept, under short keys, then zlib and base64url:
    ``"p1.<base64>"``; ``""`` for no profiles. :func:`profiles_from_text` reads it back equal.
    """
    items = []
    for p in unique_profiles(profiles):
        data = p.model_dump(exclude_defaults=True)
        short = {_SHORT[k]: v for k, v in data.items() if k != "onprem"}
        if p.onprem is not None:
            onprem = p.onprem.model_dump(exclude_defaults=True)
            if p.onprem.server_usd is None:
                onprem["server_usd"] = None
            short["o"] = {_SHORT[k]: v for k, v in onprem.items()}
        items.append(short)
    if not items:
        return ""
    raw = json.dumps(items, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    return _LINK_PREFIX + base64.urlsafe_b64encode(zlib.compress(raw, 9)).decode("ascii").rstrip("=")


def _nesting_depth(text: str) -> int:
    """The deepest ``[``/``{`` nesting of JSON ``text``, counted without recursion (brackets inside strings skipped)."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def _link_items(body: str) -> list:
    """The JSON list a link's cost profiles part holds; TcoInputError in the product's words otherwise."""
    damaged = TcoInputError("share link: the cost profiles part is damaged or cut short")
    try:
        packed = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
        inflater = zlib.decompressobj()
        raw = inflater.decompress(packed, _MAX_JSON_BYTES)   # never more than this, however it was packed
    except (ValueError, zlib.error):
        raise damaged from None
    if inflater.unconsumed_tail:
        raise TcoInputError(f"share link: the cost profiles part unpacks to more than {_MAX_JSON_BYTES:,} bytes")
    if not inflater.eof or inflater.unused_data:
        raise damaged
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise damaged from None
    if _nesting_depth(text) > _MAX_JSON_DEPTH:
        raise TcoInputError("share link: the cost profiles part is nested deeper than cost profiles are")
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        raise damaged from None


def profiles_from_text(text: str | None) -> list[CostProfile]:
    """The profiles a :func:`profiles_to_text` text holds; ``[]`` for an empty text.

    A damaged, foreign, oversized (more than 200,000 bytes unpacked) or deeply nested text raises
    :class:`TcoInputError` ("share link: ..."), never a partial list and never another exception.
    """
    text = (text or "").strip()
    if not text:
        return []
    if not text.startswith(_LINK_PREFIX) or len(text) > _MAX_LINK_CHARS:
        raise TcoInputError("share link: the cost profiles part is not one this version wrote")
    items = _link_items(text[len(_LINK_PREFIX):])
    foreign = TcoInputError("share link: the cost profiles part holds something other than cost profiles")
    if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
        raise foreign
    long = []
    for item in items:
        try:
            values = {_LONG[k]: v for k, v in item.items()}
            if isinstance(values.get("onprem"), dict):
                values["onprem"] = {_LONG[k]: v for k, v in values["onprem"].items()}
        except KeyError:
            raise foreign from None
        long.append(values)
    return unique_profiles(profile_of(v, f"share link, profile {i}") for i, v in enumerate(long, start=1))


def _chosen(profiles, names) -> tuple[dict, dict[str, list[str]], list[str]]:
    """(profile by name, chosen names per lower-case hardware, the names priced side by side); raises
    :class:`TcoInputError` for an unknown name."""
    by_name = {p.name: p for p in unique_profiles(profiles)}
    unknown = [n for n in names if n not in by_name]
    if unknown:
        raise TcoInputError(f"unknown cost profile {unknown[0]!r}; known: {', '.join(by_name) or 'none'}")
    per_hw: dict[str, list[str]] = {}
    for name in names:
        per_hw.setdefault(by_name[name].hardware.lower(), []).append(name)
    return by_name, per_hw, [n for group in per_hw.values() if len(group) > 1 for n in group]


def rates_with_profiles(overrides: dict[str, float], profiles, names) -> tuple[dict[str, float], list[str]]:
    """The rates a view prices by once its chosen cost profiles apply (:func:`price_with_profiles`), and what was
    done, without its rows: a hardware one chosen profile names is priced at that profile's effective rate (it wins
    over a rate set by hand, and the note says so); two or more profiles of one hardware are priced by name, side by
    side."""
    names = list(dict.fromkeys(names))
    if not names:
        return dict(overrides), []
    by_name, per_hw, side_by_side = _chosen(profiles, names)
    rates, notes = dict(overrides), []
    for group in per_hw.values():
        if len(group) == 1:
            profile = by_name[group[0]]
            same = [hw for hw in rates if hw.lower() == profile.hardware.lower()]
            for hw in same:
                del rates[hw]
            if profile.rate() is not None:
                rates[profile.hardware] = profile.rate()
                notes.append(f"{profile.hardware} is priced by cost profile {profile.name!r} "
                             f"({_dollars(profile.rate())}/GPU-hour)" + (" instead of the rate set by hand" if same else ""))
            else:
                notes.append(f"cost profile {profile.name!r} has no price yet, so {profile.hardware} is unpriced")
    if side_by_side:
        rates.update({n: r for n in side_by_side if (r := by_name[n].rate()) is not None})
        notes.append("side by side: " + ", ".join(side_by_side))
    return rates, notes


def points_with_profiles(points: pd.DataFrame, profiles, names) -> pd.DataFrame:
    """``points`` as the chosen cost profiles price them (:func:`price_with_profiles`), whatever the rates: the rows
    of a hardware two or more chosen profiles name repeated once per profile (:func:`relabel_by_profile`)."""
    names = list(dict.fromkeys(names))
    if not names:
        return points
    by_name, per_hw, side_by_side = _chosen(profiles, names)
    if not side_by_side:
        return points
    hardware = {by_name[n].hardware.lower() for n in side_by_side}
    lower = points["hardware"].astype(str).str.lower()
    copies, _ = relabel_by_profile(points.assign(hardware=points["hardware"].where(
        ~lower.isin(hardware), lower.map({h: by_name[per_hw[h][0]].hardware for h in hardware}))),
        profiles, side_by_side)
    return pd.concat([points[~lower.isin(hardware)], copies], ignore_index=True)


def price_with_profiles(points: pd.DataFrame, overrides: dict[str, float], profiles,
                        names) -> tuple[pd.DataFrame, dict[str, float], list[str]]:
    """Price ``points`` by the chosen cost profiles: the one rule the dashboard and the CLI share
    (:func:`points_with_profiles` and :func:`rates_with_profiles`: the rows do not depend on the rates, so a rate
    change re-prices them without touching a row).

    A hardware one chosen profile names is priced at that profile's effective rate (it wins over a
    rate set by hand, and the note says so). A hardware two or more chosen profiles name is shown
    side by side: its rows are repeated once per profile (:func:`relabel_by_profile`), each copy
    named and priced by its profile.

    Parameters
    ----------
    points : DataFrame  benchmark rows with ``hardware``
    overrides : dict  hardware -> $/GPU-hour set by hand [$/GPU/h]
    profiles : iterable of CostProfile  every profile known (the view's or the store's)
    names : iterable of str  the profiles chosen to price series

    Returns
    -------
    (points, overrides, notes): the rows to analyse, the rates for ``View.rates`` and what was done.
    """
    rates, notes = rates_with_profiles(overrides, profiles, names)
    return points_with_profiles(points, profiles, names), rates, notes
