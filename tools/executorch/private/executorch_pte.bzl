"""executorch_pte: exports an llm_checkpoint to an ExecuTorch .pte."""

load(":action_env.bzl", "NO_NETWORK", "PYTHON_ACTION_ENV")
load(":encoder_pte.bzl", "encoder_pte_impl")
load(":providers.bzl", "LlmCheckpointInfo", "PteInfo")
load(":sentence_encoder.bzl", "EncoderCheckpointInfo")

QUANTIZE_MODES = ["none", "int4_weight_only", "8da4w"]
BACKENDS = ["portable", "xnnpack"]
GROUP_SIZES = [32, 64, 128]

def _check_attrs(ctx):
    # Checked here rather than with attr.string(values=...): a bad value then
    # fails this one target at analysis, not the loading of its whole package.
    attrs = ctx.attr
    if attrs.quantize not in QUANTIZE_MODES:
        fail("executorch_pte {}: unknown quantize \"{}\"; choose one of {}".format(ctx.label, attrs.quantize, QUANTIZE_MODES))
    if attrs.backend not in BACKENDS:
        fail("executorch_pte {}: unknown backend \"{}\"; choose one of {}".format(ctx.label, attrs.backend, BACKENDS))
    if attrs.max_context_len < attrs.max_seq_len:
        fail("executorch_pte {}: max_context_len ({}) < max_seq_len ({}): the KV cache must hold a full prefill chunk; raise max_context_len".format(
            ctx.label,
            attrs.max_context_len,
            attrs.max_seq_len,
        ))
    if attrs.quantize == "none":
        if attrs.group_size or attrs.embedding_quantize:
            fail("executorch_pte {}: group_size/embedding_quantize need a quantize mode; set quantize = \"8da4w\" or drop them".format(ctx.label))
    elif attrs.group_size not in GROUP_SIZES:
        fail("executorch_pte {}: quantize = \"{}\" needs group_size in {}, got {}".format(
            ctx.label,
            attrs.quantize,
            GROUP_SIZES,
            attrs.group_size,
        ))
    if attrs.quantize == "int4_weight_only":
        # executorch 1.5.1: XNNPACK keeps fp32 weights and returns wrong
        # logits; portable kernels reject the int8 weights at run time.
        fail("executorch_pte {}: int4_weight_only does not lower correctly to \"{}\" in executorch 1.5.1; use quantize = \"8da4w\" (int4 weights, int8 dynamic activations)".format(ctx.label, attrs.backend))

def _label_text(label):
    # Bazel 7 spells main-repository labels "@@//pkg:name", Bazel 4 "//pkg:name";
    # the manifest must not depend on which Bazel wrote it.
    if label.workspace_name:
        return "@{}//{}:{}".format(label.workspace_name, label.package, label.name)
    return "//{}:{}".format(label.package, label.name)

def _executorch_pte_impl(ctx):
    if EncoderCheckpointInfo in ctx.attr.model:
        return encoder_pte_impl(ctx)
    _check_attrs(ctx)
    model = ctx.attr.model[LlmCheckpointInfo]
    pte = ctx.actions.declare_file(ctx.label.name + ".pte")
    manifest = ctx.actions.declare_file(ctx.label.name + ".manifest.json")

    args = ctx.actions.args()
    args.add("--checkpoint", model.checkpoint)
    args.add("--params", model.params)
    args.add("--tokenizer", model.tokenizer)
    args.add("--tokenizer_config", model.tokenizer_config)
    args.add("--model_label", _label_text(ctx.attr.model.label))
    args.add("--quantize", ctx.attr.quantize)
    args.add("--group_size", ctx.attr.group_size)
    args.add("--embedding_quantize", ctx.attr.embedding_quantize)
    args.add("--backend", ctx.attr.backend)
    args.add("--max_seq_len", ctx.attr.max_seq_len)
    args.add("--max_context_len", ctx.attr.max_context_len)
    args.add("--hqq" if ctx.attr.hqq else "--nohqq")
    args.add("--out_pte", pte)
    args.add("--out_manifest", manifest)

    ctx.actions.run(
        executable = ctx.executable._exporter,
        arguments = [args],
        inputs = [model.checkpoint, model.params, model.tokenizer, model.tokenizer_config],
        outputs = [pte, manifest],
        env = PYTHON_ACTION_ENV,
        execution_requirements = NO_NETWORK,
        mnemonic = "ExecuTorchExport",
        progress_message = "Exporting {} ({}, {})".format(ctx.label, ctx.attr.quantize, ctx.attr.backend),
    )
    files = [pte, manifest]
    return [
        DefaultInfo(files = depset(files), runfiles = ctx.runfiles(files = files + [model.tokenizer, model.tokenizer_config])),
        PteInfo(
            pte = pte,
            manifest = manifest,
            tokenizer = model.tokenizer,
            tokenizer_config = model.tokenizer_config,
            backend = ctx.attr.backend,
            quantize = ctx.attr.quantize,
            max_seq_len = ctx.attr.max_seq_len,
            max_context_len = ctx.attr.max_context_len,
        ),
    ]

executorch_pte = rule(
    implementation = _executorch_pte_impl,
    doc = "Exports a LLaMA-architecture llm_checkpoint to `<name>.pte` plus `<name>.manifest.json`.",
    attrs = {
        "model": attr.label(
            mandatory = True,
            providers = [[LlmCheckpointInfo], [EncoderCheckpointInfo]],
            doc = "An llm_checkpoint, or a sentence_encoder (see encoder_pte.bzl).",
        ),
        "quantize": attr.string(default = "none", doc = "Linear-layer quantization."),
        "group_size": attr.int(default = 0, doc = "Group size of 4-bit weights: 32, 64 or 128."),
        "embedding_quantize": attr.string(default = "", doc = "\"<bits>,<group>\" (e.g. \"4,32\"); empty keeps fp32 embeddings."),
        "backend": attr.string(default = "portable", doc = "portable kernels or the XNNPACK delegate."),
        "max_seq_len": attr.int(default = 128, doc = "Longest token chunk per forward call (prefill chunk)."),
        "max_context_len": attr.int(default = 2048, doc = "KV-cache length: prompt plus generated tokens."),
        "hqq": attr.bool(default = False, doc = "HQQ scale search for 4-bit weights: slower export."),
        "_exporter": attr.label(
            default = "//tools/executorch:export_pte",
            executable = True,
            cfg = "exec",
        ),
        "_encoder_exporter": attr.label(
            default = "//tools/executorch:export_encoder",
            executable = True,
            cfg = "exec",
        ),
    },
)
