"""Exports a llama checkpoint to an ExecuTorch .pte and writes its manifest.

One invocation is one Bazel action (see private/llm_pte.bzl). It runs
ExecuTorch's llama export pipeline in-process with a config built from flags,
so every knob that changes the output is visible on the command line and in
the manifest.
"""

from __future__ import annotations

import os

from absl import app, flags

from tools.executorch.export import errors, manifest, upstream
from tools.executorch.export.choices import CHOICES
from tools.executorch.export.digest import sha256_of
from tools.executorch.export.errors import ExportError
from tools.executorch.export.manifest import ffn_hidden_dim
from tools.executorch.export.op_counts import count_ops
from tools.executorch.export.passages import load_passages
from tools.executorch.export.special_tokens import load_special_tokens
from tools.executorch.export.stage_clock import STEPS, NoClock, StageClock
from tools.executorch.logit_rows.chosen_rows import choose_rows
from tools.executorch.quantize import recipe
from tools.executorch.quantize.outlier_channels import choose_channel_sets, measure_input_peaks
from tools.executorch.xnnpack_graph.common_subexpressions import eliminate_common_subexpressions
from tools.executorch.xnnpack_graph.inferred_views import infer_symbolic_view_sizes
from tools.executorch.xnnpack_graph.pair_rotation import pair_rotation
from tools.executorch.xnnpack_graph.partitioner import xnnpack_partitioner

FLAGS = flags.FLAGS
flags.DEFINE_string("checkpoint", None, "Meta-layout state dict (.pth).")
flags.DEFINE_string("params", None, "params.json of the checkpoint.")
flags.DEFINE_string("tokenizer", None, "tokenizer.json.")
flags.DEFINE_string("tokenizer_config", None, "tokenizer_config.json (bos/eos, chat template).")
flags.DEFINE_string("model_label", "", "Bazel label of the model, recorded in the manifest.")
flags.DEFINE_enum(
    "quantize",
    "none",
    CHOICES["quantize"],
    "Linear-layer quantization: 8da4w is ExecuTorch's symmetric recipe, 8da4w_asym ours (quantize/offset_int4.py).",
)
flags.DEFINE_string("head_quantize", "", 'With 8da4w_asym: "8da8w" gives the output head int8 rows; empty, 4 bits.')
flags.DEFINE_integer("group_size", 0, "Group size for 4-bit weights: 32, 64 or 128.")
flags.DEFINE_string("embedding_quantize", "", 'Embedding quantization "<bits>,<group>", e.g. "4,32"; empty for none.')
flags.DEFINE_enum("backend", "portable", CHOICES["backend"], "Where the graph runs.")
flags.DEFINE_integer("max_seq_len", 128, "Longest token chunk a single forward call accepts.")
flags.DEFINE_integer("max_context_len", 2048, "KV-cache length: prompt plus generated tokens.")
flags.DEFINE_integer(
    "logit_rows",
    1,
    "Above 1, forward takes a third input naming up to this many positions to return logits for "
    "(logit_rows/chosen_rows.py): the runtime verifies speculative drafts in one call.",
)
flags.DEFINE_integer(
    "outlier_channels",
    0,
    "With 8da4w_asym: the channels of each quantized linear's input with the largest calibration peaks "
    "(all but the attention's output projection), kept out of the int8 activations and computed in fp32 "
    "(quantize/outlier_channels.py); 0 for none.",
)
flags.DEFINE_string("calibration", "", "calibration_set JSON (token ids of text passages), for outlier_channels.")
flags.DEFINE_integer("calibration_passages", 64, "How many of its passages to measure activation peaks on.")
flags.DEFINE_bool("hqq", False, "Search 4-bit scales with HQQ (slower export, sometimes lower error).")
flags.DEFINE_string("out_pte", None, "Output .pte path.")
flags.DEFINE_string("out_manifest", None, "Output manifest JSON path.")
flags.DEFINE_string("profile_out", "", "Write each stage's wall time and peak memory here (export/stage_clock.py).")
for _name in ("checkpoint", "params", "tokenizer", "tokenizer_config", "out_pte", "out_manifest"):
    flags.mark_flag_as_required(_name)


def linear_in_features(params: dict) -> dict[str, int]:
    """in_features of each kind of linear layer in a llama block (+ output)."""
    head_dim = params.get("head_dim") or params["dim"] // params["n_heads"]
    return {
        "attention.wq/wk/wv": params["dim"],
        "attention.wo": params["n_heads"] * head_dim,
        "feed_forward.w1/w3": params["dim"],
        "feed_forward.w2": ffn_hidden_dim(params),
        "output": params["dim"],
    }


def check_config(params: dict) -> list[str]:
    """Validates the flags against the model; returns linears left unquantized."""
    if FLAGS.max_seq_len < 1:
        raise ExportError(f"max_seq_len={FLAGS.max_seq_len} must be at least 1")
    if FLAGS.max_context_len < FLAGS.max_seq_len:
        raise ExportError(
            f"max_context_len={FLAGS.max_context_len} is smaller than max_seq_len={FLAGS.max_seq_len}: "
            "the KV cache must hold at least one full prefill chunk; raise max_context_len or lower max_seq_len"
        )
    if not 1 <= FLAGS.logit_rows <= FLAGS.max_seq_len:
        raise ExportError(f"logit_rows={FLAGS.logit_rows} must be in 1..max_seq_len ({FLAGS.max_seq_len})")
    if FLAGS.logit_rows > 1 and FLAGS.quantize != "8da4w_asym":
        raise ExportError(
            f"logit_rows={FLAGS.logit_rows} needs recipe = \"int4\" (quantize='8da4w_asym'), whose pipeline "
            "takes the transform; drop logit_rows or switch"
        )
    if FLAGS.quantize == "none":
        if FLAGS.group_size:
            raise ExportError(
                f"group_size={FLAGS.group_size} given with quantize='none': drop group_size or pick a quantize mode"
            )
        return []
    if FLAGS.quantize == "int4_weight_only":
        # Measured with executorch 1.5.1 / torchao 0.18: on XNNPACK the .pte
        # keeps fp32 weights and its logits are 15-28x off; on portable kernels
        # aten::linear receives int8 weights and fails at run time. Refuse
        # rather than ship a wrong model.
        raise ExportError(
            f"quantize='int4_weight_only' cannot be lowered correctly to backend='{FLAGS.backend}' in "
            "executorch 1.5.1: use recipe = \"int4\" (quantize='8da4w_asym': int4 weights, int8 dynamic activations)"
        )
    if FLAGS.group_size not in CHOICES["group_size"]:
        raise ExportError(f"group_size={FLAGS.group_size} is not one of {CHOICES['group_size']}")
    if FLAGS.head_quantize and FLAGS.quantize != "8da4w_asym":
        raise ExportError(f"head_quantize={FLAGS.head_quantize!r} needs quantize='8da4w_asym'; drop it or switch")
    if FLAGS.head_quantize not in CHOICES["head_quantize"]:
        raise ExportError(
            f"head_quantize={FLAGS.head_quantize!r} is not one of {[m for m in CHOICES['head_quantize'] if m]}"
        )
    if FLAGS.outlier_channels < 0:
        raise ExportError(f"outlier_channels={FLAGS.outlier_channels} must be 0 (none) or more")
    if FLAGS.outlier_channels and FLAGS.quantize != "8da4w_asym":
        raise ExportError(f"outlier_channels={FLAGS.outlier_channels} needs quantize='8da4w_asym'; drop it or switch")
    if FLAGS.outlier_channels and not FLAGS.calibration:
        raise ExportError(
            f"outlier_channels={FLAGS.outlier_channels} picks channels on calibration text: give calibration = "
            "a calibration_set of this model"
        )
    if FLAGS.quantize == "8da4w_asym" and (FLAGS.backend != "xnnpack" or FLAGS.hqq):
        raise ExportError(
            "quantize='8da4w_asym' runs on XNNPACK's kernels and chooses its own scales: "
            "set backend='xnnpack' and drop hqq"
        )
    in_features = linear_in_features(params)
    skipped = [name for name, n in in_features.items() if n % FLAGS.group_size]
    if len(skipped) == len(in_features):
        raise ExportError(
            f"group_size={FLAGS.group_size} divides no linear layer's in_features "
            f"({sorted(set(in_features.values()))}): nothing would be quantized; pick a group size that divides "
            f"dim={params['dim']}"
        )
    if FLAGS.embedding_quantize:
        bits, _, group = FLAGS.embedding_quantize.partition(",")
        if bits not in ("4", "8") or not group.isdigit():
            raise ExportError(f'embedding_quantize={FLAGS.embedding_quantize!r} must be "4,<group>" or "8,<group>"')
        if int(group) and params["dim"] % int(group):
            raise ExportError(f"embedding group {group} does not divide dim={params['dim']}")
    return skipped


def build_llm_config(params_path: str, checkpoint: str, metadata_json: str):
    from executorch.extension.llm.export.config.llm_config import LlmConfig, ModelType

    config = LlmConfig()
    config.base.model_class = ModelType("llama3_2")
    config.base.checkpoint = checkpoint
    config.base.params = params_path
    config.base.metadata = metadata_json
    config.model.use_kv_cache = True
    config.model.use_sdpa_with_kv_cache = True
    config.model.enable_dynamic_shape = True
    config.export.max_seq_length = FLAGS.max_seq_len
    config.export.max_context_length = FLAGS.max_context_len
    # 8da4w_asym leaves qmode unset: its linears are quantized by the source
    # transform export_program hands in.
    if FLAGS.quantize == "8da4w":
        config.quantization.qmode = "8da4w"
    elif FLAGS.quantize == "int4_weight_only":
        config.quantization.qmode = "4w"
    if FLAGS.quantize in ("8da4w", "int4_weight_only"):
        config.quantization.group_size = FLAGS.group_size
    config.quantization.use_hqq = FLAGS.hqq
    if FLAGS.embedding_quantize:
        config.quantization.embedding_quantize = FLAGS.embedding_quantize
    config.backend.xnnpack.enabled = FLAGS.backend == "xnnpack"
    config.backend.xnnpack.extended_ops = FLAGS.backend == "xnnpack"
    return config


# The attention's output projection reads softmax-weighted values, whose
# largest channel changes from token to token: no channel stays an outlier,
# and fixed ones buy nothing there (docs/quantization.md).
NO_FIXED_OUTLIERS = ".attention.wo"


def calibrated_outliers(model, passages: list[list[int]]) -> list:
    """Each input's outlier channels and the linears that read it, from peaks on the calibration passages.

    Each passage runs from position 0 in chunks of max_seq_len, as a prompt
    would; the model is the fp32 one, before the source transform.
    """
    import torch

    def run() -> None:
        for passage in passages:
            for start in range(0, min(len(passage), FLAGS.max_context_len), FLAGS.max_seq_len):
                chunk = passage[start : start + FLAGS.max_seq_len]
                model(torch.tensor([chunk], dtype=torch.long), {"input_pos": torch.tensor([start], dtype=torch.long)})

    sets = choose_channel_sets(measure_input_peaks(model, run), FLAGS.outlier_channels)
    return [(names, channels) for names, channels in sets if not any(n.endswith(NO_FIXED_OUTLIERS) for n in names)]


def export_program(config, clock, passages: list[list[int]]):
    """Runs ExecuTorch's llama pipeline; returns its LLMEdgeManager after saving the .pte, and the outlier sets.

    The portable programs run ExecuTorch's whole pipeline. On XNNPACK,
    every program is traced once and decomposed once (upstream.export_once
    and upstream.lower), and ExecuTorch's own recipes keep its steps and
    partitioners, so their bytes are export_llama's. Ours measures each
    linear's input on the calibration passages (outlier channels), then adds
    source transforms after ExecuTorch's (sdpa, embedding quantization): the
    linears' recipe and a rotary embedding XNNPACK lowers (xnnpack_graph/),
    then edge passes that give the attention's reshapes sizes XNNPACK takes
    and compute once what q, k and v (gate and up) each repeat, and XNNPACK
    lowering with one partitioner: a decoder layer is 3 delegate calls, with
    the same values. The stock pipeline's two (dynamic-quant linears first,
    then the rest) would cut every offset term into a delegate of its own,
    and each delegate call costs microseconds per decoded token. XNNPACK's
    preprocess runs only the one of its passes that our graphs need
    (xnnpack_graph/partitioner.py).
    """
    if FLAGS.backend != "xnnpack":
        with clock.stage("ExecuTorch's export_llama"):
            return upstream.export_llama(config), []
    ours = FLAGS.quantize == "8da4w_asym"
    outliers = []
    with clock.stage("load checkpoint, ExecuTorch transforms"):
        manager = upstream.load_llama(config)
    if ours:
        if FLAGS.outlier_channels:
            with clock.stage("calibrate (outlier channels)"):
                outliers = calibrated_outliers(manager.model, passages)
        with clock.stage("quantize (source transform)"):
            manager = manager.source_transform(
                [
                    recipe.linear_transform(FLAGS.quantize, FLAGS.group_size, FLAGS.head_quantize, outliers),
                    pair_rotation,
                ]
            )
            if FLAGS.logit_rows > 1:
                manager = choose_rows(manager, FLAGS.logit_rows)
    with clock.stage("torch.export"):
        exported = upstream.export_once(manager)
    if ours:
        partitioners = [xnnpack_partitioner()]
        edge_passes = [infer_symbolic_view_sizes, eliminate_common_subexpressions]
    else:
        # ExecuTorch's own recipes keep its two partitioners, in its order:
        # the program is the one its export_llama writes, byte for byte,
        # with one decomposition instead of seven.
        partitioners, edge_passes = upstream.stock_xnnpack_partitioners(), []
    with clock.stage("to_edge, partition, lower"):
        upstream.lower(manager, exported, partitioners, edge_passes=edge_passes)
    with clock.stage("to_executorch"):
        builder = manager.to_executorch(passes=[])
    with clock.stage("serialize, write"):
        builder.save_to_pte(config.export.output_name)
    return builder, outliers


def main(argv: list[str]) -> None:
    del argv
    errors.quiet_libraries()
    try:
        errors.require_files(
            ((what, getattr(FLAGS, what)) for what in ("checkpoint", "params", "tokenizer", "tokenizer_config")),
            "build the llm_checkpoint first",
        )
        params = manifest.read_params(FLAGS.params)
        unquantized = check_config(params)
        tokens = load_special_tokens(FLAGS.tokenizer, FLAGS.tokenizer_config)
        passages = []
        if FLAGS.outlier_channels:
            errors.require_files([("calibration", FLAGS.calibration)], "build the calibration_set first")
            _, passages = load_passages(FLAGS.calibration, FLAGS.tokenizer, FLAGS.calibration_passages)
    except ExportError as e:
        errors.fail("export_pte", e)

    clock = StageClock(STEPS) if FLAGS.profile_out else NoClock()
    import torch

    from tools.executorch import manifest_pb2

    torch.manual_seed(0)
    # The runner reads these back from the .pte (get_bos_id, get_eos_ids ...).
    config = build_llm_config(FLAGS.params, FLAGS.checkpoint, tokens.runtime_metadata(FLAGS.logit_rows))
    config.export.output_name = os.path.abspath(FLAGS.out_pte)
    builder, outliers = export_program(config, clock, passages)
    with clock.stage("manifest"):
        ops = count_ops(builder.edge_manager.exported_program())
        pte_manifest = manifest_pb2.PteManifest(
            **manifest.program_fields(FLAGS.out_pte),
            versions=manifest.versions(),
            config=manifest_pb2.ExportConfig(
                model=FLAGS.model_label,
                quantize=FLAGS.quantize,
                group_size=FLAGS.group_size,
                embedding_quantize=FLAGS.embedding_quantize,
                backend=FLAGS.backend,
                max_seq_len=FLAGS.max_seq_len,
                max_context_len=FLAGS.max_context_len,
                use_kv_cache=True,
                use_sdpa_with_kv_cache=True,
                hqq=FLAGS.hqq,
                head_quantize=FLAGS.head_quantize or None,
                logit_rows=FLAGS.logit_rows if FLAGS.logit_rows > 1 else None,
                outlier_channels=FLAGS.outlier_channels or None,
                calibration_sha256=sha256_of(FLAGS.calibration) if FLAGS.outlier_channels else None,
                outlier_channel_sets=[
                    manifest_pb2.OutlierChannelSet(linears=names, channels=channels) for names, channels in outliers
                ],
                dtype="fp32",
                unquantized_linears=unquantized,
            ),
            architecture=manifest.llama_architecture(params, manifest.checkpoint_parameters(FLAGS.checkpoint)),
            ops=manifest_pb2.OpCounts(**ops.manifest_fields()),
            tokenizer=manifest.tokenizer_ref(FLAGS.tokenizer, tokens),
            checkpoint_sha256=sha256_of(FLAGS.checkpoint),
        )
        manifest.write_manifest(FLAGS.out_manifest, pte_manifest)
    clock.write(FLAGS.profile_out)


if __name__ == "__main__":
    app.run(main)
