"""Names people give (profiles, series, hardware) and the product's words for refused values.

One rule for what a name may be (:data:`MAX_NAME_LENGTH`, :func:`name_problem`), one encoding of
a list of names inside a share-link value (:func:`join_names` / :func:`split_names`), and
:func:`validation_reason`, which says a pydantic validation error in the product's words instead of
pydantic's own ("Input should be ...").
"""

from __future__ import annotations

import math
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


def number(text: str, what: str = "a number") -> float:
    """``text`` as a finite float; ValueError in the product's words (``"not a number"``) otherwise."""
    try:
        value = float(str(text).strip())
    except (TypeError, ValueError):
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
