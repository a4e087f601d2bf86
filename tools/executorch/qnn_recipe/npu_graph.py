"""Source transforms for two parts of ExecuTorch's llama graph that 16-bit activations cannot hold.

Each was found by fake-quant experiments (QnnQuantizer's observers on CPU,
teacher-forced against fp32); docs/qnn.md has the table. They run after
ExecuTorch's own QNN transforms, which is where its -inf mask is installed.

RMSNorm stays one operator. The graph otherwise spells it out (x*x, mean,
rsqrt, mul), and per-tensor ranges on x*x cannot hold both the residual
stream's outliers (SmolLM2 reaches 2.4e4 at position 0) and its small values.
As one aten.rms_norm, which QNN has a builder for, only its output is
quantized.

The causal mask is finite. With -inf, the observer of scores + mask spans
~65k, so one 16-bit step is ~1.0 and softmax sees rounded scores. With -255
the step is ~0.004, and exp(-255) is still exactly 0.
"""

from __future__ import annotations

MASKED_SCORE = -255.0


def finite_causal_mask(module):
    import torch

    for name, buffer in list(module.named_buffers()):
        owner_path, _, leaf = name.rpartition(".")
        if leaf == "mask":
            owner = module.get_submodule(owner_path) if owner_path else module
            owner.register_buffer("mask", torch.clamp(buffer, min=MASKED_SCORE))
    return module


def native_rms_norm(module):
    from executorch.examples.models.llama.source_transformation.rms_norm import (
        replace_rms_norm_with_native_rms_norm,
    )

    return replace_rms_norm_with_native_rms_norm(module)


# In this order: the mask first, as the recipe was measured.
TRANSFORMS = (finite_causal_mask, native_rms_norm)
