"""One timed OpenVINO GenAI generation, in a fresh process of the @pypi_openvino venv.

    python openvino_worker.py --gguf=model.gguf --prompt_ids=1,2,3 --new_tokens=64 --threads=2

OpenVINO GenAI's LLMPipeline reads the llama GGUF directly (its weights in
their own 4- and 8-bit formats) and compiles it for the CPU. The prompt goes
in as token ids, so no tokenizer is involved in what is timed; greedy, EOS
ignored, exactly --new_tokens tokens. TTFT and the time per output token
come from the pipeline's own performance metrics. Prints one JSON object.
Only the standard library, numpy and openvino_genai are imported: this runs
in @pypi_openvino, not in the exporter's venv.
"""

from __future__ import annotations

import argparse
import errno
import json
import os
import shutil
import tempfile
import time


def writable_path(path: str, scratch: str) -> str:
    """The GGUF, or a private copy of it where its file system is read-only.

    OpenVINO GenAI's GGUF reader opens the file read-write, which a
    read-only mount (Bazel's test sandbox) refuses even to root.
    """
    try:
        with open(path, "r+b"):
            return path
    except OSError as e:
        if e.errno != errno.EROFS:
            raise
    copy = os.path.join(scratch, os.path.basename(path))
    shutil.copyfile(path, copy)
    return copy


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--gguf", required=True)
    parser.add_argument("--prompt_ids", required=True, help="comma-separated token ids")
    parser.add_argument("--new_tokens", type=int, default=64)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    ids = [int(i) for i in args.prompt_ids.split(",")]

    import numpy as np
    import openvino as ov
    import openvino_genai

    with tempfile.TemporaryDirectory() as scratch:
        gguf = writable_path(args.gguf, scratch)  # before the clock starts
        started = time.perf_counter()
        # The compiled model is cached nowhere: every round pays the same load.
        pipe = openvino_genai.LLMPipeline(gguf, "CPU", INFERENCE_NUM_THREADS=args.threads)
        loaded = time.perf_counter()
    config = openvino_genai.GenerationConfig()
    config.max_new_tokens = args.new_tokens
    config.min_new_tokens = args.new_tokens
    config.ignore_eos = True
    config.do_sample = False
    input_ids = ov.Tensor(np.array([ids], dtype=np.int64))
    mask = ov.Tensor(np.ones((1, len(ids)), dtype=np.int64))
    result = pipe.generate(openvino_genai.TokenizedInputs(input_ids, mask), config)
    metrics = result.perf_metrics
    print(
        json.dumps(
            {
                "load_ms": 1e3 * (loaded - started),
                "ttft_ms": metrics.get_ttft().mean,
                "decode_tok_s": 1e3 / metrics.get_tpot().mean,
                "tokens": [int(t) for t in result.tokens[0]],
                "openvino_genai": openvino_genai.__version__,
                "openvino": ov.__version__,
            }
        )
    )


if __name__ == "__main__":
    main()
