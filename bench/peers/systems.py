"""The systems //bench:peers times: each one a fresh process per run, as a user's app starts cold.

Every run gets the same prompt ids and generates the same number of greedy
tokens with EOS ignored, on the same thread count, and returns one dict:
load_ms, ttft_ms, prefill_tok_s, decode_tok_s and the tokens (plus what the
system reports beyond that). Speeds come from each system's own counters
where it has them, so no Python overhead is charged to a C++ system.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from bench.bench_venv import venv_python
from bench.peers.bench_models import ModelFiles
from runtime.llm_main_process import LlmMainError, generate_ids
from tools.python.runfile import runfile, workspace_dir

SYSTEMS = ("ours", "executorch_python", "llama_cpp", "llama_cpp_passive", "openvino")
LABELS = {
    "ours": "ours: llm_main (C++)",
    "executorch_python": "ExecuTorch Python runtime, same .pte",
    "llama_cpp": "llama.cpp (llama-cpp-python C API)",
    "llama_cpp_passive": "llama.cpp, OMP_WAIT_POLICY=passive",
    "openvino": "OpenVINO GenAI (reads the GGUF)",
}
# llama.cpp's build uses OpenMP, whose idle threads spin: on a quiet machine
# that is its fastest setting, on a busy one (this VM's cores are shared) a
# descheduled spinner can cost it 5-10x. Both settings run; comparisons use
# the better of the two per metric, so llama.cpp is never shown at its worst.
LLAMA_CPP_VARIANTS = ("llama_cpp", "llama_cpp_passive")
PEERS = ("llama_cpp", "openvino")  # the other CPU runtimes (the Python runtime runs our own .pte)


class PeersError(RuntimeError):
    """A system could not run; the message says which and why."""


def run_json(argv: list[str], env: dict | None = None, timeout: float = 1800) -> dict:
    result = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=timeout)
    if result.returncode != 0:
        what = os.path.basename(argv[1] if len(argv) > 1 else argv[0])
        raise PeersError(f"{what} failed:\n{result.stderr[-3000:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def interpreter(repo: str) -> str:
    """The python3 of a hermetic venv that the target lists in its data."""
    path = venv_python(repo)
    if not path:
        raise PeersError(f"the @{repo} interpreter is not in the runfiles: add @{repo}//:python3 to the target's data")
    return path


def gguf_worker_argv(python: str, script: str, gguf: str, ids: list[int], new_tokens: int, threads: int) -> list[str]:
    """The command line of a worker that runs a GGUF (llama_cpp_worker.py, openvino_worker.py)."""
    return [
        python,
        runfile(f"bench/peers/{script}"),
        f"--gguf={gguf}",
        "--prompt_ids=" + ",".join(map(str, ids)),
        f"--new_tokens={new_tokens}",
        f"--threads={threads}",
    ]


class Runner:
    """Starts one fresh process of a system and returns its timings."""

    def __init__(self, files: ModelFiles, threads: int) -> None:
        self.files, self.threads = files, threads
        self.llm_main = runfile("runtime/llm_main")
        self.bench_python = interpreter("pypi_bench")
        self.openvino_python = interpreter("pypi_openvino")

    def run(self, system: str, ids: list[int], new_tokens: int) -> dict:
        result = getattr(self, system)(ids, new_tokens)
        result.setdefault("prefill_tok_s", len(ids) / (result["ttft_ms"] * 1e-3))
        return result

    def ours(self, ids: list[int], new_tokens: int) -> dict:
        try:
            run = generate_ids(self.llm_main, self.files.pte, ids, new_tokens, threads=self.threads)
        except LlmMainError as e:
            raise PeersError(str(e)) from e
        s = run.stats
        return {
            "load_ms": s["load_ms"],
            "ttft_ms": s["ttft_ms"],
            "prefill_tok_s": s["prefill_tokens_per_s"],
            "decode_tok_s": s["decode_tokens_per_s"],
            "tokens": run.tokens,
            "peak_rss_mb": s["peak_rss_mb"],
        }

    def executorch_python(self, ids: list[int], new_tokens: int) -> dict:
        # The same interpreter and this workspace's modules, in a new process.
        env = dict(os.environ, PYTHONPATH=workspace_dir())
        argv = [sys.executable, "-m", "bench.peers.executorch_python_worker", self.files.pte]
        argv += [self.files.tokenizer_json, str(self.threads), str(new_tokens), ",".join(map(str, ids))]
        return run_json(argv, env=env)

    def llama_cpp(self, ids: list[int], new_tokens: int, env: dict | None = None) -> dict:
        argv = gguf_worker_argv(
            self.bench_python, "llama_cpp_worker.py", self.files.gguf, ids, new_tokens, self.threads
        )
        result = run_json(argv, env=env)
        result["prefill_tok_s"] = 1e3 * result["prefill_tokens_counter"] / result["prefill_ms_counter"]
        return result

    def llama_cpp_passive(self, ids: list[int], new_tokens: int) -> dict:
        return self.llama_cpp(ids, new_tokens, env=dict(os.environ, OMP_WAIT_POLICY="passive"))

    def openvino(self, ids: list[int], new_tokens: int) -> dict:
        return run_json(
            gguf_worker_argv(self.openvino_python, "openvino_worker.py", self.files.gguf, ids, new_tokens, self.threads)
        )
