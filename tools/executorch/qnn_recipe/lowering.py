"""Lowers a QNN program's quantized graphs to the HTP as one multi-method program.

The program has `forward`, the one-token decode graph, and, when the export
asks for one, `prefill`, a fixed-length graph that reads a whole chunk of the
prompt in one execution. The two share one KV cache:

- QnnPartitioner leaves the cache buffers out of the QNN contexts
  (skip_mutable_buffer). Delegated, each context would keep a private copy,
  and a `forward` after `prefill` would not see the prompt.
- The memory plan puts every mutable buffer in its own memory id, at the same
  offsets in both methods (share_mutable_buffers). A runtime that gives both
  methods the same buffer for that id gets one cache that both update.

The cache stays fp32 between calls; each context quantizes it on the way in
with its own calibrated scale, so the two graphs need not agree on one.
"""

from __future__ import annotations

FORWARD = "forward"
PREFILL = "prefill"
# A constant method, true in a program whose methods share their weights.
WEIGHT_SHARING_METHOD = "get_qnn_weight_sharing"


def _positional(module):
    """`module` called as f(tokens, input_pos): the lowering traces positional inputs only."""
    import torch

    class Positional(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.inner = module

        def forward(self, tokens, input_pos):
            return self.inner(tokens, {"input_pos": input_pos})

    return Positional()


def example_inputs(seq_len: int):
    """(tokens, input_pos) of a seq_len-token call at positions 0..seq_len-1."""
    import torch

    return (torch.zeros((1, seq_len), dtype=torch.long), torch.arange(seq_len, dtype=torch.long))


def lower(graphs: dict, soc: str, constant_methods: dict, weight_sharing: bool = False):
    """Lowers `graphs` ({method: (converted module, seq_len)}) for `soc`.

    The methods' graphs are compiled into one QNN context; with
    weight_sharing its graphs keep one copy of the weights they have in
    common (all of them: weight quantization does not depend on the
    calibration), else a copy each.

    Returns the edge program manager (delegated, before the memory plan) and
    the ExecutorchProgramManager whose buffer is the .pte.
    """
    from executorch.backends.qualcomm.serialization.qc_schema import QcomChipset
    from executorch.backends.qualcomm.utils.utils import (
        generate_htp_compiler_spec,
        generate_qnn_executorch_compiler_spec,
        to_edge_transform_and_lower_to_qnn,
    )
    from executorch.exir import ExecutorchBackendConfig
    from executorch.exir.passes import MemoryPlanningPass

    specs = generate_qnn_executorch_compiler_spec(
        soc_model=getattr(QcomChipset, soc),
        backend_options=generate_htp_compiler_spec(use_fp16=False, use_weight_sharing=weight_sharing),
    )
    edge = to_edge_transform_and_lower_to_qnn(
        {name: _positional(module) for name, (module, _) in graphs.items()},
        {name: example_inputs(seq_len) for name, (_, seq_len) in graphs.items()},
        {name: specs for name in graphs},
        constant_methods=constant_methods,
        skip_mutable_buffer=True,
    )
    program = edge.to_executorch(
        ExecutorchBackendConfig(
            # Inputs are the caller's (token ids, positions); the cache is
            # planned once for every method.
            memory_planning_pass=MemoryPlanningPass(alloc_graph_input=False, share_mutable_buffers=True)
        )
    )
    return edge, program
