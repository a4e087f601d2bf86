"""Tensor names of a llama GGUF file and of Meta's layout (ExecuTorch's llama model), both ways.

GGUF keeps wq/wk in Meta's interleaved rotary layout (llama.cpp's converter
permutes Hugging Face weights into it), so between the two only names
change, never values.
"""

from __future__ import annotations

GGUF_TO_META = {
    "token_embd.weight": "tok_embeddings.weight",
    "output_norm.weight": "norm.weight",
    "output.weight": "output.weight",
}
# blk.<n>.<key> <-> layers.<n>.<value>
GGUF_LAYER_TO_META = {
    "attn_norm.weight": "attention_norm.weight",
    "attn_q.weight": "attention.wq.weight",
    "attn_k.weight": "attention.wk.weight",
    "attn_v.weight": "attention.wv.weight",
    "attn_output.weight": "attention.wo.weight",
    "ffn_norm.weight": "ffn_norm.weight",
    "ffn_gate.weight": "feed_forward.w1.weight",
    "ffn_down.weight": "feed_forward.w2.weight",
    "ffn_up.weight": "feed_forward.w3.weight",
}
_META_TO_GGUF = {v: k for k, v in GGUF_TO_META.items()}
_META_LAYER_TO_GGUF = {v: k for k, v in GGUF_LAYER_TO_META.items()}


def _translate(
    name: str, top: dict[str, str], layer_prefixes: tuple[str, str], per_layer: dict[str, str]
) -> str | None:
    if name in top:
        return top[name]
    prefix, _, rest = name.partition(".")
    layer, _, suffix = rest.partition(".")
    if prefix != layer_prefixes[0] or not layer.isdigit() or suffix not in per_layer:
        return None
    return f"{layer_prefixes[1]}.{int(layer)}.{per_layer[suffix]}"


def meta_name(gguf_name: str) -> str | None:
    """The Meta name of a llama GGUF tensor, or None when it has none."""
    return _translate(gguf_name, GGUF_TO_META, ("blk", "layers"), GGUF_LAYER_TO_META)


def gguf_name(meta_name: str) -> str | None:
    """The llama GGUF name of a Meta-layout tensor, or None when it has none."""
    return _translate(meta_name, _META_TO_GGUF, ("layers", "blk"), _META_LAYER_TO_GGUF)
