"""A large, deterministic test text for comparing tokenizers, from what the venv ships.

Two parts:
  * natural text: documentation, licenses and source files of the installed
    Python packages (the venv is hash-locked, so the same files every time),
    sampled across packages in path order;
  * a stress section from a seeded random generator, aimed at the corners of
    byte-level BPE and the GPT-2 split regex: letters, numbers and marks of
    many scripts, punctuation and symbols, emoji with ZWJ / skin tones /
    flags / keycaps, runs of every kind of whitespace (NBSP, U+3000, tabs,
    CR, LF), contractions, special tokens whole and broken, controls, code
    points from all planes including the newest Unicode letters.
"""

from __future__ import annotations

import os
import random
import sysconfig
import unicodedata
from collections.abc import Callable

SPECIAL_TOKENS = ("<|endoftext|>", "<|im_start|>", "<|im_end|>", "<repo_name>", "<file_sep>", "<empty_output>")

_NATURAL_SUFFIXES = (".md", ".rst", ".txt", ".py", ".pyi", ".json", ".html", ".cfg", ".toml")
_NATURAL_NAMES = ("LICENSE", "METADATA", "COPYING", "NOTICE", "AUTHORS", "README")


def natural_text(max_bytes: int, max_file_bytes: int = 40_000) -> str:
    """Text files of site-packages, every k-th in sorted order so that all packages are sampled."""
    root = sysconfig.get_paths()["purelib"]
    candidates = []
    for directory, subdirectories, files in os.walk(root):
        subdirectories.sort()
        for name in sorted(files):
            if name.endswith(_NATURAL_SUFFIXES) or name.startswith(_NATURAL_NAMES):
                candidates.append(os.path.join(directory, name))
    chunks, total = [], 0
    stride = max(1, len(candidates) // 2000)
    for path in candidates[::stride]:
        try:
            with open(path, "rb") as f:
                data = f.read(max_file_bytes)
            text = data.decode("utf-8")
        except (OSError, UnicodeDecodeError):
            continue  # binary, or cut inside a character: skip, the rest is plenty
        chunks.append(text)
        total += len(data)
        if total >= max_bytes:
            break
    return "\n".join(chunks)


def _assigned(first: int, last: int, categories: str) -> list[str]:
    """Characters in [first, last] whose general category starts with one of `categories`."""
    return [
        chr(cp)
        for cp in range(first, last + 1)
        if not 0xD800 <= cp <= 0xDFFF and unicodedata.category(chr(cp))[0] in categories
    ]


class _Pools:
    def __init__(self) -> None:
        scripts = [
            (0x41, 0x7A),  # Latin
            (0xC0, 0x24F),  # Latin-1, Latin Extended
            (0x370, 0x3FF),  # Greek
            (0x400, 0x4FF),  # Cyrillic
            (0x530, 0x58F),  # Armenian
            (0x5D0, 0x5EA),  # Hebrew
            (0x620, 0x64A),  # Arabic
            (0x900, 0x97F),  # Devanagari (with its marks)
            (0xE01, 0xE5B),  # Thai
            (0x10A0, 0x10FF),  # Georgian
            (0x1100, 0x11FF),  # Hangul Jamo
            (0x3041, 0x30FF),  # Hiragana, Katakana
            (0x4E00, 0x9FFF),  # CJK
            (0xAC00, 0xD7A3),  # Hangul syllables
            (0x1D400, 0x1D7FF),  # Mathematical alphanumerics
            (0x20000, 0x2A6DF),  # CJK extension B
        ]
        self.letters = [_assigned(first, last, "LM") for first, last in scripts]
        self.digits = [
            "0123456789",
            "٠١٢٣٤٥٦٧٨٩",
            "०१२३४५६७८९",
            "０１２３４５６７８９",
            "²³¹¼½¾⅐⅓",
            "ⅠⅡⅢⅣⅤⅥⅦⅧⅨⅩⅪⅫ",
            "①②③⑴⑵",
            "𝟎𝟏𝟐𝟑𝟘𝟙",
        ]
        self.marks = _assigned(0x300, 0x36F, "M") + _assigned(0x1AB0, 0x1AFF, "M") + _assigned(0x20D0, 0x20FF, "M")
        self.punctuation = (
            list("!\"#$%&()*+,-./:;<=>?@[\\]^_`{|}~'")
            + _assigned(0x2010, 0x205E, "PS")
            + _assigned(0x20A0, 0x20C0, "S")
            + _assigned(0x2190, 0x22FF, "S")
            + _assigned(0x2500, 0x257F, "S")
            + _assigned(0x3000, 0x303F, "PS")
            + list("«»¿¡§¶©®°±·×÷")
        )
        self.emoji = [
            "😀",
            "🤖",
            "🎉",
            "❤️",
            "👍🏽",
            "👋🏿",
            "👨‍👩‍👧‍👦",
            "🏳️‍🌈",
            "🧑🏽‍💻",
            "👩‍❤️‍💋‍👨",
            "🇫🇷",
            "🇯🇵",
            "1️⃣",
            "#️⃣",
            "☺︎",
            "🫠",
            "🏴󠁧󠁢󠁳󠁣󠁴󠁿",
        ]
        self.whitespace = [" ", " ", " ", "\t", "\n", "\n", "\r", "\r\n", "\xa0", "\u3000", "\u2009", "\u2028", "\x85"]
        self.whitespace += ["\x0b", "\x0c", "\u200a", "\u202f", "\u205f", "\u1680"]
        self.not_whitespace = ["\u200b", "\u200d", "\ufeff", "\u180e", "\x1c", "\x1f"]  # look blank, are not \s
        self.contractions = ["'s", "'t", "'re", "'ve", "'m", "'ll", "'d", "'S", "'LL", "'Re", "’s", "''s", "'", "'x"]
        self.ascii_words = (
            "the of and to in is it you that he was for on are with as I his they be at one have this".split()
        )
        self.newest_letters = [
            chr(cp) for cp in (0x1C89, 0xA7CB, 0x105C0, 0x10D4A, 0x11F04, 0x13460, 0x2EBF0, 0x31350, 0x16100)
        ] + [chr(cp) for cp in (0x10D40, 0x116D0, 0x1E5F1)]  # Unicode 15.0-16.0 letters, numbers


def stress_text(seed: int, max_chars: int) -> str:
    rng = random.Random(seed)
    pools = _Pools()

    def some(pool: list[str], low: int, high: int) -> str:
        return "".join(rng.choice(pool) for _ in range(rng.randint(low, high)))

    def script_word() -> str:
        return some(rng.choice(pools.letters), 1, 8)

    def any_code_point() -> str:
        while True:
            cp = rng.choice(
                (rng.randrange(0x80), rng.randrange(0x800), rng.randrange(0x10000), rng.randrange(0x110000))
            )
            if not 0xD800 <= cp <= 0xDFFF:
                return chr(cp)

    generators: list[tuple[int, Callable[[], str]]] = [
        (12, lambda: " ".join(rng.choice(pools.ascii_words) for _ in range(rng.randint(1, 6)))),
        (10, script_word),
        (6, lambda: some(rng.choice(pools.digits), 1, 12)),
        (4, lambda: script_word() + some(pools.marks, 1, 3) + script_word()),
        (6, lambda: some(pools.punctuation, 1, 5)),
        (5, lambda: some(pools.emoji, 1, 4)),
        (8, lambda: some(pools.whitespace, 1, 10)),
        (2, lambda: some(pools.not_whitespace, 1, 3)),
        (5, lambda: rng.choice(pools.ascii_words) + rng.choice(pools.contractions)),
        (4, lambda: rng.choice(SPECIAL_TOKENS)),
        (2, lambda: rng.choice(SPECIAL_TOKENS)[: rng.randint(1, 10)]),  # broken special tokens
        (1, lambda: "".join(rng.sample(SPECIAL_TOKENS, 2))),
        (6, lambda: "".join(any_code_point() for _ in range(rng.randint(1, 4)))),
        (2, lambda: some(pools.newest_letters, 1, 4)),
        (2, lambda: chr(rng.randrange(0x20)) * rng.randint(1, 3)),  # controls, some without a token
        (1, lambda: rng.choice("a1! \n\t'") * rng.randint(20, 300)),  # long runs
    ]
    weights = [weight for weight, _ in generators]
    parts, total = [], 0
    while total < max_chars:
        _, generate = rng.choices(generators, weights)[0]
        part = generate() + rng.choice(("", "", " ", " ", "\n"))
        parts.append(part)
        total += len(part)
    return "".join(parts)


def corpus(natural_bytes: int = 4_500_000, stress_chars: int = 400_000, seed: int = 20240) -> str:
    return natural_text(natural_bytes) + "\n" + stress_text(seed, stress_chars)
