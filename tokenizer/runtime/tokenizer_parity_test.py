"""The C++ tokenizer against Hugging Face tokenizers and jinja2, on a large text.

Inputs, as flags or environment variables (flags win):
  --tokenizer_cli    / TOKENIZER_CLI     the tokenizer_cli binary
  --tokenizer_bin    / TOKENIZER_BIN     the compiled tokenizer file
  --tokenizer_json   / TOKENIZER_JSON    the tokenizer.json it was compiled from
  --tokenizer_config / TOKENIZER_CONFIG  the tokenizer_config.json (chat template)
"""

from __future__ import annotations

import json
import os
import random
import struct
import subprocess
import sys
import unittest

import jinja2
from jinja2.sandbox import ImmutableSandboxedEnvironment
from tokenizers import Tokenizer

from tokenizer.runtime import tokenizer_parity_corpus

_INPUTS = ("tokenizer_cli", "tokenizer_bin", "tokenizer_json", "tokenizer_config")
PATHS: dict[str, str] = {}


def _take_inputs(argv: list[str]) -> list[str]:
    """Fills PATHS from --name=value flags and the environment; returns the other arguments."""
    rest = []
    for arg in argv:
        name, _, value = arg.removeprefix("--").partition("=")
        if arg.startswith("--") and name in _INPUTS and value:
            PATHS[name] = value
        else:
            rest.append(arg)
    for name in _INPUTS:
        PATHS.setdefault(name, os.environ.get(name.upper(), ""))
        if not PATHS[name] or not os.path.exists(PATHS[name]):
            sys.exit(f"tokenizer_parity_test: give --{name}=PATH or {name.upper()}=PATH (got {PATHS[name]!r})")
    # For a tokenizer whose regex is not GPT-2's: a GPT-2 one whose class
    # tables the code-point test checked directly.
    PATHS["reference_tokenizer_bin"] = os.environ.get("REFERENCE_TOKENIZER_BIN", "")
    return rest


def run_cli(*args: str, stdin: bytes = b"", tokenizer_bin: str = "") -> subprocess.CompletedProcess:
    result = subprocess.run(
        [PATHS["tokenizer_cli"], f"--tokenizer={tokenizer_bin or PATHS['tokenizer_bin']}", *args],
        input=stdin,
        capture_output=True,
        timeout=600,
    )
    if result.returncode != 0:
        raise AssertionError(f"tokenizer_cli {' '.join(args)} failed: {result.stderr.decode(errors='replace')}")
    return result


def cli_encode(text: str) -> tuple[list[int], str]:
    result = run_cli("encode", "--timing", stdin=text.encode("utf-8"))
    return [int(token) for token in result.stdout.split()], result.stderr.decode().strip()


def cli_decode(ids: list[int], skip_special_tokens: bool = False) -> str:
    flags = ["--skip_special_tokens"] if skip_special_tokens else []
    stdin = " ".join(map(str, ids)).encode()
    return run_cli("decode", *flags, stdin=stdin).stdout.decode("utf-8")


def first_difference(expected: list[int], got: list[int]) -> int:
    return next(
        (i for i, (a, b) in enumerate(zip(expected, got, strict=False)) if a != b), min(len(expected), len(got))
    )


class ParityTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.hf = Tokenizer.from_file(PATHS["tokenizer_json"])

    def assertSameIds(self, text: str, expected: list[int], got: list[int]) -> None:
        if expected == got:
            return
        i = first_difference(expected, got)
        context = self.hf.decode(expected[max(0, i - 8) : i + 8], skip_special_tokens=False)
        self.fail(
            f"ids differ at {i} of {len(expected)} (C++ gave {len(got)}): HF {expected[i : i + 8]}, "
            f"C++ {got[i : i + 8]}, around {context!r}"
        )

    def test_large_text_encodes_and_decodes_like_tokenizers(self):
        text = tokenizer_parity_corpus.corpus()
        expected = self.hf.encode(text, add_special_tokens=False).ids
        got, timing = cli_encode(text)
        self.assertSameIds(text, expected, got)
        print(f"\nencode: {len(text.encode('utf-8'))} bytes, {len(got)} tokens identical; C++ {timing}", flush=True)
        if PATHS["reference_tokenizer_bin"]:
            # Only meaningful if this pre-tokenizer splits the corpus unlike
            # GPT-2's: the same vocabulary must then give other ids.
            gpt2 = run_cli("encode", stdin=text.encode("utf-8"), tokenizer_bin=PATHS["reference_tokenizer_bin"])
            gpt2_ids = [int(token) for token in gpt2.stdout.split()]
            self.assertNotEqual(gpt2_ids, got, "the corpus does not tell this pre-tokenizer from GPT-2's")
            print(
                f"vs GPT-2's regex on the same vocabulary: {len(gpt2_ids)} tokens, first differs at "
                f"{first_difference(gpt2_ids, got)}",
                flush=True,
            )

        self.assertEqual(cli_decode(got), self.hf.decode(expected, skip_special_tokens=False))
        self.assertEqual(cli_decode(got, skip_special_tokens=True), self.hf.decode(expected, skip_special_tokens=True))
        print(f"decode: {len(got)} tokens identical, with and without special tokens", flush=True)

    def test_short_texts(self):
        texts = [
            "",
            " ",
            "  ",
            "\n",
            "a",
            "Hello world",
            " Hello  world   ",
            "a \n\n b\t\t c  \xa0 d\u3000\u3000e",
            "it's I'm we're they've he'll she'd 'S 'LL '' 's",
            "1234567890 12.5% 1,000,000 ٣٤٥ ½",
            "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n",
            "<|im_start|><|im_start|>x<|im_end|",
            "🤖👨‍👩‍👧‍👦🇫🇷 1️⃣ e\u0301",
            "中文测试，日本語のテスト。한국어",
            "\x04\x04!\x04!",  # a byte with no token is dropped
        ]
        for text in texts:
            with self.subTest(text=text):
                expected = self.hf.encode(text, add_special_tokens=False).ids
                got, _ = cli_encode(text)
                self.assertSameIds(text, expected, got)

    def test_random_ids_decode_like_tokenizers(self):
        # Random ids join into invalid UTF-8 often: both must replace the same
        # bytes with U+FFFD. Ids past the vocab are ignored by both.
        rng = random.Random(7)
        vocab_size = self.hf.get_vocab_size()
        for _ in range(100):
            ids = [rng.randrange(vocab_size + 10) for _ in range(rng.randint(1, 12))]
            with self.subTest(ids=ids):
                self.assertEqual(cli_decode(ids), self.hf.decode(ids, skip_special_tokens=False))

    def test_chat_prompts_render_like_jinja2(self):
        with open(PATHS["tokenizer_config"], encoding="utf-8") as f:
            config = json.load(f)
        # transformers' apply_chat_template environment and variables.
        template = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True).from_string(
            config["chat_template"]
        )
        special = {"bos_token": config.get("bos_token") or "", "eos_token": config.get("eos_token") or ""}
        conversations = [
            ([("user", "What is the capital of France?")], True),
            ([("user", "Hi")], False),
            ([("system", "You are terse."), ("user", "Hi")], True),
            ([("user", "a"), ("assistant", "b"), ("user", "c <|im_end|> d")], True),
            ([("assistant", "I start."), ("user", "ok")], True),
            ([("system", ""), ("user", "")], False),
            ([("user", "multi\nline\n\n  indented\tüñí©ødé 🤖")], True),
            ([("system", " padded\n"), ("user", "\u3000wide\u00a0spaces\u2003 \t")], True),
            ([], True),
        ]
        for turns, add_generation_prompt in conversations:
            messages = [{"role": role, "content": content} for role, content in turns]
            with self.subTest(messages=messages, add_generation_prompt=add_generation_prompt):
                try:
                    expected = template.render(
                        messages=messages, add_generation_prompt=add_generation_prompt, tools=None, **special
                    )
                except jinja2.exceptions.UndefinedError:
                    if messages:
                        raise
                    # Llama 3's and Qwen's templates refuse an empty
                    # conversation; the runtime never renders one.
                    continue
                flags = [f"--message={role}:{content}" for role, content in turns]
                if add_generation_prompt:
                    flags.append("--add_generation_prompt")
                got = run_cli("chat", *flags).stdout.decode("utf-8")
                self.assertEqual(got, expected)
                self.assertEqual(cli_encode(got)[0], self.hf.encode(expected, add_special_tokens=False).ids)

    def test_every_code_point_is_classified_like_tokenizers(self):
        # The compiled letter / number / whitespace tables, checked against the
        # tokenizers regex itself for all 1.1M code points: a code point joins
        # a preceding "a" iff it is a letter, "1" iff a number, "!" iff neither
        # and not whitespace.
        tables = read_class_tables(PATHS["tokenizer_bin"])
        if json.loads(self.hf.to_str())["pre_tokenizer"]["type"] != "ByteLevel":
            # The probes below rely on GPT-2's regex ("!" + a letter is two
            # pieces there, one piece in Llama 3's). The tables do not depend
            # on the regex: they must equal those of a GPT-2 tokenizer that
            # passed this test.
            reference = PATHS["reference_tokenizer_bin"]
            self.assertTrue(reference, "a non-GPT-2 tokenizer needs REFERENCE_TOKENIZER_BIN")
            self.assertEqual(tables, read_class_tables(reference))
            return
        pre_tokenizer = self.hf.pre_tokenizer
        code_points = [cp for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF]

        def joins(prefix: str) -> set[int]:
            text = "".join(prefix + chr(cp) + "\n" for cp in code_points)
            pairs = {start for _, (start, end) in pre_tokenizer.pre_tokenize_str(text) if end - start == 2}
            return {cp for k, cp in enumerate(code_points) if 3 * k in pairs}

        letters, numbers, other = joins("a"), joins("1"), joins("!")
        whitespace = set(code_points) - letters - numbers - other
        for name, expected in (("letter", letters), ("number", numbers), ("whitespace", whitespace)):
            got = {cp for first, last in tables[name] for cp in range(first, last + 1)}
            self.assertEqual(
                sorted(got ^ expected)[:20], [], f"{name}: code points where the compiled table and tokenizers differ"
            )
        print(f"\nclasses: all {len(code_points)} code points agree with tokenizers", flush=True)


def read_class_tables(path: str) -> dict[str, list[tuple[int, int]]]:
    """The UNIC section of a compiled tokenizer (format: tokenizer/compiler/compile_tokenizer.py)."""
    with open(path, "rb") as f:
        data = f.read()
    position = 20  # header
    while data[position : position + 4] != b"UNIC":
        (size,) = struct.unpack_from("<I", data, position + 4)
        position += 8 + size
    position += 8
    tables = {}
    for name in ("letter", "number", "whitespace"):
        (count,) = struct.unpack_from("<I", data, position)
        values = struct.unpack_from(f"<{2 * count}I", data, position + 4)
        tables[name] = list(zip(values[::2], values[1::2], strict=True))
        position += 4 + 8 * count
    return tables


if __name__ == "__main__":
    unittest.main(argv=_take_inputs(sys.argv))
