"""The three character classes of the GPT-2 pre-tokenizer regex, as code point ranges.

The regex (``\\p{L}``, ``\\p{N}``, ``\\s``) is run by `tokenizers` with its
bundled Oniguruma, whose tables are Unicode 16.0 in tokenizers 0.23. Python
3.11's ``unicodedata`` is Unicode 14.0, so the letters and numbers that Unicode
15.0, 15.1 and 16.0 assigned are added from the table below; without them those
~9,400 code points (CJK extension I, Egyptian hieroglyphs extension A, Garay,
Kawi, ...) would split differently from Hugging Face. Tying the tables to one
Unicode version, not to whichever Python runs the compiler, also keeps the
compiled file byte-identical across interpreters.

Whitespace is Unicode White_Space, which is what Oniguruma's ``\\s`` means for
UTF-8 (U+0009..U+000D, U+0085 and the Zs, Zl, Zp categories); Python has no
White_Space property, and ``str.isspace`` differs (it includes U+001C..U+001F).
White_Space did not change between 14.0 and 16.0.
"""

from __future__ import annotations

import unicodedata

TARGET_UNICODE_VERSION = "16.0.0"
# Versions whose data plus _ASSIGNED_AFTER_14 gives exactly Unicode 16.0's L and N.
_SUPPORTED_UNIDATA_VERSIONS = ("14.0.0", "15.0.0", "15.1.0", "16.0.0")

# Code points that are Unassigned in Unicode 14.0 and letters / numbers in
# 16.0, inclusive ranges. Derived once by comparing unicodedata (14.0.0) with
# the unicodedata2==16.0.0 package over all code points; no code point assigned
# in 14.0 changed between L, N and the rest by 16.0. The parity test checks the
# resulting tables against tokenizers itself, code point by code point.
_ASSIGNED_AFTER_14 = {
    "L": (
        (0x01C89, 0x01C8A), (0x0A7CB, 0x0A7CD), (0x0A7DA, 0x0A7DC), (0x105C0, 0x105F3), (0x10D4A, 0x10D65),
        (0x10D6F, 0x10D85), (0x10EC2, 0x10EC4), (0x1123F, 0x11240), (0x11380, 0x11389), (0x1138B, 0x1138B),
        (0x1138E, 0x1138E), (0x11390, 0x113B5), (0x113B7, 0x113B7), (0x113D1, 0x113D1), (0x113D3, 0x113D3),
        (0x11BC0, 0x11BE0), (0x11F02, 0x11F02), (0x11F04, 0x11F10), (0x11F12, 0x11F33), (0x1342F, 0x1342F),
        (0x13441, 0x13446), (0x13460, 0x143FA), (0x16100, 0x1611D), (0x16D40, 0x16D6C), (0x18CFF, 0x18CFF),
        (0x1B132, 0x1B132), (0x1B155, 0x1B155), (0x1DF25, 0x1DF2A), (0x1E030, 0x1E06D), (0x1E4D0, 0x1E4EB),
        (0x1E5D0, 0x1E5ED), (0x1E5F0, 0x1E5F0), (0x2B739, 0x2B739), (0x2EBF0, 0x2EE5D), (0x31350, 0x323AF),
    ),
    "N": (
        (0x10D40, 0x10D49), (0x116D0, 0x116E3), (0x11BF0, 0x11BF9), (0x11F50, 0x11F59), (0x16130, 0x16139),
        (0x16D70, 0x16D79), (0x1CCF0, 0x1CCF9), (0x1D2C0, 0x1D2D3), (0x1E4F0, 0x1E4F9), (0x1E5F1, 0x1E5FA),
    ),
}  # fmt: skip

Ranges = list[tuple[int, int]]


class UnicodeVersionError(Exception):
    """This interpreter's Unicode data cannot be brought to the target version."""


def _is_white_space(code_point: int) -> bool:
    return (
        0x09 <= code_point <= 0x0D or code_point == 0x85 or unicodedata.category(chr(code_point)) in ("Zs", "Zl", "Zp")
    )


def _to_ranges(code_points: list[int]) -> Ranges:
    ranges: Ranges = []
    for code_point in code_points:
        if ranges and ranges[-1][1] == code_point - 1:
            ranges[-1] = (ranges[-1][0], code_point)
        else:
            ranges.append((code_point, code_point))
    return ranges


def class_ranges() -> dict[str, Ranges]:
    """Sorted, disjoint, inclusive ranges for "letter", "number" and "whitespace"."""
    if unicodedata.unidata_version not in _SUPPORTED_UNIDATA_VERSIONS:
        raise UnicodeVersionError(
            f"this Python's unicodedata is Unicode {unicodedata.unidata_version}; the tables must be Unicode "
            f"{TARGET_UNICODE_VERSION} (what tokenizers' Oniguruma uses), which can be built from "
            f"{', '.join(_SUPPORTED_UNIDATA_VERSIONS)}: run the compiler with Python 3.11 to 3.14"
        )
    added = {
        cls: {cp for first, last in ranges for cp in range(first, last + 1)}
        for cls, ranges in _ASSIGNED_AFTER_14.items()
    }
    members: dict[str, list[int]] = {"letter": [], "number": [], "whitespace": []}
    for code_point in range(0x110000):
        major = unicodedata.category(chr(code_point))[0]
        if major == "L" or code_point in added["L"]:
            members["letter"].append(code_point)
        elif major == "N" or code_point in added["N"]:
            members["number"].append(code_point)
        elif _is_white_space(code_point):
            members["whitespace"].append(code_point)
    return {name: _to_ranges(code_points) for name, code_points in members.items()}
