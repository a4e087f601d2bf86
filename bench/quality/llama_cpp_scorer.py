"""llama.cpp's side of //bench:quality, in a fresh process of the bench venv.

    python llama_cpp_scorer.py --gguf=model.gguf --request=in.json --threads=2

The request holds token windows to score and chat prompts to answer, both
already tokenized by the caller with the model's tokenizer (the GGUF's
vocabulary is the same). Each window is one llama_decode with logits at every
position, scored like perplexity.py scores our programs: position t's logits
against token t + 1, from an empty KV cache. Each prompt is answered greedily
until an end-of-generation token or the length limit. Prints one JSON object.

Only the standard library, numpy and llama_cpp are imported: this runs in
@pypi_bench, not in the exporter's venv.
"""

from __future__ import annotations

import argparse
import json


def log_softmax_at(np, logits, target: int) -> float:
    row = logits.astype(np.float64)
    top = row.max()
    return float(row[target] - top - np.log(np.exp(row - top).sum()))


class Llama:
    def __init__(self, llama_cpp, np, gguf: str, threads: int, context: int) -> None:
        self.c, self.np = llama_cpp, np
        llama_cpp.llama_backend_init()
        model_params = llama_cpp.llama_model_default_params()
        model_params.n_gpu_layers = 0
        self.model = llama_cpp.llama_model_load_from_file(gguf.encode(), model_params)
        if not self.model:
            raise SystemExit(f"llama_cpp_scorer: cannot load {gguf}")
        params = llama_cpp.llama_context_default_params()
        params.n_ctx = params.n_batch = params.n_ubatch = context
        params.n_threads = params.n_threads_batch = threads
        self.ctx = llama_cpp.llama_init_from_model(self.model, params)
        if not self.ctx:
            raise SystemExit("llama_cpp_scorer: cannot create a context")
        self.vocab = llama_cpp.llama_model_get_vocab(self.model)
        self.n_vocab = llama_cpp.llama_vocab_n_tokens(self.vocab)
        self.batch = llama_cpp.llama_batch_init(context, 0, 1)

    def decode(self, ids: list[int], start: int, all_logits: bool) -> None:
        """Feeds ids at positions start.. into sequence 0."""
        b = self.batch
        b.n_tokens = len(ids)
        for i, token in enumerate(ids):
            b.token[i] = token
            b.pos[i] = start + i
            b.n_seq_id[i] = 1
            b.seq_id[i][0] = 0
            b.logits[i] = all_logits or i == len(ids) - 1
        if self.c.llama_decode(self.ctx, b) != 0:
            raise SystemExit("llama_cpp_scorer: llama_decode failed")

    def logits(self, i: int):
        return self.np.ctypeslib.as_array(self.c.llama_get_logits_ith(self.ctx, i), shape=(self.n_vocab,))

    def reset(self) -> None:
        self.c.llama_memory_clear(self.c.llama_get_memory(self.ctx), True)

    def score(self, window: list[int]) -> float:
        """Summed negative log-likelihood of window[1:], in nats."""
        self.reset()
        self.decode(window, 0, all_logits=True)
        return -sum(log_softmax_at(self.np, self.logits(t), window[t + 1]) for t in range(len(window) - 1))

    def answer(self, ids: list[int], max_new_tokens: int) -> list[int]:
        self.reset()
        self.decode(ids, 0, all_logits=False)
        reply = []
        for step in range(max_new_tokens):
            token = int(self.logits(-1).argmax())
            reply.append(token)
            if self.c.llama_vocab_is_eog(self.vocab, token):
                break
            self.decode([token], len(ids) + step, all_logits=False)
        return reply


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--gguf", required=True)
    parser.add_argument(
        "--request", required=True, help='JSON: {"windows": [[ids]], "prompts": [[ids]], "max_new_tokens": n}'
    )
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    with open(args.request) as f:
        request = json.load(f)

    import llama_cpp
    import numpy as np

    longest = max(
        [len(w) for w in request.get("windows", [])]
        + [len(p) + request.get("max_new_tokens", 0) for p in request.get("prompts", [])]
        + [8]
    )
    llama = Llama(llama_cpp, np, args.gguf, args.threads, longest)
    print(
        json.dumps(
            {
                "nll_nats": [llama.score(w) for w in request.get("windows", [])],
                "replies": [llama.answer(p, request.get("max_new_tokens", 48)) for p in request.get("prompts", [])],
                "llama_cpp_python": llama_cpp.__version__,
            }
        )
    )


if __name__ == "__main__":
    main()
