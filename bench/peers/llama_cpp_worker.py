"""One timed llama.cpp generation, in a fresh process of the bench venv.

    python llama_cpp_worker.py --gguf=model.gguf --prompt_ids=1,2,3 --new_tokens=64 --threads=2

Drives llama.cpp through llama-cpp-python's low-level C API (ctypes): one
llama_decode for the prompt, then one llama_decode per token, greedy argmax
over the logits, no sampler chain and no Python-side tokenization. Decode
speed comes from llama.cpp's own performance counters (time spent inside
llama_decode), so Python's per-call overhead (measured too, as
decode_tok_s_wall) is not charged to llama.cpp. Prints one JSON object.
Only the standard library, numpy and llama_cpp are imported: this runs in
@pypi_bench, not in the exporter's venv.
"""

from __future__ import annotations

import argparse
import json
import time


def greedy(llama_cpp, np, ctx, n_vocab: int) -> int:
    logits = llama_cpp.llama_get_logits_ith(ctx, -1)
    return int(np.ctypeslib.as_array(logits, shape=(n_vocab,)).argmax())


def decode(llama_cpp, ctx, ids: list[int]) -> None:
    tokens = (llama_cpp.llama_token * len(ids))(*ids)
    status = llama_cpp.llama_decode(ctx, llama_cpp.llama_batch_get_one(tokens, len(ids)))
    if status != 0:
        raise RuntimeError(f"llama_decode returned {status}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--gguf", required=True)
    parser.add_argument("--prompt_ids", required=True, help="comma-separated token ids")
    parser.add_argument("--new_tokens", type=int, default=64)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--context", type=int, default=2048)
    args = parser.parse_args()
    ids = [int(i) for i in args.prompt_ids.split(",")]

    import llama_cpp
    import numpy as np

    started = time.perf_counter()
    llama_cpp.llama_backend_init()
    model_params = llama_cpp.llama_model_default_params()
    model_params.n_gpu_layers = 0
    model = llama_cpp.llama_model_load_from_file(args.gguf.encode(), model_params)
    if not model:
        raise SystemExit(f"llama_cpp_worker: cannot load {args.gguf}")
    context_params = llama_cpp.llama_context_default_params()
    context_params.n_ctx = args.context
    context_params.n_batch = max(len(ids), 1)
    context_params.n_ubatch = max(len(ids), 1)
    context_params.n_threads = args.threads
    context_params.n_threads_batch = args.threads
    context_params.no_perf = False
    ctx = llama_cpp.llama_init_from_model(model, context_params)
    if not ctx:
        raise SystemExit("llama_cpp_worker: cannot create a context")
    n_vocab = llama_cpp.llama_vocab_n_tokens(llama_cpp.llama_model_get_vocab(model))
    if max(ids) >= n_vocab:
        raise SystemExit(f"llama_cpp_worker: prompt id {max(ids)} is outside the model's vocabulary ({n_vocab})")
    loaded = time.perf_counter()

    llama_cpp.llama_perf_context_reset(ctx)
    prompt_in = time.perf_counter()
    decode(llama_cpp, ctx, ids)
    tokens = [greedy(llama_cpp, np, ctx, n_vocab)]
    first = time.perf_counter()
    for _ in range(args.new_tokens - 1):
        decode(llama_cpp, ctx, [tokens[-1]])
        tokens.append(greedy(llama_cpp, np, ctx, n_vocab))
    done = time.perf_counter()
    perf = llama_cpp.llama_perf_context(ctx)

    print(
        json.dumps(
            {
                "load_ms": 1e3 * (loaded - started),
                "ttft_ms": 1e3 * (first - prompt_in),
                "prefill_ms_counter": perf.t_p_eval_ms,
                "prefill_tokens_counter": perf.n_p_eval,
                "decode_ms_counter": perf.t_eval_ms,
                "decode_tokens_counter": perf.n_eval,
                "decode_tok_s": 1e3 * perf.n_eval / perf.t_eval_ms,
                "decode_tok_s_wall": (len(tokens) - 1) / (done - first),
                "tokens": tokens,
                "n_vocab": n_vocab,
                "llama_cpp_python": llama_cpp.__version__,
                "system_info": llama_cpp.llama_print_system_info().decode(),
            }
        )
    )
    llama_cpp.llama_free(ctx)
    llama_cpp.llama_model_free(model)


if __name__ == "__main__":
    main()
