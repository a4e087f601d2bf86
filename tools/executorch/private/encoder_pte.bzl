"""executorch_pte's implementation for a sentence_encoder model (see sentence_encoder.bzl)."""

load(":action_env.bzl", "NO_NETWORK", "PYTHON_ACTION_ENV")
load(":providers.bzl", "PteInfo")
load(":sentence_encoder.bzl", "EncoderCheckpointInfo")

ENCODER_QUANTIZE_MODES = ["none", "8da8w"]
ENCODER_BACKENDS = ["portable", "xnnpack"]

def _label_text(label):
    # As executorch_pte: the manifest must not depend on which Bazel wrote it.
    if label.workspace_name:
        return "@{}//{}:{}".format(label.workspace_name, label.package, label.name)
    return "//{}:{}".format(label.package, label.name)

def _check_encoder_attrs(ctx):
    attrs = ctx.attr
    if attrs.quantize not in ENCODER_QUANTIZE_MODES:
        fail("executorch_pte {}: quantize \"{}\" is not available for a sentence_encoder; choose one of {} (8da8w: int8 weights, int8 dynamic activations, int8 embedding tables)".format(
            ctx.label,
            attrs.quantize,
            ENCODER_QUANTIZE_MODES,
        ))
    if attrs.backend not in ENCODER_BACKENDS:
        fail("executorch_pte {}: backend \"{}\" is not available for a sentence_encoder; choose one of {}".format(ctx.label, attrs.backend, ENCODER_BACKENDS))
    if attrs.quantize == "8da8w" and attrs.backend != "xnnpack":
        fail("executorch_pte {}: quantize = \"8da8w\" needs backend = \"xnnpack\"".format(ctx.label))
    if attrs.group_size or attrs.embedding_quantize or attrs.hqq:
        fail("executorch_pte {}: group_size, embedding_quantize and hqq are LLM settings; drop them for a sentence_encoder (its 8da8w is per-channel)".format(ctx.label))
    if attrs.max_seq_len < 2 or attrs.max_seq_len > 512:
        fail("executorch_pte {}: max_seq_len = {} must be in 2..512 for a BERT encoder (the longest input, [CLS] and [SEP] included)".format(ctx.label, attrs.max_seq_len))

def encoder_pte_impl(ctx):
    """Exports ctx.attr.model (EncoderCheckpointInfo) with tools/executorch/export_encoder.py.

    Args:
      ctx: executorch_pte's rule context.

    Returns:
      DefaultInfo and PteInfo, as for an LLM export.
    """
    _check_encoder_attrs(ctx)
    model = ctx.attr.model[EncoderCheckpointInfo]
    pte = ctx.actions.declare_file(ctx.label.name + ".pte")
    manifest = ctx.actions.declare_file(ctx.label.name + ".manifest.json")

    args = ctx.actions.args()
    args.add("--config", model.config)
    args.add("--weights", model.weights)
    args.add("--tokenizer", model.tokenizer)
    args.add("--model_label", _label_text(ctx.attr.model.label))
    args.add("--pooling", model.pooling)
    args.add("--normalize" if model.normalize else "--nonormalize")
    args.add("--quantize", ctx.attr.quantize)
    args.add("--backend", ctx.attr.backend)
    args.add("--max_seq_len", ctx.attr.max_seq_len)
    args.add("--out_pte", pte)
    args.add("--out_manifest", manifest)

    ctx.actions.run(
        executable = ctx.executable._encoder_exporter,
        arguments = [args],
        inputs = [model.config, model.weights, model.tokenizer],
        outputs = [pte, manifest],
        env = PYTHON_ACTION_ENV,
        execution_requirements = NO_NETWORK,
        mnemonic = "ExecuTorchEncoderExport",
        progress_message = "Exporting encoder {} ({}, {})".format(ctx.label, ctx.attr.quantize, ctx.attr.backend),
    )
    files = [pte, manifest]
    return [
        DefaultInfo(files = depset(files), runfiles = ctx.runfiles(files = files + [model.tokenizer, model.vocab])),
        PteInfo(
            pte = pte,
            manifest = manifest,
            tokenizer = model.tokenizer,
            tokenizer_config = model.tokenizer_config,
            kind = "sentence_encoder",
            backend = ctx.attr.backend,
            quantize = ctx.attr.quantize,
            max_seq_len = ctx.attr.max_seq_len,
            max_context_len = 0,
        ),
    ]
