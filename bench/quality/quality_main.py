"""bazel run //bench:quality: how well each SmolLM2 program, and llama.cpp, predict and answer.

    bazel run //bench:quality -- --windows=8 --context=512

Two measures, each against the fp32 reference:

- perplexity: every program scores the same windows of the same books
  (//corpora:emma and //corpora:kjv by default: text no program was
  calibrated on), tokenized by the model's own tokenizer, teacher-forced one
  token per forward (see perplexity.py);
- free-running replies to the chat prompts of bench/answers: agreement with
  fp32's replies, degenerate replies and missed factual answers (see
  bench/answers/continuations.py).

llama.cpp runs the GGUF the checkpoint comes from, on the same token ids
(llama_cpp_scorer.py, in the bench venv). Prints progress and Markdown
tables, and writes bench/out/<date>-quality/: results.json and report.md.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

from absl import app, flags

from bench.answers.continuations import LIMITS, score_reply
from bench.answers.prompts import REPLY_TOKENS, ChatPrompt, greedy_replies, load_prompts, prompt_ids
from bench.bench_venv import bench_python
from bench.quality.perplexity import QualityError, Score, score_window, windows
from bench.quality.programs import PROGRAMS, QualityProgram
from bench.quality.sessions import open_program
from bench.record import command
from bench.report import publish
from tools.executorch.export.errors import ExportError
from tools.executorch.pte_runner import PteError, PteSession
from tools.python.runfile import bundled_or_own, runfile

FLAGS = flags.FLAGS
flags.DEFINE_list(
    "programs",
    [p.name for p in PROGRAMS if p.by_default],
    "Programs to score (//models target names); known: " + ", ".join(p.name for p in PROGRAMS),
)
flags.DEFINE_string("reference", PROGRAMS[0].name, "The program the others are compared with.")
flags.DEFINE_list(
    "corpus_files",
    [],
    "Plain-text files to score; the file name minus .txt names the corpus (bazel run passes the bundled books).",
)
flags.DEFINE_integer("context", 512, "Tokens per window (each window starts from an empty KV cache).")
flags.DEFINE_integer("windows", 8, "Windows per corpus, spread evenly over the text.")
flags.DEFINE_integer("threads", 2, "Threads for ExecuTorch's Python runtime and llama.cpp.")
flags.DEFINE_string("peer_gguf", "", "The GGUF llama.cpp runs (bazel run passes SmolLM2's); needed for llama.cpp.")
flags.DEFINE_string(
    "chat_prompts", "", "Chat prompts for the free-running replies (JSON, see bench/answers); empty: none."
)
flags.DEFINE_integer("reply_tokens", REPLY_TOKENS, "Longest free-running reply.")
flags.DEFINE_string("out", "", "Output folder; default bench/out/<date>-quality in the workspace.")
flags.DEFINE_bool("record", False, "Also write bench/results/quality.json, the record the docs' tables come from.")


def load_corpora(paths: list[str]) -> dict[str, str]:
    corpora = {}
    for path in paths:
        full = bundled_or_own(path)
        if not os.path.exists(full):
            raise QualityError(f"--corpus_files: no file {path!r} (looked at {full}); give a plain UTF-8 text file")
        with open(full, encoding="utf-8") as f:
            corpora[os.path.basename(path).removesuffix(".txt")] = f.read()
    return corpora


def open_session(program: QualityProgram) -> PteSession:
    """The program, or for a QNN program scored through its graph, that graph behind the program's limits."""
    if program.calibration:
        print(f"  rebuilding {program.program}'s quantized graph (calibration {program.calibration})", flush=True)
    try:
        return open_program(program.program, program.calibration)
    except ExportError as e:
        raise QualityError(str(e)) from e


def score_program(
    session: PteSession, program: QualityProgram, texts: dict[str, list[list[int]]], prompts: list[ChatPrompt]
) -> tuple[dict[str, dict], list[list[int]]]:
    """Scores every corpus's windows with one loaded program and answers the prompts; prints progress."""
    if texts and session.limits.max_context_len < FLAGS.context:
        raise QualityError(
            f"{program.name} has a {session.limits.max_context_len}-token context, less than "
            f"--context={FLAGS.context}: lower --context"
        )
    results = {}
    for corpus, corpus_windows in texts.items():
        started = time.perf_counter()
        total = Score(0.0, 0)
        for index, window in enumerate(corpus_windows):
            total = total + score_window(session.forward, window)
            elapsed = time.perf_counter() - started
            print(
                f"  {program.name} {corpus}: window {index + 1}/{len(corpus_windows)}, "
                f"perplexity so far {total.perplexity:.2f} ({total.tokens / elapsed:.0f} tok/s)",
                flush=True,
            )
        results[corpus] = {
            "perplexity": total.perplexity,
            "nll_nats": total.nll,
            "tokens": total.tokens,
            "windows": len(corpus_windows),
            "seconds": time.perf_counter() - started,
        }
    replies = greedy_replies(session, prompts, FLAGS.reply_tokens)
    return results, replies


def score_llama_cpp(texts: dict[str, list[list[int]]], prompt_token_ids: list[list[int]]) -> tuple[dict, list]:
    """The same windows and prompts through llama.cpp, in one process of the bench venv."""
    python = bench_python()
    if not python:
        raise QualityError("llama.cpp needs the @pypi_bench interpreter in the runfiles: run through bazel run")
    if not FLAGS.peer_gguf:
        raise QualityError("llama.cpp needs --peer_gguf=<the model's GGUF> (bazel run passes SmolLM2's)")
    corpora = sorted(texts)
    request = {
        "windows": [w for c in corpora for w in texts[c]],
        "prompts": prompt_token_ids,
        "max_new_tokens": FLAGS.reply_tokens,
    }
    with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
        json.dump(request, f)
        f.flush()
        started = time.perf_counter()
        run = subprocess.run(
            [
                python,
                runfile("bench/quality/llama_cpp_scorer.py"),
                f"--gguf={bundled_or_own(FLAGS.peer_gguf)}",
                f"--request={f.name}",
                f"--threads={FLAGS.threads}",
            ],
            capture_output=True,
            text=True,
        )
    if run.returncode != 0:
        raise QualityError(f"llama_cpp_scorer failed:\n{run.stderr[-3000:]}")
    seconds = time.perf_counter() - started  # one process scores every corpus
    answer = json.loads(run.stdout.strip().splitlines()[-1])
    results, nll = {}, iter(answer["nll_nats"])
    for corpus in corpora:
        total = Score(0.0, 0)
        for window in texts[corpus]:
            total = total + Score(next(nll), len(window) - 1)
        results[corpus] = {
            "perplexity": total.perplexity,
            "nll_nats": total.nll,
            "tokens": total.tokens,
            "windows": len(texts[corpus]),
            "seconds_all_corpora": seconds,
        }
        print(f"  llama.cpp {corpus}: perplexity {total.perplexity:.2f}", flush=True)
    return results, answer["replies"]


def reply_summary(prompts: list[ChatPrompt], replies: list[list[int]], reference: list[list[int]], decode) -> dict:
    """One program's free-running figures against the reference's replies."""
    scores = [score_reply(p.text, r, ref, LIMITS) for p, r, ref in zip(prompts, replies, reference, strict=True)]
    factual = [(p, r) for p, r in zip(prompts, replies, strict=True) if p.expect]
    return {
        "overlap": statistics.mean(s.overlap for s in scores),
        "common_prefix": statistics.mean(s.common_prefix for s in scores),
        "degenerate": [
            s.prompt for s, ref in zip(scores, reference, strict=True) if s.degenerate and not LIMITS.check(ref)
        ],
        "answers_right": sum(p.expect.lower() in decode(r).lower() for p, r in factual),
        "answers_asked": len(factual),
        "replies": [decode(r) for r in replies],
    }


def compare(rows: list[dict], reference: str) -> None:
    """Adds each row's difference from the reference program on the same corpus."""
    base = {r["corpus"]: r["perplexity"] for r in rows if r["program"] == reference}
    for row in rows:
        if row["corpus"] in base:
            row["delta"] = row["perplexity"] - base[row["corpus"]]
            row["delta_pct"] = 100.0 * row["delta"] / base[row["corpus"]]


def report_markdown(results: dict) -> str:
    s = results["settings"]
    lines = [
        "# Perplexity of the SmolLM2-135M programs",
        "",
        f"{s['windows']} windows of {s['context']} tokens per corpus (non-overlapping, spread evenly over the text), "
        f"{s['context'] - 1} teacher-forced predictions each, ExecuTorch's Python runtime, "
        f"reference: {results['reference']}. Lower is better.",
        "",
        "| program | what | corpus | perplexity | vs reference | tokens |",
        "|---|---|---|---|---|---|",
    ]
    for r in results["rows"]:
        delta = "reference" if r["program"] == results["reference"] else ""
        if "delta" in r and r["program"] != results["reference"]:
            delta = f"{r['delta']:+.2f} ({r['delta_pct']:+.1f}%)"
        lines.append(
            f"| {r['program']} | {r['what']} | {r['corpus']} | {r['perplexity']:.2f} | {delta} | {r['tokens']} |"
        )
    if results.get("free_running"):
        lines += [
            "",
            f"Free-running greedy replies to {s['chat_prompts']} chat prompts (up to {s['reply_tokens']} tokens) "
            f"against {results['reference']}'s: bag-of-tokens overlap and common prefix (higher is closer), "
            "replies that degenerate where the reference's do not, and factual answers right.",
            "",
            "| program | overlap | common prefix (tokens) | degenerate | answers right |",
            "|---|---|---|---|---|",
        ]
        for name, f in results["free_running"].items():
            lines.append(
                f"| {name} | {f['overlap']:.3f} | {f['common_prefix']:.1f} | {len(f['degenerate'])} | "
                f"{f['answers_right']}/{f['answers_asked']} |"
            )
    lines += [
        "",
        "SmolLM2-135M's packaged weights were 4-bit (Q4_1) before de-quantization, so the fp32 reference "
        "already carries a 4-bit rounding and the int4 costs above are understated compared with a model "
        "trained and shipped in bf16.",
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> None:
    del argv
    if any(p.needs_qnn_sdk for p in PROGRAMS if p.name in FLAGS.programs):
        from tools.qnn import simulator

        simulator.ensure_environment()  # re-executes with the QNN SDK on the library path
    from executorch.extension.pybindings import portable_lib

    portable_lib._unsafe_reset_threadpool(FLAGS.threads)
    by_name = {p.name: p for p in PROGRAMS}
    unknown = [name for name in FLAGS.programs if name not in by_name]
    free_running = {}
    try:
        if unknown:
            raise QualityError(f"--programs: unknown {unknown}; known: {', '.join(by_name)}")
        if FLAGS.reference not in FLAGS.programs:
            raise QualityError(f"--reference={FLAGS.reference} is not in --programs")
        if not FLAGS.corpus_files:
            raise QualityError("no text to score: pass --corpus_files=book.txt,... (bazel run //bench:quality does)")
        corpora = load_corpora(FLAGS.corpus_files)
        if by_name[FLAGS.reference].llama_cpp:
            raise QualityError("--reference must be a program of ours, not llama.cpp")
        reference_session = open_session(by_name[FLAGS.reference])
        tokenizer = reference_session.tokenizer
        prompts = load_prompts(bundled_or_own(FLAGS.chat_prompts)) if FLAGS.chat_prompts else []
        ids_of_prompts = prompt_ids(reference_session, prompts)
        texts = {}
        for name, text in corpora.items():
            ids = tokenizer.encode(text, add_special_tokens=False).ids
            texts[name] = windows(ids, FLAGS.context, FLAGS.windows)
            print(f"{name}: {len(ids)} tokens, {FLAGS.windows} windows of {FLAGS.context}", flush=True)
        rows, replies = [], {}
        for name in FLAGS.programs:
            program = by_name[name]
            print(f"{name} ({program.what}):", flush=True)
            if program.llama_cpp:
                scores, replies[name] = score_llama_cpp(texts, ids_of_prompts)
            else:
                # The reference is loaded already (its tokenizer cut the windows).
                session = reference_session if name == FLAGS.reference else open_session(program)
                scores, replies[name] = score_program(session, program, texts, prompts)
            for corpus, result in scores.items():
                rows.append({"program": name, "what": program.what, "corpus": corpus, **result})
        if prompts:
            for name in FLAGS.programs:
                free_running[name] = reply_summary(
                    prompts, replies[name], replies[FLAGS.reference], reference_session.decode
                )
    except (QualityError, PteError) as e:
        sys.exit(f"quality: {e}")
    compare(rows, FLAGS.reference)
    results = {
        "settings": {
            "context": FLAGS.context,
            "windows": FLAGS.windows,
            "threads": FLAGS.threads,
            "corpora": sorted(texts),
            "chat_prompts": len(prompts),
            "reply_tokens": FLAGS.reply_tokens,
        },
        "reference": FLAGS.reference,
        "rows": rows,
        "free_running": free_running,
    }
    # The BUILD file's args: bazel run passes them, a user does not type them.
    typed = command("//bench:quality", sys.argv[1:], drop=("corpus_files", "chat_prompts", "peer_gguf"))
    publish("quality", results, report_markdown(results), FLAGS.out, FLAGS.record, typed)


if __name__ == "__main__":
    app.run(main)
