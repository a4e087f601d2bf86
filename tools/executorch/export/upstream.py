"""ExecuTorch's llama export steps that have no public name, in one place.

LOCAL ADAPTER for executorch 1.5.1. The exporters hand their recipes to
ExecuTorch's LLMEdgeManager as arguments (source transforms, quantizers,
partitioners) and never reassign anything upstream. These are the steps they
reach through underscore names, because 1.5.1 exposes no other way to them:

- `load_llama`: checkpoint + params.json -> an LLMEdgeManager with
  ExecuTorch's own source transforms for the configured backend applied.
- `export_llama`: the whole stock pipeline, for recipes that are ExecuTorch's.
- `stock_xnnpack_partitioners`: the partitioners export_llama lowers with.
- `export_once`, `lower`, `decompose`: LLMEdgeManager's export, canonical
  passes and to_edge_transform_and_lower with one trace where it runs two and
  one decomposition where it runs four.
- `lower_to_qnn`: to_edge, the QNN capture passes and QnnPartitioner, for a
  manager that is already quantized.
- `soc_table`: the SoCs the QNN backend knows, with their HTP architecture.
- `quantize_pt2e`: LLMEdgeManager.pt2e_quantize with a calibration callback.
  The builder calibrates only on lm-eval tasks or its one example input; a
  QNN program calibrates on many passages, token by token.

upstream_test.py checks each assumption against the installed ExecuTorch: the
names and keywords exist, `lower_to_qnn` leaves a quantized graph alone, and
`quantize_pt2e` gives the builder's own graph when it calibrates on the
builder's example input. An upgrade that breaks one fails there, by name.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable


def load_llama(config):
    from executorch.examples.models.llama import export_llama_lib

    return export_llama_lib._prepare_for_llama_export(config)


def export_llama(config):
    """Runs ExecuTorch's pipeline end to end and saves config.export.output_name."""
    from executorch.examples.models.llama import export_llama_lib

    return export_llama_lib._export_llama(config)


def export_once(manager):
    """torch.export of `manager`'s model with its canonical passes applied, as an ExportedProgram.

    LLMEdgeManager.export() keeps only the exported graph's module, and its
    to_edge_transform_and_lower() traces that module again: two traces and
    two functionalizations of the whole model. Here the model is traced once,
    and the graph stays in torch.export's training IR: `lower`'s one
    decomposition functionalizes it, so the builder's run_decompositions({})
    (a retrace of its own) is not repeated either. The canonical passes are
    graph-module passes and run on this graph in place. The .pte is
    byte-identical to the builder's (upstream_test).
    """
    import torch
    from torch.nn.attention import SDPBackend

    # The builder's context: the math SDPA kernel traces, and no_grad drops
    # training-only ops.
    with torch.nn.attention.sdpa_kernel([SDPBackend.MATH]), torch.no_grad():
        exported = torch.export.export(
            manager.model,
            manager.example_inputs,
            kwargs=manager.example_kwarg_inputs,
            dynamic_shapes=manager._get_dynamic_shape(),
            strict=True,
        )
    for canonical_pass in manager.canonical_passes:
        result = canonical_pass(exported.graph_module)
        if result.graph_module is not exported.graph_module:
            raise RuntimeError(f"{type(canonical_pass).__name__} replaced the graph module instead of editing it")
    exported.graph_module.recompile()
    return exported


def stock_xnnpack_partitioners():
    """export_llama's XNNPACK partitioners, in its order: dynamic-quant linears first, then the rest."""
    from executorch.extension.llm.export.partitioner_lib import get_xnnpack_partitioner

    return [
        get_xnnpack_partitioner(dynamic_quant_only_partitioner=True),
        get_xnnpack_partitioner(dynamic_quant_only_partitioner=False),
    ]


def lower(manager, exported, partitioners, edge_passes=()):
    """LLMEdgeManager.to_edge_transform_and_lower on an ExportedProgram from `export_once`, decomposing once.

    ExecuTorch's to_edge_transform_and_lower retraces the whole graph three
    times per partitioner on its way to the edge dialect
    (_gen_edge_manager_for_partitioners): run_decompositions({}) to
    functionalize; for each partitioner, the default table minus the ops it
    preserves, then the whole table after the preserved nodes it accepts are
    renamed out of its reach. Each retrace costs about as much as
    torch.export itself. Here the first partitioner's table does the
    functionalization's work too (every run_decompositions functionalizes),
    and any later retrace runs only when a node it would decompose is left:
    for the whole table, when a partitioner refused a preserved node; for a
    later partitioner's table, when an op the earlier ones kept is one it
    does not (`decompose`). The edge-dialect conversion skips its retracing
    passes where they have nothing to change (edge_dialect.py). The rest is
    upstream's sequence: edge passes, lowering with each partitioner in turn,
    the final check that no preserved op was left undelegated.

    `partitioners` are applied in order, as in upstream's list. `edge_passes`
    run on the edge-dialect graph before the partitioners see it.
    upstream_test checks the .pte against the builder's own pipeline, byte
    for byte, with one partitioner and with ExecuTorch's two.
    """
    from executorch.exir.program import _program as exir

    from tools.executorch.export import edge_dialect

    if manager.generate_etrecord:
        raise RuntimeError("lower() records no ETRecord; use the builder's to_edge_transform_and_lower for one")
    config = manager._get_edge_config()
    program, preserved = decompose(exported, partitioners, "forward")
    edge_program = edge_dialect.generate_edge_program(config, program, preserve_ops=preserved)
    config._core_aten_ops_exception_list = list(set(config._core_aten_ops_exception_list) | set(preserved))
    edge = exir.EdgeProgramManager({"forward": edge_program}, manager.metadata, config, preserved)
    edge = edge.transform(list(edge_passes))
    exir.lift_constant_tensor_pass(edge.exported_program())
    with _without_to_backend_deprecation_warning():
        for partitioner in partitioners:
            edge = edge.to_backend({"forward": partitioner})

    lowered = edge.exported_program()
    kept = set()
    for partitioner in partitioners:
        left, check_op_support = partitioner.ops_to_not_decompose(lowered)
        kept |= set(exir._remove_invalid_ops_for_not_decompose(left))
        exir._sanity_check_graph_for_non_decomp_ops(
            "forward",
            lowered,
            kept,
            check_op_support,
            partitioner_name=type(partitioner).__name__,
            generate_error=True,
        )
    manager.edge_manager = edge
    return manager


def decompose(program, partitioners, method: str):
    """`program` in core ATen but for the ops `partitioners` keep: (program, the kept ops).

    Upstream's functionalization and per-partitioner tables, with each
    retrace run only when it has work (see `lower`). `method` names the
    program for the partitioners' op replacement. The QNN exporter calls
    this once per method, with its one partitioner.
    """
    from executorch.exir.program import _program as exir

    program = exir._apply_pre_decomposition_transforms(program, list(partitioners))
    preserved = set()
    for index, partitioner in enumerate(partitioners):
        keep, check_op_support = partitioner.ops_to_not_decompose(program)
        if check_op_support is None:
            raise RuntimeError(
                f"{type(partitioner).__name__} preserves ops without a per-node check; decompose() needs one"
            )
        table = exir._default_decomposition_table()
        for op in exir._remove_invalid_ops_for_not_decompose(keep):
            table.pop(op, None)
        if index == 0 or _has_ops_of(program, table):
            program = program.run_decompositions(table)
        preserved.update(exir._replace_aten_ops_with_transformed_ops(method, program, {method: [partitioner]}) or ())
        full_table = exir._default_decomposition_table()
        if _has_ops_of(program, full_table):
            program = program.run_decompositions(full_table)
        exir._restore_transformed_ops_to_aten_ops(program)
    return program, list(preserved)


def _has_ops_of(program, table) -> bool:
    """Whether a node of `program` calls an op that `table` decomposes.

    Every retrace emits sym_size for each symbolic size again, so a sym_size
    node says nothing about what is left to decompose.
    """
    import torch

    return any(
        node.op == "call_function" and node.target in table and node.target != torch.ops.aten.sym_size.int
        for node in program.graph.nodes
    )


@contextlib.contextmanager
def _without_to_backend_deprecation_warning():
    """Drops XNNPACK's warning against to_edge() + to_backend() while `lower` partitions.

    XnnpackPartitioner warns whenever no frame named to_edge_transform_and_lower
    is on the stack, because to_edge() decomposes the ops it wants kept.
    `lower` keeps them as to_edge_transform_and_lower does, so the warning
    would be wrong in every build log.
    """
    import logging

    from executorch.backends.xnnpack.partition import xnnpack_partitioner

    def keep(record: logging.LogRecord) -> bool:
        return "to_edge() + to_backend()" not in record.getMessage()

    logger = logging.getLogger(xnnpack_partitioner.__name__)
    logger.addFilter(keep)
    try:
        yield
    finally:
        logger.removeFilter(keep)


def lower_to_qnn(exported, config):
    """Edge dialect, QNN passes and partitioner, then to_executorch; `exported` is quantized already."""
    from executorch.examples.models.llama import export_llama_lib

    return export_llama_lib._to_edge_and_lower_llama(
        exported,
        exported.modelname,
        additional_passes=[],
        pt2e_quant_params=None,
        # Empty: the builder's own pt2e step then passes the graph through.
        quantizers=[],
        quant_dtype=None,
        qnn=True,
        dtype_override=config.model.dtype_override.value,
        enable_dynamic_shape=config.model.enable_dynamic_shape,
        use_kv_cache=config.model.use_kv_cache,
        pt2e_quantize=config.quantization.pt2e_quantize.value,
        use_qnn_sha=config.backend.qnn.use_sha,
        num_sharding=config.backend.qnn.num_sharding,
        soc_model=config.backend.qnn.soc_model,
    )


def soc_table() -> dict:
    """{SoC name: HTP architecture name} for every SoC the QNN backend compiles for."""
    from executorch.backends.qualcomm.serialization.qc_schema import _soc_info_table

    table = {}
    for chipset, info in _soc_info_table.items():
        arch = info.htp_info.htp_arch
        table[chipset.name] = getattr(arch, "name", str(arch))
    return table


def quantize_pt2e(manager, quantizer, calibrate: Callable[[object], None]):
    """Observes, calibrates with `calibrate(prepared_module)` and converts `manager`'s graph in place.

    The steps, and the context they run in, are LLMEdgeManager.pt2e_quantize's.
    """
    import torch
    from executorch.backends.transforms.duplicate_dynamic_quant_chain import DuplicateDynamicQuantChainPass
    from torch.nn.attention import SDPBackend
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e
    from torchao.quantization.pt2e.quantizer import ComposableQuantizer

    if manager.edge_manager is not None:
        raise RuntimeError("quantize_pt2e runs before the edge export")
    with torch.nn.attention.sdpa_kernel([SDPBackend.MATH]), torch.no_grad():
        prepared = prepare_pt2e(manager.pre_autograd_graph_module, ComposableQuantizer([quantizer]))
        calibrate(prepared)
        converted = convert_pt2e(prepared)
        DuplicateDynamicQuantChainPass()(converted)
        manager.pre_autograd_graph_module = converted
    return manager
