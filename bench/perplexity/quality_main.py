"""bazel run //bench:quality: perplexity of each SmolLM2 program on held-out text.

    bazel run //bench:quality -- --windows=8 --context=512

Every program scores the same windows of the same books (//corpora:emma and
//corpora:kjv by default: text no program was calibrated on), tokenized by
the model's own tokenizer, teacher-forced one token per forward (see
perplexity.py). Prints progress and a Markdown table, and writes
bench/out/<date>-quality/: results.json and report.md, with each program's
perplexity and its difference from the fp32 reference.
"""

from __future__ import annotations

import datetime
import json
import os
import sys
import time

from absl import app, flags

from bench.perplexity.perplexity import QualityError, Score, score_window, windows
from bench.perplexity.programs import PROGRAMS, QualityProgram
from models.programs import resolve
from tools.executorch.pte_runner import PteError, PteSession
from tools.python.runfile import runfile

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
flags.DEFINE_integer("threads", 2, "Threads for ExecuTorch's Python runtime.")
flags.DEFINE_string("out", "", "Output folder; default bench/out/<date>-quality in the workspace.")


def corpus_path(path: str) -> str:
    """A bundled path (runfiles) as is; the user's relative paths mean their shell's folder."""
    bundled = runfile(path)
    if not os.path.isabs(path) and os.path.exists(bundled):
        return bundled
    return os.path.join(os.environ.get("BUILD_WORKING_DIRECTORY", ""), path)


def load_corpora(paths: list[str]) -> dict[str, str]:
    corpora = {}
    for path in paths:
        full = corpus_path(path)
        if not os.path.exists(full):
            raise QualityError(f"--corpus_files: no file {path!r} (looked at {full}); give a plain UTF-8 text file")
        with open(full, encoding="utf-8") as f:
            corpora[os.path.basename(path).removesuffix(".txt")] = f.read()
    return corpora


def score_program(program: QualityProgram, texts: dict[str, list[list[int]]]) -> dict[str, dict]:
    """Scores every corpus's windows with one loaded program; prints progress."""
    paths = resolve(program.name)
    session = PteSession(*paths)
    if session.limits.max_context_len < FLAGS.context:
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
    return results


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
    try:
        if unknown:
            raise QualityError(f"--programs: unknown {unknown}; known: {', '.join(by_name)}")
        if FLAGS.reference not in FLAGS.programs:
            raise QualityError(f"--reference={FLAGS.reference} is not in --programs")
        if not FLAGS.corpus_files:
            raise QualityError("no text to score: pass --corpus_files=book.txt,... (bazel run //bench:quality does)")
        corpora = load_corpora(FLAGS.corpus_files)
        _, tokenizer_json, _ = resolve(FLAGS.reference)
        from tokenizers import Tokenizer

        tokenizer = Tokenizer.from_file(tokenizer_json)
        texts = {}
        for name, text in corpora.items():
            ids = tokenizer.encode(text, add_special_tokens=False).ids
            texts[name] = windows(ids, FLAGS.context, FLAGS.windows)
            print(f"{name}: {len(ids)} tokens, {FLAGS.windows} windows of {FLAGS.context}", flush=True)
        rows = []
        for name in FLAGS.programs:
            program = by_name[name]
            print(f"{name} ({program.what}):", flush=True)
            for corpus, result in score_program(program, texts).items():
                rows.append({"program": name, "what": program.what, "corpus": corpus, **result})
    except (QualityError, PteError) as e:
        sys.exit(f"quality: {e}")
    compare(rows, FLAGS.reference)
    results = {
        "settings": {
            "context": FLAGS.context,
            "windows": FLAGS.windows,
            "threads": FLAGS.threads,
            "corpora": sorted(texts),
        },
        "reference": FLAGS.reference,
        "rows": rows,
    }
    out = FLAGS.out or os.path.join(
        os.environ.get("BUILD_WORKSPACE_DIRECTORY", "."), "bench", "out", f"{datetime.date.today().isoformat()}-quality"
    )
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump(results, f, indent=2)
    report = report_markdown(results)
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write(report)
    print("\n" + report)
    print(f"quality: wrote {out}/: results.json, report.md")


if __name__ == "__main__":
    app.run(main)
