"""executorch_pte: exports an llm_checkpoint to an ExecuTorch .pte."""

load("//tools/qnn:defs.bzl", "QnnSdkInfo")
load("//tools/qnn:socs.bzl", "QNN_SOCS")
load(":action_env.bzl", "NO_NETWORK", "PYTHON_ACTION_ENV")
load(":encoder_pte.bzl", "encoder_pte_impl")
load(":providers.bzl", "CalibrationSetInfo", "LlmCheckpointInfo", "PteInfo")
load(":sentence_encoder.bzl", "EncoderCheckpointInfo")

QUANTIZE_MODES = ["none", "int4_weight_only", "8da4w", "8da4w_asym"]
HEAD_QUANTIZE_MODES = ["", "8da8w"]
QNN_QUANTIZE_MODES = ["16a4w", "16a4w_block", "16a8w", "8a8w"]
BACKENDS = ["portable", "xnnpack", "qnn"]
GROUP_SIZES = [32, 64, 128]

def _check_qnn_attrs(ctx):
    attrs = ctx.attr
    if attrs.soc not in QNN_SOCS:
        fail("executorch_pte {}: unknown soc \"{}\"; ExecuTorch's QNN backend knows {}".format(ctx.label, attrs.soc, sorted(QNN_SOCS.keys())))
    if attrs.quantize not in QNN_QUANTIZE_MODES:
        fail("executorch_pte {}: backend \"qnn\" quantizes with QnnQuantizer; set quantize to one of {} (got \"{}\")".format(ctx.label, QNN_QUANTIZE_MODES, attrs.quantize))
    if attrs.embedding_quantize or attrs.hqq or attrs.head_quantize:
        fail("executorch_pte {}: embedding_quantize/head_quantize/hqq are XNNPACK options; drop them for backend \"qnn\"".format(ctx.label))
    if attrs.quantize == "16a4w_block" and attrs.group_size not in GROUP_SIZES:
        fail("executorch_pte {}: quantize = \"16a4w_block\" needs group_size in {}, got {}".format(ctx.label, GROUP_SIZES, attrs.group_size))
    if attrs.quantize != "16a4w_block" and attrs.group_size:
        fail("executorch_pte {}: group_size is for quantize = \"16a4w_block\" on backend \"qnn\"; drop it".format(ctx.label))
    if not attrs.calibration:
        fail("executorch_pte {}: backend \"qnn\" needs calibration = a calibration_set target (post-training quantization)".format(ctx.label))
    if not attrs.qnn_sdk:
        fail("executorch_pte {}: no qnn_sdk; use executorch_pte from //tools/executorch:defs.bzl, which sets it".format(ctx.label))

def _check_attrs(ctx):
    # Checked here rather than with attr.string(values=...): a bad value then
    # fails this one target at analysis, not the loading of its whole package.
    attrs = ctx.attr
    if attrs.backend not in BACKENDS:
        fail("executorch_pte {}: unknown backend \"{}\"; choose one of {}".format(ctx.label, attrs.backend, BACKENDS))
    if attrs.backend == "qnn":
        _check_qnn_attrs(ctx)
        return
    if attrs.quantize not in QUANTIZE_MODES:
        fail("executorch_pte {}: unknown quantize \"{}\"; choose one of {}".format(ctx.label, attrs.quantize, QUANTIZE_MODES))
    if attrs.soc or attrs.calibration:
        fail("executorch_pte {}: soc/calibration are for backend \"qnn\"; drop them or set backend = \"qnn\"".format(ctx.label))
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
    if attrs.head_quantize not in HEAD_QUANTIZE_MODES:
        fail("executorch_pte {}: unknown head_quantize \"{}\"; choose one of {}".format(ctx.label, attrs.head_quantize, HEAD_QUANTIZE_MODES))
    if attrs.head_quantize and attrs.quantize != "8da4w_asym":
        fail("executorch_pte {}: head_quantize needs quantize = \"8da4w_asym\"".format(ctx.label))
    if attrs.quantize == "8da4w_asym" and (attrs.backend != "xnnpack" or attrs.hqq):
        fail("executorch_pte {}: quantize = \"8da4w_asym\" runs on XNNPACK and picks its own scales: set backend = \"xnnpack\", drop hqq".format(ctx.label))
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

def _qnn_export(ctx, model, pte, manifest):
    sdk = ctx.attr.qnn_sdk[QnnSdkInfo]
    calibration = ctx.attr.calibration[CalibrationSetInfo]
    args = ctx.actions.args()
    args.add("--checkpoint", model.checkpoint)
    args.add("--params", model.params)
    args.add("--tokenizer", model.tokenizer)
    args.add("--tokenizer_config", model.tokenizer_config)
    args.add("--model_label", _label_text(ctx.attr.model.label))
    args.add("--calibration", calibration.file)
    args.add("--calibration_passages", ctx.attr.calibration_passages)
    args.add("--soc", ctx.attr.soc)
    args.add("--quantize", ctx.attr.quantize)
    args.add("--group_size", ctx.attr.group_size)
    args.add("--max_context_len", ctx.attr.max_context_len)
    args.add("--qairt_build_id", sdk.qairt_build_id)
    args.add("--abi_adapter" if sdk.uses_abi_adapter else "--noabi_adapter")
    args.add("--out_pte", pte)
    args.add("--out_manifest", manifest)
    env = dict(PYTHON_ACTION_ENV)

    # Relative to the exec root, where the action runs: no absolute path
    # reaches the cache key.
    env["QNN_SDK_ROOT"] = sdk.root
    env["LD_LIBRARY_PATH"] = sdk.library_dir
    ctx.actions.run(
        executable = ctx.executable._qnn_exporter,
        arguments = [args],
        inputs = depset([model.checkpoint, model.params, model.tokenizer, model.tokenizer_config, calibration.file], transitive = [sdk.files]),
        outputs = [pte, manifest],
        env = env,
        execution_requirements = NO_NETWORK,
        mnemonic = "ExecuTorchExport",
        progress_message = "Exporting {} (qnn {}, {})".format(ctx.label, ctx.attr.quantize, ctx.attr.soc),
    )

def _executorch_pte_impl(ctx):
    if EncoderCheckpointInfo in ctx.attr.model:
        return encoder_pte_impl(ctx)
    _check_attrs(ctx)
    model = ctx.attr.model[LlmCheckpointInfo]
    pte = ctx.actions.declare_file(ctx.label.name + ".pte")
    manifest = ctx.actions.declare_file(ctx.label.name + ".manifest.json")
    if ctx.attr.backend == "qnn":
        _qnn_export(ctx, model, pte, manifest)
        return _providers(ctx, model, pte, manifest, max_seq_len = 1)

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
    if ctx.attr.head_quantize:
        args.add("--head_quantize", ctx.attr.head_quantize)
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
    return _providers(ctx, model, pte, manifest, max_seq_len = ctx.attr.max_seq_len)

def _providers(ctx, model, pte, manifest, max_seq_len):
    files = [pte, manifest]
    return [
        DefaultInfo(files = depset(files), runfiles = ctx.runfiles(files = files + [model.tokenizer, model.tokenizer_config])),
        PteInfo(
            pte = pte,
            manifest = manifest,
            tokenizer = model.tokenizer,
            tokenizer_config = model.tokenizer_config,
            kind = "llm",
            backend = ctx.attr.backend,
            quantize = ctx.attr.quantize,
            max_seq_len = max_seq_len,
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
        "quantize": attr.string(
            default = "none",
            doc = "Linear-layer quantization. portable/xnnpack: none, 8da4w (ExecuTorch's symmetric int4), 8da4w_asym (asymmetric int4 blocks, exact on XNNPACK). qnn: 16a4w, 16a4w_block, 16a8w, 8a8w. A sentence_encoder: none or 8da8w.",
        ),
        "head_quantize": attr.string(default = "", doc = "8da4w_asym only: \"8da8w\" keeps the output head at 8 bits."),
        "group_size": attr.int(default = 0, doc = "Group size of 4-bit weights: 32, 64 or 128."),
        "embedding_quantize": attr.string(default = "", doc = "\"<bits>,<group>\" (e.g. \"4,32\"); empty keeps fp32 embeddings."),
        "backend": attr.string(default = "portable", doc = "portable kernels, the XNNPACK delegate, or qnn (Qualcomm HTP)."),
        "max_seq_len": attr.int(default = 128, doc = "Longest token chunk per forward call (prefill chunk)."),
        "max_context_len": attr.int(default = 2048, doc = "KV-cache length: prompt plus generated tokens."),
        "hqq": attr.bool(default = False, doc = "HQQ scale search for 4-bit weights: slower export."),
        "soc": attr.string(doc = "qnn only: the Qualcomm SoC to compile for, e.g. SM8650 (see //tools/qnn:socs.bzl)."),
        "calibration": attr.label(providers = [CalibrationSetInfo], doc = "qnn only: a calibration_set of this model."),
        "calibration_passages": attr.int(default = 32, doc = "qnn only: how many of its passages calibrate the observers."),
        "qnn_sdk": attr.label(providers = [QnnSdkInfo], cfg = "exec", doc = "qnn only: set by the executorch_pte macro."),
        "_qnn_exporter": attr.label(
            default = Label("//tools/executorch:export_qnn"),
            executable = True,
            cfg = "exec",
        ),
        "_exporter": attr.label(
            default = Label("//tools/executorch:export_pte"),
            executable = True,
            cfg = "exec",
        ),
        "_encoder_exporter": attr.label(
            default = Label("//tools/executorch:export_encoder"),
            executable = True,
            cfg = "exec",
        ),
    },
)
