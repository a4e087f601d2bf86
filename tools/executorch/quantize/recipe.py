"""The llama linear-layer recipes that ExecuTorch's own quantizer lacks.

Handed to ExecuTorch's export pipeline as a source transform (the pipeline
takes transforms as arguments), after its own transforms and before
torch.export:

- "8da4w_asym": every linear whose in_features the group divides becomes an
  OffsetInt4Linear (asymmetric int4 blocks on XNNPACK's symmetric kernels);
- head "8da8w": the output head gets int8 rows instead (see int8_head.py);
- outliers: each of those linears keeps its input's outlier channels in fp32
  (see outlier_channels.py), from channels chosen on calibration text.
"""

from __future__ import annotations

from collections.abc import Callable

from torch import nn

from tools.executorch.quantize.int8_head import int8_rows
from tools.executorch.quantize.offset_int4 import OffsetInt4Linear
from tools.executorch.quantize.outlier_channels import ChannelSet, OutlierChannels, Outliers

LINEAR_MODES = ("8da4w_asym",)
# "" quantizes the head like every other linear.
HEAD_MODES = ("", "8da8w")
HEAD = "output"  # the head's attribute name on ExecuTorch's llama Transformer


def linear_transform(
    mode: str, group_size: int, head: str, outlier_sets: list[ChannelSet] = ()
) -> Callable[[nn.Module], nn.Module]:
    """The source transform; `outlier_sets` name each input's linears (module paths) and outlier channels."""
    if mode not in LINEAR_MODES:
        raise ValueError(f"unknown linear recipe {mode!r}; known: {LINEAR_MODES}")
    if head not in HEAD_MODES:
        raise ValueError(f"unknown head recipe {head!r}; known: {HEAD_MODES}")

    def transform(model: nn.Module) -> nn.Module:
        # One Outliers per set, shared by its linears.
        linears = dict(model.named_modules())
        outliers = {}
        for names, channels in outlier_sets:
            shared = Outliers.of(linears[names[0]].in_features, channels)
            outliers.update((name, shared) for name in names)
        for parent_name, parent in list(model.named_modules()):
            for name, child in list(parent.named_children()):
                if not isinstance(child, nn.Linear):
                    continue
                path = f"{parent_name}.{name}" if parent_name else name
                if parent is model and name == HEAD and head == "8da8w":
                    child.weight = int8_rows(child)
                    if path in outliers:
                        setattr(parent, name, OutlierChannels(child, child.weight.dequantize(), outliers[path]))
                elif child.in_features % group_size == 0:
                    setattr(parent, name, OffsetInt4Linear(child, group_size, outliers.get(path)))
        return model

    return transform
