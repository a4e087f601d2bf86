"""gguf_file: a llama.cpp GGUF written from an llm_checkpoint, so that peers run our exact weights.

    load("//bench/peers:gguf_file.bzl", "gguf_file")

    gguf_file(
        name = "smollm2_135m_q4_1",
        model = "//models:smollm2_135m",
        pre_tokenizer = "smollm",
    )

writes smollm2_135m_q4_1.gguf: Q4_1 linears (asymmetric int4 in blocks
of 32, as our recipe's), an 8-bit embedding table that is also the head.
"""

load("//tools/executorch:defs.bzl", "LlmCheckpointInfo")
load("//tools/executorch:program_rule_kit.bzl", "NO_NETWORK", "PYTHON_ACTION_ENV")

GGML_TYPES = ["F32", "F16", "Q8_0", "Q4_0", "Q4_1"]

def _gguf_file_impl(ctx):
    checkpoint = ctx.attr.model[LlmCheckpointInfo]
    out = ctx.actions.declare_file(ctx.label.name + ".gguf")
    args = ctx.actions.args()
    args.add("--checkpoint", checkpoint.checkpoint)
    args.add("--params", checkpoint.params)
    args.add("--tokenizer_json", checkpoint.tokenizer)
    args.add("--tokenizer_config", checkpoint.tokenizer_config)
    args.add("--type", ctx.attr.type)
    args.add("--embedding_type", ctx.attr.embedding_type)
    args.add("--pre_tokenizer", ctx.attr.pre_tokenizer)
    args.add("--name", ctx.attr.model.label.name)
    args.add("--out", out)
    ctx.actions.run(
        executable = ctx.executable._writer,
        arguments = [args],
        inputs = [checkpoint.checkpoint, checkpoint.params, checkpoint.tokenizer, checkpoint.tokenizer_config],
        outputs = [out],
        env = PYTHON_ACTION_ENV,
        execution_requirements = NO_NETWORK,
        mnemonic = "WriteGguf",
        progress_message = "Writing GGUF {} ({})".format(ctx.label, ctx.attr.type),
    )
    return [DefaultInfo(files = depset([out]), runfiles = ctx.runfiles(files = [out]))]

gguf_file = rule(
    implementation = _gguf_file_impl,
    doc = "A llama GGUF (`<name>.gguf`) of an llm_checkpoint's weights and tokenizer, for llama.cpp and OpenVINO GenAI.",
    attrs = {
        "embedding_type": attr.string(default = "Q8_0", values = GGML_TYPES, doc = "GGML type of the embedding table (the tied head)."),
        "model": attr.label(mandatory = True, providers = [LlmCheckpointInfo], doc = "An llm_checkpoint of a llama architecture."),
        "pre_tokenizer": attr.string(default = "default", doc = "llama.cpp's pre-tokenizer name (tokenizer.ggml.pre)."),
        "type": attr.string(default = "Q4_1", values = GGML_TYPES, doc = "GGML type of the linears."),
        "_writer": attr.label(default = "//bench/peers:write_gguf", executable = True, cfg = "exec"),
    },
)
