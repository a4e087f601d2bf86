"""The llama linear-layer recipes that ExecuTorch's own quantizer lacks.

Handed to ExecuTorch's export pipeline as a source transform (the pipeline
takes transforms as arguments), after its own transforms and before
torch.export:

- "8da4w_asym": every linear whose in_features the group divides becomes an
  OffsetInt4Linear (asymmetric int4 blocks on XNNPACK's symmetric kernels);
- head "8da8w": the output head gets int8 rows instead (see int8_head.py).
"""

from __future__ import annotations

from collections.abc import Callable

from torch import nn

from tools.executorch.quantize.int8_head import int8_rows
from tools.executorch.quantize.offset_int4 import OffsetInt4Linear

LINEAR_MODES = ("8da4w_asym",)
# "" quantizes the head like every other linear.
HEAD_MODES = ("", "8da8w")
HEAD = "output"  # the head's attribute name on ExecuTorch's llama Transformer


def linear_transform(mode: str, group_size: int, head: str) -> Callable[[nn.Module], nn.Module]:
    if mode not in LINEAR_MODES:
        raise ValueError(f"unknown linear recipe {mode!r}; known: {LINEAR_MODES}")
    if head not in HEAD_MODES:
        raise ValueError(f"unknown head recipe {head!r}; known: {HEAD_MODES}")

    def transform(model: nn.Module) -> nn.Module:
        for parent in list(model.modules()):
            for name, child in list(parent.named_children()):
                if not isinstance(child, nn.Linear):
                    continue
                if parent is model and name == HEAD and head == "8da8w":
                    child.weight = int8_rows(child)
                elif child.in_features % group_size == 0:
                    setattr(parent, name, OffsetInt4Linear(child, group_size))
        return model

    return transform
