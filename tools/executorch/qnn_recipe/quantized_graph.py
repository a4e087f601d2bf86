"""The NPU program's quantized graph in PyTorch, before it is lowered.

export_qnn lowers exactly this graph to the HTP, so it is what the NPU
computes, up to the HTP's own arithmetic: a recipe is measured on it without
a simulator, and the simulator's program is checked against it
(//tools/executorch/tests:qnn_graph_fidelity_test).
"""

from __future__ import annotations

from collections.abc import Sequence

from tools.executorch.export import upstream
from tools.executorch.export.stage_clock import NoClock
from tools.executorch.qnn_recipe import block_offsets, calibration, npu_graph, quantizer


def quantize(config, passages: list[list[int]], soc: str, scheme: str, group_size: int, seq_len: int = 1):
    """One graph of `quantize_methods`: the builder whose pre_autograd_graph_module is the converted graph."""
    return quantize_methods(config, passages, soc, scheme, group_size, {"graph": seq_len})["graph"]


def quantize_methods(
    config, passages: list[list[int]], soc: str, scheme: str, group_size: int, lengths: dict, clock=None
):
    """Load, transform, export, calibrate and convert: LLMEdgeManager's steps in order, our recipe handed in.

    `lengths` maps each method to its tokens per call. seq_len 1 is the
    decode graph (one token, the last position's logits). A longer seq_len is
    a prefill graph: seq_len tokens at positions input_pos (one per token),
    every position's logits, calibrated on seq_len-token chunks of the same
    passages. Each graph is loaded from the checkpoint on its own: calibrating
    one graph writes the KV cache buffers it was traced from, and the load is
    seconds (export/stage_clock.py's profile of llama_int4_qnn, docs/build.md).

    `clock` (export/stage_clock.py) times each step.

    Returns {method: builder}, whose pre_autograd_graph_module is the converted graph.
    """
    clock = clock or NoClock()
    builders = {}
    for method, seq_len in lengths.items():
        with clock.stage(f"{method}: load checkpoint, transforms"):
            manager, offsets = _load(config, scheme, group_size, seq_len)
        with clock.stage(f"{method}: torch.export"):
            manager.export()
            manager.run_canonical_optimizations()
        with clock.stage(f"{method}: observe, calibrate, convert"):
            builders[method] = _quantize(manager, passages, soc, scheme, group_size, offsets, seq_len)
    return builders


def _load(config, scheme: str, group_size: int, seq_len: int):
    """The checkpoint's model through our transforms, as a seq_len-token graph: (manager, BlockOffsets or None)."""
    import copy

    import torch

    if seq_len > 1:
        # Every row's logits: a prompt shorter than seq_len is padded at the
        # end, and its last real token's row is the one the runner reads.
        config = copy.deepcopy(config)
        config.debug.generate_full_logits = True
    transforms = list(npu_graph.TRANSFORMS)
    offsets = block_offsets.BlockOffsets(group_size) if scheme == "16a4w_block_asym" else None
    if offsets:
        transforms.append(offsets)
    manager = upstream.load_llama(config).source_transform(transforms)
    if seq_len > 1:
        manager.example_inputs = (
            torch.zeros((1, seq_len), dtype=torch.long),
            {"input_pos": torch.arange(seq_len, dtype=torch.long)},
        )
    return manager, offsets


def _quantize(exported, passages, soc: str, scheme: str, group_size: int, offsets, seq_len: int):
    qnn_quantizer, _ = quantizer.make_quantizer(soc, scheme)
    if offsets:
        quantizer.use_block_offsets(qnn_quantizer, exported.pre_autograd_graph_module, offsets)
    elif scheme == "16a4w_block":
        quantizer.set_block_sizes(qnn_quantizer, exported.pre_autograd_graph_module, group_size)
    return upstream.quantize_pt2e(exported, qnn_quantizer, calibration.passage_calibrator(passages, seq_len))


class QuantizedGraph:
    """Runs a converted graph one token per call, as the NPU program does (max_seq_len 1)."""

    def __init__(self, builder) -> None:
        self._module = builder.pre_autograd_graph_module

    def forward(self, token: int, position: int):
        """The logits after `token` at KV-cache position `position`."""
        import torch

        with torch.no_grad():
            logits = self._module(
                torch.tensor([[token]], dtype=torch.long),
                {"input_pos": torch.tensor([position], dtype=torch.long)},
            )
        return logits.reshape(-1)

    def prefill(self, prompt: Sequence[int]):
        """Feeds the prompt from position 0; the last token's logits."""
        logits = None
        for position, token in enumerate(prompt):
            logits = self.forward(token, position)
        return logits
