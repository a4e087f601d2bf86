"""One timed generation under ExecuTorch's Python runtime, in a fresh process.

    python -m bench.peers.executorch_python_worker PTE TOKENIZER_JSON THREADS NEW_TOKENS ID,ID,...

Prints one JSON object (load_ms, ttft_ms, decode_tok_s). //bench:peers starts
it once per round so that every system starts cold, as a user's app would.
"""

from __future__ import annotations

import json
import sys


def main(argv: list[str]) -> None:
    pte, tokenizer_json, threads, new_tokens, prompt_ids = argv
    from executorch.extension.pybindings import portable_lib

    from bench.python_timing import timed_generation

    portable_lib._unsafe_reset_threadpool(int(threads))
    ids = [int(i) for i in prompt_ids.split(",")]
    print(json.dumps(timed_generation((pte, tokenizer_json, None), ids, len(ids), int(new_tokens))))


if __name__ == "__main__":
    main(sys.argv[1:])
