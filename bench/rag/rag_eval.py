"""Local RAG over two Austen novels: retrieval quality, speed and answers.

    bazel run //bench:rag                           # both variants, 30 questions
    bazel run //bench:rag -- --variants=int8 --limit=5 --max_new_tokens=32

For each variant (an index and the embedder that built it: `int8` is the
device default, int8 embedder + int8 vectors; `fp32` is fp32 + fp32) and each
question of questions.json it measures, on this host:
  * recall@1 and recall@5 (--top_k): the expected passage (a verbatim
    quote) overlaps the first / any of the top 5 retrieved chunks;
  * embed ms per query (the .pte embedder in C++, warm), search ms on the
    device path (C++ exact scan of the flat file, from ask) and on the host
    path (LanceDB's flat scan of the same vectors, from Python);
  * that both searches return the same top-5 ids;
  * TTFT with the retrieved context (llama_int4 given the top 3 passages,
    --answer_passages) and how often the answer contains the expected fact.
Prints a Markdown table and writes results.json and report.md under
bench/out/<date>-rag/ (--out to change).
"""

from __future__ import annotations

import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Sequence

from absl import app, flags

from bench.record import command
from bench.report import publish
from rag.index import flat_index_format
from tools.python.runfile import runfile

FLAGS = flags.FLAGS
flags.DEFINE_list("variants", ["int8", "fp32"], "Which index/embedder pairs to evaluate.")
flags.DEFINE_integer("limit", 0, "Evaluate only the first N questions (0 = all).")
flags.DEFINE_integer("top_k", 5, "Passages retrieved per question (recall@1 and recall@top_k).")
flags.DEFINE_integer("answer_passages", 3, "Passages offered to the model (ask --top_k).")
flags.DEFINE_integer("max_new_tokens", 48, "Answer length cap.")
flags.DEFINE_integer("threads", 2, "CPU threads for the models.")
flags.DEFINE_integer("search_repeats", 20, "Timed repeats of each search.")
flags.DEFINE_bool("retrieval_only", False, "Skip answering: recall and search times only (seconds, not minutes).")
flags.DEFINE_string("out", "", "Output folder (default: bench/out/<date>-rag in the workspace).")
flags.DEFINE_bool("record", False, "Also write bench/results/rag.json, the record the docs' tables come from.")

VARIANTS = {
    "int8": ("rag/austen_int8", "models/minilm_l6_int8.pte"),
    "fp32": ("rag/austen_fp32", "models/minilm_l6_fp32.pte"),
}
DIM = 384


def _external(path: str) -> str:
    return runfile(os.environ[path])


def expected_spans(questions: list[dict]) -> list[tuple[str, int, int]]:
    """(document, byte start, byte end) of each question's quote."""
    spans = []
    for question in questions:
        with open(_external(question["document"].split(".")[0].upper()), encoding="utf-8") as f:
            text = f.read()
        pattern = r"\s+".join(re.escape(word) for word in question["passage"].split())
        matches = list(re.finditer(pattern, text))
        if len(matches) != 1:
            raise ValueError(f"{question['id']}: the passage occurs {len(matches)} times in {question['document']}")
        start, end = matches[0].span()
        spans.append((question["document"], len(text[:start].encode()), len(text[:end].encode())))
    return spans


def has_fact(answer: str, facts: list[str]) -> bool:
    """True if the answer contains one of the facts as whole words ("5" is not in "15")."""
    return any(re.search(rf"(?<!\w){re.escape(fact)}(?!\w)", answer, re.IGNORECASE) for fact in facts)


def hit(passage: dict, span: tuple[str, int, int]) -> bool:
    document, start, end = span
    return passage["document"] == document and passage["byte_start"] < end and passage["byte_end"] > start


def run_ask(index: str, embedder: str, question: str, stats_path: str) -> tuple[str, dict]:
    result = subprocess.run(
        [runfile("rag/runtime/ask"), f"--index={runfile(index + '.flat')}", f"--embedder={runfile(embedder)}",
         f"--vocab={runfile('models/minilm_l6_vocab.wpt')}", f"--model={runfile('models/llama_int4.pte')}",
         f"--tokenizer={runfile('tokenizer/runtime/smollm2.tok')}", f"--top_k={FLAGS.answer_passages}",
         f"--max_new_tokens={FLAGS.max_new_tokens}", f"--threads={FLAGS.threads}", "--warmup",
         f"--stats_json={stats_path}", question],
        capture_output=True, text=True, check=True, timeout=600,
    )  # fmt: skip
    with open(stats_path, encoding="utf-8") as f:
        return result.stdout.partition("\n\nSources:\n")[0].strip(), json.load(f)


def search_lines(output: str) -> list[dict]:
    return [json.loads(line) for line in output.splitlines() if line.startswith("{")]


def host_and_device_search(index: str, embedder: str, questions: list[dict], tmp: str) -> dict:
    """Embeds the questions with the embed CLI, then times both searches on the same vectors."""
    texts = os.path.join(tmp, "questions.jsonl")
    with open(texts, "w", encoding="utf-8") as f:
        for question in questions:
            f.write(json.dumps({"text": question["question"]}) + "\n")
    vectors = os.path.join(tmp, "questions.f32")
    subprocess.run(
        [runfile("rag/runtime/embed"), f"--pte={runfile(embedder)}", f"--vocab={runfile('models/minilm_l6_vocab.wpt')}",
         f"--input={texts}", f"--output={vectors}", f"--threads={FLAGS.threads}"],
        check=True, capture_output=True, timeout=600,
    )  # fmt: skip
    device = subprocess.run(
        [runfile("rag/runtime/rag_search"), f"--index={runfile(index + '.flat')}", f"--queries={vectors}",
         f"--k={FLAGS.top_k}", f"--repeat={FLAGS.search_repeats}"],
        capture_output=True, text=True, check=True, timeout=600,
    )  # fmt: skip
    env = {"PATH": "/usr/bin:/bin", "RUST_LOG": "error", "HOME": "/tmp"}
    host = subprocess.run(
        [runfile(os.environ["RAG_PYTHON"]), runfile("rag/index/lancedb_search.py"), "--db", runfile(index + ".lancedb"),
         "--queries", vectors, "--k", str(FLAGS.top_k), "--repeat", str(FLAGS.search_repeats)],
        capture_output=True, text=True, check=True, env=env, timeout=1200,
    )  # fmt: skip
    device_ids = [r["ids"] for r in search_lines(device.stdout)]
    host_ids = [r["ids"] for r in search_lines(host.stdout)]
    return {
        "device_search_ms": json.loads(device.stderr.strip().splitlines()[-1])["search_ms_median"],
        "host_search_ms": json.loads(host.stderr.strip().splitlines()[-1])["search_ms_median"],
        "same_ids": sum(d == h for d, h in zip(device_ids, host_ids, strict=True)),
        "device_ids": device_ids,
    }


def _passages(index: str, ids: list[list[int]]) -> list[list[dict]]:
    flat = flat_index_format.read(runfile(index + ".flat"))
    return [
        [
            {
                "document": flat.documents[flat.chunks[i].document].name,
                "byte_start": flat.chunks[i].start,
                "byte_end": flat.chunks[i].end,
            }
            for i in row
        ]
        for row in ids
    ]


def evaluate(variant: str, questions: list[dict], spans: list) -> dict:
    index, embedder = VARIANTS[variant]
    with tempfile.TemporaryDirectory() as tmp:
        search = host_and_device_search(index, embedder, questions, tmp)
        retrieved = _passages(index, search["device_ids"])
        count = len(questions)
        summary = {
            "variant": variant,
            "questions": count,
            "recall_at_1": sum(hit(p[0], s) for p, s in zip(retrieved, spans, strict=True)) / count,
            "recall_at_k": sum(any(hit(x, s) for x in p) for p, s in zip(retrieved, spans, strict=True)) / count,
            "device_search_ms": search["device_search_ms"],
            "host_search_ms": search["host_search_ms"],
            "same_top_ids": f"{search['same_ids']}/{count}",
            "rows": [],
        }
        if FLAGS.retrieval_only:
            return summary
        for number, (question, span) in enumerate(zip(questions, spans, strict=True)):
            answer, stats = run_ask(index, embedder, question["question"], os.path.join(tmp, "stats.json"))
            offered = stats["retrieval"]["passages"]
            contains = has_fact(answer, question["answer"])
            row = {
                "id": question["id"],
                "hit_at_1": hit(retrieved[number][0], span),
                "hit_at_k": any(hit(p, span) for p in retrieved[number]),
                "ask_ids_match_search": [p["chunk"] for p in offered] == search["device_ids"][number][: len(offered)],
                "embed_ms": stats["retrieval"]["embed_ms"],
                "prompt_tokens": stats["retrieval"]["prompt_tokens"],
                "passages_used": stats["retrieval"]["passages_used"],
                "ttft_ms": stats["generation"]["ttft_ms"],
                "answer": answer,
                "answer_has_fact": contains,
            }
            summary["rows"].append(row)
            print(
                f"  {variant} {question['id']}: hit@1={row['hit_at_1']} hit@k={row['hit_at_k']} fact={contains}",
                flush=True,
            )
    rows = summary["rows"]
    if not all(r["ask_ids_match_search"] for r in rows):
        raise RuntimeError("ask retrieved other passages than rag_search for the same questions")
    summary.update(
        {
            "embed_ms": statistics.median(r["embed_ms"] for r in rows),
            "ttft_ms": statistics.median(r["ttft_ms"] for r in rows),
            "prompt_tokens": statistics.median(r["prompt_tokens"] for r in rows),
            "answer_has_fact": sum(r["answer_has_fact"] for r in rows) / len(rows),
        }
    )
    return summary


def table(results: Sequence[dict]) -> str:
    k = FLAGS.top_k
    lines = [
        f"| variant | recall@1 | recall@{k} | embed ms | search ms, device (C++ flat) | search ms, host (LanceDB) "
        f"| same top-{k} ids | TTFT ms (prompt tokens) | answer has the fact |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        searches = f"{r['device_search_ms']:.3f} | {r['host_search_ms']:.2f} | {r['same_top_ids']}"
        if "ttft_ms" in r:
            row = f"{r['embed_ms']:.1f} | {searches} | {r['ttft_ms']:.0f} ({r['prompt_tokens']:.0f}) | {r['answer_has_fact']:.2f}"
        else:
            row = f"not run | {searches} | not run | not run"
        lines.append(f"| {r['variant']} | {r['recall_at_1']:.2f} | {r['recall_at_k']:.2f} | {row} |")
    return "\n".join(lines)


def main(argv: list[str]) -> None:
    del argv
    with open(runfile("bench/rag/questions.json"), encoding="utf-8") as f:
        questions = json.load(f)["questions"]
    if FLAGS.limit:
        questions = questions[: FLAGS.limit]
    spans = expected_spans(questions)
    results = [evaluate(variant, questions, spans) for variant in FLAGS.variants]
    report = (
        f"Local RAG on Pride and Prejudice + Persuasion, {len(questions)} questions, top-{FLAGS.top_k} retrieved, "
        f"{FLAGS.threads} threads; llama_int4 answers from the top {FLAGS.answer_passages} "
        f"({FLAGS.max_new_tokens} new tokens max). Times are medians.\n\n" + table(results) + "\n"
    )
    figures = {"questions": questions, "results": results}
    publish("rag", figures, report, FLAGS.out, FLAGS.record, command("//bench:rag", sys.argv[1:]))


if __name__ == "__main__":
    app.run(main)
