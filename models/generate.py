"""Streams text from a built .pte through ExecuTorch's Python runtime.

    bazel run //models:generate -- --pte=llama_int4 --prompt="What is the capital of France?"

--pte is a program bundled with this binary (llama_int4, tiny_8da4w,
tiny_fp32) or a path to any .pte built by executorch_pte (its tokenizer files
must sit in the llm_checkpoint's output folder, as Bazel lays them out).
"""

from __future__ import annotations

import sys
import time

from absl import app, flags

from models.programs import resolve
from tools.executorch.pte_runner import PteError, PteSession

FLAGS = flags.FLAGS
flags.DEFINE_string("pte", "llama_int4", "Bundled program name, or path to a .pte.")
flags.DEFINE_string("prompt", "What is the capital of France?", "User message.")
flags.DEFINE_bool("chat", True, "Wrap the prompt in the model's chat template.")
flags.DEFINE_integer("max_new_tokens", 64, "Tokens to generate at most.")


def main(argv: list[str]) -> None:
    del argv
    try:
        pte, tokenizer, tokenizer_config = resolve(FLAGS.pte)
        started = time.perf_counter()
        session = PteSession(pte, tokenizer, tokenizer_config)
        loaded = time.perf_counter()
        text = session.chat_prompt(FLAGS.prompt) if FLAGS.chat else FLAGS.prompt
        prompt_ids = session.encode(text)
        count = 0
        first = None
        answer: list[int] = []
        shown = ""
        for token in session.generate(prompt_ids, FLAGS.max_new_tokens):
            if first is None:
                first = time.perf_counter()
            count += 1
            if token in session.limits.eos_ids:
                break
            answer.append(token)
            # Decode the whole answer and print what is new: one token can
            # hold half of a UTF-8 character, which decodes to U+FFFD alone.
            text = session.decode(answer)
            if not text.endswith("\ufffd"):
                sys.stdout.write(text[len(shown) :])
                sys.stdout.flush()
                shown = text
        done = time.perf_counter()
    except PteError as e:
        sys.exit(f"generate: error: {e}")
    decode_rate = (count - 1) / (done - first) if count > 1 else 0.0
    print(
        f"\n[load {1e3 * (loaded - started):.0f} ms, prompt {len(prompt_ids)} tokens, "
        f"TTFT {1e3 * (first - loaded):.0f} ms, decode {decode_rate:.1f} tok/s]",
        file=sys.stderr,
    )


if __name__ == "__main__":
    app.run(main)
