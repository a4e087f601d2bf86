"""ChosenRows returns the named positions' logits, each the model's own, and exports with a dynamic row count."""

from __future__ import annotations

import types
import unittest

import torch
from torch import nn

from tools.executorch.logit_rows.chosen_rows import ChosenRows, choose_rows


class _Llama(nn.Module):
    """The tail of ExecuTorch's llama Transformer: the last position unless full logits, norm, head."""

    def __init__(self) -> None:
        super().__init__()
        self.generate_full_logits = False
        self.embed = nn.Embedding(20, 6)
        self.norm = nn.LayerNorm(6)
        self.output = nn.Linear(6, 11)

    def forward(self, tokens: torch.Tensor, attn_options: dict) -> torch.Tensor:
        h = self.embed(tokens) + attn_options["input_pos"].float()
        if not self.generate_full_logits:
            h = h[:, -1, :]
        return self.output(self.norm(h))


def _pair() -> tuple[_Llama, ChosenRows]:
    torch.manual_seed(0)
    plain = _Llama()
    chosen = ChosenRows(_Llama())
    chosen.model.load_state_dict({k.replace("norm.", "norm.norm.", 1): v for k, v in plain.state_dict().items()})
    return plain, chosen


class ChosenRowsTest(unittest.TestCase):
    def test_the_last_row_is_the_plain_models_logits(self) -> None:
        plain, chosen = _pair()
        tokens, options = torch.tensor([[3, 1, 4, 1, 5]]), {"input_pos": torch.tensor([0])}
        torch.testing.assert_close(
            chosen(tokens, options, torch.tensor([4]))[:, 0], plain(tokens, options), rtol=0, atol=0
        )

    def test_every_row_is_that_positions(self) -> None:
        plain, chosen = _pair()
        plain.generate_full_logits = True
        tokens, options = torch.tensor([[3, 1, 4, 1, 5]]), {"input_pos": torch.tensor([0])}
        got = chosen(tokens, options, torch.tensor([1, 3, 4]))
        self.assertEqual(tuple(got.shape), (1, 3, 11))
        full = plain(tokens, options)
        for i, row in enumerate((1, 3, 4)):
            # The same row through the same head alone: compare like with like
            # (a GEMM over more rows may round differently).
            alone = chosen(tokens, options, torch.tensor([row]))[:, 0]
            torch.testing.assert_close(got[:, i], alone, rtol=1e-6, atol=1e-6)
            torch.testing.assert_close(got[:, i], full[:, row], rtol=1e-6, atol=1e-6)

    def test_exports_with_dynamic_tokens_and_rows(self) -> None:
        manager = types.SimpleNamespace(
            model=_Llama(),
            example_inputs=(torch.tensor([[1, 2, 3]]), {"input_pos": torch.tensor([0])}),
            dynamic_shapes=({1: torch.export.Dim("token_dim", max=15)}, {"input_pos": {0: 1}}),
        )
        choose_rows(manager, 4)
        program = torch.export.export(
            manager.model, manager.example_inputs, dynamic_shapes=manager.dynamic_shapes, strict=True
        )
        module = program.module()
        for n, rows in ((1, [0]), (7, [6]), (5, [1, 2, 3, 4]), (2, [0, 1])):
            out = module(torch.arange(n).unsqueeze(0), {"input_pos": torch.tensor([0])}, torch.tensor(rows))
            self.assertEqual(tuple(out.shape), (1, len(rows), 11))

    def test_refuses_what_it_cannot_do(self) -> None:
        with self.assertRaisesRegex(ValueError, "llama Transformer"):
            ChosenRows(nn.Linear(2, 2))
        manager = types.SimpleNamespace(model=_Llama(), example_inputs=(), dynamic_shapes=())
        with self.assertRaisesRegex(ValueError, "at least 2"):
            choose_rows(manager, 1)


if __name__ == "__main__":
    unittest.main()
