"""bazel run //bench:speculative: decoding with and without speculation.

Three sets of prompts, each answered greedily both ways by the same program,
alternating which mode goes first:

- rag: questions on the Austen index, answered by `ask` from the passages it
  retrieves (answers quote them);
- rewrite: "repeat" and "rewrite" requests for paragraphs of Mansfield Park;
- chat: the everyday prompts of bench/answers, where drafts rarely match.

Per set: decode tokens per second both ways and their ratio, whether every
reply is the same token for token (it must be, under greedy sampling), the
share of drafted tokens the model accepted, the mean tokens accepted per
verify call, and the mean time to the first token both ways (a draft
program reads the prompt beside the target, so its prefill shows there). A
program that cannot verify drafts decodes plainly both ways; the table then
says why. Only ratios within one run mean much on a shared host.

Drafts come from prompt lookup, or with `--mode=draft` from a draft program
with the same tokenizer:

    bazel run //bench:speculative -- --mode=draft --draft_model=models/tiny_int4.pte
"""

from __future__ import annotations

import json
import os
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
flags.DEFINE_integer("max_new_tokens", 96, "Reply length cap.")
flags.DEFINE_integer("threads", 2, "CPU threads.")
flags.DEFINE_integer("rag_questions", 8, "Questions of bench/rag/questions.json to answer.")
flags.DEFINE_integer("chat_prompts", 20, "Prompts of bench/answers/chat_prompts.json to answer.")
flags.DEFINE_string("out", "", "Output folder; default bench/out/<date>-speculative in the workspace.")
flags.DEFINE_enum("mode", "prompt_lookup", ["prompt_lookup", "draft"], "Where drafts come from.")
flags.DEFINE_string("draft_model", "", "With --mode=draft: the draft program (a runfiles path or your own).")
flags.DEFINE_bool(
    "record",
    False,
    "Also write bench/results/speculative.json (speculative-draft.json with --mode=draft), "
    "the record the docs' tables come from.",
)
PARAGRAPHS = 4
REQUESTS = ("Repeat this paragraph word for word:", "Rewrite this paragraph in plain modern English:")


def paragraphs(text: str, count: int) -> list[str]:
    """`count` paragraphs of 60-120 words, spread evenly over the book."""
    found = [" ".join(p.split()) for p in text.split("\n\n")]
    found = [p for p in found if 60 <= len(p.split()) <= 120]
    if len(found) < count:
        raise SystemExit(f"speculative bench: only {len(found)} paragraphs of 60-120 words; need {count}")
    step = len(found) // count
    return [found[i * step] for i in range(count)]


def run(argv: list[str], stats_key: str | None) -> tuple[str, dict]:
    with tempfile.TemporaryDirectory() as tmp:
        stats_path = os.path.join(tmp, "stats.json")
        result = subprocess.run([*argv, f"--stats_json={stats_path}"], capture_output=True, text=True, timeout=1800)
        if result.returncode != 0:
            raise SystemExit(f"speculative bench: {os.path.basename(argv[0])} failed: {result.stderr[-2000:]}")
        with open(stats_path) as f:
            stats = json.load(f)
    return result.stdout, stats[stats_key] if stats_key else stats


def modes() -> tuple[str, str]:
    return ("off", FLAGS.mode)


def draft_flags(mode: str) -> list[str]:
    return [f"--draft_model={bundled_or_own(FLAGS.draft_model)}"] if mode == "draft" else []


def llm_main(prompt: str, mode: str) -> tuple[str, dict]:
    return run(
        [
            runfile("runtime/llm_main"),
            f"--model={bundled_or_own(FLAGS.model)}",
            f"--tokenizer={bundled_or_own(FLAGS.tokenizer)}",
            f"--prompt={prompt}",
            f"--max_new_tokens={FLAGS.max_new_tokens}",
            f"--threads={FLAGS.threads}",
            f"--speculative={mode}",
            *draft_flags(mode),
            "--print_ids",
            "--warmup",
        ],
        None,
    )


def ask(question: str, mode: str) -> tuple[str, dict]:
    return run(
        [
            runfile("rag/runtime/ask"),
            f"--index={runfile('rag/austen_int8.flat')}",
            f"--embedder={runfile('models/minilm_l6_int8.pte')}",
            f"--vocab={runfile('models/minilm_l6_vocab.wpt')}",
            f"--model={bundled_or_own(FLAGS.model)}",
            f"--tokenizer={bundled_or_own(FLAGS.tokenizer)}",
            f"--max_new_tokens={FLAGS.max_new_tokens}",
            f"--threads={FLAGS.threads}",
            f"--speculative={mode}",
            *draft_flags(mode),
            "--warmup",
            question,
        ],
        "generation",
    )


def prompt_sets() -> dict[str, list[tuple[str, str]]]:
    """{set: [(how, prompt)]}; `how` is "ask" or "llm_main"."""
    with open(runfile("bench/rag/questions.json")) as f:
        questions = [q["question"] for q in json.load(f)["questions"]][: FLAGS.rag_questions]
    with open(runfile(os.environ["MANSFIELD_PARK"]), encoding="utf-8") as f:
        book = f.read()
    rewrite = [f"{request}\n\n{p}" for p in paragraphs(book, PARAGRAPHS) for request in REQUESTS]
    with open(runfile("bench/answers/chat_prompts.json")) as f:
        chat = [p["text"] for p in json.load(f)["prompts"]][: FLAGS.chat_prompts]
    return {
        "rag": [("ask", q) for q in questions],
        "rewrite": [("llm_main", p) for p in rewrite],
        "chat": [("llm_main", p) for p in chat],
    }


def measure() -> dict:
    sets = {}
    for name, prompts in prompt_sets().items():
        rows = []
        for i, (how, prompt) in enumerate(prompts):
            print(f"{name} {i + 1}/{len(prompts)}", flush=True)
            runs = {}
            for mode in modes() if i % 2 == 0 else reversed(modes()):
                output, stats = (ask if how == "ask" else llm_main)(prompt, mode)
                runs[mode] = {"output": output, "stats": stats}
            rows.append(runs)
        sets[name] = summarize(rows)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return {
        "model": FLAGS.model,
        "mode": FLAGS.mode,
        "draft_model": FLAGS.draft_model,
        "threads": FLAGS.threads,
        "load_average": load,
        "sets": sets,
    }


def summarize(rows: list[dict]) -> dict:
    def ttft(mode: str) -> float:
        return sum(r[mode]["stats"]["ttft_ms"] for r in rows) / len(rows)

    def rate(mode: str) -> float:
        tokens = sum(len(r[mode]["stats"]["token_latency_ms"]) for r in rows)
        ms = sum(r[mode]["stats"]["decode_ms"] for r in rows)
        return 1000.0 * tokens / ms if ms else 0.0

    fast = [r[FLAGS.mode]["stats"] for r in rows]
    drafted = sum(s["drafted_tokens"] for s in fast)
    accepted = sum(s["accepted_tokens"] for s in fast)
    calls = sum(s["draft_calls"] for s in fast)
    return {
        "prompts": len(rows),
        "same_replies": sum(r["off"]["output"] == r[FLAGS.mode]["output"] for r in rows),
        "plain_tok_s": rate("off"),
        "speculative_tok_s": rate(FLAGS.mode),
        "plain_ttft_ms": ttft("off"),
        "speculative_ttft_ms": ttft(FLAGS.mode),
        "acceptance": accepted / drafted if drafted else 0.0,
        "mean_accepted": accepted / calls if calls else 0.0,
        "speculation": sorted({s["speculation"] for s in fast}),
    }


def report(figures: dict) -> str:
    source = "prompt lookup" if figures["mode"] == "prompt_lookup" else f"drafts of `{figures['draft_model']}`"
    lines = [
        f"# Speculative decoding: {source} against plain decoding",
        "",
        f"`{figures['model']}`, {figures['threads']} threads, greedy, up to {FLAGS.max_new_tokens} new tokens, "
        f"each prompt both ways in alternating order; load average {figures['load_average']:.2f} at the end.",
        "",
        "| set | prompts | same replies | plain tok/s | speculative tok/s | speed-up | acceptance | mean accepted "
        "| TTFT ms, plain / speculative | speculation |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, s in figures["sets"].items():
        speedup = s["speculative_tok_s"] / s["plain_tok_s"] if s["plain_tok_s"] else 0.0
        lines.append(
            f"| {name} | {s['prompts']} | {s['same_replies']}/{s['prompts']} | {s['plain_tok_s']:.1f} "
            f"| {s['speculative_tok_s']:.1f} | {speedup:.2f}x | {100 * s['acceptance']:.0f}% "
            f"| {s['mean_accepted']:.2f} | {s['plain_ttft_ms']:.0f} / {s['speculative_ttft_ms']:.0f} "
            f"| {'; '.join(s['speculation'])} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> None:
    del argv
    if (FLAGS.mode == "draft") != bool(FLAGS.draft_model):
        raise app.UsageError("--mode=draft and --draft_model go together (e.g. --draft_model=models/tiny_int4.pte)")
    figures = measure()
    publish(
        "speculative" if FLAGS.mode == "prompt_lookup" else "speculative-draft",
        figures,
        report(figures),
        FLAGS.out,
        FLAGS.record,
        command("//bench:speculative", sys.argv[1:]),
    )


if __name__ == "__main__":
    app.run(main)
