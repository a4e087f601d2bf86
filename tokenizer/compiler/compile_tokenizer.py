"""Compiles a Hugging Face byte-level BPE tokenizer.json into the file the C++ runtime reads.

    compile_tokenizer --tokenizer_json=tokenizer.json --tokenizer_config=tokenizer_config.json --out=model.tok

The runtime (tokenizer/runtime/) has no JSON parser, no regex engine and no
Unicode library: everything it needs is resolved here, once, into flat tables.
Only what the runtime implements is accepted: a BPE model, no normalizer, a
ByteLevel decoder, a ChatML or Llama 3 header chat template (or none), and
one of three pre-tokenizers:
  * GPT-2's (SmolLM2): ByteLevel with its own regex;
  * Llama 3's: Split on the cl100k-style regex, then ByteLevel without one
    (BPE with ignore_merges, as Llama 3 sets it, is accepted here);
  * Qwen2's (Qwen2.5, Qwen3): the same with digits split one by one.
Anything else is refused with an error rather than compiled into a tokenizer
that would silently disagree with Hugging Face.

File format, version 3. All integers are little-endian; u32 unsigned, i32
signed (-1 = none). Nothing is aligned: the reader copies each field.
Version 2 added the pre-tokenizer kinds 2 and 3 and PRTK's flags; version 3
the Llama 3 chat template (CHAT kind 2).

  header (20 bytes)
    u8[8]  magic  b"LLMBPETK"
    u32    version = 3
    u32    payload_size   bytes after the header; the file is exactly 20 + this
    u32    payload_crc32  zlib.crc32 of the payload

  payload: these sections, in this order, each as
    u8[4] tag, u32 body_size, body

    b"VOCB"  u32 n; u32 end_offset[n]; u8 bytes[end_offset[n-1]]
             Token i is bytes[end_offset[i-1] : end_offset[i]] (start 0 for
             i = 0): what the ByteLevel decoder turns it into, so decoding is
             concatenation. Ids are dense, 0 .. n-1.
    b"BYTE"  256 x i32: the token of each single byte, the BPE's starting point.
             -1 where the vocab has none: tokenizers then drops that byte
             (SmolLM2 lacks 21, e.g. 0x04 and 0xF5..0xFF), and so does the runtime.
    b"MRGS"  u32 m; m x (u32 left_id, u32 right_id, u32 merged_id)
             In rank order: the merge at index r has rank r (lower merges first).
    b"ADDT"  u32 k; k x (u32 id, u32 flags, u32 length, u8 content[length])
             Added tokens, matched in raw text before pre-tokenization, by id.
             flags: bit 0 special (dropped by decode(skip_special_tokens)),
             bit 1 normalized (matched in a second pass, as tokenizers does).
    b"SPEC"  i32 bos_id; i32 eos_id; u32 s; s x i32 stop_id (sorted)
    b"PRTK"  u32 kind: 1 = ByteLevel with the GPT-2 regex, no prefix space;
                       2 = the Llama 3 regex, then ByteLevel;
                       3 = the Qwen2 regex, then ByteLevel
             u32 flags: bit 0 ignore_merges (a piece that is a whole token is
                       that token)
    b"CHAT"  u32 kind: 0 = none, 1 = ChatML, 2 = Llama 3 headers
             u32 has_default_system; u32 length; u8 default_system_prompt[length]
             kind 2 only: u32 flags (bit 0: the system turn is always written,
             with the default system prompt as its preamble; bit 1: contents
             are trimmed); u32 length; u8 bos[length] (the text that opens a
             prompt, the tokenizer's bos_token)
    b"UNIC"  3 x (u32 count; count x (u32 first, u32 last)): the letter (\\p{L}),
             number (\\p{N}) and whitespace (\\s) code point ranges, inclusive,
             sorted, disjoint; Unicode 16.0 (see unicode_classes.py).
"""

from __future__ import annotations

import json
import os
import struct
import sys
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import jinja2
from absl import app, flags
from jinja2.sandbox import ImmutableSandboxedEnvironment

from tokenizer.compiler import unicode_classes

FLAGS = flags.FLAGS


def _define_flags() -> None:
    # Only as a program: other tools (convert_checkpoint) import the compiler
    # to check a tokenizer and have flags of the same names.
    flags.DEFINE_string("tokenizer_json", None, "Hugging Face tokenizer.json (byte-level BPE).")
    flags.DEFINE_string("tokenizer_config", None, "tokenizer_config.json: bos/eos tokens and chat_template.")
    flags.DEFINE_string("out", None, "Where to write the compiled tokenizer.")
    for name in ("tokenizer_json", "tokenizer_config", "out"):
        flags.mark_flag_as_required(name)


MAGIC = b"LLMBPETK"
VERSION = 3
PRETOKENIZER_GPT2_BYTE_LEVEL = 1
PRETOKENIZER_LLAMA3 = 2
PRETOKENIZER_QWEN2 = 3
BPE_IGNORE_MERGES = 1

# The Split regexes the runtime implements (tokenizer/runtime/pre_tokenizer.h),
# exactly as tokenizer.json spells them.
_LLAMA3_PATTERN = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
_QWEN2_PATTERN = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)
_SPLIT_PATTERNS = {_LLAMA3_PATTERN: PRETOKENIZER_LLAMA3, _QWEN2_PATTERN: PRETOKENIZER_QWEN2}
CHAT_NONE = 0
CHAT_CHATML = 1
CHAT_LLAMA3 = 2
LLAMA3_ALWAYS_SYSTEM = 1
LLAMA3_TRIM = 2
FLAG_SPECIAL = 1
FLAG_NORMALIZED = 2

# End-of-turn / end-of-text markers a chat model may emit instead of its
# eos_token (SmolLM2 ends turns with <|im_end|> but was pre-trained on
# <|endoftext|>); the runner stops on any of them that the vocabulary has.
_STOP_TOKEN_CANDIDATES = ("<|endoftext|>", "<|im_end|>", "<|eot_id|>", "<|end_of_text|>", "<|eom_id|>")


class UnsupportedTokenizerError(Exception):
    """tokenizer.json / tokenizer_config.json uses something the runtime does not implement."""


def byte_level_alphabet() -> dict[int, str]:
    """GPT-2's reversible byte -> printable character map used by ByteLevel.

    Printable Latin-1 bytes stand for themselves; the other 68 bytes (controls,
    space, NBSP, soft hyphen ...) take the code points from U+0100 upward, in
    byte order.
    """
    keeps_itself = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    alphabet = {byte: chr(byte) for byte in keeps_itself}
    shifted = 0
    for byte in range(256):
        if byte not in alphabet:
            alphabet[byte] = chr(256 + shifted)
            shifted += 1
    return alphabet


def token_bytes(token: str, char_to_byte: dict[str, int]) -> bytes:
    """What the ByteLevel decoder turns one token into.

    Like tokenizers, a token with any character outside the byte-level
    alphabet (an added token such as "<|im_start|>" is fine, one with "é" is
    not) is taken as its UTF-8 bytes instead.
    """
    if all(char in char_to_byte for char in token):
        return bytes(char_to_byte[char] for char in token)
    return token.encode("utf-8")


@dataclass(frozen=True)
class AddedToken:
    id: int
    content: str
    special: bool
    normalized: bool


@dataclass(frozen=True)
class ChatTemplate:
    kind: int
    default_system_prompt: str | None
    # Llama 3 headers only: LLAMA3_* flags and the text that opens a prompt.
    llama3_flags: int = 0
    bos: str = ""


@dataclass(frozen=True)
class CompiledTokenizer:
    vocab: list[bytes]
    byte_ids: list[int]
    merges: list[tuple[int, int, int]]
    added_tokens: list[AddedToken]
    bos_id: int
    eos_id: int
    stop_ids: list[int]
    chat: ChatTemplate
    unicode_ranges: dict[str, list[tuple[int, int]]]
    pre_tokenizer: int = PRETOKENIZER_GPT2_BYTE_LEVEL
    ignore_merges: bool = False


# ---------------------------------------------------------------------------
# tokenizer.json
# ---------------------------------------------------------------------------


def _type_name(component: Any) -> str:
    return component.get("type", repr(component)) if isinstance(component, dict) else repr(component)


def _pre_tokenizer_kind(pre: Any) -> int:
    """The PRTK kind of a supported pre_tokenizer; UnsupportedTokenizerError for any other."""
    expected = (
        "ByteLevel with add_prefix_space=false and use_regex=true (the GPT-2 regex), or a Sequence of Split on the "
        "Llama 3 or Qwen2 regex (behavior Isolated) and ByteLevel with use_regex=false"
    )
    if isinstance(pre, dict) and pre.get("type") == "ByteLevel":
        if pre.get("add_prefix_space") or not pre.get("use_regex", True):
            raise UnsupportedTokenizerError(
                f"pre_tokenizer ByteLevel with add_prefix_space={pre.get('add_prefix_space')} "
                f"use_regex={pre.get('use_regex', True)} is not supported: only {expected}"
            )
        return PRETOKENIZER_GPT2_BYTE_LEVEL
    steps = pre.get("pretokenizers") if isinstance(pre, dict) and pre.get("type") == "Sequence" else None
    if not (isinstance(steps, list) and len(steps) == 2 and all(isinstance(s, dict) for s in steps)):
        raise UnsupportedTokenizerError(f"pre_tokenizer {_type_name(pre)!r} is not supported: only {expected}")
    split, byte_level = steps
    pattern = (split.get("pattern") or {}).get("Regex") if split.get("type") == "Split" else None
    if pattern not in _SPLIT_PATTERNS:
        raise UnsupportedTokenizerError(
            f"pre_tokenizer Split on {pattern!r} is not supported: the runtime implements the Llama 3 and Qwen2 "
            "regexes only, and splitting on another one would give other tokens"
        )
    if split.get("behavior") != "Isolated" or split.get("invert"):
        raise UnsupportedTokenizerError(
            f"pre_tokenizer Split with behavior={split.get('behavior')!r} invert={split.get('invert')!r} is not "
            "supported: only behavior Isolated, invert false"
        )
    if byte_level.get("type") != "ByteLevel" or byte_level.get("use_regex", True) or byte_level.get("add_prefix_space"):
        raise UnsupportedTokenizerError(
            f"pre_tokenizer Sequence step 2 {byte_level!r} is not supported: only ByteLevel with use_regex=false and "
            "add_prefix_space=false after the Split"
        )
    return _SPLIT_PATTERNS[pattern]


def _check_supported(tokenizer: dict[str, Any]) -> int:
    """The PRTK kind, after checking that the runtime implements everything the tokenizer does."""
    model = tokenizer.get("model") or {}
    if model.get("type") != "BPE":
        raise UnsupportedTokenizerError(f"model type {_type_name(model)!r} is not supported: only 'BPE' (byte-level)")
    if tokenizer.get("normalizer") is not None:
        raise UnsupportedTokenizerError(
            f"normalizer {_type_name(tokenizer['normalizer'])!r} is not supported: only byte-level BPE without a "
            "normalizer (normalizer: null)"
        )
    kind = _pre_tokenizer_kind(tokenizer.get("pre_tokenizer"))
    decoder = tokenizer.get("decoder")
    if not isinstance(decoder, dict) or decoder.get("type") != "ByteLevel":
        raise UnsupportedTokenizerError(f"decoder {_type_name(decoder)!r} is not supported: only 'ByteLevel'")
    if tokenizer.get("truncation") is not None:
        raise UnsupportedTokenizerError("truncation is set: only tokenizers without truncation (truncation: null)")
    unsupported_model_options = {
        "dropout": model.get("dropout") not in (None, 0, 0.0),
        "continuing_subword_prefix": bool(model.get("continuing_subword_prefix")),
        "end_of_word_suffix": bool(model.get("end_of_word_suffix")),
        "byte_fallback": bool(model.get("byte_fallback")),
        # Llama 3 sets it; the runtime implements it with its regexes.
        "ignore_merges": bool(model.get("ignore_merges")) and kind == PRETOKENIZER_GPT2_BYTE_LEVEL,
    }
    for option, is_set in unsupported_model_options.items():
        if is_set:
            raise UnsupportedTokenizerError(
                f"BPE option {option}={model[option]!r} is not supported: only plain byte-level BPE (dropout null, no "
                "subword prefix/suffix, byte_fallback false, ignore_merges false with the GPT-2 pre-tokenizer)"
            )
    return kind


def _dense_vocab(tokenizer: dict[str, Any], char_to_byte: dict[str, int]) -> tuple[list[bytes], dict[str, int]]:
    token_to_id: dict[str, int] = dict(tokenizer["model"]["vocab"])
    for added in tokenizer.get("added_tokens") or []:
        existing = token_to_id.setdefault(added["content"], added["id"])
        if existing != added["id"]:
            raise UnsupportedTokenizerError(
                f"added token {added['content']!r} has id {added['id']} but the vocab gives it {existing}"
            )
    by_id: dict[int, str] = {}
    for token, token_id in token_to_id.items():
        if token_id in by_id:
            raise UnsupportedTokenizerError(f"tokens {by_id[token_id]!r} and {token!r} share id {token_id}")
        by_id[token_id] = token
    missing = sorted(set(range(len(by_id))) - set(by_id))
    if missing:
        raise UnsupportedTokenizerError(f"token ids are not dense 0..{len(by_id) - 1}: no token has id {missing[0]}")
    return [token_bytes(by_id[token_id], char_to_byte) for token_id in range(len(by_id))], token_to_id


def _merges(tokenizer: dict[str, Any], token_to_id: dict[str, int]) -> list[tuple[int, int, int]]:
    merges = []
    first_rank: dict[tuple[int, int], int] = {}
    for rank, merge in enumerate(tokenizer["model"]["merges"]):
        # Older tokenizer.json files write a merge as "left right", newer ones as a pair.
        left, right = merge.split(" ", 1) if isinstance(merge, str) else merge
        for part in (left, right, left + right):
            if part not in token_to_id:
                raise UnsupportedTokenizerError(f"merge {rank} ({left!r}, {right!r}): {part!r} is not in the vocab")
        pair = (token_to_id[left], token_to_id[right])
        if pair in first_rank:
            # tokenizers would silently keep the later rank; a broken file is more likely than intent.
            raise UnsupportedTokenizerError(
                f"merge ({left!r}, {right!r}) appears twice, at {first_rank[pair]} and {rank}"
            )
        first_rank[pair] = rank
        merges.append((*pair, token_to_id[left + right]))
    return merges


def _added_tokens(tokenizer: dict[str, Any]) -> list[AddedToken]:
    tokens = []
    for added in tokenizer.get("added_tokens") or []:
        for option in ("lstrip", "rstrip", "single_word"):
            if added.get(option):
                raise UnsupportedTokenizerError(
                    f"added token {added['content']!r} has {option}=true: only added tokens without "
                    "lstrip/rstrip/single_word are supported"
                )
        if not added["content"]:
            raise UnsupportedTokenizerError(f"added token {added['id']} is empty")
        tokens.append(AddedToken(added["id"], added["content"], bool(added.get("special")), bool(added["normalized"])))
    return sorted(tokens, key=lambda token: token.id)


# ---------------------------------------------------------------------------
# tokenizer_config.json
# ---------------------------------------------------------------------------


def _token_id(config: dict[str, Any], key: str, token_to_id: dict[str, int]) -> int:
    value = _token_text(config.get(key))
    if value is None:
        return -1
    if value not in token_to_id:
        raise UnsupportedTokenizerError(f"tokenizer_config {key} {value!r} is not a token of tokenizer.json")
    return token_to_id[value]


def render_chatml(messages: Iterable[dict[str, str]], add_generation_prompt: bool, default_system: str | None) -> str:
    """ChatML exactly as tokenizer/runtime/chat_template.cc renders it."""
    parts = []
    for index, message in enumerate(messages):
        if index == 0 and message["role"] != "system" and default_system is not None:
            parts.append(f"<|im_start|>system\n{default_system}<|im_end|>\n")
        parts.append(f"<|im_start|>{message['role']}\n{message['content']}<|im_end|>\n")
    if add_generation_prompt:
        parts.append("<|im_start|>assistant\n")
    return "".join(parts)


def render_llama3(
    messages: Iterable[dict[str, str]],
    add_generation_prompt: bool,
    bos: str,
    flags: int,
    preamble: str | None,
) -> str:
    """Llama 3's header format exactly as tokenizer/runtime/chat_template.cc renders it."""

    def content(text: str) -> str:
        return text.strip() if flags & LLAMA3_TRIM else text

    def turn(role: str, text: str) -> str:
        return f"<|start_header_id|>{role}<|end_header_id|>\n\n{text}<|eot_id|>"

    messages = list(messages)
    parts = []
    if flags & LLAMA3_ALWAYS_SYSTEM:
        system = ""
        if messages and messages[0]["role"] == "system":
            system = content(messages[0]["content"])
            messages = messages[1:]
        parts += [bos, turn("system", (preamble or "") + system)]
    elif messages:
        parts.append(bos)
    parts += [turn(m["role"], content(m["content"])) for m in messages]
    if add_generation_prompt:
        parts.append("<|start_header_id|>assistant<|end_header_id|>\n\n")
    return "".join(parts)


def jinja_renderer(chat_template: str, config: dict[str, Any]) -> Callable[[list[dict[str, str]], bool], str]:
    """Renders chat_template the way transformers' apply_chat_template does.

    No strftime_now: templates that print today's date (Llama 3.2's) fall
    back to their fixed default, which is what the runtime then writes.
    """

    def raise_exception(message: str) -> None:
        raise jinja2.exceptions.TemplateError(message)

    environment = ImmutableSandboxedEnvironment(
        trim_blocks=True, lstrip_blocks=True, extensions=["jinja2.ext.loopcontrols"]
    )
    environment.globals["raise_exception"] = raise_exception
    template = environment.from_string(chat_template)
    special = {key: _token_text(config.get(key)) or "" for key in ("bos_token", "eos_token")}
    return lambda messages, add_generation_prompt: template.render(
        messages=messages, add_generation_prompt=add_generation_prompt, tools=None, documents=None, **special
    )


def _token_text(value: Any) -> str | None:
    """A special token's text; configs write it as a string or as an AddedToken record."""
    return value.get("content") if isinstance(value, dict) else value


# Conversations the template must render exactly as the runtime does. The
# contents are unlikely to occur in a template, so they cannot be confused
# with it; P6 has whitespace a trimming template removes.
_PROBE_CONVERSATIONS: tuple[tuple[tuple[tuple[str, str], ...], bool], ...] = (
    ((), True),
    ((("user", "P1 user"),), False),
    ((("user", "P1 user"),), True),
    ((("system", "P2 system"), ("user", "P2 user")), True),
    ((("user", "P3 a"), ("assistant", "P3 b\n"), ("user", "P3 c")), True),
    ((("system", ""), ("user", ""), ("assistant", "P4 x")), False),
    ((("assistant", "P5 first"), ("system", "P5 late system")), False),
    ((("system", " P6 s "), ("user", "\nP6 u\t")), True),
)


def _matches(render, runtime_render) -> str | None:
    """None when the template renders every probe as the runtime does; else what differs."""
    for turns, add_generation_prompt in _PROBE_CONVERSATIONS:
        messages = [{"role": role, "content": content} for role, content in turns]
        try:
            expected = render(messages, add_generation_prompt)
        except jinja2.exceptions.TemplateError as e:
            if not messages:
                continue  # Templates may refuse an empty conversation; the runtime never renders one.
            return f"for messages={messages} the template fails: {e}"
        got = runtime_render(messages, add_generation_prompt)
        if got != expected:
            return (
                f"for messages={messages} add_generation_prompt={add_generation_prompt} the template gives "
                f"{expected!r}, the runtime would give {got!r}"
            )
    return None


def _chatml(render) -> tuple[ChatTemplate, str | None]:
    probe = render([{"role": "user", "content": "P0 user"}], False)
    system_prefix, probe_suffix = "<|im_start|>system\n", "<|im_end|>\n<|im_start|>user\nP0 user<|im_end|>\n"
    default_system = None
    if probe.startswith(system_prefix) and probe.endswith(probe_suffix):
        default_system = probe[len(system_prefix) : -len(probe_suffix)]
    chat = ChatTemplate(CHAT_CHATML, default_system)
    return chat, _matches(render, lambda m, g: render_chatml(m, g, default_system))


def _llama3(render, config: dict[str, Any]) -> tuple[ChatTemplate, str | None]:
    bos = _token_text(config.get("bos_token")) or ""
    header = "<|start_header_id|>system<|end_header_id|>\n\n"
    probe = render([{"role": "user", "content": "P0 user"}], False)
    flags, preamble = 0, None
    if probe.startswith(bos + header):
        flags |= LLAMA3_ALWAYS_SYSTEM
        preamble = probe[len(bos + header) :].partition("<|eot_id|>")[0]
    if " P0 " not in render([{"role": "user", "content": " P0 "}], False):
        flags |= LLAMA3_TRIM
    chat = ChatTemplate(CHAT_LLAMA3, preamble, llama3_flags=flags, bos=bos)
    return chat, _matches(render, lambda m, g: render_llama3(m, g, bos, flags, preamble))


def _chat_template(config: dict[str, Any]) -> ChatTemplate:
    source = config.get("chat_template")
    if source is None:
        return ChatTemplate(CHAT_NONE, None)
    if not isinstance(source, str):
        raise UnsupportedTokenizerError("chat_template is a list of named templates: only a single template")
    render = jinja_renderer(source, config)
    chatml, chatml_difference = _chatml(render)
    if chatml_difference is None:
        return chatml
    llama3, llama3_difference = _llama3(render, config)
    if llama3_difference is None:
        return llama3
    raise UnsupportedTokenizerError(
        "chat_template is neither ChatML nor Llama 3's header format as the runtime renders them (ChatML with an "
        "optional default system prompt; Llama 3 headers with an optional fixed system preamble). As ChatML: "
        f"{chatml_difference}. As Llama 3: {llama3_difference}"
    )


def _stop_ids(eos_id: int, added_tokens: list[AddedToken]) -> list[int]:
    stops = {token.id for token in added_tokens if token.special and token.content in _STOP_TOKEN_CANDIDATES}
    if eos_id >= 0:
        stops.add(eos_id)
    return sorted(stops)


def compile_tokenizer(tokenizer: dict[str, Any], config: dict[str, Any]) -> CompiledTokenizer:
    pre_tokenizer = _check_supported(tokenizer)
    alphabet = byte_level_alphabet()
    char_to_byte = {char: byte for byte, char in alphabet.items()}
    vocab, token_to_id = _dense_vocab(tokenizer, char_to_byte)
    added_tokens = _added_tokens(tokenizer)
    eos_id = _token_id(config, "eos_token", token_to_id)
    return CompiledTokenizer(
        vocab=vocab,
        byte_ids=[token_to_id.get(alphabet[byte], -1) for byte in range(256)],
        merges=_merges(tokenizer, token_to_id),
        added_tokens=added_tokens,
        bos_id=_token_id(config, "bos_token", token_to_id),
        eos_id=eos_id,
        stop_ids=_stop_ids(eos_id, added_tokens),
        chat=_chat_template(config),
        unicode_ranges=unicode_classes.class_ranges(),
        pre_tokenizer=pre_tokenizer,
        ignore_merges=bool(tokenizer["model"].get("ignore_merges")),
    )


# ---------------------------------------------------------------------------
# Binary file
# ---------------------------------------------------------------------------


def _u32(*values: int) -> bytes:
    return struct.pack(f"<{len(values)}I", *values)


def _i32(*values: int) -> bytes:
    return struct.pack(f"<{len(values)}i", *values)


def _section(tag: bytes, body: bytes) -> bytes:
    return tag + _u32(len(body)) + body


def serialize(compiled: CompiledTokenizer) -> bytes:
    end_offsets, offset = [], 0
    for token in compiled.vocab:
        offset += len(token)
        end_offsets.append(offset)
    vocab = _u32(len(compiled.vocab), *end_offsets) + b"".join(compiled.vocab)
    merges = _u32(len(compiled.merges)) + b"".join(_u32(*merge) for merge in compiled.merges)
    added = _u32(len(compiled.added_tokens))
    for token in compiled.added_tokens:
        content = token.content.encode("utf-8")
        token_flags = (FLAG_SPECIAL if token.special else 0) | (FLAG_NORMALIZED if token.normalized else 0)
        added += _u32(token.id, token_flags, len(content)) + content
    special = _i32(compiled.bos_id, compiled.eos_id) + _u32(len(compiled.stop_ids)) + _i32(*compiled.stop_ids)
    system = (compiled.chat.default_system_prompt or "").encode("utf-8")
    has_system = compiled.chat.default_system_prompt is not None
    chat = _u32(compiled.chat.kind, int(has_system), len(system)) + system
    if compiled.chat.kind == CHAT_LLAMA3:
        bos = compiled.chat.bos.encode("utf-8")
        chat += _u32(compiled.chat.llama3_flags, len(bos)) + bos
    unicode = b""
    for name in ("letter", "number", "whitespace"):
        ranges = compiled.unicode_ranges[name]
        unicode += _u32(len(ranges)) + b"".join(_u32(first, last) for first, last in ranges)
    payload = b"".join(
        (
            _section(b"VOCB", vocab),
            _section(b"BYTE", _i32(*compiled.byte_ids)),
            _section(b"MRGS", merges),
            _section(b"ADDT", added),
            _section(b"SPEC", special),
            _section(b"PRTK", _u32(compiled.pre_tokenizer, BPE_IGNORE_MERGES if compiled.ignore_merges else 0)),
            _section(b"CHAT", chat),
            _section(b"UNIC", unicode),
        )
    )
    return MAGIC + _u32(VERSION, len(payload), zlib.crc32(payload)) + payload


def _write_atomically(path: str, data: bytes) -> None:
    # A half-written file must never look like a tokenizer to the next step.
    temporary = path + ".tmp"
    with open(temporary, "wb") as out:
        out.write(data)
    os.replace(temporary, path)


def main(argv: list[str]) -> None:
    if len(argv) > 1:
        raise app.UsageError(f"unexpected arguments: {argv[1:]}")
    with open(FLAGS.tokenizer_json, encoding="utf-8") as f:
        tokenizer = json.load(f)
    with open(FLAGS.tokenizer_config, encoding="utf-8") as f:
        config = json.load(f)
    try:
        compiled = compile_tokenizer(tokenizer, config)
    except (UnsupportedTokenizerError, unicode_classes.UnicodeVersionError) as error:
        sys.exit(
            f"compile_tokenizer: {error}\n  (--tokenizer_json={FLAGS.tokenizer_json}, "
            f"--tokenizer_config={FLAGS.tokenizer_config})"
        )
    data = serialize(compiled)
    _write_atomically(FLAGS.out, data)
    print(
        f"{FLAGS.out}: {len(data)} bytes, {len(compiled.vocab)} tokens, {len(compiled.merges)} merges, "
        f"{len(compiled.added_tokens)} added tokens, stop ids {compiled.stop_ids}"
    )


if __name__ == "__main__":
    _define_flags()
    app.run(main)
