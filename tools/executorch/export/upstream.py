"""ExecuTorch's llama export steps that have no public name, in one place.

LOCAL ADAPTER for executorch 1.5.1. The exporters hand their recipes to
ExecuTorch's LLMEdgeManager as arguments (source transforms, quantizers,
partitioners) and never reassign anything upstream. These are the steps they
reach through underscore names, because 1.5.1 exposes no other way to them:

- `load_llama`: checkpoint + params.json -> an LLMEdgeManager with
  ExecuTorch's own source transforms for the configured backend applied.
- `export_llama`: the whole stock pipeline, for recipes that are ExecuTorch's.
- `export_once`, `lower`: LLMEdgeManager's export, canonical passes and
  to_edge_transform_and_lower with one torch.export where it runs two.
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
    two functionalizations of the whole model, a sixth of a SmolLM2 export.
    The canonical passes are graph-module passes, so they run on the first
    ExportedProgram's graph in place and `lower` takes it as it is; the .pte
    is byte-identical (upstream_test and the exported programs' sha256).
    """
    exported = manager._export()
    for canonical_pass in manager.canonical_passes:
        result = canonical_pass(exported.graph_module)
        if result.graph_module is not exported.graph_module:
            raise RuntimeError(f"{type(canonical_pass).__name__} replaced the graph module instead of editing it")
    exported.graph_module.recompile()
    return exported


def lower(manager, exported, partitioners, edge_passes=()):
    """LLMEdgeManager.to_edge_transform_and_lower on an ExportedProgram from `export_once`.

    `edge_passes` run on the edge-dialect graph before the partitioners see it.
    """
    from executorch.exir import to_edge_transform_and_lower

    manager.edge_manager = to_edge_transform_and_lower(
        exported,
        transform_passes=list(edge_passes),
        partitioner=partitioners,
        compile_config=manager._get_edge_config(),
        constant_methods=manager.metadata,
        generate_etrecord=manager.generate_etrecord,
    )
    return manager


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
