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
# Schemes whose 4-bit weights have a scale per block (LPBQ).
BLOCK_SCHEMES = ("16a4w_block", "16a4w_block_asym")


def make_quantizer(soc: str, scheme: str):
    """QnnQuantizer for `scheme` (ExecuTorch's llama helper offers only 8a8w/16a16w/16a4w); returns it and its dtype."""
    from executorch.backends.qualcomm.quantizer.quantizer import QnnQuantizer, QuantDtype
    from executorch.backends.qualcomm.serialization.qc_schema import QcomChipset
    from torchao.quantization.pt2e import MinMaxObserver

    dtype = {
        "16a4w": QuantDtype.use_16a4w,
        "16a4w_block": QuantDtype.use_16a4w_block,
        "16a4w_block_asym": QuantDtype.use_16a4w_block,
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


def set_block_sizes(quantizer, graph_module, group_size: int, only=None) -> None:
    """Gives every linear (or those whose weight is in `only`) blocks of `group_size` input channels.

    Block sizes are keyed by node name. Each linear is a 1x1 conv2d by now:
    ExecuTorch's QNN source transforms rewrite them.
    """
    quantizer.set_block_size_map(
        {
            node.name: (1, group_size, 1, 1)
            for node in _convs(graph_module)
            if only is None or getattr(node.args[1], "target", None) in only
        }
    )


def use_block_offsets(quantizer, graph_module, offsets) -> None:
    """16a4w_block_asym: `offsets`' scales for the symmetric weights; 8-bit weights for the head and the offsets.

    `offsets` is the block_offsets.BlockOffsets transform the model went
    through. The head stays 8-bit per channel: at 4 bits it alone costs
    SmolLM2 6-9% perplexity (docs/quantization.md).
    """
    import torch
    from executorch.backends.qualcomm.quantizer.quantizer import ModuleQConfig, QuantDtype
    from torchao.quantization.pt2e import MinMaxObserver
    from torchao.quantization.pt2e.quantizer import QuantizationSpec

    from tools.executorch.qnn_recipe.block_offsets import LEVELS
    from tools.executorch.qnn_recipe.grid_observer import grid_observer_class

    set_block_sizes(quantizer, graph_module, offsets.group_size, only=offsets.scales)

    def eight_bit(node) -> bool:
        paths = [path for path, _ in node.meta.get("nn_module_stack", {}).values()]
        return any(path == offsets.head or path.endswith(".offset") for path in paths)

    quantizer.set_submodule_qconfig_list(
        [
            (
                eight_bit,
                ModuleQConfig(
                    QuantDtype.use_16a8w,
                    is_conv_per_channel=True,
                    is_linear_per_channel=True,
                    act_observer=MinMaxObserver,
                ),
            )
        ]
    )
    observer = grid_observer_class()

    def grid_weights(gm) -> None:
        for node in _convs(gm):
            weight = node.args[1]
            scales = offsets.scales.get(getattr(weight, "target", None))
            if scales is None:
                continue
            annotation = node.meta["quantization_annotation"]
            annotation.input_qspec_map[weight] = QuantizationSpec(
                dtype=torch.int8,
                quant_min=LEVELS[0],
                quant_max=LEVELS[1],
                qscheme=torch.per_channel_symmetric,
                ch_axis=0,
                observer_or_fake_quant_ctr=observer.with_args(block_size=(1, offsets.group_size, 1, 1), grid=scales),
            )

    quantizer.add_custom_quant_annotations((grid_weights,))


def _convs(graph_module):
    return [n for n in graph_module.graph.nodes if n.op == "call_function" and "conv2d" in str(n.target)]
