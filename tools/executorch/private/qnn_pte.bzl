"""qnn_pte: a language model compiled for a Qualcomm NPU (ExecuTorch's QNN backend)."""

load("//tools/python:action_env.bzl", "PYTHON_ACTION_ENV")
load("//tools/qnn:defs.bzl", "QnnSdkInfo")
load("//tools/qnn:socs.bzl", "QNN_SOCS")
load(":providers.bzl", "CalibrationSetInfo", "LlmCheckpointInfo")
load(":pte_common.bzl", "LLM_COMMON_ATTRS", "PROFILE_ATTRS", "check_llm_model", "declare_program", "export_profile", "llm_model_args", "llm_program_providers")
load(":qnn_choices.bzl", QNN_CHOICES = "CHOICES")

QNN_QUANTIZE_MODES = QNN_CHOICES["quantize"]
GROUP_SIZES = QNN_CHOICES["group_size"]

# The schemes whose 4-bit weights have a scale per block of group_size inputs.
BLOCK_SCHEMES = ["16a4w_block", "16a4w_block_asym"]

def _check_attrs(ctx):
    attrs = ctx.attr
    if attrs.soc not in QNN_SOCS:
        fail("executorch_pte {}: unknown soc \"{}\"; ExecuTorch's QNN backend knows {}".format(ctx.label, attrs.soc, sorted(QNN_SOCS.keys())))
    if attrs.quantize not in QNN_QUANTIZE_MODES:
        fail("executorch_pte {}: backend \"qnn\" quantizes with QnnQuantizer; set quantize to one of {} (got \"{}\")".format(ctx.label, QNN_QUANTIZE_MODES, attrs.quantize))
    if attrs.quantize in BLOCK_SCHEMES and attrs.group_size not in GROUP_SIZES:
        fail("executorch_pte {}: quantize = \"{}\" needs group_size in {}, got {}".format(ctx.label, attrs.quantize, GROUP_SIZES, attrs.group_size))
    if attrs.quantize not in BLOCK_SCHEMES and attrs.group_size:
        fail("executorch_pte {}: group_size is for quantize = one of {} on backend \"qnn\"; drop it".format(ctx.label, BLOCK_SCHEMES))
    if not attrs.calibration:
        fail("executorch_pte {}: backend \"qnn\" needs calibration = a calibration_set target (post-training quantization)".format(ctx.label))
    if attrs.prefill_length != 0 and not (2 <= attrs.prefill_length and attrs.prefill_length < attrs.max_context_len):
        fail("executorch_pte {}: prefill_length = {} must be 0 (no prefill method) or in 2..{} (below max_context_len)".format(ctx.label, attrs.prefill_length, attrs.max_context_len - 1))
    if not attrs.qnn_sdk:
        fail("executorch_pte {}: no qnn_sdk; use executorch_pte from //tools/executorch:defs.bzl, which sets it".format(ctx.label))

def _qnn_pte_impl(ctx):
    check_llm_model(ctx)
    _check_attrs(ctx)
    model = ctx.attr.model[LlmCheckpointInfo]
    pte, manifest = declare_program(ctx)
    sdk = ctx.attr.qnn_sdk[QnnSdkInfo]
    calibration = ctx.attr.calibration[CalibrationSetInfo]

    args = llm_model_args(ctx, model)
    args.add("--calibration", calibration.file)
    args.add("--calibration_passages", ctx.attr.calibration_passages)
    args.add("--soc", ctx.attr.soc)
    args.add("--quantize", ctx.attr.quantize)
    args.add("--group_size", ctx.attr.group_size)
    args.add("--max_context_len", ctx.attr.max_context_len)
    args.add("--prefill_length", ctx.attr.prefill_length)
    args.add("--weight_sharing" if ctx.attr.weight_sharing else "--noweight_sharing")
    args.add("--qairt_build_id", sdk.qairt_build_id)
    args.add("--abi_adapter" if sdk.uses_abi_adapter else "--noabi_adapter")
    args.add("--out_pte", pte)
    args.add("--out_manifest", manifest)
    profile, requirements, output_groups = export_profile(ctx, args)
    env = dict(PYTHON_ACTION_ENV)

    # Relative to the exec root, where the action runs: no absolute path
    # reaches the cache key.
    env["QNN_SDK_ROOT"] = sdk.root
    env["LD_LIBRARY_PATH"] = sdk.library_dir
    ctx.actions.run(
        executable = ctx.executable._qnn_exporter,
        arguments = [args],
        inputs = depset([model.checkpoint, model.params, model.tokenizer, model.tokenizer_config, calibration.file], transitive = [sdk.files]),
        outputs = [pte, manifest] + profile,
        env = env,
        execution_requirements = requirements,
        mnemonic = "ExecuTorchExport",
        progress_message = "Exporting {} (qnn {}, {})".format(ctx.label, ctx.attr.quantize, ctx.attr.soc),
    )

    # The static-llama program takes one token per forward call; its prefill
    # method (prefill_length tokens) is the runtime's to find.
    providers = llm_program_providers(ctx, model, pte, manifest, max_seq_len = 1, backend = "qnn")
    return providers + [OutputGroupInfo(**output_groups)]

qnn_pte = rule(
    implementation = _qnn_pte_impl,
    doc = """Compiles an llm_checkpoint for a Qualcomm SoC's HTP: `<name>.pte` plus `<name>.manifest.json`.

    executorch_pte(          # backend = "qnn" calls qnn_pte, with the QNN SDK attached
        name = "llama_int4_qnn",
        model = ":smollm2_135m",
        backend = "qnn",
        soc = "SM8650",
        quantize = "16a4w_block_asym",
        group_size = 32,
        calibration = ":smollm2_calibration",
    )

The program has two methods that share one KV cache: `forward` decodes one
token per execution, and `prefill` reads `prefill_length` prompt tokens per
execution. `llm_main` prefills with `prefill` when the program has it.
With `weight_sharing` (the default) the two graphs keep one copy of the
weights in their QNN context, which halves the program; a phone's HTP loads
it, and the x86 HTP simulator cannot, so programs that run in the simulator
set `weight_sharing = False`.

Returns PteInfo (kind "llm", backend "qnn", max_seq_len 1).
""",
    attrs = dict(dict(LLM_COMMON_ATTRS, **PROFILE_ATTRS), **{
        "quantize": attr.string(default = "none", doc = "QnnQuantizer's scheme: 16a4w, 16a4w_block, 16a4w_block_asym, 16a8w or 8a8w (required)."),
        "group_size": attr.int(default = 0, doc = "16a4w_block and 16a4w_block_asym only: block size of the 4-bit weights, 32, 64 or 128."),
        "soc": attr.string(doc = "The Qualcomm SoC to compile for, e.g. SM8650 (see //tools/qnn:socs.bzl)."),
        "calibration": attr.label(providers = [CalibrationSetInfo], doc = "A calibration_set of this model."),
        "calibration_passages": attr.int(default = 32, doc = "How many of its passages calibrate the observers."),
        "prefill_length": attr.int(default = 32, doc = "Prompt tokens per execution of the `prefill` method, below max_context_len; 0 leaves it out (prefill then runs one token per execution)."),
        "weight_sharing": attr.bool(default = True, doc = "Whether `forward` and `prefill` keep one copy of the weights in their QNN context: half the size, for a phone's HTP; False for programs run in the x86 HTP simulator, which cannot load it."),
        "qnn_sdk": attr.label(providers = [QnnSdkInfo], cfg = "exec", doc = "The QNN SDK; executorch_pte sets //tools/qnn:sdk."),
        "_qnn_exporter": attr.label(
            default = Label("//tools/executorch:export_qnn"),
            executable = True,
            cfg = "exec",
        ),
    }),
)
