"""infer_symbolic_view_sizes gives a reshape's one symbolic size as -1 and changes no value."""

from __future__ import annotations

import unittest

import torch

from tools.executorch.xnnpack_graph.inferred_views import infer_symbolic_view_sizes


class Heads(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, length, _ = x.shape
        # One symbolic size (length) and a split into 4 heads of 8.
        return (x.view(batch, length, 4, 8) * 2).view(batch, length, 32)


def edge_program():
    from executorch.exir import to_edge

    length = torch.export.Dim("length", min=1, max=64)
    exported = torch.export.export(Heads(), (torch.randn(1, 5, 32),), dynamic_shapes=({1: length},))
    return to_edge(exported).exported_program()


def view_shapes(graph_module) -> list[list]:
    return [list(n.args[1]) for n in graph_module.graph.nodes if "view_copy" in str(n.target)]


class InferredViewsTest(unittest.TestCase):
    def test_symbolic_size_becomes_minus_one(self):
        program = edge_program()
        before = view_shapes(program.graph_module)
        self.assertTrue(all(any(not isinstance(s, int) for s in shape) for shape in before), before)
        x = torch.randn(1, 11, 32)
        expected = program.module()(x)
        result = infer_symbolic_view_sizes(program.graph_module)
        self.assertTrue(result.modified)
        self.assertEqual(view_shapes(program.graph_module), [[1, -1, 4, 8], [1, -1, 32]])
        self.assertTrue(torch.equal(program.module()(x), expected))

    def test_static_shapes_are_left_alone(self):
        graph_module = edge_program().graph_module
        infer_symbolic_view_sizes(graph_module)
        self.assertFalse(infer_symbolic_view_sizes(graph_module).modified)


if __name__ == "__main__":
    unittest.main()
