"""Which operators of a lowered program run in delegates and which the runtime runs itself."""

from __future__ import annotations

import collections
import dataclasses
import re

# KV-cache writes live in a decoder layer but are data movement the runtime
# does on CPU-side buffers; any other CPU operator in a layer is compute that
# a delegate failed to take.
_DATA_MOVEMENT = ("index_put", "copy")
_LAYER = re.compile(r"layers\.\d+")


@dataclasses.dataclass(frozen=True)
class OpCounts:
    delegated: int  # Operators inside delegate payloads.
    non_delegated: int  # Operators the ExecuTorch runtime runs with its own kernels.
    delegate_calls: int  # executorch_call_delegate instructions.
    non_delegated_by_op: dict[str, int]
    backends: list[str]
    non_delegated_compute_in_layers: int  # Non-delegated compute inside a decoder layer.

    def manifest_fields(self) -> dict:
        """The fields of manifest.proto's OpCounts."""
        return {
            "delegated": self.delegated,
            "non_delegated": self.non_delegated,
            "delegate_calls": self.delegate_calls,
            "non_delegated_by_op": self.non_delegated_by_op,
            "backends": self.backends,
        }


def _is_counted(node) -> bool:
    return node.op == "call_function" and "getitem" not in str(node.target)


def count_ops(edge_program) -> OpCounts:
    by_op: collections.Counter = collections.Counter()
    delegated = 0
    delegate_calls = 0
    in_layers = 0
    backends = set()
    graph_module = edge_program.graph_module
    for node in graph_module.graph.nodes:
        if not _is_counted(node):
            continue
        if "executorch_call_delegate" in str(node.target):
            delegate_calls += 1
            lowered = getattr(graph_module, node.args[0].target)
            backends.add(lowered.backend_id)
            delegated += sum(1 for n in lowered.original_module.graph.nodes if _is_counted(n))
            continue
        name = getattr(node.target, "__name__", str(node.target))
        by_op[name] += 1
        stack = node.meta.get("nn_module_stack") or {}
        if any(_LAYER.search(str(path)) for path, _ in stack.values()) and not any(
            word in name for word in _DATA_MOVEMENT
        ):
            in_layers += 1
    return OpCounts(
        delegated=delegated,
        non_delegated=sum(by_op.values()),
        delegate_calls=delegate_calls,
        non_delegated_by_op=dict(sorted(by_op.items())),
        backends=sorted(backends),
        non_delegated_compute_in_layers=in_layers,
    )
