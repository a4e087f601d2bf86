"""Exports a llama checkpoint to a QNN (Qualcomm HTP) .pte and writes its manifest.

One invocation is one Bazel action (see private/executorch_pte.bzl, backend
"qnn"). ExecuTorch's llama export pipeline does the work, configured for the
NPU: static shapes (one token per call against a fixed-size KV cache),
post-training quantization with QnnQuantizer (16a4w: int4 weights, 16-bit
activations), and lowering to a QNN context binary compiled for one SoC.

Calibration runs the observers over a calibration_set's passages, each from
position 0, instead of ExecuTorch's single calibration prompt.

The QNN libraries come from QNN_SDK_ROOT, which the action sets to the
toolchain's folder (//tools/qnn:sdk); nothing is ever downloaded.
"""

from __future__ import annotations

import collections
import hashlib
import json
import logging
import os
import platform
import re
import resource
import sys
import time
import warnings
from importlib import metadata

from absl import app, flags

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
    ["16a4w", "16a4w_block", "16a8w", "8a8w"],
    "QnnQuantizer scheme: activation/weight bits; _block = 4-bit weights with a scale per group_size block (LPBQ).",
)
flags.DEFINE_integer("group_size", 0, "Block size of 16a4w_block weights: 32, 64 or 128.")
flags.DEFINE_integer("max_context_len", 512, "KV-cache length: prompt plus generated tokens.")
flags.DEFINE_string("qairt_build_id", "", "QAIRT build id of the SDK (from //tools/qnn:sdk).")
flags.DEFINE_bool("abi_adapter", False, "Whether the SDK's libQnnHtp.so is tools/qnn's ABI adapter.")
flags.DEFINE_string("out_pte", None, "Output .pte path.")
flags.DEFINE_string("out_manifest", None, "Output manifest JSON path.")
for _name in ("checkpoint", "params", "tokenizer", "tokenizer_config", "calibration", "out_pte", "out_manifest"):
    flags.mark_flag_as_required(_name)

# Fewer passages than this leave 16-bit activation ranges set by a handful of
# tokens; outliers seen later then clip.
MIN_CALIBRATION_PASSAGES = 8
END_OF_TEXT_TOKENS = ("<|endoftext|>", "<|end_of_text|>")
BLOCK_SIZES = (32, 64, 128)
# What masked attention scores become (see install_npu_friendly_graph).
MASKED_SCORE = -255.0


# ExecuTorch's QNN delegate payload starts with a small header: this magic,
# then an 8-byte "signature" that ExecuTorch fills with the wall clock in
# nanoseconds (it keys a per-process cache of QNN contexts), then the
# context binary's size. The clock is the only byte difference between two
# exports, so it is replaced by a hash of the context binary: still unique per
# context, now the same on every machine.
CONTEXT_MAGIC = (0x5678ABCD).to_bytes(4, "little")


class ExportError(Exception):
    """Bad input; the message names the problem and the fix."""


def sha256_of(path: str) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def check_sdk() -> str:
    root = os.environ.get("QNN_SDK_ROOT", "")
    library = os.path.join(root, "lib", "x86_64-linux-clang", "libQnnHtp.so")
    if not root or not os.path.exists(library):
        raise ExportError(
            f"no QNN SDK: QNN_SDK_ROOT={root!r} has no lib/x86_64-linux-clang/libQnnHtp.so. Build through "
            "executorch_pte (it sets QNN_SDK_ROOT to //tools/qnn:sdk), or set QNN_SDK_ROOT to a QAIRT SDK"
        )
    return library


def check_soc(soc: str) -> tuple[object, str]:
    from executorch.backends.qualcomm.serialization.qc_schema import QcomChipset, _soc_info_table

    known = {chipset.name: chipset for chipset in _soc_info_table}
    if soc not in known:
        raise ExportError(f"unknown SoC {soc!r}; ExecuTorch's QNN backend knows {sorted(known)}")
    arch = _soc_info_table[known[soc]].htp_info.htp_arch
    return QcomChipset[soc], getattr(arch, "name", str(arch))


def load_calibration(tokenizer_json: str) -> tuple[dict, list[list[int]]]:
    with open(FLAGS.calibration) as f:
        record = json.load(f)
    if record["tokenizer_sha256"] != sha256_of(tokenizer_json):
        raise ExportError(
            f"{FLAGS.calibration} was tokenized with another tokenizer than this model's: give executorch_pte a "
            "calibration_set whose model is this program's model"
        )
    if FLAGS.calibration_passages < MIN_CALIBRATION_PASSAGES:
        raise ExportError(
            f"calibration_passages={FLAGS.calibration_passages} is too small to set 16-bit activation ranges; "
            f"use at least {MIN_CALIBRATION_PASSAGES}"
        )
    passages = record["passages"]
    if len(passages) < FLAGS.calibration_passages:
        raise ExportError(
            f"the calibration set holds {len(passages)} passages but calibration_passages="
            f"{FLAGS.calibration_passages}: raise the calibration_set's passages or lower calibration_passages"
        )
    # An even stride, like the set itself, so a short run still spans the text.
    stride = len(passages) / FLAGS.calibration_passages
    chosen = [passages[int(i * stride)] for i in range(FLAGS.calibration_passages)]
    longest = max(len(p) for p in chosen)
    if longest > FLAGS.max_context_len:
        raise ExportError(f"a calibration passage has {longest} tokens, more than max_context_len")
    return record, chosen


def deterministic_context_signatures(pte: bytes) -> tuple[bytes, int]:
    """Returns the program with each QNN context signature set from its content, and how many."""
    data = bytearray(pte)
    count = 0
    start = data.find(CONTEXT_MAGIC)
    while start != -1:
        size = int.from_bytes(data[start + 12 : start + 16], "little")
        body = data[start + 16 : start + 16 + size]
        if size and len(body) == size:
            digest = hashlib.sha256(body).digest()
            # Kept positive: the runtime reads it as a signed 64-bit integer.
            signature = int.from_bytes(digest[:8], "little") & ((1 << 63) - 1)
            data[start + 4 : start + 12] = signature.to_bytes(8, "little")
            count += 1
        start = data.find(CONTEXT_MAGIC, start + 4)
    return bytes(data), count


def load_special_tokens(tokenizer_json: str, tokenizer_config: str) -> tuple[int, list[int], bool]:
    with open(tokenizer_json) as f:
        added = {t["content"]: t["id"] for t in json.load(f).get("added_tokens", [])}
    with open(tokenizer_config) as f:
        config = json.load(f)
    bos = added.get(config.get("bos_token"), -1)
    eos = added.get(config.get("eos_token"))
    eos_ids = sorted({eos} | {added[t] for t in END_OF_TEXT_TOKENS if t in added}) if eos is not None else []
    return bos, eos_ids, bool(config.get("chat_template"))


def make_quantizer(soc):
    """QnnQuantizer for FLAGS.quantize (ExecuTorch's llama helper offers only 8a8w/16a16w/16a4w)."""
    from executorch.backends.qualcomm.quantizer.quantizer import QnnQuantizer, QuantDtype
    from torchao.quantization.pt2e import MinMaxObserver

    dtype = {
        "16a4w": QuantDtype.use_16a4w,
        "16a4w_block": QuantDtype.use_16a4w_block,
        "16a8w": QuantDtype.use_16a8w,
        "8a8w": QuantDtype.use_8a8w,
    }[FLAGS.quantize]
    quantizer = QnnQuantizer(soc_model=soc)
    quantizer.set_default_quant_config(
        dtype, is_qat=False, is_conv_per_channel=True, is_linear_per_channel=True, act_observer=MinMaxObserver
    )
    # Unlike upstream's llama recipe, attention's matmuls stay 16-bit on the
    # KV side too (no custom_annotate_llama_matmul_16a8w): its 8-bit K and V
    # cost SmolLM2 13 of 64 teacher-forced tokens (fake-quant 16a8w: 41/64
    # with it, 54/64 without), and a 135M model's cache is small anyway.
    return quantizer, dtype


def install_quantizer(soc) -> None:
    """Routes ExecuTorch's llama export through make_quantizer, with per-block sizes for _block."""
    from executorch.examples.models.llama import export_llama_lib
    from executorch.extension.llm.export.builder import LLMEdgeManager

    export_llama_lib.get_qnn_quantizer = lambda *_args, **_kwargs: make_quantizer(soc)
    if FLAGS.quantize != "16a4w_block":
        return
    quantize = LLMEdgeManager.pt2e_quantize

    def quantize_with_blocks(self, quantizers):
        # Block sizes are keyed by node name: every linear (a 1x1 conv2d after
        # ExecuTorch's QNN rewrite) gets blocks of group_size input channels.
        convs = {
            node.name: (1, FLAGS.group_size, 1, 1)
            for node in self.pre_autograd_graph_module.graph.nodes
            if node.op == "call_function" and "conv2d" in str(node.target)
        }
        for quantizer in quantizers:
            quantizer.set_block_size_map(convs)
        return quantize(self, quantizers)

    LLMEdgeManager.pt2e_quantize = quantize_with_blocks


def install_npu_friendly_graph() -> None:
    """Rewrites two parts of ExecuTorch's llama graph that 16-bit activations cannot hold.

    Each was found by fake-quant experiments (QnnQuantizer's observers on
    CPU, teacher-forced against fp32) and README "Qualcomm NPU" has the table.

    RMSNorm stays one operator. The graph otherwise spells it out (x*x, mean,
    rsqrt, mul), and per-tensor ranges on x*x cannot hold both the residual
    stream's outliers (SmolLM2 reaches 2.4e4 at position 0) and its small
    values. As one aten.rms_norm, which QNN has a builder for, only its output
    is quantized.

    The causal mask is finite. With -inf, the observer of scores + mask spans
    ~65k, so one 16-bit step is ~1.0 and softmax sees rounded scores. With
    -255 the step is ~0.004, and exp(-255) is still exactly 0.
    """
    import torch
    from executorch.examples.models.llama import export_llama_lib
    from executorch.examples.models.llama.source_transformation.rms_norm import (
        replace_rms_norm_with_native_rms_norm,
    )

    def finite_causal_mask(module):
        for name, buffer in list(module.named_buffers()):
            owner_path, _, leaf = name.rpartition(".")
            if leaf == "mask":
                owner = module.get_submodule(owner_path) if owner_path else module
                owner.register_buffer("mask", torch.clamp(buffer, min=MASKED_SCORE))
        return module

    # The QNN branch of ExecuTorch's source transforms ends with
    # replace_causal_mask (the -inf mask); chain ours onto it.
    replace_causal_mask = export_llama_lib.replace_causal_mask
    export_llama_lib.replace_causal_mask = lambda module: replace_rms_norm_with_native_rms_norm(
        finite_causal_mask(replace_causal_mask(module))
    )


def install_passage_calibration(passages: list[list[int]]) -> None:
    """Makes ExecuTorch's builder calibrate on our passages, token by token from position 0."""
    import torch
    from executorch.extension.llm.export.builder import LLMEdgeManager

    def calibrate(self, prepared_module, **_unused) -> None:
        # A one-token step is thousands of tiny observer ops (aminmax per
        # activation): with two threads they cost 15-40x more than with one,
        # measured here, as every op waits on the thread pool. Min/max are
        # exact, so the thread count cannot change the result.
        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        with torch.no_grad():
            for number, passage in enumerate(passages):
                for position, token in enumerate(passage):
                    prepared_module(
                        torch.tensor([[token]], dtype=torch.long),
                        {"input_pos": torch.tensor([position], dtype=torch.long)},
                    )
                print(f"calibrated passage {number + 1}/{len(passages)}", file=sys.stderr, flush=True)
        torch.set_num_threads(threads)

    LLMEdgeManager.pt2e_calibrate = calibrate


def build_llm_config(bos_id: int, eos_ids: list[int]):
    from executorch.extension.llm.export.config.llm_config import LlmConfig, ModelType, Pt2eQuantize

    config = LlmConfig()
    config.base.model_class = ModelType("llama3_2")
    config.base.checkpoint = FLAGS.checkpoint
    config.base.params = FLAGS.params
    config.base.tokenizer_path = FLAGS.tokenizer
    config.base.metadata = json.dumps({"get_bos_id": bos_id, "get_eos_ids": eos_ids})
    # NPUs need static shapes: one token per call, a fixed-size KV cache.
    config.model.use_kv_cache = True
    config.model.use_sdpa_with_kv_cache = False
    config.model.enable_dynamic_shape = False
    config.export.max_seq_length = 1
    config.export.max_context_length = FLAGS.max_context_len
    # Selects ExecuTorch's QNN quantization path; the quantizer itself comes
    # from make_quantizer (install_quantizer).
    config.quantization.pt2e_quantize = Pt2eQuantize("qnn_16a4w")
    # Non-empty so the builder calls its (replaced) calibration hook.
    config.quantization.calibration_data = "passages"
    config.quantization.calibration_seq_length = FLAGS.max_context_len
    config.backend.qnn.enabled = True
    config.backend.qnn.soc_model = FLAGS.soc
    config.export.output_name = os.path.abspath(FLAGS.out_pte)
    return config


def count_ops(edge_program) -> dict:
    """QNN vs CPU operators, and whether any CPU operator sits inside a decoder layer."""
    cpu: collections.Counter = collections.Counter()
    delegated = 0
    cpu_in_layers = 0
    graph_module = edge_program.graph_module
    for node in graph_module.graph.nodes:
        if node.op != "call_function" or "getitem" in str(node.target):
            continue
        if "executorch_call_delegate" in str(node.target):
            lowered = getattr(graph_module, node.args[0].target)
            delegated += sum(
                1
                for n in lowered.original_module.graph.nodes
                if n.op == "call_function" and "getitem" not in str(n.target)
            )
            continue
        name = getattr(node.target, "__name__", str(node.target))
        cpu[name] += 1
        stack = node.meta.get("nn_module_stack") or {}
        # KV-cache writes live in a layer but are data movement the runtime
        # must do on the CPU-side buffers; anything else in a layer is compute.
        in_layer = any(re.search(r"layers\.\d+", str(path)) for path, _ in stack.values())
        if in_layer and "index_put" not in name and "copy" not in name:
            cpu_in_layers += 1
    return {
        "delegated_ops": delegated,
        "cpu_ops": sum(cpu.values()),
        "cpu_ops_by_name": dict(sorted(cpu.items())),
        "transformer_blocks_fully_delegated": cpu_in_layers == 0,
    }


def main(argv: list[str]) -> None:
    del argv
    logging.getLogger().setLevel(logging.WARNING)
    warnings.filterwarnings("ignore", category=FutureWarning)
    warnings.filterwarnings("ignore", category=UserWarning)
    try:
        for what in ("checkpoint", "params", "tokenizer", "tokenizer_config", "calibration"):
            if not os.path.exists(getattr(FLAGS, what)):
                raise ExportError(f"{what} file {getattr(FLAGS, what)} does not exist")
        check_sdk()
        chipset, htp_arch = check_soc(FLAGS.soc)
        if FLAGS.quantize == "16a4w_block" and FLAGS.group_size not in BLOCK_SIZES:
            raise ExportError(f"quantize=16a4w_block needs group_size in {BLOCK_SIZES}, got {FLAGS.group_size}")
        if FLAGS.quantize != "16a4w_block" and FLAGS.group_size:
            raise ExportError(f"group_size is for quantize=16a4w_block only; drop it for {FLAGS.quantize}")
        record, passages = load_calibration(FLAGS.tokenizer)
        bos_id, eos_ids, has_template = load_special_tokens(FLAGS.tokenizer, FLAGS.tokenizer_config)
        with open(FLAGS.params) as f:
            params = json.load(f)
    except ExportError as e:
        sys.exit(f"export_qnn: error: {e}")

    import torch
    from executorch.examples.models.llama.export_llama_lib import _export_llama
    from google.protobuf import json_format

    from tools.executorch import manifest_pb2, qnn_manifest_pb2

    started = time.monotonic()
    torch.manual_seed(0)
    install_npu_friendly_graph()
    install_quantizer(chipset)
    install_passage_calibration(passages)
    builder = _export_llama(build_llm_config(bos_id, eos_ids))
    ops = count_ops(builder.edge_manager.exported_program())

    with open(FLAGS.out_pte, "rb") as f:
        pte_bytes, contexts = deterministic_context_signatures(f.read())
    if contexts == 0:
        sys.exit("export_qnn: error: the program has no QNN context binary; nothing was delegated to the NPU")
    with open(FLAGS.out_pte, "wb") as f:
        f.write(pte_bytes)
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
        **ops,
    )
    manifest = manifest_pb2.PteManifest(
        pte=os.path.basename(FLAGS.out_pte),
        sha256=hashlib.sha256(pte_bytes).hexdigest(),
        size_bytes=len(pte_bytes),
        versions=manifest_pb2.Versions(
            torch=metadata.version("torch"),
            executorch=metadata.version("executorch"),
            torchao=metadata.version("torchao"),
            python=platform.python_version(),
        ),
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
        architecture=manifest_pb2.Architecture(
            dim=params["dim"],
            n_layers=params["n_layers"],
            n_heads=params["n_heads"],
            n_kv_heads=params.get("n_kv_heads") or params["n_heads"],
            vocab_size=params["vocab_size"],
        ),
        ops=manifest_pb2.OpCounts(
            delegated=ops["delegated_ops"],
            non_delegated=ops["cpu_ops"],
            non_delegated_by_op=ops["cpu_ops_by_name"],
            backends=["QnnBackend"],
        ),
        tokenizer=manifest_pb2.TokenizerRef(
            file=os.path.basename(FLAGS.tokenizer),
            sha256=sha256_of(FLAGS.tokenizer),
            bos_id=bos_id,
            eos_ids=eos_ids,
            has_chat_template=has_template,
        ),
        checkpoint_sha256=sha256_of(FLAGS.checkpoint),
    )
    document = json_format.MessageToDict(manifest, always_print_fields_with_no_presence=True)
    document["qnn"] = json_format.MessageToDict(qnn, always_print_fields_with_no_presence=True)
    with open(FLAGS.out_manifest, "w") as f:
        json.dump(document, f, sort_keys=True, indent=2)
        f.write("\n")
    # For the log only: the manifest must not depend on the machine's speed.
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"export_qnn: {time.monotonic() - started:.0f} s, peak RSS {peak_mb:.0f} MB", file=sys.stderr)


if __name__ == "__main__":
    app.run(main)
