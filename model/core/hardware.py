"""Canonical accelerator names, their aliases, vendors and chart colours."""

from __future__ import annotations

import re

__all__ = ["CANONICAL_HARDWARE", "canonical_hardware", "same_hardware", "hardware_colour"]

#: Canonical names, in the order charts list them (NVIDIA by generation, then AMD, then Google). VR200,
#: RTX PRO 6000 and TPU7x are named by the 2026-09 price set (data/samples/tco_presets_2026-09.csv).
CANONICAL_HARDWARE = (
    "A100", "H100", "H200", "H20", "B200", "B300", "GB200", "GB300", "VR200", "RTX PRO 6000",
    "MI250X", "MI300X", "MI325X", "MI355X", "MI400", "TPU7x",
)

#: other names of a canonical part (squashed: lower case, no spaces): Google's TPU v7 (Ironwood) is TPU7x in the
#: InferenceX registry; Vera Rubin's GPU is VR200
_ALIASES = {"tpuv7": "TPU7x", "tpuv7x": "TPU7x", "ironwood": "TPU7x", "verarubin": "VR200"}

_VENDOR_WORDS = re.compile(
    r"\b(nvidia|amd|instinct|tesla|geforce|hgx|dgx|sxm\d?|pcie|oam|nvl\d*|gpu|accelerator)\b"
)


def canonical_hardware(value: object) -> str:
    """Map a free-form accelerator name to its canonical form.

    ``b200``, ``B200-SXM``, ``b200-nb_0``, ``NVIDIA B200`` -> ``B200``;
    ``mi355x``, ``AMD Instinct MI355X``, ``mi355x-amd_1`` -> ``MI355X``;
    ``gb200 nvl72`` -> ``GB200``; ``RTX PRO 6000 Blackwell``, ``rtxpro6000`` -> ``RTX PRO 6000``;
    ``TPUv7``, ``tpu7x`` -> ``TPU7x``; ``VR200 NVL144`` -> ``VR200``. A name no rule recognises is kept as the user spelled it
    (``ArcProB60`` stays ``ArcProB60``; only surrounding and repeated spaces go): compare such
    names case-insensitively (:func:`same_hardware`).
    """
    if value is None:
        return ""
    raw = str(value).strip()
    if not raw:
        return ""
    text = _VENDOR_WORDS.sub(" ", raw.lower().replace("_", " ").replace("-", " "))
    # longest canonical name first, so GB200 wins over B200 and MI325X over MI300X-like prefixes
    squashed = text.replace(" ", "")
    for name in sorted(CANONICAL_HARDWARE, key=len, reverse=True):
        low = name.lower().replace(" ", "")
        pattern = rf"(?<![a-z0-9]){low}(?![0-9])" if not low.endswith("x") else rf"(?<![a-z0-9]){low}"
        if re.search(pattern, squashed) or re.search(pattern, text):
            return name
    for alias, name in _ALIASES.items():
        if re.search(rf"(?<![a-z0-9]){alias}(?![0-9])", squashed):
            return name
    return re.sub(r"\s+", " ", raw).strip()


def same_hardware(a: object, b: object) -> bool:
    """Whether two accelerator names mean the same part: canonical names equal, case-insensitively."""
    return canonical_hardware(a).casefold() == canonical_hardware(b).casefold()


_NVIDIA_GREENS = {
    "A100": "#9ccc65", "H100": "#7cb342", "H200": "#558b2f", "H20": "#aed581",
    "B200": "#76b900", "B300": "#2e7d32", "GB200": "#00897b", "GB300": "#004d40", "VR200": "#1b5e20",
    "RTX PRO 6000": "#c5e1a5",
}
_AMD_REDS = {
    "MI250X": "#ef9a9a", "MI300X": "#e57373", "MI325X": "#c62828", "MI355X": "#ed1c24", "MI400": "#8e0000",
}
_OTHER = ("#1f77b4", "#9467bd", "#ff7f0e", "#8c564b", "#17becf", "#7f7f7f")


def hardware_colour(hardware: str) -> str:
    """One colour per hardware, the same on every chart (NVIDIA greens, AMD reds)."""
    if hardware in _NVIDIA_GREENS:
        return _NVIDIA_GREENS[hardware]
    if hardware in _AMD_REDS:
        return _AMD_REDS[hardware]
    return _OTHER[sum(map(ord, hardware)) % len(_OTHER)]
