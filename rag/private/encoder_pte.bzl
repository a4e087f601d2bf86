"""encoder_pte: a sentence_encoder (BERT + pooling) as an ExecuTorch program."""

load("//tools/executorch:program_rule_kit.bzl", "NO_NETWORK", "PYTHON_ACTION_ENV", "declare_program", "label_text", "misplaced_attrs_error", "program_providers")
load(":encoder_choices.bzl", ENCODER_CHOICES = "CHOICES")
load(":sentence_encoder.bzl", "EncoderCheckpointInfo")

ENCODER_QUANTIZE_MODES = ENCODER_CHOICES["quantize"]
ENCODER_BACKENDS = ENCODER_CHOICES["backend"]

def _check_attrs(ctx):
    attrs = ctx.attr
    if attrs.quantize not in ENCODER_QUANTIZE_MODES:
        fail("encoder_pte {}: quantize \"{}\" is not available for a sentence_encoder; choose one of {} (8da8w: int8 weights, int8 dynamic activations, int8 embedding tables)".format(
            ctx.label,
            attrs.quantize,
            ENCODER_QUANTIZE_MODES,
        ))
    if attrs.backend not in ENCODER_BACKENDS:
        fail("encoder_pte {}: backend \"{}\" is not available for a sentence_encoder; choose one of {}".format(ctx.label, attrs.backend, ENCODER_BACKENDS))
    if attrs.quantize == "8da8w" and attrs.backend != "xnnpack":
        fail("encoder_pte {}: quantize = \"8da8w\" needs backend = \"xnnpack\"".format(ctx.label))
    if attrs.max_seq_len < 2 or attrs.max_seq_len > 512:
        fail("encoder_pte {}: max_seq_len = {} must be in 2..512 for a BERT encoder (the longest input, [CLS] and [SEP] included)".format(ctx.label, attrs.max_seq_len))

def _encoder_pte_impl(ctx):
    _check_attrs(ctx)
    model = ctx.attr.model[EncoderCheckpointInfo]
    pte, manifest = declare_program(ctx)

    args = ctx.actions.args()
    args.add("--config", model.config)
    args.add("--weights", model.weights)
    args.add("--tokenizer", model.tokenizer)
    args.add("--model_label", label_text(ctx.attr.model.label))
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
    return program_providers(
        ctx,
        pte,
        manifest,
        kind = "sentence_encoder",
        tokenizer = model.tokenizer,
        tokenizer_config = model.tokenizer_config,
        runfiles = [model.tokenizer, model.vocab],
        max_seq_len = ctx.attr.max_seq_len,
        # No KV cache: each call embeds one whole input.
        max_context_len = 0,
        backend = ctx.attr.backend,
    )

encoder_pte_rule = rule(
    implementation = _encoder_pte_impl,
    doc = """Exports a sentence_encoder to `<name>.pte` plus `<name>.manifest.json`: token ids and mask in, one pooled vector out.

    encoder_pte(
        name = "minilm_l6_int8",
        model = ":minilm_l6",
        backend = "xnnpack",
        quantize = "8da8w",
        max_seq_len = 256,
    )

Returns PteInfo (kind "sentence_encoder"); give it to rag_index as `embedder`.
""",
    attrs = {
        "model": attr.label(mandatory = True, providers = [EncoderCheckpointInfo], doc = "A sentence_encoder."),
        "quantize": attr.string(default = "none", doc = "none, or 8da8w (int8 weights and dynamic activations, XNNPACK)."),
        "backend": attr.string(default = "portable", doc = "portable kernels or the XNNPACK delegate."),
        "max_seq_len": attr.int(default = 128, doc = "Longest input in tokens, [CLS] and [SEP] included (2..512)."),
        "_encoder_exporter": attr.label(
            default = Label("//rag/encoder:export_encoder"),
            executable = True,
            cfg = "exec",
        ),
    },
)

def encoder_pte(name, **kwargs):
    """encoder_pte_rule, failing with the fix when given another program family's attributes.

    Args:
      name: the target.
      **kwargs: encoder_pte's attributes.
    """
    error = misplaced_attrs_error("encoder_pte", name, kwargs.get("backend", "portable"), kwargs)
    if error:
        fail(error)
    encoder_pte_rule(name = name, **kwargs)
