"""Names people give (profiles, series, hardware) and the product's words for refused values.

One rule for what a name may be (:data:`MAX_NAME_LENGTH`, :func:`name_problem`), one encoding of
a list of names inside a share-link value (:func:`join_names` / :func:`split_names`), and
:func:`validation_reason`, which says a pydantic validation error in the product's words instead of
pydantic's own ("Input should be ...").
"""

from __future__ import annotations

import math
import re
import unicodedata
from urllib.parse import unquote

__all__ = ["MAX_NAME_LENGTH", "name_problem", "encode_name", "decode_name", "join_names", "split_names",
           "validation_reason", "reason", "number"]

#: the longest profile, series or hardware name [characters]
MAX_NAME_LENGTH = 120
#: characters a name may not hold: control, format, surrogate, private-use, unassigned, line/paragraph breaks
_REFUSED = frozenset(("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"))
#: characters escaped inside a name in a link value: the escape itself, then every list separator
_ESCAPED = ("%", ",", "|", ":")


def name_problem(text) -> str | None:
    """Why ``text`` cannot be a name (empty, too long, not printable), or None when it can.

    Any printable text of 1 to :data:`MAX_NAME_LENGTH` characters is a name: ``"H200, quote #2"``,
    ``'a $ % @ # " é || b'``. Tabs, line breaks and other control or invisible characters are refused.
    """
    if not isinstance(text, str):
        return "must be text"
    if not text.strip():
        return "is empty"
    if len(text) > MAX_NAME_LENGTH:
        return f"is longer than {MAX_NAME_LENGTH} characters"
    if any(unicodedata.category(c) in _REFUSED for c in text):
        return "holds a control or invisible character (names are printable text)"
    return None


def encode_name(name: str) -> str:
    """``name`` with ``%``, ``,``, ``|`` and ``:`` percent-encoded, so list separators never collide with it."""
    for char in _ESCAPED:
        name = name.replace(char, f"%{ord(char):02X}")
    return name


def decode_name(text: str) -> str:
    """The inverse of :func:`encode_name`. Text without ``%`` (every link written before names could
    hold separators) is returned as it is."""
    return unquote(text) if "%" in text else text


def join_names(names, sep: str = ",") -> str:
    """``names`` as one link value, each encoded (:func:`encode_name`) and joined by ``sep``."""
    return sep.join(encode_name(n) for n in names)


def split_names(text: str | None, sep: str = ",") -> tuple[str, ...]:
    """The names of a :func:`join_names` value (empty parts dropped, spaces around a name stripped)."""
    return tuple(decode_name(part.strip()) for part in (text or "").split(sep) if part.strip())


#: characters people put between groups of three digits besides a comma or a point (spaces, thin spaces,
#: an apostrophe, an underscore): always a thousands separator, never a decimal one
_GAPS = (" ", "\u00a0", "\u2009", "\u202f", "'", "\u2019", "_")
_MANTISSA = re.compile(r"^[0-9.,]*$")


def _grouped(integer: str, sep: str, typed: str) -> str:
    """``integer`` (digits and ``sep``) without its thousands separators, which must fall every three digits;
    ValueError in plain words otherwise (``'1..48' is not a number: two points in a row``)."""
    groups = integer.split(sep)
    if not (1 <= len(groups[0]) <= 3 and groups[0].isdigit() and all(len(g) == 3 and g.isdigit() for g in groups[1:])):
        word = {".": "point", ",": "comma", " ": "space"}.get(sep, "separator")
        if sep * 2 in integer:
            why = f"two {word}s in a row"
        elif sep == ".":
            why = "a number has one decimal point (points between groups of three digits, as in 1.000.000, are thousands)"
        else:
            why = f"{word}s go between groups of three digits, as in 1{sep}000{sep}000"
        raise ValueError(f"{typed!r} is not a number: {why}")
    return "".join(groups)


def number(text, what: str = "a number", percent: bool = False) -> float:
    """``text`` as people type it, as a finite float; ValueError in the product's words otherwise.

    The one rule of every number box, command-line value and link value:

    - a point is the decimal point (``1.48``); ``2e12`` is read as written;
    - a comma alone is a decimal comma when it cannot be a thousands separator (``1,48`` → 1.48,
      ``0,750`` → 0.75); commas every three digits are thousands (``1,000,000``, ``1,000.5``); with both a
      point and a comma the last one is the decimal mark (``1.000.000,5`` → 1000000.5);
    - one comma before exactly three digits (``1,480``) could be either: refused, quoting what was typed;
    - spaces, thin spaces, ``'`` and ``_`` between groups of three digits are thousands separators;
    - a leading ``$`` is dropped; a trailing ``%`` only where ``percent`` (the number is then in percent).
    """
    typed = str(text).strip()
    shown = typed if len(typed) <= 40 else typed[:39] + "…"
    s = typed.replace("\u2212", "-")
    sign = ""
    if s[:1] in "+-" and s:
        sign, s = s[0], s[1:].lstrip()
    s = s.removeprefix("$").strip()
    if percent:
        s = s.removesuffix("%").strip()
    mantissa, exp_mark, exponent = s.replace("E", "e").partition("e")
    if exp_mark and not re.fullmatch(r"[+-]?\d{1,4}", exponent):
        raise ValueError(f"not {what}")
    gaps = [g for g in _GAPS if g in mantissa]
    if len(gaps) > 1:
        raise ValueError(f"{shown!r} is not {what}: it mixes thousands separators")
    if gaps:
        whole, point, frac = mantissa.replace(",", ".", 1).partition(".") if "." not in mantissa \
            else mantissa.partition(".")
        mantissa = _grouped(whole, gaps[0], shown) + point + frac
    if not mantissa or not _MANTISSA.match(mantissa) or not any(ch.isdigit() for ch in mantissa):
        raise ValueError(f"not {what}")
    commas, points = mantissa.count(","), mantissa.count(".")
    if commas and points:
        decimal = "," if mantissa.rfind(",") > mantissa.rfind(".") else "."
        thousands = "." if decimal == "," else ","
        whole, _, frac = mantissa.rpartition(decimal)
        if decimal in whole:
            raise ValueError(f"{shown!r} is not {what}: two decimal marks")
        mantissa = _grouped(whole, thousands, shown) + "." + frac
    elif commas == 1:
        whole, _, frac = mantissa.partition(",")
        if len(frac) == 3 and whole and whole.strip("0"):
            raise ValueError(f"{shown!r} is ambiguous: a decimal comma or a thousands separator? Write "
                             f"{whole}{frac} or {whole}.{frac}")
        mantissa = whole + "." + frac
    elif commas > 1:
        mantissa = _grouped(mantissa, ",", shown)
    elif points > 1:
        mantissa = _grouped(mantissa, ".", shown)
    try:
        value = float(sign + mantissa + (exp_mark + exponent if exp_mark else ""))
    except ValueError:
        raise ValueError(f"not {what}") from None
    if not math.isfinite(value):
        raise ValueError(f"not {what} (must be finite)")
    return value


_REASONS = {
    "float_parsing": "not a number", "float_type": "not a number", "int_parsing": "not a whole number",
    "int_type": "not a whole number", "int_from_float": "not a whole number", "bool_parsing": "must be yes or no",
    "bool_type": "must be yes or no", "finite_number": "must be a finite number", "string_type": "must be text",
    "missing": "is missing", "extra_forbidden": "is not a field this product knows",
    "dict_type": "must be a set of fields", "model_type": "must be a set of fields",
    "tuple_type": "must be a list", "list_type": "must be a list", "too_long": "has too many values",
    "string_too_short": "is empty",
}


def validation_reason(error: dict) -> str:
    """One pydantic error (an item of ``ValidationError.errors()``) in the product's words.

    Our own validators' messages are kept; pydantic's ("Input should be greater than 0") become
    "must be greater than 0", "not a number", ...
    """
    kind = error.get("type", "")
    ctx = error.get("ctx") or {}
    if kind == "value_error":
        return str(error.get("msg", "")).removeprefix("Value error, ")
    if kind in _REASONS:
        return _REASONS[kind]
    if kind == "string_too_long":
        return f"is longer than {ctx.get('max_length')} characters"
    bounds = {"greater_than": ("greater than", "gt"), "greater_than_equal": ("at least", "ge"),
              "less_than": ("less than", "lt"), "less_than_equal": ("at most", "le")}
    if kind in bounds:
        words, key = bounds[kind]
        bound = ctx.get(key)
        return f"must be {words} {bound:g}" if isinstance(bound, (int, float)) else f"must be {words} {bound}"
    msg = str(error.get("msg", "is not a valid value"))
    return msg.replace("Input should be", "must be").replace("Value error, ", "")


#: Python's own messages for a failed conversion, which never reach a reader
_PYTHON_WORDS = ("could not convert", "invalid literal", "Input should", "ValueError", "TypeError", "Traceback")


def reason(exc: BaseException) -> str:
    """Why a value was refused, in the product's words: a pydantic error through :func:`validation_reason`,
    our own ValueError's message as it is, Python's conversion messages as "not a valid value"."""
    errors = getattr(exc, "errors", None)
    if callable(errors):
        try:
            return validation_reason(errors()[0])
        except (IndexError, KeyError, TypeError):
            return "not a valid value"
    text = str(exc)
    if not text or any(word in text for word in _PYTHON_WORDS) or not isinstance(exc, ValueError):
        return "not a valid value"
    return text.removeprefix("Value error, ")
