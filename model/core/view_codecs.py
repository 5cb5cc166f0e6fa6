"""How each kind of view value is written in a share link and read back, and how a repeated key merges.

Light on purpose (the standard library and :mod:`model.core.names` / :mod:`model.core.hardware` only): the
declarations of :mod:`model.core.view_fields` name these codecs, and the command line's ``--help`` reads
those declarations without importing pandas or pydantic. Reading a cost-profiles value is the one step that
needs more, and imports it when it runs.

Every ``read`` raises ValueError in the product's words (``"not a number"``), never Python's.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any, Callable

from model.core.hardware import canonical_hardware
from model.core.names import decode_name, encode_name, join_names, name_problem, number, split_names

__all__ = ["Codec", "TEXT", "NUMBER", "WHOLE", "FLAG", "DATE", "NAMES", "HARDWARE", "LABELS", "RATES", "PRICES",
           "TARGETS", "FILTERS", "PROFILES", "PER_HARDWARE", "EVERY_HARDWARE", "short", "hardware_name", "rate_pairs",
           "per_hardware_pairs", "merge_texts", "hardware_rates", "hardware_numbers", "merge"]

#: the name a per-hardware value (``kwg``) gives the value of every hardware without one of its own
EVERY_HARDWARE = "*"


def short(text: Any, limit: int = 40) -> str:
    """``text`` cut to ``limit`` characters (an ellipsis at the cut), for notices that quote a value."""
    text = str(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def hardware_name(name: str) -> str:
    """The canonical GPU name of a name typed in a link or an option (checked first: canonical names drop text)."""
    problem = name_problem(name)
    if problem:
        raise ValueError(f"the hardware name {short(name)!r} {problem}")
    return canonical_hardware(name)


def rate_pairs(text: str) -> tuple[tuple[str, float], ...]:
    """``B200:1.7,MI355X:1.6`` as ((hardware, $/GPU-hour), ...), names canonical, as written."""
    pairs = []
    for item in text.split(","):
        if not item.strip():
            continue
        hw, sep, rate = item.rpartition(":")
        if not sep or not hw.strip():
            raise ValueError(f"{short(item)!r} is not HARDWARE:RATE, e.g. B200:1.7")
        pairs.append((hardware_name(decode_name(hw.strip())), number(rate, f"a $/GPU-hour for {short(hw)}")))
    return tuple(pairs)


def per_hardware_pairs(text: str, what: str = "a kW per GPU") -> tuple[tuple[str, float], ...]:
    """``B200:1.2,MI355X:2.65`` as ((hardware, value), ...), names canonical; a bare value (``1.4``, what the link
    wrote before it was per hardware) is every hardware's without one of its own (:data:`EVERY_HARDWARE`)."""
    pairs = []
    for item in text.split(","):
        if not item.strip():
            continue
        hw, sep, value = item.rpartition(":")
        if sep and not hw.strip():
            raise ValueError(f"{short(item)!r} is not HARDWARE:VALUE, e.g. B200:1.2, or one value for every hardware")
        name = hardware_name(decode_name(hw.strip())) if sep else EVERY_HARDWARE
        pairs.append((name, number(value, f"{what} for {short(hw) if sep else 'every hardware'}")))
    return tuple(pairs)


def _float_text(value: float) -> str:
    # 2e9, not 2e+09: a '+' in a typed link would read as a space
    return f"{value:g}".replace("e+0", "e").replace("e+", "e")


def _whole(text: str) -> int:
    value = number(text, "a whole number")
    if not value.is_integer():
        raise ValueError("not a whole number")
    return int(value)


def _flag(text: str) -> bool:
    if text not in ("0", "1", "true", "false"):
        raise ValueError("expected 0 or 1")
    return text in ("1", "true")


def _date(text: str) -> date:
    try:
        return date.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(f"{short(text)!r} is not a date (YYYY-MM-DD)") from None


def _filters(text: str) -> tuple[tuple[str, str], ...]:
    pairs = [item.partition("=") for item in split_names(text, "||")]
    if any(not sep for _, sep, _ in pairs):
        raise ValueError("expected field=value items")
    return tuple((name.strip(), value.strip()) for name, _, value in pairs)


@dataclass(frozen=True)
class Codec:
    """How one kind of value is written in a link (``write``), read back (``read``), and how the values of
    a key repeated in a link merge (``merge``): None keeps the first (a notice when they differ), a
    separator joins them, ``"rates"`` / ``"profiles"`` merge by name and refuse a name given two ways."""

    write: Callable[[Any], str]
    read: Callable[[str], Any]
    merge: str | None = None


TEXT = Codec(str, lambda text: text)
NUMBER = Codec(_float_text, number)
WHOLE = Codec(str, _whole)
FLAG = Codec(lambda v: "1" if v else "0", _flag)
DATE = Codec(date.isoformat, _date)
#: names joined by commas, each percent-encoded (:func:`model.core.names.join_names`)
NAMES = Codec(join_names, split_names, merge=",")
HARDWARE = Codec(join_names, lambda text: tuple(hardware_name(x) for x in split_names(text)), merge=",")
#: names that may hold commas in practice (series labels, profile names): joined by ``||``
LABELS = Codec(lambda v: join_names(v, "||"), lambda text: split_names(text, "||"), merge="||")
RATES = Codec(lambda v: ",".join(f"{encode_name(hw)}:{rate:.10g}" for hw, rate in v), rate_pairs, merge="rates")
#: a number per hardware (``kwg``): ``HW:VALUE`` each, a bare value for every hardware without its own
PER_HARDWARE = Codec(lambda v: ",".join(_float_text(x) if hw == EVERY_HARDWARE else f"{encode_name(hw)}:{x:.10g}"
                                        for hw, x in v), per_hardware_pairs)
PRICES = Codec(lambda v: ",".join(f"{x:.10g}" for x in v),
               lambda text: tuple(number(x, "a $/M price") for x in text.split(",")))
TARGETS = Codec(lambda v: ",".join(f"{x:g}" for x in v),
                lambda text: tuple(number(x, f"an interactivity ({short(x.strip())!r})")
                                   for x in text.split(",") if x.strip()), merge=",")
FILTERS = Codec(lambda v: join_names([f"{name}={value}" for name, value in v], "||"), _filters)
#: cost profiles (:func:`model.core.cost_profiles.profiles_to_text`): read as text, checked by the view
PROFILES = Codec(str, lambda text: text, merge="profiles")


def merge(key: str, texts: list[str], notices: list[str], read: Callable[[str], Any],
           name_of: Callable[[Any], str], clash: Callable[[Any, Any], str]) -> list:
    """The items every value of a repeated ``key`` holds, in order; a name given twice with different
    contents is refused (both), with the notice ``clash(first, second)``; an unreadable value gets a notice."""
    kept: dict[str, Any] = {}
    refused: set[str] = set()
    for text in texts:
        try:
            items = read(text)
        except ValueError as exc:   # our own messages (rate_pairs, TcoInputError)
            notices.append(f"ignored link parameter {key}={short(text)!r}: {short(str(exc), 160)}")
            continue
        for item in items:
            name = name_of(item)
            if name in kept and kept[name] != item and name not in refused:
                refused.add(name)
                notices.append(clash(kept[name], item))
            kept.setdefault(name, item)
    return [item for name, item in kept.items() if name not in refused]


def _merge_rates(key: str, texts: list[str], notices: list[str]) -> str:
    pairs = merge(key, texts, notices, rate_pairs, lambda pair: pair[0],
                   lambda a, b: f"ignored the rates for {short(a[0])!r} from the link: given twice, "
                                f"${a[1]:g} and ${b[1]:g} per GPU-hour")
    return RATES.write(pairs)


def merge_texts(codec: Codec, key: str, texts: list[str], notices: list[str]) -> str:
    """The one text of ``key`` given ``texts`` (a key repeated in a link): merged as ``codec.merge`` says;
    a notice for each value refused or ignored. Profiles merge in :func:`model.core.value_checks.merge_profiles`."""
    if codec.merge == "rates":
        return _merge_rates(key, texts, notices)
    if len(texts) == 1:
        return texts[0]
    if codec.merge:
        return codec.merge.join(t for t in texts if t.strip())
    distinct = list(dict.fromkeys(texts))
    if len(distinct) > 1:
        notices.append(f"link parameter {key!r} is given {len(texts)} times with different values; "
                       f"using the first, {short(distinct[0])!r}")
    return distinct[0]


# ------------------------------------------------------------------------------------------ options

def _items(items: list[str]) -> list[tuple[str, str]]:
    out = []
    for item in items:
        name, sep, value = item.partition("=")
        if not sep:
            raise ValueError(f"expects KEY=VALUE, got {item!r}")
        out.append((name.strip(), value.strip()))
    return out


def hardware_rates(items: list[str]) -> tuple[tuple[str, float], ...]:
    """``["B200=1.7", ...]`` (an option given once per GPU) as ((hardware, $/GPU-hour), ...)."""
    return tuple((hardware_name(hw), number(usd, f"a $/GPU-hour for {short(hw)}"))
                 for hw, usd in _items(items))


def hardware_numbers(items: list[str]) -> tuple[tuple[str, float], ...]:
    """``["B200=1.2", "1.4"]`` (an option given per GPU, or once for every GPU) as ((hardware, value), ...): a bare
    value is every hardware's without one of its own (:data:`EVERY_HARDWARE`)."""
    return tuple(pair for item in items
                 for pair in per_hardware_pairs(item.replace("=", ":", 1) if "=" in item else item))
