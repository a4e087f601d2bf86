"""Providers passed between the model rules."""

LlmCheckpointInfo = provider(
    doc = "A language model ready for export: weights, architecture and tokenizer.",
    fields = {
        "checkpoint": "File: Meta-layout state dict (torch.save), names as in ExecuTorch's llama_transformer.",
        "params": "File: params.json with the architecture (ExecuTorch ModelArgs fields).",
        "tokenizer": "File: Hugging Face tokenizer.json.",
        "tokenizer_config": "File: tokenizer_config.json with bos_token, eos_token and chat_template.",
    },
)

PteInfo = provider(
    doc = "An exported ExecuTorch program and what produced it.",
    fields = {
        "pte": "File: the .pte program.",
        "manifest": "File: <name>.manifest.json (schema: tools/executorch/manifest.proto).",
        "tokenizer": "File: tokenizer.json the program's token ids refer to.",
        "tokenizer_config": "File: tokenizer_config.json (special tokens, chat template).",
        "kind": "string: 'llm' (a language model with a KV cache) or 'sentence_encoder'.",
        "backend": "string: 'portable', 'xnnpack' or 'qnn'.",
        "quantize": "string: for an llm 'none', '8da4w' or '8da4w_asym' (XNNPACK/portable), or '16a4w', " +
                    "'16a4w_block', '16a4w_block_asym', '16a8w', '8a8w' (qnn); for a sentence_encoder 'none' or '8da8w'.",
        "max_seq_len": "int: longest token chunk a single forward call accepts.",
        "max_context_len": "int: KV-cache length; 0 for a sentence_encoder, which has none.",
    },
)

ExportedElsewhereInfo = provider(
    doc = """Returned by a model target that another tree's program rule exports
(a sentence_encoder, by encoder_pte). executorch_pte accepts such a target
only to name the rule that exports it, so these rules never need to know
the trees built on them.""",
    fields = {
        "kind": "string: what the target is, e.g. 'sentence_encoder'.",
        "program_rule": "string: the rule that exports it, e.g. 'encoder_pte'.",
    },
)

CalibrationSetInfo = provider(
    doc = "Tokenized text passages for post-training quantization (calibration_set).",
    fields = {
        "file": "File: JSON with text_sha256, tokenizer_sha256, tokens and passages (lists of token ids).",
        "passages": "int: how many passages the file holds.",
        "model": "Label: the llm_checkpoint whose tokenizer produced the ids.",
    },
)
