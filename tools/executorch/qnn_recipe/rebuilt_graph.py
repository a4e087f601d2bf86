"""A QNN program's quantized graph, made again from its manifest, to stand in for the program on a host.

The program itself runs on a host only in the HTP simulator, seconds per
token. The graph it was lowered from (quantized_graph.py) is what the HTP is
asked to compute, and runs in PyTorch:

    graph = rebuild("models/llama_int4_qnn.pte", "models/smollm2_calibration.json")
    session = PteSession(pte, tokenizer_json, computed_by=forward_of(graph))

The session then takes its limits and constants from the program and its
logits from the graph. The exporter does not use this file, so changing it
never re-exports a program.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence

from tools.executorch.export.errors import ExportError
from tools.executorch.export.special_tokens import load_special_tokens
from tools.executorch.qnn_recipe import calibration, quantized_graph
from tools.executorch.qnn_recipe.llm_config import qnn_llm_config


def rebuild(pte_path: str, calibration_json: str, fold_constants: bool = True) -> quantized_graph.QuantizedGraph:
    """The graph `pte_path` was lowered from, from what its manifest records.

    The checkpoint is the manifest's model (its llm_checkpoint folder beside
    the program, as Bazel lays them out); the scheme, SoC, context and
    passage count are the manifest's. `calibration_json` must be the
    calibration_set the program was exported with: its text's sha256 is
    checked against the manifest's. QNN_SDK_ROOT must name the QNN SDK, as
    for export_qnn. `fold_constants=False` keeps the weights' dequantization
    in every step, as the converted graph has it.
    """
    import torch

    if "QNN_SDK_ROOT" not in os.environ:
        # Unset, ExecuTorch's QNN package downloads an SDK when the quantizer starts.
        raise ExportError(
            "QNN_SDK_ROOT is not set: point it at the QNN SDK before rebuilding a QNN graph "
            "(tools/qnn/simulator.py's sdk_environment(), with //tools/qnn:sdk in the target's data)"
        )
    with open(pte_path[: -len(".pte")] + ".manifest.json", encoding="utf-8") as f:
        manifest = json.load(f)
    if "qnn" not in manifest:
        raise ExportError(f"{pte_path} is not a QNN program (its manifest has no qnn section)")
    qnn, config = manifest["qnn"], manifest["config"]
    folder = os.path.join(os.path.dirname(pte_path), config["model"].rpartition(":")[2])
    if not os.path.exists(os.path.join(folder, "checkpoint.pth")):
        raise ExportError(
            f"{pte_path} was exported from {config['model']}, whose checkpoint is not beside it ({folder}): "
            f"add {config['model']} to the data of the target that rebuilds the graph"
        )
    tokenizer = os.path.join(folder, "tokenizer.json")
    record, passages = calibration.load_passages(
        calibration_json, tokenizer, qnn["calibration"]["passages"], config["maxContextLen"]
    )
    if record["text_sha256"] != qnn["calibration"]["textSha256"]:
        raise ExportError(
            f"{calibration_json} is not the calibration set {pte_path} was exported with (its text differs): "
            "give the program's executorch_pte calibration target"
        )
    torch.manual_seed(0)  # as export_qnn seeds it
    llm_config = qnn_llm_config(
        os.path.join(folder, "checkpoint.pth"),
        os.path.join(folder, "params.json"),
        tokenizer,
        load_special_tokens(tokenizer, os.path.join(folder, "tokenizer_config.json")).runtime_metadata(),
        config["maxContextLen"],
        qnn["soc"],
    )
    builder = quantized_graph.quantize(llm_config, passages, qnn["soc"], qnn["quantize"], config.get("groupSize", 0))
    if fold_constants:
        fold_constant_dequantizes(builder.pre_autograd_graph_module)
    return quantized_graph.QuantizedGraph(builder)


def forward_of(graph: quantized_graph.QuantizedGraph) -> Callable[[Sequence[int], int], object]:
    """`graph` with pte_runner.PteSession's forward signature: tokens from `start`, one per call; the last logits."""

    def forward(tokens: Sequence[int], start: int):
        logits = None
        for offset, token in enumerate(tokens):
            logits = graph.forward(token, start + offset)
        return logits

    return forward


def fold_constant_dequantizes(graph_module) -> None:
    """Replaces each dequantize of constant weights with its result, computed once.

    The converted graph keeps its weights quantized and dequantizes every one
    of them at every call, which is half of a SmolLM2-135M step. The HTP holds
    those weights as constants too. The folded tensor is what the dequantize
    computed, so no logit changes (quantized_graph_test compares them bit for
    bit). Buffers the graph writes (the KV cache) are never folded.
    """
    import torch

    graph = graph_module.graph

    def writes_its_first_argument(node) -> bool:
        parts = str(node.target).split(".")  # e.g. aten.copy_.default, aten.index_put.default
        return "index_put" in parts or (len(parts) >= 2 and parts[-2].endswith("_"))

    written = {
        node.args[0].target
        for node in graph.nodes
        if node.op == "call_function"
        and writes_its_first_argument(node)
        and node.args
        and isinstance(node.args[0], torch.fx.Node)
        and node.args[0].op == "get_attr"
    }
    folded = 0
    for node in list(graph.nodes):
        inputs = node.all_input_nodes
        if (
            node.op != "call_function"
            or "dequantize" not in str(node.target)
            or not inputs
            or any(i.op != "get_attr" or i.target in written for i in inputs)
        ):
            continue
        args, kwargs = torch.fx.node.map_arg((node.args, node.kwargs), lambda i: _attribute(graph_module, i.target))
        with torch.no_grad():
            value = node.target(*args, **kwargs)
        name = f"_folded_{node.name}"
        graph_module.register_buffer(name, value)
        with graph.inserting_before(node):
            constant = graph.get_attr(name)
        node.replace_all_uses_with(constant)
        graph.erase_node(node)
        folded += 1
    if folded:
        for node in list(graph.nodes):
            if node.op == "get_attr" and not node.users:
                graph.erase_node(node)
        graph_module.recompile()


def _attribute(module, dotted: str):
    for name in dotted.split("."):
        module = getattr(module, name)
    return module
