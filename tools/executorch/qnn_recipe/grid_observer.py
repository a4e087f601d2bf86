"""A weight observer that reports block scales chosen beforehand (block_offsets.py) instead of measuring them.

QnnQuantizer's block observer takes each block's scale from its max |w|,
and the HTP then rounds the scales to its 4-bit LPBQ grid at lowering: the
graph in PyTorch and the HTP then compute with different weights. Scales
already on the grid survive that rounding unchanged, so with them the graph
is what the HTP computes.
"""

from __future__ import annotations

import functools


@functools.cache
def grid_observer_class():
    """The observer class (built on first use: torch and ExecuTorch load late, after flag parsing)."""
    import torch
    from executorch.backends.qualcomm.quantizer.observers.per_block_param_observer import PerBlockParamObserver

    class GridObserver(PerBlockParamObserver):
        def __init__(self, dtype, block_size, grid=None, **kwargs) -> None:
            super().__init__(dtype, block_size, **kwargs)
            if grid is None:
                raise ValueError("GridObserver needs the block scales (grid=)")
            self.grid = grid

        def calculate_qparams(self):
            # The parent's qparams give the layout (one scale per block);
            # the values are the grid's. Symmetric: every zero point is 0.
            scale, zero_point = super().calculate_qparams()
            return self.grid.reshape(scale.shape).to(scale.dtype), torch.zeros_like(zero_point)

    return GridObserver
