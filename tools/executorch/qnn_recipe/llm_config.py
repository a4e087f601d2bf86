"""The LlmConfig of a QNN program: static shapes, ExecuTorch's QNN transforms, our quantizer."""

from __future__ import annotations


def qnn_llm_config(checkpoint: str, params: str, tokenizer: str, runtime_metadata: str, max_context_len: int, soc: str):
    from executorch.extension.llm.export.config.llm_config import LlmConfig, ModelType, Pt2eQuantize

    config = LlmConfig()
    config.base.model_class = ModelType("llama3_2")
    config.base.checkpoint = checkpoint
    config.base.params = params
    config.base.tokenizer_path = tokenizer
    config.base.metadata = runtime_metadata
    # NPUs need static shapes: one token per call, a fixed-size KV cache.
    config.model.use_kv_cache = True
    config.model.use_sdpa_with_kv_cache = False
    config.model.enable_dynamic_shape = False
    config.export.max_seq_length = 1
    config.export.max_context_length = max_context_len
    # Selects ExecuTorch's QNN source transforms and partitioner settings for
    # a quantized program; the quantizer itself is handed in (quantizer.py).
    config.quantization.pt2e_quantize = Pt2eQuantize("qnn_16a4w")
    config.backend.qnn.enabled = True
    config.backend.qnn.soc_model = soc
    return config
