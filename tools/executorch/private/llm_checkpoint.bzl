"""llm_checkpoint: a checkpoint source turned into what the exporter needs."""

load("//tools/python:action_env.bzl", "NO_NETWORK", "PYTHON_ACTION_ENV")
load(":providers.bzl", "LlmCheckpointInfo")

def _source_kind(ctx):
    given = [k for k in ("hf", "gguf", "checkpoint") if getattr(ctx.attr, k)]
    if ctx.attr.seed >= 0:
        given.append("random")
    if len(given) != 1:
        fail("llm_checkpoint {}: give exactly one of `hf`, `gguf`, `checkpoint` (+ params, tokenizer) or `seed` (random weights); got {}".format(
            ctx.label,
            given or "none",
        ))
    kind = "meta" if given[0] == "checkpoint" else given[0]
    if kind in ("hf", "gguf"):
        if ctx.file.params or ctx.file.tokenizer or ctx.file.tokenizer_config:
            fail("llm_checkpoint {}: `{}` carries its own config and tokenizer; drop params, tokenizer and tokenizer_config".format(ctx.label, kind))
    elif not (ctx.file.params and ctx.file.tokenizer):
        fail("llm_checkpoint {}: `params` and `tokenizer` are required with `{}`".format(ctx.label, given[0]))
    return kind

def _llm_checkpoint_impl(ctx):
    kind = _source_kind(ctx)
    out_checkpoint = ctx.actions.declare_file(ctx.label.name + "/checkpoint.pth")
    out_params = ctx.actions.declare_file(ctx.label.name + "/params.json")
    out_tokenizer = ctx.actions.declare_file(ctx.label.name + "/tokenizer.json")
    out_tokenizer_config = ctx.actions.declare_file(ctx.label.name + "/tokenizer_config.json")
    outputs = [out_checkpoint, out_params, out_tokenizer, out_tokenizer_config]

    args = ctx.actions.args()
    args.add("--source", kind)
    inputs = list(ctx.files.hf)
    args.add_all(ctx.files.hf, before_each = "--hf_file")
    for flag, file in (
        ("--gguf", ctx.file.gguf),
        ("--checkpoint", ctx.file.checkpoint),
        ("--params", ctx.file.params),
        ("--tokenizer", ctx.file.tokenizer),
        ("--tokenizer_config", ctx.file.tokenizer_config),
    ):
        if file:
            args.add(flag, file)
            inputs.append(file)
    if kind == "random":
        args.add("--seed", ctx.attr.seed)
    args.add("--out_checkpoint", out_checkpoint)
    args.add("--out_params", out_params)
    args.add("--out_tokenizer", out_tokenizer)
    args.add("--out_tokenizer_config", out_tokenizer_config)

    ctx.actions.run(
        executable = ctx.executable._converter,
        arguments = [args],
        inputs = inputs,
        outputs = outputs,
        env = PYTHON_ACTION_ENV,
        execution_requirements = NO_NETWORK,
        mnemonic = "LlmCheckpoint",
        progress_message = "Converting {} checkpoint {}".format(kind, ctx.label),
    )
    return [
        DefaultInfo(files = depset(outputs), runfiles = ctx.runfiles(files = outputs)),
        LlmCheckpointInfo(
            checkpoint = out_checkpoint,
            params = out_params,
            tokenizer = out_tokenizer,
            tokenizer_config = out_tokenizer_config,
        ),
        OutputGroupInfo(
            checkpoint = depset([out_checkpoint]),
            tokenizer = depset([out_tokenizer]),
            tokenizer_config = depset([out_tokenizer_config]),
            params = depset([out_params]),
        ),
    ]

llm_checkpoint = rule(
    implementation = _llm_checkpoint_impl,
    doc = """A LLaMA-architecture checkpoint, converted for export.

Give exactly one source:
  * `hf`: a Hugging Face model folder's files: config.json, model.safetensors
    or its shards and index (bf16, fp16 or fp32), tokenizer.json and
    tokenizer_config.json. LlamaForCausalLM (Llama 3.x, SmolLM2),
    Qwen2ForCausalLM (Qwen2.5) and Qwen3ForCausalLM (Qwen3):

        llm_checkpoint(name = "qwen2_5_0_5b", hf = "@qwen2_5_0_5b//:files")

    (hf_model_folder in repositories.bzl makes `@qwen2_5_0_5b//:files` of a folder);
  * `gguf`: a llama GGUF file (weights are de-quantized to fp32);
  * `checkpoint` + `params` + `tokenizer`: a Meta checkpoint such as Llama 3.2
    1B/3B's consolidated.00.pth, params.json and a tokenizer.json;
  * `seed` + `params` + `tokenizer`: seeded random weights, for tests.
""",
    attrs = {
        "hf": attr.label(allow_files = True, doc = "The files of a Hugging Face model folder."),
        "gguf": attr.label(allow_single_file = [".gguf"], doc = "A llama GGUF file."),
        "checkpoint": attr.label(allow_single_file = [".pth", ".pt"], doc = "Meta-layout state dict."),
        "params": attr.label(allow_single_file = [".json"], doc = "params.json (ModelArgs fields)."),
        "tokenizer": attr.label(allow_single_file = [".json"], doc = "Hugging Face tokenizer.json."),
        "tokenizer_config": attr.label(allow_single_file = [".json"], doc = "tokenizer_config.json with bos/eos tokens and chat_template."),
        "seed": attr.int(default = -1, doc = "Random weights with this seed (>= 0)."),
        "_converter": attr.label(
            default = Label("//tools/executorch:convert_checkpoint"),
            executable = True,
            cfg = "exec",
        ),
    },
)
