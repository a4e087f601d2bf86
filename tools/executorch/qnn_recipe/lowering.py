"""Lowers a QNN program's quantized graphs to the HTP as one multi-method program.

The program has `forward`, the one-token decode graph, and, when the export
asks for one, `prefill`, a fixed-length graph that reads a whole chunk of the
prompt in one execution. The two share one KV cache:

- QnnPartitioner leaves the cache buffers out of the QNN contexts
  (skip_mutable_buffer). Delegated, each context would keep a private copy,
  and a `forward` after `prefill` would not see the prompt.
- The memory plan puts every mutable buffer in its own memory id, at the same
  offsets in both methods (share_mutable_buffers). A runtime that gives both
  methods the same buffer for that id gets one cache that both update.

The cache stays fp32 between calls; each context quantizes it on the way in
with its own calibrated scale, so the two graphs need not agree on one.
"""

from __future__ import annotations

FORWARD = "forward"
PREFILL = "prefill"
# A constant method, true in a program whose methods share their weights.
WEIGHT_SHARING_METHOD = "get_qnn_weight_sharing"


def _positional(module):
    """`module` called as f(tokens, input_pos): the lowering traces positional inputs only."""
    import torch

    class Positional(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.inner = module

        def forward(self, tokens, input_pos):
            return self.inner(tokens, {"input_pos": input_pos})

    return Positional()


def example_inputs(seq_len: int):
    """(tokens, input_pos) of a seq_len-token call at positions 0..seq_len-1."""
    import torch

    return (torch.zeros((1, seq_len), dtype=torch.long), torch.arange(seq_len, dtype=torch.long))


def lower(graphs: dict, soc: str, constant_methods: dict, weight_sharing: bool = False):
    """Lowers `graphs` ({method: (converted module, seq_len)}) for `soc`.

    The methods' graphs are compiled into one QNN context; with
    weight_sharing its graphs keep one copy of the weights they have in
    common (all of them: weight quantization does not depend on the
    calibration), else a copy each.

    The steps are to_edge_transform_and_lower_to_qnn's, in its order, with
    the CPU exporter's decomposition and edge-dialect conversion
    (export/upstream.py's `decompose`, export/edge_dialect.py):
    upstream retraces each method's whole graph three times on its way to
    the edge dialect, each about as long as torch.export of the quantized
    graph, where one does the same work here, and the graph is traced
    without dynamo (`torch_export`). The .pte is byte-identical to
    upstream's (qnn_lowering_test).

    Returns the edge program manager (delegated, before the memory plan) and
    the ExecutorchProgramManager whose buffer is the .pte.
    """
    from executorch.backends.qualcomm.serialization.qc_schema import QcomChipset
    from executorch.backends.qualcomm.utils import utils as qnn
    from executorch.exir import ExecutorchBackendConfig
    from executorch.exir.passes import MemoryPlanningPass

    specs = qnn.generate_qnn_executorch_compiler_spec(
        soc_model=getattr(QcomChipset, soc),
        backend_options=qnn.generate_htp_compiler_spec(use_fp16=False, use_weight_sharing=weight_sharing),
    )
    qnn.setup_qnn_sdk()
    # Before any eager run of the model, as upstream's entry point does.
    qnn.disable_mkldnn_on_amd()
    pass_manager_cls = qnn.get_qnn_pass_manager_cls(_backend_type(qnn, specs))
    programs, edge_passes = {}, {}
    for name, (module, seq_len) in graphs.items():
        exported = torch_export(_positional(module), example_inputs(seq_len))
        pass_manager = pass_manager_cls()
        programs[name] = pass_manager.transform_for_export_pipeline(exported)
        edge_passes[name] = pass_manager.get_to_edge_transform_passes(exported, compiler_specs=specs)
    with qnn.QnnManagerContext({name: specs for name in graphs}):
        edge = _to_edge_and_lower(programs, edge_passes, specs, constant_methods)
    program = edge.to_executorch(
        ExecutorchBackendConfig(
            # Inputs are the caller's (token ids, positions); the cache is
            # planned once for every method.
            memory_planning_pass=MemoryPlanningPass(alloc_graph_input=False, share_mutable_buffers=True)
        )
    )
    return edge, program


def torch_export(module, inputs):
    """The converted graph as an ExportedProgram.

    Upstream's QNN entry point exports strictly, through dynamo. The module
    is an fx graph that torch.export made already, with nothing left for
    dynamo to capture, and the non-strict trace gives the same program in a
    third of the time.
    """
    import torch

    return torch.export.export(module, inputs, strict=False)


def _backend_type(qnn, specs):
    return qnn.flatbuffer_to_option(qnn.generate_qnn_executorch_option(specs)).backend_options.backend_type


def _to_edge_and_lower(programs: dict, edge_passes: dict, specs, constant_methods: dict):
    """exir's to_edge_transform_and_lower for QNN's one partitioner per method, decomposing each method once."""
    from executorch.backends.qualcomm.partition.qnn_partitioner import QnnPartitioner
    from executorch.backends.qualcomm.utils import utils as qnn
    from executorch.exir.program import _program as exir

    from tools.executorch.export import edge_dialect, upstream

    config = qnn.qnn_edge_config()
    partitioners = {name: QnnPartitioner(specs, skip_mutable_buffer=True) for name in programs}
    edge_programs, preserved = {}, set()
    for name, program in programs.items():
        program, kept = upstream.decompose(program, [partitioners[name]], name)
        edge_programs[name] = edge_dialect.generate_edge_program(config, program, preserve_ops=kept)
        preserved.update(kept)
    config._core_aten_ops_exception_list = list(set(config._core_aten_ops_exception_list) | preserved)
    edge = exir.EdgeProgramManager(edge_programs, constant_methods, config, list(preserved))
    edge = edge.transform(edge_passes)
    for name in programs:
        exir.lift_constant_tensor_pass(edge.exported_program(name))
    edge = edge.to_backend(partitioners)
    for name, partitioner in partitioners.items():
        # Upstream's last check: no op kept from decomposition is left outside the delegate.
        lowered = edge.exported_program(name)
        left, check_op_support = partitioner.ops_to_not_decompose(lowered)
        exir._sanity_check_graph_for_non_decomp_ops(
            name,
            lowered,
            set(exir._remove_invalid_ops_for_not_decompose(left)),
            check_op_support,
            partitioner_name=type(partitioner).__name__,
            generate_error=True,
        )
    return edge
