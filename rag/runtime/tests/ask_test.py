"""The ask CLI end to end with no network, and its errors for bad input.

The whole answering pipeline (embed the question, search the Austen index,
assemble the prompt, generate with llama_int4) runs inside a network
namespace with no interface but loopback: `unshare -rn` where the machine
allows it, else the test's own sandbox (tagged block-network); the test
checks /proc/net/dev in that namespace first, so it cannot pass with a
network.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from tools.python.runfile import runfile

ASK = runfile("rag/runtime/ask")
FLAGS = [
    "--index=" + runfile("rag/austen_int8.flat"),
    "--embedder=" + runfile("models/minilm_l6_int8.pte"),
    "--vocab=" + runfile("models/minilm_l6_vocab.wpt"),
    "--model=" + runfile("models/llama_int4.pte"),
    "--tokenizer=" + runfile("tokenizer/runtime/smollm2.tok"),
]


def _offline_prefix() -> list[str]:
    if shutil.which("unshare") and subprocess.run(["unshare", "-rn", "true"], capture_output=True).returncode == 0:
        return ["unshare", "-rn"]
    return []


def _ask(*args: str, prefix: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    return subprocess.run([*prefix, ASK, *args], capture_output=True, text=True, timeout=600)


class AskTest(unittest.TestCase):
    def test_answers_with_sources_without_network(self) -> None:
        prefix = tuple(_offline_prefix())
        interfaces = subprocess.run([*prefix, "cat", "/proc/net/dev"], capture_output=True, text=True, check=True)
        names = [line.split(":")[0].strip() for line in interfaces.stdout.splitlines()[2:]]
        self.assertEqual(names, ["lo"], f"the pipeline must run with no network (prefix {prefix})")
        print(f"network namespace: {'unshare -rn' if prefix else 'the test sandbox (block-network)'}", file=sys.stderr)

        with tempfile.TemporaryDirectory() as tmp:
            stats_path = os.path.join(tmp, "stats.json")
            result = _ask(
                *FLAGS,
                "--max_new_tokens=16",
                f"--stats_json={stats_path}",
                "Who has taken Netherfield Park, according to Mrs. Long?",
                prefix=prefix,
            )
            self.assertEqual(result.returncode, 0, result.stderr)
            with open(stats_path, encoding="utf-8") as f:
                stats = json.load(f)
        answer, _, sources = result.stdout.partition("\n\nSources:\n")
        self.assertTrue(answer.strip(), "an answer streamed before the sources")
        self.assertRegex(sources, r"\[1\] pride_and_prejudice\.txt, bytes \d+-\d+ \(score 0\.\d+\)")
        retrieval, generation = stats["retrieval"], stats["generation"]
        self.assertEqual(len(retrieval["passages"]), 3)
        self.assertGreaterEqual(retrieval["passages_used"], 1)
        self.assertLessEqual(retrieval["prompt_tokens"], retrieval["budget_tokens"])
        self.assertEqual(generation["prompt_tokens"], retrieval["prompt_tokens"])
        self.assertGreater(generation["generated_tokens"], 0)
        # The passage that answers it ("Mrs. Long says that Netherfield is
        # taken by a young man of large fortune") is retrieved.
        with open(runfile(os.environ["PRIDE_AND_PREJUDICE"]), "rb") as f:
            answer_at = f.read().find(b"Netherfield is taken")
        self.assertGreater(answer_at, 0)
        self.assertTrue(
            any(
                p["document"] == "pride_and_prejudice.txt" and p["byte_start"] <= answer_at < p["byte_end"]
                for p in retrieval["passages"]
            ),
            retrieval["passages"],
        )

    def assertBadInput(self, result: subprocess.CompletedProcess, *phrases: str) -> None:
        self.assertEqual(result.returncode, 2, result.stderr)
        for phrase in phrases:
            self.assertIn(phrase, result.stderr)

    def test_missing_or_damaged_index(self) -> None:
        flags = [f for f in FLAGS if not f.startswith("--index=")]
        self.assertBadInput(
            _ask(*flags, "--index=/nonexistent/austen.flat", "Who?"), "cannot open the index", "rag_index"
        )
        with tempfile.TemporaryDirectory() as tmp:
            damaged = os.path.join(tmp, "damaged.flat")
            with open(runfile("rag/austen_int8.flat"), "rb") as f, open(damaged, "wb") as out:
                out.write(f.read()[:-1000])
            self.assertBadInput(_ask(*flags, f"--index={damaged}", "Who?"), "corrupt or truncated", "rebuild it")

    def test_index_from_another_embedder(self) -> None:
        flags = [f for f in FLAGS if not f.startswith("--embedder=")]
        result = _ask(*flags, "--embedder=" + runfile("models/minilm_l6_fp32.pte"), "Who?")
        self.assertBadInput(result, "was built by another embedder", "rebuild the index")

    def test_questions_too_long_or_empty(self) -> None:
        self.assertBadInput(_ask(*FLAGS, " ".join(["why"] * 300)), "over the embedder's limit of 256")
        long_question = "Why " + " ".join(["did Anne"] * 30) + "?"
        result = _ask(*FLAGS, "--context_tokens=160", "--max_new_tokens=128", long_question)
        self.assertBadInput(result, "over the 32-token budget", "shorten the question")
        self.assertBadInput(_ask(*FLAGS, "  "), "give a question")
        self.assertBadInput(_ask(*FLAGS), "give a question")
        self.assertBadInput(_ask(*FLAGS, "--top_k=0", "Who?"), "--top_k")

    def test_follow_up_questions_retrieve_again_and_reuse_the_session(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            stats_path = os.path.join(tmp, "turns.jsonl")
            result = subprocess.run(
                [ASK, *FLAGS, "--interactive", "--max_new_tokens", "16", f"--stats_json={stats_path}"],
                input="Who has taken Netherfield Park?\nWhat is his income?\n/quit\n",
                capture_output=True,
                text=True,
                timeout=600,
            )
            self.assertEqual(result.returncode, 0, result.stderr)
            with open(stats_path, encoding="utf-8") as f:
                turns = [json.loads(line) for line in f]
        self.assertEqual(len(turns), 2)
        # One retrieval per question, each naming its sources.
        self.assertEqual(result.stderr.count("(sources: "), 2, result.stderr)
        self.assertIn("pride_and_prejudice.txt", result.stderr)
        self.assertEqual(turns[0]["reused_tokens"], 0)
        # The follow-up reuses the cache up to the first question (whose
        # passages the history leaves out), and is asked in the context of
        # the first exchange.
        self.assertGreater(turns[1]["reused_tokens"], 10)
        self.assertEqual(turns[1]["reused_tokens"] + turns[1]["prefilled_tokens"], turns[1]["prompt_tokens"])
        self.assertTrue(result.stdout.strip())
        self.assertBadInput(_ask(*FLAGS, "--interactive", "Who?"), "reads its questions from stdin")


if __name__ == "__main__":
    unittest.main()
