"""The QnnQuantizer of a QNN program: activation/weight bits, and block sizes for LPBQ."""

from __future__ import annotations

import os

from tools.executorch.export.choices import read_choices

# The rule's own list (a data dependency), beside this package as in the checkout.
CHOICES = read_choices(
    os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "private", "qnn_choices.bzl")
)
SCHEMES = tuple(CHOICES["quantize"])
BLOCK_SIZES = tuple(CHOICES["group_size"])


def make_quantizer(soc: str, scheme: str):
    """QnnQuantizer for `scheme` (ExecuTorch's llama helper offers only 8a8w/16a16w/16a4w); returns it and its dtype."""
    from executorch.backends.qualcomm.quantizer.quantizer import QnnQuantizer, QuantDtype
    from executorch.backends.qualcomm.serialization.qc_schema import QcomChipset
    from torchao.quantization.pt2e import MinMaxObserver

    dtype = {
        "16a4w": QuantDtype.use_16a4w,
        "16a4w_block": QuantDtype.use_16a4w_block,
        "16a8w": QuantDtype.use_16a8w,
        "8a8w": QuantDtype.use_8a8w,
    }[scheme]
    quantizer = QnnQuantizer(soc_model=QcomChipset[soc])
    quantizer.set_default_quant_config(
        dtype, is_qat=False, is_conv_per_channel=True, is_linear_per_channel=True, act_observer=MinMaxObserver
    )
    # Unlike upstream's llama recipe, attention's matmuls stay 16-bit on the
    # KV side too (no custom_annotate_llama_matmul_16a8w): its 8-bit K and V
    # cost SmolLM2 13 of 64 teacher-forced tokens (fake-quant 16a8w: 41/64
    # with it, 54/64 without), and a 135M model's cache is small anyway.
    return quantizer, dtype


def set_block_sizes(quantizer, graph_module, group_size: int) -> None:
    """Gives every linear blocks of `group_size` input channels (16a4w_block).

    Block sizes are keyed by node name. Each linear is a 1x1 conv2d by now:
    ExecuTorch's QNN source transforms rewrite them.
    """
    quantizer.set_block_size_map(
        {
            node.name: (1, group_size, 1, 1)
            for node in graph_module.graph.nodes
            if node.op == "call_function" and "conv2d" in str(node.target)
        }
    )
