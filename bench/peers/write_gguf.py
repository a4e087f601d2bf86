"""Writes a llama.cpp GGUF file from one of our checkpoints, so that peers run the same weights.

    write_gguf --checkpoint=checkpoint.pth --params=params.json --tokenizer_json=tokenizer.json \
        --type=Q4_1 --out=model.gguf

The checkpoint is in Meta's layout (ExecuTorch's llama model), which is
also GGUF's: llama.cpp's own converter permutes Hugging Face q/k weights
into it, so tensors are renamed, not permuted. Linears are quantized with
the gguf package's quantizer (--type); norms stay F32; the embedding table
(tied to the output head in a GGUF without output.weight) takes
--embedding_type. Llama 3 rope scaling is written as llama.cpp expects it,
as per-frequency factors in rope_freqs.weight. The tokenizer (BPE only) is
written from tokenizer.json, padded with unused tokens up to the model's
vocabulary. Output depends only on the inputs: no dates, no paths.
"""

from __future__ import annotations

import json
import math

import numpy as np
from absl import app, flags

from tools.executorch.gguf_names import gguf_name

FLAGS = flags.FLAGS
flags.DEFINE_string("checkpoint", None, "checkpoint.pth (Meta names).")
flags.DEFINE_string("params", None, "params.json of the checkpoint.")
flags.DEFINE_string("tokenizer_json", None, "tokenizer.json of the checkpoint.")
flags.DEFINE_string("tokenizer_config", None, "tokenizer_config.json of the checkpoint (BOS and EOS).")
flags.DEFINE_enum("type", "Q4_1", ["F32", "F16", "Q8_0", "Q4_0", "Q4_1"], "GGML type of the linears.")
flags.DEFINE_enum("embedding_type", "Q8_0", ["F32", "F16", "Q8_0", "Q4_0", "Q4_1"], "GGML type of the embedding table.")
flags.DEFINE_string("pre_tokenizer", "default", "llama.cpp's pre-tokenizer name (tokenizer.ggml.pre).")
flags.DEFINE_string("name", "model", "general.name.")
flags.DEFINE_integer("context_length", 2048, "llama.context_length.")
flags.DEFINE_string("out", None, "GGUF file to write.")
for _name in ("checkpoint", "params", "tokenizer_json", "tokenizer_config", "out"):
    flags.mark_flag_as_required(_name)

# Architectures the llama GGUF cannot express; llama.cpp has other
# architectures for them (qwen2, qwen3), which this writer does not write.
_NOT_LLAMA = ("attention_qkv_bias", "qk_norm_before_rope", "use_qk_norm", "use_hf_rope")


class GgufWriteError(Exception):
    """The checkpoint cannot be written as a llama GGUF; the message says why."""


def llama_gguf_name(meta_name: str) -> str:
    name = gguf_name(meta_name)
    if name is None:
        raise GgufWriteError(f"tensor {meta_name!r} has no place in a llama GGUF")
    return name


def head_dim(params: dict) -> int:
    return params.get("head_dim") or params["dim"] // params["n_heads"]


def llama3_rope_factors(params: dict) -> np.ndarray:
    """llama.cpp's rope_freqs for Llama 3 scaling: the divisor of each rotary frequency."""
    dim = head_dim(params)
    factor = params.get("rope_scale_factor", 8.0)
    low, high = 1.0, params.get("high_freq_factor", 4.0)
    # ExecuTorch's scaling fixes the original context at 8192 positions.
    original = 8192
    factors = []
    for i in range(0, dim, 2):
        wavelen = 2 * math.pi * params["rope_theta"] ** (i / dim)
        if wavelen < original / high:
            factors.append(1.0)
        elif wavelen > original / low:
            factors.append(factor)
        else:
            smooth = (original / wavelen - low) / (high - low)
            factors.append(1.0 / ((1 - smooth) / factor + smooth))
    return np.array(factors, dtype=np.float32)


def token_id(tokenizer: dict, token) -> int:
    text = token.get("content") if isinstance(token, dict) else token
    for added in tokenizer.get("added_tokens", []):
        if added["content"] == text:
            return added["id"]
    if text in tokenizer["model"]["vocab"]:
        return tokenizer["model"]["vocab"][text]
    raise GgufWriteError(f"special token {text!r} is not in {FLAGS.tokenizer_json}")


def add_tokenizer(writer, gguf, tokenizer: dict, special: dict, vocab_size: int) -> None:
    model = tokenizer.get("model", {})
    if model.get("type") != "BPE":
        raise GgufWriteError(f"tokenizer model is {model.get('type')!r}: only BPE tokenizers are written")
    tokens = [f"[PAD{i}]" for i in range(vocab_size)]
    types = [int(gguf.TokenType.UNUSED)] * vocab_size
    for text, index in model["vocab"].items():
        if index < vocab_size:
            tokens[index], types[index] = text, int(gguf.TokenType.NORMAL)
    for added in tokenizer.get("added_tokens", []):
        if added["id"] >= vocab_size:
            raise GgufWriteError(f"token {added['content']!r} has id {added['id']}, outside the vocabulary")
        kind = gguf.TokenType.CONTROL if added.get("special") else gguf.TokenType.USER_DEFINED
        tokens[added["id"]], types[added["id"]] = added["content"], int(kind)
    merges = [m if isinstance(m, str) else " ".join(m) for m in model.get("merges", [])]
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre(FLAGS.pre_tokenizer)
    writer.add_token_list(tokens)
    writer.add_token_types(types)
    writer.add_token_merges(merges)
    # Peers are given token ids, so nothing is added to them.
    writer.add_add_bos_token(False)
    for key, add in (("bos_token", writer.add_bos_token_id), ("eos_token", writer.add_eos_token_id)):
        if special.get(key):
            add(token_id(tokenizer, special[key]))


def main(argv: list[str]) -> None:
    del argv
    try:
        write()
    except GgufWriteError as e:
        raise SystemExit(f"write_gguf: {e}") from e


def write() -> None:
    import gguf
    import torch

    with open(FLAGS.params) as f:
        params = json.load(f)
    with open(FLAGS.tokenizer_json) as f:
        tokenizer = json.load(f)
    with open(FLAGS.tokenizer_config) as f:
        special = json.load(f)
    unsupported = [key for key in _NOT_LLAMA if params.get(key)]
    if unsupported:
        raise GgufWriteError(
            f"{FLAGS.params} sets {', '.join(unsupported)}: not a llama architecture; give a Llama or SmolLM checkpoint"
        )
    state_dict = torch.load(FLAGS.checkpoint, map_location="cpu", weights_only=True, mmap=True)
    linear_type = gguf.GGMLQuantizationType[FLAGS.type]
    embedding_type = gguf.GGMLQuantizationType[FLAGS.embedding_type]

    writer = gguf.GGUFWriter(FLAGS.out, "llama")
    writer.add_name(FLAGS.name)
    writer.add_context_length(FLAGS.context_length)
    writer.add_embedding_length(params["dim"])
    writer.add_block_count(params["n_layers"])
    writer.add_feed_forward_length(params["hidden_dim"])
    writer.add_head_count(params["n_heads"])
    writer.add_head_count_kv(params["n_kv_heads"])
    writer.add_layer_norm_rms_eps(params["norm_eps"])
    writer.add_rope_freq_base(params["rope_theta"])
    writer.add_rope_dimension_count(head_dim(params))
    writer.add_vocab_size(params["vocab_size"])
    writer.add_file_type(int(getattr(gguf.LlamaFileType, "ALL_F32" if FLAGS.type == "F32" else f"MOSTLY_{FLAGS.type}")))
    writer.add_quantization_version(gguf.GGML_QUANT_VERSION)
    add_tokenizer(writer, gguf, tokenizer, special, params["vocab_size"])

    tied = "output.weight" in state_dict and torch.equal(
        state_dict["output.weight"], state_dict["tok_embeddings.weight"]
    )
    for meta_name in sorted(state_dict, key=_tensor_order):
        if tied and meta_name == "output.weight":
            continue  # llama.cpp reads the head from token_embd when output.weight is absent
        tensor = state_dict[meta_name].to(torch.float32).numpy()
        name = llama_gguf_name(meta_name)
        qtype = gguf.GGMLQuantizationType.F32
        if tensor.ndim == 2:
            qtype = embedding_type if name in ("token_embd.weight", "output.weight") else linear_type
        if qtype == gguf.GGMLQuantizationType.F32:
            writer.add_tensor(name, tensor)
        else:
            writer.add_tensor(name, gguf.quants.quantize(tensor, qtype), raw_dtype=qtype)
    if params.get("use_scaled_rope"):
        writer.add_tensor("rope_freqs.weight", llama3_rope_factors(params))

    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def _tensor_order(meta_name: str) -> tuple:
    # llama.cpp's order: embeddings, then each layer in turn, then the head.
    if meta_name.startswith("layers."):
        layer, _, rest = meta_name[len("layers.") :].partition(".")
        return (1, int(layer), rest)
    return (0 if meta_name.startswith("tok_") else 2, 0, meta_name)


if __name__ == "__main__":
    app.run(main)
