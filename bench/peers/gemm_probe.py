"""The machine's fp32 GEMM rate: the yardstick for prefill, which is bound by arithmetic, not bandwidth.

    python -m bench.peers.gemm_probe --threads=2 --size=2048

Multiplies two size x size fp32 matrices with torch (oneDNN/MKL, as fast as
this CPU's vector units allow) several times and prints the best rate as
JSON. Prefill runs int8 x int4 GEMMs, whose peak can be above fp32's, so a
prefill above 100% of this is possible; below it, the gap is the kernels'.
"""

from __future__ import annotations

import json
import time

from absl import app, flags

FLAGS = flags.FLAGS
flags.DEFINE_integer("threads", 2, "Threads for the GEMM.")
flags.DEFINE_integer("size", 2048, "Matrix size (M = N = K).")
flags.DEFINE_integer("repeats", 8, "Timed multiplications; the best counts.")


def main(argv: list[str]) -> None:
    del argv
    import torch

    torch.set_num_threads(FLAGS.threads)
    n = FLAGS.size
    a, b = torch.randn(n, n), torch.randn(n, n)
    torch.mm(a, b)  # first call: packing and thread start-up
    best = float("inf")
    for _ in range(FLAGS.repeats):
        started = time.perf_counter()
        torch.mm(a, b)
        best = min(best, time.perf_counter() - started)
    print(json.dumps({"size": n, "threads": FLAGS.threads, "fp32_gflop_s": 2 * n**3 / best / 1e9}))


if __name__ == "__main__":
    app.run(main)
