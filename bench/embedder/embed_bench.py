"""Embedding speed of the C++ embedder: ms per query and per passage, fp32 and int8, 1 and 2 threads.

    bazel run //bench:embedder [-- --rounds=3] [-- --record]

Queries are short questions (the `ask` path: one query per question);
passages are 100 paragraphs of Pride and Prejudice, cut at 256 tokens (the
index-building path). Each cell is the median over rounds of //rag/runtime:embed's
median ms per embed, in fresh processes. Prints a Markdown table; --record
writes bench/results/embedder.json, the record docs/rag.md's table comes
from.
"""

from __future__ import annotations

import glob
import json
import os
import statistics
import subprocess
import sys
import tempfile

from absl import app, flags

from bench.record import command
from bench.report import publish
from tools.python.runfile import runfile, workspace_dir

FLAGS = flags.FLAGS
flags.DEFINE_integer("rounds", 3, "Fresh-process runs per cell; each cell is their median.", lower_bound=1)
flags.DEFINE_string("out", "", "Output folder; default bench/out/<date>-embedder in the workspace.")
flags.DEFINE_bool("record", False, "Also write bench/results/embedder.json, the record the docs' table comes from.")

QUERIES = [
    "Who is Mr. Darcy?",
    "Why does Elizabeth refuse the first proposal?",
    "What happens at the Netherfield ball?",
    "Who does Lydia run away with?",
    "Where does Mr. Collins live?",
    "How many daughters do the Bennets have?",
    "What did God create on the first day?",
    "Who built the ark?",
    "What is the name of Abraham's son?",
    "Who led the Israelites out of Egypt?",
    "What is Pemberley?",
    "Who is Lady Catherine de Bourgh?",
    "What did Jane and Bingley do in the end?",
    "Who wrote the letter to Elizabeth?",
    "What are the ten commandments?",
    "Who was swallowed by a great fish?",
]


def external(repo: str, path: str) -> str:
    found = glob.glob(os.path.join(os.path.dirname(workspace_dir()), "*" + repo, path))
    if not found:
        raise FileNotFoundError(f"{repo}/{path} is not in the runfiles")
    return found[0]


def passages(count: int) -> list[str]:
    with open(external("text_corpora", "pride_and_prejudice.txt"), encoding="utf-8") as f:
        paragraphs = [" ".join(p.split()) for p in f.read().split("\n\n") if len(p.split()) >= 8]
    return paragraphs[:: len(paragraphs) // count][:count]


def write_jsonl(path: str, texts: list[str]) -> None:
    with open(path, "w", encoding="utf-8") as f:
        for text in texts:
            f.write(json.dumps({"text": text}) + "\n")


def embed_stats(pte: str, jsonl: str, threads: int, scratch: str) -> dict:
    stats = os.path.join(scratch, "stats.json")
    subprocess.run(
        [
            runfile("rag/runtime/embed"),
            f"--pte={runfile(f'models/{pte}.pte')}",
            f"--vocab={runfile('models/minilm_l6_vocab.wpt')}",
            f"--input={jsonl}",
            f"--output={os.path.join(scratch, 'out.f32')}",
            f"--stats_json={stats}",
            f"--threads={threads}",
        ],
        check=True,
    )
    with open(stats) as f:
        return json.load(f)


def main(argv: list[str]) -> None:
    del argv
    scratch = tempfile.mkdtemp()
    inputs = {"query": os.path.join(scratch, "queries.jsonl"), "passage": os.path.join(scratch, "passages.jsonl")}
    write_jsonl(inputs["query"], QUERIES)
    write_jsonl(inputs["passage"], passages(100))

    lines = [
        f"Median ms per embed over {FLAGS.rounds} fresh processes; {len(QUERIES)} short questions, "
        "100 paragraphs of Pride and Prejudice cut at 256 tokens.",
        "",
        "| program | threads | query ms (p50) | passage ms (p50) | passage tokens/s | load ms | .pte MB |",
        "|---|---|---|---|---|---|---|",
    ]
    results = []
    for pte in ("minilm_l6_fp32", "minilm_l6_int8"):
        size_mb = os.path.getsize(runfile(f"models/{pte}.pte")) / 1e6
        for threads in (1, 2):
            cells = {}
            for kind, jsonl in inputs.items():
                runs = [embed_stats(pte, jsonl, threads, scratch) for _ in range(FLAGS.rounds)]
                cells[kind] = {
                    "ms": statistics.median(r["ms_per_embed_p50"] for r in runs),
                    "tokens_per_s": statistics.median(r["tokens_per_s"] for r in runs),
                    "load_ms": statistics.median(r["load_ms"] for r in runs),
                }
            results.append({"program": pte, "threads": threads, "pte_mb": size_mb, **cells})
            lines.append(
                f"| `{pte}` | {threads} | {cells['query']['ms']:.1f} | {cells['passage']['ms']:.1f} | "
                f"{cells['passage']['tokens_per_s']:.0f} | {cells['query']['load_ms']:.0f} | {size_mb:.1f} |"
            )
            print(lines[-1], flush=True)
    publish(
        "embedder",
        {"rows": results},
        "# embedder\n\n" + "\n".join(lines) + "\n",
        FLAGS.out,
        FLAGS.record,
        command("//bench:embedder", sys.argv[1:]),
    )


if __name__ == "__main__":
    app.run(main)
