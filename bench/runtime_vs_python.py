"""llm_main against ExecuTorch's Python runtime, side by side on one host.

    bazel run //bench:runtime_vs_python -- --ptes=llama_int4,llama_8da4w --runs=5

Both run the same .pte with the same prompt ids, greedy, EOS ignored, the
same thread count, in alternating rounds so drift and heat hit both alike.
Every run is a fresh load. Prints a Markdown table and writes JSON:
  * decode tokens/s and warm TTFT (prompt in -> first token), medians;
  * cold TTFT = load + TTFT, i.e. what a user waits for from a cold start;
  * ratios C++/Python (decode: higher is better; TTFT: lower is better).
"""

from __future__ import annotations

import json
import statistics

from absl import app, flags

from bench.fixed_prompt import fixed_prompt_ids
from bench.python_timing import timed_generation
from models.programs import resolve
from runtime.llm_main_process import generate_ids
from tools.executorch.pte_runner import PteSession
from tools.python.runfile import runfile

FLAGS = flags.FLAGS
flags.DEFINE_list("ptes", ["llama_int4", "llama_8da4w"], "Bundled program names or .pte paths.")
flags.DEFINE_integer("prompt_tokens", 64, "Prompt length in tokens.")
flags.DEFINE_integer("new_tokens", 64, "Tokens generated per run.")
flags.DEFINE_integer("runs", 5, "Measured rounds (one C++ and one Python run each).")
flags.DEFINE_integer("threads", 2, "Threads for both runtimes.")
flags.DEFINE_string("json_out", "", "Also write the results here.")


def python_run(paths: tuple[str, str, str], ids: list[int]) -> dict:
    from executorch.extension.pybindings import portable_lib

    portable_lib._unsafe_reset_threadpool(FLAGS.threads)
    return timed_generation(paths, ids, len(ids), FLAGS.new_tokens)


def cpp_run(llm_main: str, pte: str, ids: list[int]) -> dict:
    stats = generate_ids(llm_main, pte, ids, FLAGS.new_tokens, threads=FLAGS.threads).stats
    return {"load_ms": stats["load_ms"], "ttft_ms": stats["ttft_ms"], "decode_tok_s": stats["decode_tokens_per_s"]}


def median(runs: list[dict], key: str) -> float:
    return statistics.median(r[key] for r in runs)


def main(argv: list[str]) -> None:
    del argv
    llm_main = runfile("runtime/llm_main")
    results = []
    for name in FLAGS.ptes:
        paths = resolve(name)
        ids = fixed_prompt_ids(PteSession(*paths).encode, FLAGS.prompt_tokens)
        python_run(paths, ids)  # warm the page cache and the allocator for both
        cpp_run(llm_main, paths[0], ids)
        cpp, py = [], []
        for _ in range(FLAGS.runs):
            cpp.append(cpp_run(llm_main, paths[0], ids))
            py.append(python_run(paths, ids))
        row = {"pte": name, "cpp": cpp, "python": py}
        for key in ("load_ms", "ttft_ms", "decode_tok_s"):
            row[f"cpp_{key}"] = median(cpp, key)
            row[f"python_{key}"] = median(py, key)
        row["cpp_cold_ttft_ms"] = statistics.median(r["load_ms"] + r["ttft_ms"] for r in cpp)
        row["python_cold_ttft_ms"] = statistics.median(r["load_ms"] + r["ttft_ms"] for r in py)
        row["decode_ratio"] = row["cpp_decode_tok_s"] / row["python_decode_tok_s"]
        row["ttft_ratio"] = row["cpp_ttft_ms"] / row["python_ttft_ms"]
        row["cold_ttft_ratio"] = row["cpp_cold_ttft_ms"] / row["python_cold_ttft_ms"]
        results.append(row)

    print(
        f"\n{FLAGS.prompt_tokens}-token prompt, {FLAGS.new_tokens} new tokens, "
        f"{FLAGS.threads} threads, median of {FLAGS.runs} fresh-process runs each\n"
    )
    print(
        "| program | decode tok/s C++ / Python (ratio) | TTFT ms C++ / Python (ratio) | cold TTFT ms C++ / Python (ratio) |"
    )
    print("|---|---|---|---|")
    for r in results:
        print(
            f"| {r['pte']} | {r['cpp_decode_tok_s']:.0f} / {r['python_decode_tok_s']:.0f} ({r['decode_ratio']:.2f}) "
            f"| {r['cpp_ttft_ms']:.0f} / {r['python_ttft_ms']:.0f} ({r['ttft_ratio']:.2f}) "
            f"| {r['cpp_cold_ttft_ms']:.0f} / {r['python_cold_ttft_ms']:.0f} ({r['cold_ttft_ratio']:.2f}) |"
        )
    goal = all(r["decode_ratio"] >= 1.0 and r["cold_ttft_ratio"] < 1.0 for r in results)
    print(f"\ngoal (decode ratio >= 1.0 and lower cold TTFT on every program): {'met' if goal else 'NOT met'}")
    if FLAGS.json_out:
        with open(FLAGS.json_out, "w") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    app.run(main)
