"""Exports a llama checkpoint to a QNN (Qualcomm HTP) .pte and writes its manifest.

One invocation is one Bazel action (see private/qnn_pte.bzl). ExecuTorch's
LLMEdgeManager does the work, one step at a time, configured for the NPU:
static shapes (one token per call against a fixed-size KV cache),
post-training quantization with QnnQuantizer (16a4w: int4 weights, 16-bit
activations), and lowering to a QNN context binary compiled for one SoC.

The recipe is handed in, in qnn_recipe/: two source transforms after
ExecuTorch's own (npu_graph.py), our quantizer (quantizer.py) and calibration
on a calibration_set's passages, each from position 0 (calibration.py).

The QNN libraries come from QNN_SDK_ROOT, which the action sets to the
toolchain's folder (//tools/qnn:sdk); nothing is ever downloaded.
"""

from __future__ import annotations

import os
import resource
import sys
import time

from absl import app, flags

from tools.executorch.export import errors, manifest, upstream
from tools.executorch.export.digest import sha256_of
from tools.executorch.export.errors import ExportError
from tools.executorch.export.op_counts import count_ops
from tools.executorch.export.special_tokens import load_special_tokens
from tools.executorch.export.stage_clock import STEPS, NoClock, StageClock, Step
from tools.executorch.qnn_recipe import calibration, lowering, quantized_graph, quantizer
from tools.executorch.qnn_recipe.context_signatures import deterministic_context_signatures
from tools.executorch.qnn_recipe.llm_config import qnn_llm_config

# The QNN flow's own steps beside the CPU export's (export/stage_clock.py):
# calibration and the QNN backend's passes.
QNN_STEPS = (
    *STEPS,
    Step("QNN partitioner", "backends/qualcomm/partition/qnn_partitioner.py", "partition"),
    Step("QNN export passes", "backends/qualcomm/_passes/qnn_pass_manager.py", "transform_for_export_pipeline"),
    Step("LPBQ block fit", "qnn_recipe/block_offsets.py", "fit_blocks"),
    Step("prepare_pt2e (observers)", "torchao/quantization/pt2e/quantize_pt2e.py", "prepare_pt2e"),
    Step("calibration", "qnn_recipe/calibration.py", "calibrate"),
    Step("convert_pt2e", "torchao/quantization/pt2e/quantize_pt2e.py", "convert_pt2e"),
)

FLAGS = flags.FLAGS
flags.DEFINE_string("checkpoint", None, "Meta-layout state dict (.pth).")
flags.DEFINE_string("params", None, "params.json of the checkpoint.")
flags.DEFINE_string("tokenizer", None, "tokenizer.json.")
flags.DEFINE_string("tokenizer_config", None, "tokenizer_config.json (bos/eos, chat template).")
flags.DEFINE_string("model_label", "", "Bazel label of the model, recorded in the manifest.")
flags.DEFINE_string("calibration", None, "calibration_set JSON (token ids of text passages).")
flags.DEFINE_integer("calibration_passages", 32, "How many of its passages to calibrate on.")
flags.DEFINE_string("soc", "SM8650", "Qualcomm SoC to compile for, e.g. SM8650.")
flags.DEFINE_enum(
    "quantize",
    "16a4w",
    list(quantizer.SCHEMES),
    "QnnQuantizer scheme: activation/weight bits; _block = 4-bit weights with a scale per group_size block (LPBQ).",
)
flags.DEFINE_integer("group_size", 0, "Block size of 16a4w_block weights: 32, 64 or 128.")
flags.DEFINE_integer("max_context_len", 512, "KV-cache length: prompt plus generated tokens.")
flags.DEFINE_integer(
    "prefill_length",
    32,
    "Prompt tokens per execution of the prefill method; 0 = no prefill method (one token per call).",
)
flags.DEFINE_bool(
    "weight_sharing",
    False,
    "Whether forward and prefill keep one copy of the weights in their QNN context: half the size on a phone; "
    "the x86 HTP simulator cannot load it.",
)
flags.DEFINE_string("qairt_build_id", "", "QAIRT build id of the SDK (from //tools/qnn:sdk).")
flags.DEFINE_bool("abi_adapter", False, "Whether the SDK's libQnnHtp.so is tools/qnn's ABI adapter.")
flags.DEFINE_string("out_pte", None, "Output .pte path.")
flags.DEFINE_string("out_manifest", None, "Output manifest JSON path.")
flags.DEFINE_string("profile_out", "", "Write each stage's wall time and peak memory here (export/stage_clock.py).")
for _name in ("checkpoint", "params", "tokenizer", "tokenizer_config", "calibration", "out_pte", "out_manifest"):
    flags.mark_flag_as_required(_name)


def check_sdk() -> None:
    root = os.environ.get("QNN_SDK_ROOT", "")
    if not root or not os.path.exists(os.path.join(root, "lib", "x86_64-linux-clang", "libQnnHtp.so")):
        raise ExportError(
            f"no QNN SDK: QNN_SDK_ROOT={root!r} has no lib/x86_64-linux-clang/libQnnHtp.so. Build through "
            "executorch_pte (it sets QNN_SDK_ROOT to //tools/qnn:sdk), or set QNN_SDK_ROOT to a QAIRT SDK"
        )


def check_soc(soc: str) -> str:
    """Returns the SoC's HTP architecture."""
    table = upstream.soc_table()
    if soc not in table:
        raise ExportError(f"unknown SoC {soc!r}; ExecuTorch's QNN backend knows {sorted(table)}")
    return table[soc]


def check_scheme() -> None:
    if FLAGS.quantize in quantizer.BLOCK_SCHEMES and FLAGS.group_size not in quantizer.BLOCK_SIZES:
        raise ExportError(
            f"quantize={FLAGS.quantize} needs group_size in {quantizer.BLOCK_SIZES}, got {FLAGS.group_size}"
        )
    if FLAGS.quantize not in quantizer.BLOCK_SCHEMES and FLAGS.group_size:
        raise ExportError(f"group_size is for quantize={quantizer.BLOCK_SCHEMES} only; drop it for {FLAGS.quantize}")


def check_prefill_length(passages: list[list[int]]) -> None:
    length = FLAGS.prefill_length
    if length == 0:
        return
    if not 2 <= length < FLAGS.max_context_len:
        raise ExportError(
            f"prefill_length={length} must be 0 (no prefill method) or in 2..{FLAGS.max_context_len - 1} "
            "(below max_context_len)"
        )
    if not any(len(p) >= length for p in passages):
        raise ExportError(
            f"no calibration passage has prefill_length={length} tokens, so the prefill graph cannot be "
            "calibrated; use longer passages or a shorter prefill_length"
        )


def export_program(config, clock, passages: list[list[int]]):
    """The quantized graphs (qnn_recipe/quantized_graph.py), lowered to the HTP: (edge manager, program)."""
    lengths = {lowering.FORWARD: 1}
    if FLAGS.prefill_length:
        lengths[lowering.PREFILL] = FLAGS.prefill_length
    builders = quantized_graph.quantize_methods(
        config, passages, FLAGS.soc, FLAGS.quantize, FLAGS.group_size, lengths, clock
    )
    graphs = {method: (builder.pre_autograd_graph_module, lengths[method]) for method, builder in builders.items()}
    # The constant methods describe forward (get_max_seq_len is 1).
    metadata = dict(builders[lowering.FORWARD].metadata)
    shared = FLAGS.weight_sharing and len(graphs) > 1
    if shared:
        # The runtime reads it to refuse, with the fix, a host that cannot
        # load shared weights (the x86 simulator) instead of crashing in it.
        metadata[lowering.WEIGHT_SHARING_METHOD] = True
    with clock.stage("lower to the HTP, to_executorch"):
        return lowering.lower(graphs, FLAGS.soc, metadata, shared)


def main(argv: list[str]) -> None:
    del argv
    errors.quiet_libraries()
    try:
        errors.require_files(
            ((what, getattr(FLAGS, what)) for what in ("checkpoint", "params", "tokenizer", "tokenizer_config")),
            "build the llm_checkpoint first",
        )
        errors.require_files([("calibration", FLAGS.calibration)], "build the calibration_set first")
        check_sdk()
        htp_arch = check_soc(FLAGS.soc)
        check_scheme()
        record, passages = calibration.load_passages(
            FLAGS.calibration, FLAGS.tokenizer, FLAGS.calibration_passages, FLAGS.max_context_len
        )
        check_prefill_length(passages)
        tokens = load_special_tokens(FLAGS.tokenizer, FLAGS.tokenizer_config)
        params = manifest.read_params(FLAGS.params)
    except ExportError as e:
        errors.fail("export_qnn", e)

    import torch

    from tools.executorch import manifest_pb2, qnn_manifest_pb2

    clock = StageClock(QNN_STEPS) if FLAGS.profile_out else NoClock()
    started = time.monotonic()
    torch.manual_seed(0)
    config = qnn_llm_config(
        FLAGS.checkpoint, FLAGS.params, FLAGS.tokenizer, tokens.runtime_metadata(), FLAGS.max_context_len, FLAGS.soc
    )
    edge, program = export_program(config, clock, passages)
    with clock.stage("serialize, write"):
        pte_bytes, contexts = deterministic_context_signatures(program.buffer)
        if contexts == 0:
            errors.fail(
                "export_qnn", ExportError("the program has no QNN context binary; nothing was delegated to the NPU")
            )
        with open(FLAGS.out_pte, "wb") as f:
            f.write(pte_bytes)
    ops = count_ops(edge.exported_program(lowering.FORWARD))

    qnn = qnn_manifest_pb2.QnnTarget(
        soc=FLAGS.soc,
        htp_arch=htp_arch,
        qairt_build_id=FLAGS.qairt_build_id,
        qairt_build_id_in_context_blob=bool(FLAGS.qairt_build_id)
        and FLAGS.qairt_build_id.lstrip("v").encode() in pte_bytes,
        abi_adapter=FLAGS.abi_adapter,
        quantize=FLAGS.quantize,
        calibration=qnn_manifest_pb2.QnnCalibration(
            text_sha256=record["text_sha256"], passages=len(passages), tokens=sum(len(p) for p in passages)
        ),
        delegated_ops=ops.delegated,
        cpu_ops=ops.non_delegated,
        cpu_ops_by_name=ops.non_delegated_by_op,
        transformer_blocks_fully_delegated=ops.non_delegated_compute_in_layers == 0,
        prefill_length=FLAGS.prefill_length,
        weight_sharing=FLAGS.weight_sharing and FLAGS.prefill_length > 0,
    )
    pte_manifest = manifest_pb2.PteManifest(
        **manifest.program_fields(FLAGS.out_pte),
        versions=manifest.versions(),
        config=manifest_pb2.ExportConfig(
            model=FLAGS.model_label,
            quantize=FLAGS.quantize,
            group_size=FLAGS.group_size,
            backend="qnn",
            max_seq_len=1,
            max_context_len=FLAGS.max_context_len,
            use_kv_cache=True,
            use_sdpa_with_kv_cache=False,
            dtype="fp32",
        ),
        architecture=manifest.llama_architecture(params, manifest.checkpoint_parameters(FLAGS.checkpoint)),
        ops=manifest_pb2.OpCounts(**ops.manifest_fields()),
        tokenizer=manifest.tokenizer_ref(FLAGS.tokenizer, tokens),
        checkpoint_sha256=sha256_of(FLAGS.checkpoint),
    )
    manifest.write_manifest(FLAGS.out_manifest, pte_manifest, extra={"qnn": qnn})
    clock.write(FLAGS.profile_out)
    # For the log only: the manifest must not depend on the machine's speed.
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"export_qnn: {time.monotonic() - started:.0f} s, peak RSS {peak_mb:.0f} MB", file=sys.stderr)


if __name__ == "__main__":
    app.run(main)
