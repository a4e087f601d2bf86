"""exir's ATen-to-edge conversion, with each retracing pass run only where it has a node to change.

LOCAL ADAPTER for executorch 1.5.1: `generate_edge_program` is exir's
`_generate_edge_program` step for step. That function runs a fixed list of
passes, and seven of them are ExportPasses: each retraces the whole graph
through fake tensors, which costs about as much as torch.export itself, even
when it rewrites nothing. Five of them rewrite only nodes of one kind
(aten.t, view ops, Python scalars or SymInts where the schema wants a
tensor, mixed-dtype arithmetic, memory-format ops). Here such a pass runs
when the graph has a node of its kind, and is skipped when it has none: its
retrace would give back the same graph. Every other pass runs as upstream
runs it.

edge_dialect_test checks, on graphs that have every kind, that the result is
upstream's, and upstream_test and qnn_lowering_test that the programs the
exporters write are byte-identical to upstream's pipeline.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator


def generate_edge_program(config, program, preserve_ops=None):
    """exir's `_generate_edge_program(config, program, preserve_ops=...)`, skipping the passes with nothing to do."""
    from executorch.exir.program import _program as exir

    program = exir.remove_unused_parameters_pass(program)
    pre_op_replace_passes, post_op_replace_passes = exir._get_aten_to_edge_passes(config)
    passes = [exir.RemoveNonCoreAtenOpGraphAssertsPass(), exir.ReplaceViewOpsWithViewCopyOpsPass()]
    passes.extend(pre_op_replace_passes)
    passes.append(exir.OpReplacePass())
    if not config._skip_dim_order:
        passes.append(exir.MemoryFormatOpsPass())

    gm = program.graph_module
    for graph_pass in passes:
        if not has_work(graph_pass, gm):
            continue
        result = graph_pass(gm)
        assert result is not None
        gm = result.graph_module

    edge_program = exir.ExportedProgram(
        root=gm,
        graph=gm.graph,
        graph_signature=exir._get_updated_graph_signature(program.graph_signature, gm),
        state_dict=program.state_dict,
        range_constraints=program.range_constraints,
        module_call_graph=program.module_call_graph,
        example_inputs=program.example_inputs,
        constants=program.constants,
        verifiers=[
            exir.EXIREdgeDialectVerifier(
                edge_compile_config=config,
                class_only=True,
                preserve_ops=preserve_ops,
            )
        ],
    )
    edge_program = exir.lift_constant_tensor_pass(edge_program)
    edge_program = exir.convert_constant_dim_order_pass.convert_constant_dim_order_pass(edge_program)
    return exir._transform(edge_program, *post_op_replace_passes)


def has_work(graph_pass, gm) -> bool:
    """Whether `graph_pass` can change `gm`: False only for a pass of a kind below with none of its nodes.

    A graph with subgraphs (control flow, higher-order ops) gets every pass:
    the checks read the top-level graph only.
    """
    check = _checks().get(pass_name(graph_pass))
    if check is None or _has_subgraphs(gm):
        return True
    return any(check(node) for node in _operator_nodes(gm))


def pass_name(graph_pass) -> str:
    """The class name of `graph_pass`, also when exir hands it wrapped.

    torch.fx's pass_result_wrapper, which exir's pass lists use, keeps the
    pass itself as __wrapped__.
    """
    return type(getattr(graph_pass, "__wrapped__", graph_pass)).__name__


def _has_subgraphs(gm) -> bool:
    import torch

    return any(
        (node.op == "get_attr" and isinstance(getattr(gm, str(node.target), None), torch.fx.GraphModule))
        or (node.op == "call_function" and isinstance(node.target, torch._ops.HigherOrderOperator))
        for node in gm.graph.nodes
    )


def _operator_nodes(gm) -> Iterator:
    """The nodes an ExportPass hands to call_operator: calls of op overloads (not getitem, not sym math)."""
    import torch
    from executorch.exir.dialects.edge._ops import EdgeOpOverload

    for node in gm.graph.nodes:
        if node.op == "call_function" and isinstance(node.target, (torch._ops.OpOverload, EdgeOpOverload)):
            yield node


def _checks() -> dict[str, Callable]:
    """Per pass name, whether a node is one the pass rewrites (each mirrors its pass's call_operator)."""
    return {
        "NormalizeTransposePass": _is_transpose,
        "ReplaceBrokenOpsWithFunctionalOpsPass": _is_view,
        "ScalarToTensorPass": _has_scalar_for_tensor,
        "SymToTensorPass": _has_sym_for_tensor,
        "RemoveMixedTypeOperators": _mixes_dtypes,
        "MemoryFormatOpsPass": _takes_memory_format,
    }


def _is_transpose(node) -> bool:
    import torch

    return node.target == torch.ops.aten.t.default


def _is_view(node) -> bool:
    return bool(getattr(node.target, "is_view", False))


def _schema_args(node) -> Iterator[tuple]:
    """(value, schema argument) for each argument exir's map_args visits."""
    args, kwargs = node.args, node.kwargs
    for index, schema in enumerate(node.target._schema.arguments):
        if schema.name in kwargs:
            yield kwargs[schema.name], schema
        elif not schema.kwarg_only and index < len(args):
            yield args[index], schema


def _wants_tensor(schema) -> bool:
    import torch

    return isinstance(schema.type, torch.TensorType)


def _has_scalar_for_tensor(node) -> bool:
    return any(isinstance(value, (float, int, bool)) and _wants_tensor(schema) for value, schema in _schema_args(node))


def _is_sym(value) -> bool:
    import torch

    return isinstance(value, torch.fx.Node) and isinstance(
        value.meta.get("val"), (torch.SymInt, torch.SymFloat, torch.SymBool)
    )


def _has_sym_for_tensor(node) -> bool:
    return any(_is_sym(value) and _wants_tensor(schema) for value, schema in _schema_args(node))


def _mixes_dtypes(node) -> bool:
    """RemoveMixedTypeOperators' test: an argument in a tensor slot whose dtype is not the promoted one."""
    import torch
    from torch._prims_common import ELEMENTWISE_TYPE_PROMOTION_KIND, elementwise_dtypes

    aten = torch.ops.aten
    kinds = {
        aten.add.Tensor: ELEMENTWISE_TYPE_PROMOTION_KIND.DEFAULT,
        aten.mul.Tensor: ELEMENTWISE_TYPE_PROMOTION_KIND.DEFAULT,
        aten.sub.Tensor: ELEMENTWISE_TYPE_PROMOTION_KIND.DEFAULT,
        aten.div.Tensor: ELEMENTWISE_TYPE_PROMOTION_KIND.INT_TO_FLOAT,
        aten.div.Tensor_mode: ELEMENTWISE_TYPE_PROMOTION_KIND.DEFAULT,
        aten.minimum.default: ELEMENTWISE_TYPE_PROMOTION_KIND.DEFAULT,
    }
    if node.target not in kinds or len(node.args) <= 1:
        return False
    kind = kinds[node.target]
    if node.target == aten.div.Tensor_mode and node.kwargs.get("rounding_mode") is None:
        kind = ELEMENTWISE_TYPE_PROMOTION_KIND.INT_TO_FLOAT
    values = []
    for arg in node.args:
        value = arg.meta.get("val") if isinstance(arg, torch.fx.Node) else arg
        if not isinstance(value, (torch.Tensor, bool, int, float)):
            # A SymInt or anything else the pass would turn into a tensor of
            # its own: let the pass decide.
            return True
        values.append(value)
    promoted = elementwise_dtypes(*values, type_promotion_kind=kind)[1]
    for value, schema in _schema_args(node):
        if not _wants_tensor(schema):
            continue
        val = value.meta.get("val") if isinstance(value, torch.fx.Node) else value
        if not isinstance(val, torch.Tensor) or val.dtype != promoted:
            return True
    return False


def _takes_memory_format(node) -> bool:
    from executorch.exir.passes.dim_order_ops_registry import DimOrderOpsMap

    return node.target in DimOrderOpsMap
