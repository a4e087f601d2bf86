"""Times a .pte under ExecuTorch's Python runtime on this host.

    bazel run //bench:python_runtime -- --pte=llama_int4 --runs=5

Warm-up runs first, then N measured runs of a fixed prompt and generation
length; prints median and p95 of load, TTFT and decode tokens/s as JSON.
//bench:runtime_vs_python runs the native runner against it side by side.
"""

from __future__ import annotations

import json
import platform
import statistics

from absl import app, flags

from bench.python_timing import timed_generation
from models.programs import resolve

FLAGS = flags.FLAGS
flags.DEFINE_string("pte", "llama_int4", "Bundled program name, or path to a .pte.")
flags.DEFINE_integer("prompt_tokens", 64, "Prompt length in tokens.")
flags.DEFINE_integer("new_tokens", 64, "Tokens generated per run (greedy, EOS ignored).")
flags.DEFINE_integer("warmup", 1, "Unmeasured runs first.")
flags.DEFINE_integer("runs", 5, "Measured runs.")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


def one_run(paths: tuple[str, str, str]) -> dict:
    return timed_generation(paths, None, FLAGS.prompt_tokens, FLAGS.new_tokens)


def main(argv: list[str]) -> None:
    del argv
    paths = resolve(FLAGS.pte)
    for _ in range(FLAGS.warmup):
        one_run(paths)
    runs = [one_run(paths) for _ in range(FLAGS.runs)]
    # "p95" is the slow tail: the 95th percentile of times, the 5th of rates.
    summary = {
        key: {
            "median": round(statistics.median(r[key] for r in runs), 2),
            "p95": round(percentile([r[key] for r in runs], 0.05 if key.endswith("_tok_s") else 0.95), 2),
        }
        for key in runs[0]
    }
    print(
        json.dumps(
            {
                "pte": FLAGS.pte,
                "runtime": "executorch-python",
                "platform": f"host {platform.machine()}",
                "prompt_tokens": FLAGS.prompt_tokens,
                "new_tokens": FLAGS.new_tokens,
                "runs": runs,
                "summary": summary,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    app.run(main)
