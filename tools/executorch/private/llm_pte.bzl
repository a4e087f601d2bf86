"""llm_pte: a language model as a CPU program, on ExecuTorch's portable kernels or XNNPACK."""

load("//tools/python:action_env.bzl", "PYTHON_ACTION_ENV")
load(":choices.bzl", "CHOICES")
load(":providers.bzl", "CalibrationSetInfo", "LlmCheckpointInfo")
load(":pte_common.bzl", "LLM_COMMON_ATTRS", "PROFILE_ATTRS", "check_llm_model", "declare_program", "export_profile", "llm_model_args", "llm_program_providers")

QUANTIZE_MODES = CHOICES["quantize"]
HEAD_QUANTIZE_MODES = CHOICES["head_quantize"]
BACKENDS = CHOICES["backend"]
GROUP_SIZES = CHOICES["group_size"]

def _check_attrs(ctx):
    # Checked here rather than with attr.string(values=...): a bad value then
    # fails this one target at analysis, not the loading of its whole package.
    attrs = ctx.attr
    if attrs.backend not in BACKENDS:
        fail("executorch_pte {}: unknown backend \"{}\"; choose one of {}".format(ctx.label, attrs.backend, BACKENDS + ["qnn"]))
    if attrs.quantize not in QUANTIZE_MODES:
        fail("executorch_pte {}: unknown quantize \"{}\"; choose one of {}".format(ctx.label, attrs.quantize, QUANTIZE_MODES))
    if attrs.max_context_len < attrs.max_seq_len:
        fail("executorch_pte {}: max_context_len ({}) < max_seq_len ({}): the KV cache must hold a full prefill chunk; raise max_context_len".format(
            ctx.label,
            attrs.max_context_len,
            attrs.max_seq_len,
        ))
    if attrs.quantize == "none":
        if attrs.group_size or attrs.embedding_quantize:
            fail("executorch_pte {}: group_size/embedding_quantize need a quantize mode; use recipe = \"int4\", set quantize, or drop them".format(ctx.label))
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
    if attrs.logit_rows < 1 or attrs.logit_rows > attrs.max_seq_len:
        fail("executorch_pte {}: logit_rows = {} must be in 1..max_seq_len ({})".format(ctx.label, attrs.logit_rows, attrs.max_seq_len))
    if attrs.logit_rows > 1 and attrs.quantize != "8da4w_asym":
        fail("executorch_pte {}: logit_rows needs recipe = \"int4\" (quantize = \"8da4w_asym\"); drop it or switch".format(ctx.label))
    if attrs.outlier_channels < 0:
        fail("executorch_pte {}: outlier_channels = {} must be 0 (none) or more".format(ctx.label, attrs.outlier_channels))
    if attrs.outlier_channels and attrs.quantize != "8da4w_asym":
        fail("executorch_pte {}: outlier_channels needs quantize = \"8da4w_asym\" (recipe = \"int4\"); drop it or switch".format(ctx.label))
    if attrs.outlier_channels and not attrs.calibration:
        fail("executorch_pte {}: outlier_channels picks channels on calibration text: set calibration = a calibration_set of this model (executorch_pte makes one when it is left out)".format(ctx.label))
    if attrs.calibration and not attrs.outlier_channels:
        fail("executorch_pte {}: calibration is used only with outlier_channels on this backend; drop it".format(ctx.label))
    if attrs.quantize == "int4_weight_only":
        # executorch 1.5.1: XNNPACK keeps fp32 weights and returns wrong
        # logits; portable kernels reject the int8 weights at run time.
        fail("executorch_pte {}: int4_weight_only does not lower correctly to \"{}\" in executorch 1.5.1; use recipe = \"int4\" (int4 weights, int8 dynamic activations)".format(ctx.label, attrs.backend))

def _llm_pte_impl(ctx):
    check_llm_model(ctx)
    _check_attrs(ctx)
    model = ctx.attr.model[LlmCheckpointInfo]
    pte, manifest = declare_program(ctx)

    args = llm_model_args(ctx, model)
    args.add("--quantize", ctx.attr.quantize)
    args.add("--group_size", ctx.attr.group_size)
    args.add("--embedding_quantize", ctx.attr.embedding_quantize)
    args.add("--backend", ctx.attr.backend)
    args.add("--max_seq_len", ctx.attr.max_seq_len)
    args.add("--max_context_len", ctx.attr.max_context_len)
    args.add("--hqq" if ctx.attr.hqq else "--nohqq")
    if ctx.attr.head_quantize:
        args.add("--head_quantize", ctx.attr.head_quantize)
    if ctx.attr.logit_rows > 1:
        args.add("--logit_rows", ctx.attr.logit_rows)
    inputs = [model.checkpoint, model.params, model.tokenizer, model.tokenizer_config]
    if ctx.attr.outlier_channels:
        calibration = ctx.attr.calibration[CalibrationSetInfo]
        args.add("--outlier_channels", ctx.attr.outlier_channels)
        args.add("--calibration", calibration.file)
        args.add("--calibration_passages", ctx.attr.calibration_passages)
        inputs.append(calibration.file)
    args.add("--out_pte", pte)
    args.add("--out_manifest", manifest)
    profile, requirements, output_groups = export_profile(ctx, args)

    ctx.actions.run(
        executable = ctx.executable._exporter,
        arguments = [args],
        inputs = inputs,
        outputs = [pte, manifest] + profile,
        env = PYTHON_ACTION_ENV,
        execution_requirements = requirements,
        mnemonic = "ExecuTorchExport",
        progress_message = "Exporting {} ({}, {})".format(ctx.label, ctx.attr.quantize, ctx.attr.backend),
    )
    providers = llm_program_providers(ctx, model, pte, manifest, max_seq_len = ctx.attr.max_seq_len, backend = ctx.attr.backend)
    return providers + [OutputGroupInfo(**output_groups)]

llm_pte = rule(
    implementation = _llm_pte_impl,
    doc = """Exports an llm_checkpoint to `<name>.pte` plus `<name>.manifest.json`, for the CPU.

    executorch_pte(          # or llm_pte, which executorch_pte calls for these backends
        name = "llama_int4",
        model = ":smollm2_135m",
        recipe = "int4",     # or backend, quantize, group_size, ... one by one
    )

Returns PteInfo (kind "llm").
""",
    attrs = dict(dict(LLM_COMMON_ATTRS, **PROFILE_ATTRS), **{
        "quantize": attr.string(
            default = "none",
            doc = "Linear-layer quantization: none, 8da4w (ExecuTorch's symmetric int4), 8da4w_asym (asymmetric int4 blocks, exact on XNNPACK).",
        ),
        "head_quantize": attr.string(default = "", doc = "8da4w_asym only: \"8da8w\" keeps the output head at 8 bits."),
        "group_size": attr.int(default = 0, doc = "Group size of 4-bit weights: 32, 64 or 128."),
        "embedding_quantize": attr.string(default = "", doc = "\"<bits>,<group>\" (e.g. \"4,32\"); empty keeps fp32 embeddings."),
        "backend": attr.string(default = "portable", doc = "portable kernels or the XNNPACK delegate."),
        "max_seq_len": attr.int(default = 128, doc = "Longest token chunk per forward call (prefill chunk)."),
        "hqq": attr.bool(default = False, doc = "HQQ scale search for 4-bit weights: slower export."),
        "logit_rows": attr.int(
            default = 1,
            doc = "Above 1, forward takes a third input naming up to this many positions to return logits for, so the runtime verifies a speculative draft in one call (docs/runtime.md#speculative-decoding); prefill and decode logits stay the same. 8da4w_asym only.",
        ),
        "outlier_channels": attr.int(
            default = 0,
            doc = "8da4w_asym only: how many channels of each quantized linear's input (those with the largest peaks on `calibration`; every linear but the attention's output projection) stay out of its int8 activations, computed in fp32 (docs/quantization.md); 0 for none.",
        ),
        "calibration": attr.label(
            providers = [CalibrationSetInfo],
            doc = "A calibration_set of this model, for outlier_channels; executorch_pte makes one from a public-domain text when it is left out.",
        ),
        "calibration_passages": attr.int(default = 64, doc = "How many of the calibration set's passages the peaks are measured on."),
        "_exporter": attr.label(
            default = Label("//tools/executorch:export_pte"),
            executable = True,
            cfg = "exec",
        ),
    }),
)
