"""An edge-dialect pass: one node for each computation the graph repeats.

A llama block's q, k and v linears read one tensor, and so do gate and up;
traced one linear at a time, the graph repeats for each what depends only
on that tensor: the offset term's block means and the outlier channels'
mask and pick. XNNPACK runs every node it is given, so each repeat costs a
pass over the activations per decoded token. Here a node whose operator,
inputs and arguments equal an earlier node's is replaced by it. Only
functional operators are merged: a node whose schema writes to an argument,
or that draws random numbers, is kept as it is. Quantization operators are
kept too: XNNPACK's partitioner takes each dynamically quantized linear
together with its own quantize chain, and a chain shared by three linears
cuts the delegate around them.
"""

from __future__ import annotations

import operator

from torch.fx import GraphModule, Node

# Namespaces of the quantize/dequantize operators (see the module docstring).
_QUANTIZATION = ("torchao", "quantized_decomposed")


def _functional(target) -> bool:
    if target is operator.getitem:
        return True
    schema = getattr(target, "_schema", None)
    if schema is None or schema.is_mutable or schema.name.split("::")[0] in _QUANTIZATION:
        return False
    return not any(tag.name == "nondeterministic_seeded" for tag in getattr(target, "tags", ()))


def _frozen(value):
    """`value` as a hashable key: lists become tuples, all the way down."""
    if isinstance(value, (list, tuple)):
        return tuple(_frozen(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _frozen(v)) for k, v in value.items()))
    return value


def eliminate_common_subexpressions(graph_module: GraphModule):
    """Merges repeated functional nodes; returns a PassResult."""
    from executorch.exir.pass_base import PassResult

    first: dict[tuple, Node] = {}
    changed = False
    for node in list(graph_module.graph.nodes):
        if node.op != "call_function" or not _functional(node.target):
            continue
        key = (node.target, _frozen(node.args), _frozen(node.kwargs))
        try:
            earlier = first.setdefault(key, node)
        except TypeError:  # an argument that is not hashable: keep the node
            continue
        if earlier is not node:
            node.replace_all_uses_with(earlier)
            graph_module.graph.erase_node(node)
            changed = True
    if changed:
        graph_module.graph.lint()
        graph_module.recompile()
    return PassResult(graph_module, changed)
