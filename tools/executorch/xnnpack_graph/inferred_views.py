"""An edge-dialect pass: a reshape to one symbolic size gives that size as -1.

torch.export writes a reshape to (1, n, heads, head_dim), n the symbolic
sequence length, with n as a symbol, and XNNPACK lowers no reshape to a
symbolic size: the attention's reshapes would cut every layer's delegate
in two. With exactly one symbolic size, -1 names the same shape (the other
sizes are plain ints), so the program computes the same values.
"""

from __future__ import annotations

from torch.fx import GraphModule


def infer_symbolic_view_sizes(graph_module: GraphModule):
    """Rewrites view_copy shapes with exactly one symbolic size and no -1; returns a PassResult."""
    from executorch.exir.dialects._ops import ops as exir_ops
    from executorch.exir.pass_base import PassResult

    view = exir_ops.edge.aten.view_copy.default
    changed = False
    for node in graph_module.graph.nodes:
        if node.op != "call_function" or node.target != view:
            continue
        shape = list(node.args[1])
        symbolic = [i for i, size in enumerate(shape) if not isinstance(size, int)]
        if len(symbolic) != 1 or -1 in shape:
            continue
        shape[symbolic[0]] = -1
        node.args = (node.args[0], shape, *node.args[2:])
        changed = True
    if changed:
        graph_module.recompile()
    return PassResult(graph_module, changed)
