"""Where a decode step's time goes, per op, from ExecuTorch's ETDump.

    python -m bench.peers.etdump_profile PTE THREADS DECODE_STEPS ID,ID,...

Loads the program in ExecuTorch's Python runtime with event tracing on (the
wheel's runtime is built with ETDump and XNNPACK's per-operator profiler),
prefills the prompt, decodes greedily, then reads the trace with the devtools
Inspector and averages each event over the decode steps (the prefill is left
out). Prints JSON: milliseconds per decode step by category.

This profiles ExecuTorch's runtime with upstream's attention kernel, not
llm_main with ours; XNNPACK's share, the delegate-call cost and the
interpreter's cost are the same code in both. Tracing adds a little time to
every event, so the categories are shares, not a speed measurement.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections import defaultdict


def profile(pte: str, threads: int, steps: int, prompt_ids: list[int]) -> dict:
    from executorch.devtools import Inspector
    from executorch.extension.pybindings import portable_lib

    from tools.executorch.pte_runner import forward_inputs, register_llm_kernels

    register_llm_kernels()
    portable_lib._unsafe_reset_threadpool(threads)
    module = portable_lib._load_for_executorch(pte, enable_etdump=True, debug_buffer_size=0)
    takes_rows = "get_logit_rows" in module.method_names()
    logits = module.forward(forward_inputs(prompt_ids, 0, takes_rows))[0]
    token = int(logits.reshape(-1, logits.shape[-1])[-1].argmax())
    for position in range(len(prompt_ids), len(prompt_ids) + steps):
        logits = module.forward(forward_inputs([token], position, takes_rows))[0]
        token = int(logits.reshape(-1).argmax())
    with tempfile.TemporaryDirectory() as scratch:
        etdump = os.path.join(scratch, "trace.etdp")
        module.write_etdump_result_to_file(etdump, os.path.join(scratch, "debug.bin"))
        inspector = Inspector(etdump_path=etdump)

    per_step: dict[str, float] = defaultdict(float)
    calls: dict[str, int] = defaultdict(int)
    for block in inspector.event_blocks:
        if block.name != "Execute":
            continue
        for event in block.events:
            if not event.perf_data or len(event.perf_data.raw) < 2:
                continue
            decode_ms = sum(event.perf_data.raw[1:]) / (len(event.perf_data.raw) - 1)  # [0] is the prefill
            name = event.name
            if name == "Method::execute":
                key = "total"
            elif name == "DELEGATE_CALL":
                key = "xnnpack_delegate_calls"
            elif "QB4W" in name:
                key = "xnnpack_4bit_gemm"
            elif "QC8W" in name:
                key = "xnnpack_8bit_gemm"  # the 8-bit output head
            elif "Fully Connected (NC, F32)" in name:
                key = "xnnpack_fp32_gemm"  # the 4-bit linears' offset terms
            elif event.is_delegated_op:
                key = "xnnpack_other_ops"
            elif name.startswith("llama::custom_sdpa"):
                key = "attention"
            elif name.startswith("llama::update_cache"):
                key = "kv_cache_update"
            elif name == "OPERATOR_CALL":
                key = "operator_calls"
            else:
                key = "portable_ops"
            per_step[key] += decode_ms
            calls[key] += 1
    inside_xnnpack = sum(
        per_step[k] for k in ("xnnpack_4bit_gemm", "xnnpack_8bit_gemm", "xnnpack_fp32_gemm", "xnnpack_other_ops")
    )
    per_step["xnnpack_call_overhead"] = per_step["xnnpack_delegate_calls"] - inside_xnnpack
    per_step["outside_delegates"] = per_step["total"] - per_step["xnnpack_delegate_calls"]
    return {"ms_per_decode_step": dict(per_step), "events_per_step": dict(calls), "decode_steps": steps}


def main(argv: list[str]) -> None:
    pte, threads, steps, prompt_ids = argv
    print(json.dumps(profile(pte, int(threads), int(steps), [int(i) for i in prompt_ids.split(",")])))


if __name__ == "__main__":
    main(sys.argv[1:])
