"""The checks of a view's values that need the analysis modules (numpy, pandas, pydantic): each field declared with
:class:`model.core.view_checks.Uses` names its function in :data:`CHECKS`. The view binds them when its class is
built (:mod:`model.core.view`), a command when it reads its options (:mod:`model.cli.options`). Each returns the
value (normalised) or raises ValueError in the product's words.
"""

from __future__ import annotations

from model.core import goodput
from model.core.columns import resolve_column
from model.core.cost_profiles import profiles_from_text, profiles_to_text
from model.core.frontier import SERIES_KEY_CHOICES
from model.core.request_mix import parse_mix
from model.core.sla import SLA
from model.core.trace import Trace, is_reference
from model.core.view_codecs import merge, short

__all__ = ["CHECKS", "merge_profiles", "check_by", "check_sla", "check_goodput", "check_profiles", "check_filters",
           "check_trace", "check_request_mix", "series_keys"]


def check_by(value: tuple[str, ...]) -> tuple[str, ...]:
    bad = [k for k in value if k not in SERIES_KEY_CHOICES]
    if bad:
        raise ValueError(f"cannot group by {', '.join(bad)}; choose from {', '.join(SERIES_KEY_CHOICES)}")
    return tuple(dict.fromkeys(value))


def check_sla(value: str) -> str:
    return SLA.from_text(value).to_text() if value else ""


def check_goodput(value: str) -> str:
    return goodput.check_goodput(value)


def check_profiles(value: str) -> str:
    profiles_from_text(value)          # raises TcoInputError (a ValueError) naming what is wrong
    return value


def check_filters(value: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
    out = []
    for name, text in value:
        resolved = resolve_column(str(name))
        if not isinstance(resolved, tuple):
            raise ValueError(f"{short(name)!r} is not a field rows can be filtered on")
        if any(ord(ch) < 32 for ch in str(text)) or len(str(text)) > 120:
            raise ValueError(f"{short(text)!r} is not a value this product stores")
        out.append((resolved[0], str(text)))
    return tuple(dict.fromkeys(out))


def check_trace(value: str) -> str:
    """A trace as a view carries it: inline (``t1;...``, :meth:`model.core.trace.Trace.to_text`) or a stored
    trace's reference (``s1;`` and 16 hex characters, :mod:`model.data.traces`)."""
    if value:
        if not is_reference(value):
            Trace.from_text(value)
    return value


def check_request_mix(value: str) -> str:
    """A request mix ``ISL:OSL:SHARE,...`` (:func:`model.core.request_mix.parse_mix`), written back in its one form."""
    if not value:
        return value
    return parse_mix(value).to_text()


def merge_profiles(key: str, texts: list[str], notices: list[str]) -> str:
    profiles = merge(key, texts, notices, profiles_from_text, lambda p: p.name,
                      lambda a, _: f"ignored the cost profiles named {short(a.name)!r} from the link: two differ, "
                                   "and profile names must be unique")
    return profiles_to_text(profiles)


def series_keys(text: str) -> tuple[str, ...]:
    """``hardware,spec_decode`` as series keys, with the aliases file headers have (``spec_decoding``)."""
    keys = []
    for key in (k.strip() for k in text.split(",") if k.strip()):
        resolved = resolve_column(key)
        if not isinstance(resolved, tuple) or resolved[0] not in SERIES_KEY_CHOICES:
            raise ValueError(f"unknown field {key!r}; choose from {', '.join(SERIES_KEY_CHOICES)}")
        keys.append(resolved[0])
    return tuple(keys)


#: every check a declaration names (:class:`model.core.view_checks.Uses`), by its name
CHECKS = {"by": check_by, "sla": check_sla, "goodput": check_goodput, "profiles": check_profiles,
          "filters": check_filters, "trace": check_trace, "request_mix": check_request_mix, "series_keys": series_keys}
