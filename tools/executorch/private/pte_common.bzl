"""What the program rules (llm_pte, qnn_pte, encoder_pte) share: the
attributes of a language-model export, how outputs are named, and what every
program target returns."""

load("@bazel_skylib//rules:common_settings.bzl", "BuildSettingInfo")
load("//tools/python:action_env.bzl", "NO_NETWORK")
load(":providers.bzl", "ExportedElsewhereInfo", "LlmCheckpointInfo", "PteInfo")

# The attributes of every language-model export, whatever its backend.
LLM_COMMON_ATTRS = {
    "model": attr.label(
        mandatory = True,
        # Another tree's model (a sentence_encoder) is accepted only to be
        # pointed at the rule that exports it.
        providers = [[LlmCheckpointInfo], [ExportedElsewhereInfo]],
        doc = "An llm_checkpoint.",
    ),
    "max_context_len": attr.int(default = 2048, doc = "KV-cache length: prompt plus generated tokens."),
}

# What every exporting rule needs to profile its export on request.
PROFILE_ATTRS = {
    "_profile_exports": attr.label(default = Label("//tools/executorch:profile_exports")),
}

def export_profile(ctx, args):
    """With --//tools/executorch:profile_exports, asks the exporter for a stage profile.

    The profile is `<name>.export_profile.json`, in the output group
    "export_profile". A profiled export always runs (no cache), so that its
    times are this machine's, now; the .pte it writes is the usual one.

    Args:
      ctx: the rule context (with PROFILE_ATTRS).
      args: the exporter's Args; gains --profile_out.

    Returns:
      (outputs, execution_requirements, output_groups): the profile File as a
      list (empty when not profiling), the action's requirements, and
      the output groups to return.
    """
    if not ctx.attr._profile_exports[BuildSettingInfo].value:
        return [], NO_NETWORK, {}
    profile = ctx.actions.declare_file(ctx.label.name + ".export_profile.json")
    args.add("--profile_out", profile)
    requirements = dict(NO_NETWORK, **{"no-cache": "1", "no-remote": "1"})
    return [profile], requirements, {"export_profile": depset([profile])}

def check_llm_model(ctx):
    """Fails, naming the rule to use, when the model is another kind (a sentence_encoder)."""
    if LlmCheckpointInfo not in ctx.attr.model:
        other = ctx.attr.model[ExportedElsewhereInfo]
        fail("executorch_pte {}: {} is a {}; export it with {} (quantize, backend and max_seq_len as here)".format(
            ctx.label,
            ctx.attr.model.label,
            other.kind,
            other.program_rule,
        ))

def label_text(label):
    """A label as text that does not depend on which Bazel wrote it.

    Bazel 7 spells main-repository labels "@@//pkg:name", Bazel 4
    "//pkg:name"; manifests record this form.

    Args:
      label: a Label.

    Returns:
      "//pkg:name", or "@repo//pkg:name" outside the main repository.
    """
    if label.workspace_name:
        return "@{}//{}:{}".format(label.workspace_name, label.package, label.name)
    return "//{}:{}".format(label.package, label.name)

def declare_program(ctx):
    """Declares `<name>.pte` and `<name>.manifest.json`.

    Args:
      ctx: the rule context.

    Returns:
      (pte, manifest) Files.
    """
    return (
        ctx.actions.declare_file(ctx.label.name + ".pte"),
        ctx.actions.declare_file(ctx.label.name + ".manifest.json"),
    )

def llm_model_args(ctx, model):
    """The exporter's arguments naming a language model's files, in the order both exporters take them.

    Args:
      ctx: the rule context.
      model: the model's LlmCheckpointInfo.

    Returns:
      An Args with --checkpoint, --params, --tokenizer, --tokenizer_config and --model_label.
    """
    args = ctx.actions.args()
    args.add("--checkpoint", model.checkpoint)
    args.add("--params", model.params)
    args.add("--tokenizer", model.tokenizer)
    args.add("--tokenizer_config", model.tokenizer_config)
    args.add("--model_label", label_text(ctx.attr.model.label))
    return args

def llm_program_providers(ctx, model, pte, manifest, max_seq_len, backend):
    """program_providers for a language model: its tokenizer files travel with the program.

    Args:
      ctx: the rule context.
      model: the model's LlmCheckpointInfo.
      pte: the .pte File.
      manifest: its manifest File.
      max_seq_len: PteInfo.max_seq_len.
      backend: PteInfo.backend.

    Returns:
      [DefaultInfo, PteInfo].
    """
    return program_providers(
        ctx,
        pte,
        manifest,
        kind = "llm",
        tokenizer = model.tokenizer,
        tokenizer_config = model.tokenizer_config,
        runfiles = [model.tokenizer, model.tokenizer_config],
        max_seq_len = max_seq_len,
        max_context_len = ctx.attr.max_context_len,
        backend = backend,
    )

def program_providers(ctx, pte, manifest, kind, tokenizer, tokenizer_config, runfiles, max_seq_len, max_context_len, backend):
    """DefaultInfo (the .pte and its manifest, plus `runfiles`) and PteInfo.

    Args:
      ctx: the rule context.
      pte: the .pte File.
      manifest: its manifest File.
      kind: PteInfo.kind.
      tokenizer: tokenizer.json the program's ids refer to.
      tokenizer_config: its tokenizer_config.json.
      runfiles: further Files a consumer needs at run time.
      max_seq_len: PteInfo.max_seq_len.
      max_context_len: PteInfo.max_context_len.
      backend: PteInfo.backend.

    Returns:
      [DefaultInfo, PteInfo].
    """
    files = [pte, manifest]
    return [
        DefaultInfo(files = depset(files), runfiles = ctx.runfiles(files = files + runfiles)),
        PteInfo(
            pte = pte,
            manifest = manifest,
            tokenizer = tokenizer,
            tokenizer_config = tokenizer_config,
            kind = kind,
            backend = backend,
            quantize = ctx.attr.quantize,
            max_seq_len = max_seq_len,
            max_context_len = max_context_len,
        ),
    ]

# Attributes that belong to one family of programs, for the executorch_pte
# macro's message when they are given to another.
QNN_ONLY_ATTRS = ["soc", "qnn_sdk", "prefill_length", "weight_sharing"]
CPU_ONLY_ATTRS = ["embedding_quantize", "head_quantize", "hqq", "logit_rows", "max_seq_len", "outlier_channels"]
LLM_ONLY_ATTRS = ["group_size", "embedding_quantize", "head_quantize", "hqq", "logit_rows", "max_context_len", "outlier_channels", "calibration", "calibration_passages"]

def misplaced_attrs_error(rule, name, backend, attrs):
    """The error for a missing model or attributes this kind of program does not take, or "".

    The macros check these before they declare anything, so a user gets the
    fix instead of a Python KeyError or Bazel's "no such attribute".

    Args:
      rule: "executorch_pte" or "encoder_pte".
      name: the target's name.
      backend: its backend.
      attrs: the other attributes given (a dict).

    Returns:
      The message, naming the fix; "" when the model is given and every
      attribute belongs.
    """
    if "model" not in attrs:
        return "{} {}: model is missing; set model = the {} to export, for example model = \":my_model\"".format(
            rule,
            name,
            "sentence_encoder" if rule == "encoder_pte" else "llm_checkpoint",
        )
    if rule == "encoder_pte":
        given = [a for a in LLM_ONLY_ATTRS if a in attrs]
        if given:
            return "encoder_pte {}: {} are LLM settings; drop them for a sentence_encoder (its 8da8w is per-channel)".format(name, ", ".join(given))
    elif backend == "qnn":
        given = [a for a in CPU_ONLY_ATTRS if a in attrs]
        if given:
            return "executorch_pte {}: {} are XNNPACK/portable options; drop them for backend \"qnn\"".format(name, "/".join(given))
    else:
        given = [a for a in QNN_ONLY_ATTRS if a in attrs]
        if given:
            return "executorch_pte {}: {} are for backend \"qnn\"; drop them or set backend = \"qnn\"".format(name, "/".join(given))
    return ""
