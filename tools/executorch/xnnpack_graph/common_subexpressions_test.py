"""eliminate_common_subexpressions merges repeated functional nodes and changes no value."""

from __future__ import annotations

import unittest

import torch

from tools.executorch.xnnpack_graph.common_subexpressions import eliminate_common_subexpressions


class SharedInput(torch.nn.Module):
    """Three consumers of one tensor that each repeat the same mask and mean, as q/k/v do."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("keep", torch.tensor([1.0, 0.0, 1.0, 1.0]))
        self.weights = torch.nn.ParameterList(torch.nn.Parameter(torch.randn(3, 4)) for _ in range(3))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        outs = [torch.nn.functional.linear(x * self.keep, w) + x.mean(dim=-1, keepdim=True) for w in self.weights]
        return torch.cat(outs, dim=-1)


class Quantized(torch.nn.Module):
    """Two int8-activation linears of one input: each keeps its own quantize chain."""

    def __init__(self) -> None:
        super().__init__()
        self.a = torch.nn.Linear(32, 8, bias=False)
        self.b = torch.nn.Linear(32, 8, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.a(x) + self.b(x)


def edge_program(module: torch.nn.Module, example: torch.Tensor):
    from executorch.exir import to_edge

    return to_edge(torch.export.export(module.eval(), (example,))).exported_program()


def count(graph_module, name: str) -> int:
    return sum(1 for n in graph_module.graph.nodes if n.op == "call_function" and name in str(n.target))


class CommonSubexpressionsTest(unittest.TestCase):
    def test_repeats_become_one_node(self):
        program = edge_program(SharedInput(), torch.randn(2, 4))
        self.assertEqual(count(program.graph_module, "aten.mul"), 3)
        self.assertEqual(count(program.graph_module, "aten.mean"), 3)
        x = torch.randn(2, 4)
        expected = program.module()(x)
        self.assertTrue(eliminate_common_subexpressions(program.graph_module).modified)
        self.assertEqual(count(program.graph_module, "aten.mul"), 1)
        self.assertEqual(count(program.graph_module, "aten.mean"), 1)
        # The three linears read different weights: all stay.
        self.assertEqual(count(program.graph_module, "aten.mm"), 3)
        self.assertTrue(torch.equal(program.module()(x), expected))
        self.assertFalse(eliminate_common_subexpressions(program.graph_module).modified)

    def test_quantize_chains_are_kept(self):
        from torchao.quantization import quantize_
        from torchao.quantization.granularity import PerGroup
        from torchao.quantization.quant_api import Int8DynamicActivationIntxWeightConfig

        module = Quantized()
        quantize_(
            module, Int8DynamicActivationIntxWeightConfig(weight_dtype=torch.int4, weight_granularity=PerGroup(32))
        )
        program = edge_program(module, torch.randn(2, 32))
        chains = count(program.graph_module, "choose_qparams")
        self.assertEqual(chains, 2)
        eliminate_common_subexpressions(program.graph_module)
        self.assertEqual(count(program.graph_module, "choose_qparams"), chains)


if __name__ == "__main__":
    unittest.main()
