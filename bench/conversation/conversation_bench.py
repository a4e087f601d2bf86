"""Turn-by-turn time to first token of a 5-turn chat, with the KV cache
reused between turns (llm_main --interactive) and without (--kv_reuse=false,
what a stateless runner does: prefill the whole conversation every turn).

Both modes run the same conversation in one process each, alternating order
over --runs repetitions; the table shows each turn's median TTFT and the
ratio of turn N to turn 1. On a shared host only the ratios measured in one
run mean much; the absolute figures are context.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile

from absl import app, flags

from bench.record import command
from bench.report import publish
from tools.python.runfile import bundled_or_own, runfile

FLAGS = flags.FLAGS
flags.DEFINE_string("model", "models/llama_int4.pte", "The program (a runfiles path or your own).")
flags.DEFINE_string("tokenizer", "tokenizer/runtime/smollm2.tok", "Its compiled tokenizer.")
flags.DEFINE_integer("runs", 3, "Repetitions of each mode, alternating.")
flags.DEFINE_integer("max_new_tokens", 48, "Reply length cap per turn.")
flags.DEFINE_integer("threads", 2, "CPU threads.")
flags.DEFINE_string("out", "", "Output folder; default bench/out/<date>-conversation in the workspace.")
flags.DEFINE_bool("record", False, "Also write bench/results/conversation.json, the record the docs' tables come from.")

SYSTEM = "You are a friendly assistant who helps a traveller plan a week in Paris. Keep answers short and practical."
TURNS = [
    "I arrive in Paris on Monday morning by train. Which neighbourhood should I stay in for a first visit?",
    "Good. What should I see on my first afternoon if I only have four hours and like art?",
    "How do I get from there to the Eiffel Tower in the evening, and is it worth going up?",
    "On Wednesday it may rain all day. Suggest an indoor plan with a lunch break.",
    "Summarise the plan for my first three days as a short list.",
]


def run_conversation(reuse: bool) -> list[dict]:
    with tempfile.TemporaryDirectory() as tmp:
        stats = os.path.join(tmp, "turns.jsonl")
        result = subprocess.run(
            [
                runfile("runtime/llm_main"),
                f"--model={bundled_or_own(FLAGS.model)}",
                f"--tokenizer={bundled_or_own(FLAGS.tokenizer)}",
                "--interactive",
                f"--system={SYSTEM}",
                f"--max_new_tokens={FLAGS.max_new_tokens}",
                f"--threads={FLAGS.threads}",
                f"--kv_reuse={'true' if reuse else 'false'}",
                "--warmup",
                f"--stats_json={stats}",
            ],
            input="".join(turn + "\n" for turn in TURNS),
            capture_output=True,
            text=True,
            timeout=1800,
        )
        if result.returncode != 0:
            raise SystemExit(f"conversation bench: llm_main failed: {result.stderr[-2000:]}")
        with open(stats) as f:
            return [json.loads(line) for line in f]


def measure() -> dict:
    runs: dict[str, list[list[dict]]] = {"reuse": [], "no_reuse": []}
    for i in range(FLAGS.runs):
        order = ["reuse", "no_reuse"] if i % 2 == 0 else ["no_reuse", "reuse"]
        for mode in order:
            runs[mode].append(run_conversation(mode == "reuse"))
    turns = []
    for t in range(len(TURNS)):
        row = {"turn": t + 1}
        for mode, results in runs.items():
            row[f"{mode}_ttft_ms"] = statistics.median(r[t]["ttft_ms"] for r in results)
            row[f"{mode}_prompt_tokens"] = results[0][t]["prompt_tokens"]
            row[f"{mode}_prefilled_tokens"] = results[0][t]["prefilled_tokens"]
        turns.append(row)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return {"model": FLAGS.model, "threads": FLAGS.threads, "runs": FLAGS.runs, "load_average": load, "turns": turns}


def report(figures: dict) -> str:
    turns = figures["turns"]
    first = turns[0]
    lines = [
        f"# Conversation TTFT: {os.path.basename(figures['model'])}, {figures['threads']} threads, "
        f"median of {figures['runs']} runs per mode (load average {figures['load_average']:.2f})",
        "",
        "| turn | prompt tokens | prefilled, reuse | TTFT ms, reuse | vs turn 1 | prefilled, no reuse "
        "| TTFT ms, no reuse | vs turn 1 |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in turns:
        lines.append(
            f"| {row['turn']} | {row['reuse_prompt_tokens']} | {row['reuse_prefilled_tokens']} "
            f"| {row['reuse_ttft_ms']:.1f} | {row['reuse_ttft_ms'] / first['reuse_ttft_ms']:.2f}x "
            f"| {row['no_reuse_prefilled_tokens']} | {row['no_reuse_ttft_ms']:.1f} "
            f"| {row['no_reuse_ttft_ms'] / first['no_reuse_ttft_ms']:.2f}x |"
        )
    last = turns[-1]
    lines += [
        "",
        f"Turn {last['turn']} TTFT relative to turn 1: {last['reuse_ttft_ms'] / first['reuse_ttft_ms']:.2f}x with reuse "
        f"(goal <= 1.3x), {last['no_reuse_ttft_ms'] / first['no_reuse_ttft_ms']:.2f}x without; reuse makes turn "
        f"{last['turn']} {last['no_reuse_ttft_ms'] / last['reuse_ttft_ms']:.1f}x faster.",
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> None:
    del argv
    figures = measure()
    publish(
        "conversation", figures, report(figures), FLAGS.out, FLAGS.record, command("//bench:conversation", sys.argv[1:])
    )


if __name__ == "__main__":
    app.run(main)
