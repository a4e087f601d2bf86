"""edge_dialect.generate_edge_program gives exir's own edge program, and skips only passes with nothing to do."""

from __future__ import annotations

import unittest
from unittest import mock

import torch

from tools.executorch.export import edge_dialect


class NoKind(torch.nn.Module):
    """Float arithmetic with no node any skippable pass rewrites."""

    def forward(self, x, y):
        return torch.relu(x * y + x)


class EveryKind(torch.nn.Module):
    """Nodes for the skippable passes: a SymInt in a tensor slot, mixed dtypes, a memory format."""

    def forward(self, x, counts):
        y = x.t().contiguous()
        rows = torch.ops.aten.mul.Tensor(counts[:, :3], counts.shape[1])
        return torch.ops.aten.add.Tensor(y, rows).clone(memory_format=torch.contiguous_format)


def with_transpose_and_scalar(program):
    """`program` ending in aten.t and a Python scalar operand, as a backend's own graph passes can leave them.

    torch.export writes neither (it decomposes t and lifts scalars to
    constants), so they are added by hand.
    """
    graph = program.graph
    output = graph.output_node()
    (result,) = output.args[0]
    with graph.inserting_before(output):
        transposed = graph.call_function(torch.ops.aten.t.default, (result,))
        transposed.meta["val"] = result.meta["val"].t()
        scaled = graph.call_function(torch.ops.aten.mul.Tensor, (transposed, 2.0))
        scaled.meta["val"] = transposed.meta["val"] * 2.0
    output.args = ((scaled,),)
    program.graph_module.recompile()
    return program


def edge_of(module, inputs, generate, dynamic_shapes=None, edit=lambda program: program):
    """(edge-dialect graph code, .pte bytes) of `module` converted by `generate`, as to_edge converts it."""
    from executorch.exir import EdgeCompileConfig
    from executorch.exir.program import _program as exir

    program = torch.export.export(module, inputs, dynamic_shapes=dynamic_shapes, strict=True)
    program = edit(program.run_decompositions(exir._default_decomposition_table()))
    config = EdgeCompileConfig()
    edge_program = generate(config, program)
    code = edge_program.graph_module.code
    manager = exir.EdgeProgramManager({"forward": edge_program}, None, config)
    return code, manager.to_executorch().buffer


def every_kind(generate):
    inputs = (torch.randn(3, 4), torch.tensor([[1, 2, 3, 4]], dtype=torch.int32))
    shapes = ({}, {1: torch.export.Dim("n", min=3, max=64)})
    return edge_of(EveryKind(), inputs, generate, shapes, with_transpose_and_scalar)


def no_kind(generate):
    return edge_of(NoKind(), (torch.randn(3, 4), torch.randn(3, 4)), generate)


def upstream(config, program):
    from executorch.exir.program import _program as exir

    return exir._generate_edge_program(config, program)


def ours(config, program):
    return edge_dialect.generate_edge_program(config, program)


def passes_run(convert) -> set[str]:
    """The names of the passes generate_edge_program runs in `convert` (every_kind or no_kind)."""
    ran = set()
    has_work = edge_dialect.has_work

    def recording(graph_pass, gm):
        work = has_work(graph_pass, gm)
        if work:
            ran.add(edge_dialect.pass_name(graph_pass))
        return work

    with mock.patch.object(edge_dialect, "has_work", recording):
        convert(ours)
    return ran


# The ExportPasses that rewrite nodes of one kind, and that every_kind has.
SKIPPABLE = {
    "ScalarToTensorPass",
    "SymToTensorPass",
    "RemoveMixedTypeOperators",
    "MemoryFormatOpsPass",
}


class EdgeDialectTest(unittest.TestCase):
    def test_a_graph_with_every_kind_converts_as_upstream_converts_it(self):
        self.assertEqual(every_kind(ours), every_kind(upstream))

    def test_a_graph_with_no_kind_converts_as_upstream_converts_it(self):
        self.assertEqual(no_kind(ours), no_kind(upstream))

    def test_passes_run_where_they_have_work_and_only_there(self):
        self.assertEqual(passes_run(no_kind) & SKIPPABLE, set())
        self.assertEqual(passes_run(every_kind) & SKIPPABLE, SKIPPABLE)
        # The other two find nothing even here: ReplaceViewOpsWithViewCopyOps,
        # which runs before them, has already replaced aten.t and the views.
        self.assertEqual(
            passes_run(every_kind) & {"NormalizeTransposePass", "ReplaceBrokenOpsWithFunctionalOpsPass"}, set()
        )

    def test_a_pass_wrongly_skipped_changes_the_program(self):
        # The control: were a check to miss its nodes, the comparison with
        # upstream would see it.
        expected = every_kind(upstream)
        checks = edge_dialect._checks()
        for name in sorted(SKIPPABLE):
            blind = dict(checks, **{name: lambda node: False})
            with self.subTest(name), mock.patch.object(edge_dialect, "_checks", lambda blind=blind: blind):
                try:
                    wrong = every_kind(ours)
                except Exception:  # noqa: BLE001 - a program that cannot be converted differs too
                    continue
                self.assertNotEqual(wrong, expected)


if __name__ == "__main__":
    unittest.main()
