"""Logits for the positions the caller names, as a source transform.

ExecuTorch's llama returns the logits of a call's last position only. A
speculative decoder verifies a draft of k tokens in one call and needs the
logits after each of them. Returning every position's would make prefill
pay the output head (a fifth of SmolLM2-135M's arithmetic) for each prompt
token, so the program takes a third input, as llama.cpp's batches mark the
positions that want logits:

    forward(tokens: (1, n), input_pos: (1,), rows: (r,)) -> logits (1, r, vocab)

`rows` holds indices into the call's n positions, 1 <= r <= the program's
logit rows. The final norm and the head run on those rows only: a prefill
chunk or a decode step asks for its last position and costs what it did,
a verify call asks for all of them. The row count is an input's size, so
torch.export sees it as a size of its own and XNNPACK lowers the head at any
count (a count derived from n, such as min(n, 8), is a size torch.export
cannot bound and XNNPACK refuses).

The selected rows are the model's own rows, so a prefill or decode step's
logits are those of the same program without this input, bit for bit
(chosen_rows_test and the programs' tests).
"""

from __future__ import annotations

import torch
from torch import nn


class _RowPicker(nn.Module):
    """Stands in for the model's final norm: the norm of the chosen rows."""

    def __init__(self, norm: nn.Module) -> None:
        super().__init__()
        self.norm = norm
        self.rows: torch.Tensor | None = None

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        return self.norm(h.index_select(1, self.rows))


class ChosenRows(nn.Module):
    """ExecuTorch's llama Transformer with a `rows` input naming the positions to return logits for."""

    def __init__(self, model: nn.Module) -> None:
        super().__init__()
        if not hasattr(model, "generate_full_logits") or not isinstance(getattr(model, "norm", None), nn.Module):
            raise ValueError(
                f"logit rows need ExecuTorch's llama Transformer (generate_full_logits, norm); got {type(model).__name__}"
            )
        # Every position reaches the picker; it keeps the chosen ones.
        model.generate_full_logits = True
        self.picker = _RowPicker(model.norm)
        model.norm = self.picker
        self.model = model

    def forward(self, tokens: torch.Tensor, attn_options: dict, rows: torch.Tensor) -> torch.Tensor:
        self.picker.rows = rows
        return self.model(tokens, attn_options)


def choose_rows(manager, rows: int):
    """Wraps `manager`'s model in ChosenRows and adds `rows` to its example inputs and dynamic shapes.

    `manager` is ExecuTorch's LLMEdgeManager after its source transforms.
    """
    if rows < 2:
        raise ValueError(f"logit rows must be at least 2 to verify a draft, got {rows}")
    tokens, attn_options = manager.example_inputs[:2]
    manager.model = ChosenRows(manager.model)
    # An example of 2 rows: torch.export specializes sizes 0 and 1.
    manager.example_inputs = (tokens, attn_options, torch.tensor([0, 1], dtype=torch.long))
    token_shape, attn_shape = manager.dynamic_shapes[:2]
    manager.dynamic_shapes = (token_shape, attn_shape, {0: torch.export.Dim("logit_rows", min=1, max=rows)})
    return manager
