"""Reads a Hugging Face model folder into what the exporter takes: params.json fields and a Meta-layout state dict.

A folder is what a user downloads: config.json, the weights as one
model.safetensors or shards named by model.safetensors.index.json (bf16,
fp16 or fp32), tokenizer.json, tokenizer_config.json with the chat template
(or chat_template.jinja beside it) and generation_config.json.

Supported architectures, each mapped onto ExecuTorch's llama_transformer
ModelArgs the way ExecuTorch's own configs for these families set them:

  LlamaForCausalLM   Llama 3.x (rope_scaling "llama3") and SmolLM2. q/k are
                     permuted into Meta's interleaved rotary layout, as
                     llama.cpp and Meta's checkpoints store them.
  Qwen2ForCausalLM   Qwen2.5: q/k/v biases; Hugging Face's rotary layout.
  Qwen3ForCausalLM   Qwen3: RMSNorm on q and k before the rotation, its own
                     head_dim; Hugging Face's rotary layout.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping

import torch


class HfFolderError(Exception):
    """A problem with the user's folder; the message names the file and the fix."""


SUPPORTED = {
    "LlamaForCausalLM": "Llama 3.x, SmolLM2",
    "Qwen2ForCausalLM": "Qwen2.5",
    "Qwen3ForCausalLM": "Qwen3",
}
_SUPPORTED_TEXT = ", ".join(f"{arch} ({families})" for arch, families in SUPPORTED.items())

# ExecuTorch's llama3 rope scaling fixes these two (rope.py's apply_scaling).
_LLAMA3_LOW_FREQ_FACTOR = 1.0
_LLAMA3_ORIGINAL_CONTEXT = 8192

_TOP_LEVEL = {
    "model.embed_tokens.weight": "tok_embeddings.weight",
    "model.norm.weight": "norm.weight",
    "lm_head.weight": "output.weight",
}
_PER_LAYER = {
    "input_layernorm.weight": "attention_norm.weight",
    "post_attention_layernorm.weight": "ffn_norm.weight",
    "self_attn.q_proj.weight": "attention.wq.weight",
    "self_attn.k_proj.weight": "attention.wk.weight",
    "self_attn.v_proj.weight": "attention.wv.weight",
    "self_attn.o_proj.weight": "attention.wo.weight",
    "self_attn.q_proj.bias": "attention.wq.bias",
    "self_attn.k_proj.bias": "attention.wk.bias",
    "self_attn.v_proj.bias": "attention.wv.bias",
    "self_attn.q_norm.weight": "attention.q_norm_fn.weight",
    "self_attn.k_norm.weight": "attention.k_norm_fn.weight",
    "mlp.gate_proj.weight": "feed_forward.w1.weight",
    "mlp.down_proj.weight": "feed_forward.w2.weight",
    "mlp.up_proj.weight": "feed_forward.w3.weight",
}


class HfFolder:
    """The files of one folder, found by name among the paths Bazel gives."""

    def __init__(self, paths: Iterable[str]):
        self.files: dict[str, str] = {}
        for path in paths:
            self.files.setdefault(os.path.basename(path), path)
        if "config.json" not in self.files:
            raise HfFolderError(
                f"no config.json among the model's files ({sorted(self.files)[:8]}): give llm_checkpoint.hf the "
                "whole Hugging Face folder (hf_model_folder makes a target of one)"
            )
        self.config_path = self.files["config.json"]
        with open(self.config_path) as f:
            self.config = json.load(f)

    def path(self, name: str, fix: str) -> str:
        if name not in self.files:
            raise HfFolderError(f"{name} is missing next to {self.config_path}: {fix}")
        return self.files[name]

    def architecture(self) -> str:
        architectures = self.config.get("architectures") or []
        arch = architectures[0] if architectures else None
        if arch not in SUPPORTED:
            raise HfFolderError(
                f"{self.config_path}: architectures {architectures} (model_type "
                f"{self.config.get('model_type')!r}) is not supported; supported: {_SUPPORTED_TEXT}"
            )
        return arch

    def chat_template(self, tokenizer_config: Mapping) -> str | None:
        """tokenizer_config.json's chat_template, or chat_template.jinja's (newer transformers)."""
        if tokenizer_config.get("chat_template"):
            return tokenizer_config["chat_template"]
        if "chat_template.jinja" in self.files:
            with open(self.files["chat_template.jinja"], encoding="utf-8") as f:
                return f.read()
        return None


def params_from_config(folder: HfFolder) -> dict:
    """ModelArgs fields for the folder's config; fails on anything ExecuTorch's model would compute differently."""
    arch = folder.architecture()
    c = folder.config
    where = folder.config_path

    def require(key: str):
        if key not in c:
            raise HfFolderError(f"{where} has no {key!r}: is this a complete {arch} config.json?")
        return c[key]

    if c.get("hidden_act", "silu") != "silu":
        raise HfFolderError(f"{where}: hidden_act {c['hidden_act']!r}; the runtime's llama blocks use silu")
    dim, n_heads = require("hidden_size"), require("num_attention_heads")
    # transformers 5 writes the rotary settings as rope_parameters; the
    # configs on the Hub (transformers 4) as rope_theta and rope_scaling.
    rope = dict(c.get("rope_parameters") or {})
    theta = c.get("rope_theta", rope.get("rope_theta", 10000.0))
    scaling = c.get("rope_scaling") or (rope if rope.get("rope_type", "default") != "default" else None)
    params = {
        "dim": dim,
        "n_layers": require("num_hidden_layers"),
        "n_heads": n_heads,
        "n_kv_heads": c.get("num_key_value_heads") or n_heads,
        "hidden_dim": require("intermediate_size"),
        "vocab_size": require("vocab_size"),
        "norm_eps": float(require("rms_norm_eps")),
        "rope_theta": float(theta),
        "use_scaled_rope": False,
    }
    head_dim = c.get("head_dim")
    if head_dim and head_dim != dim // n_heads:
        params["head_dim"] = head_dim
    if arch == "LlamaForCausalLM":
        if c.get("attention_bias") or c.get("mlp_bias"):
            raise HfFolderError(f"{where}: attention_bias/mlp_bias are set; Llama 3 and SmolLM2 have neither")
        if scaling:
            kind = scaling.get("rope_type") or scaling.get("type")
            if kind != "llama3":
                raise HfFolderError(
                    f"{where}: rope_scaling of type {kind!r}; only 'llama3' (Llama 3.1-3.3) is supported"
                )
            fixed = (
                float(scaling.get("low_freq_factor", 1)),
                int(scaling.get("original_max_position_embeddings", 8192)),
            )
            if fixed != (_LLAMA3_LOW_FREQ_FACTOR, _LLAMA3_ORIGINAL_CONTEXT):
                raise HfFolderError(
                    f"{where}: llama3 rope_scaling with low_freq_factor={fixed[0]} and "
                    f"original_max_position_embeddings={fixed[1]}; ExecuTorch's rope computes only 1 and 8192"
                )
            params["use_scaled_rope"] = True
            params["rope_scale_factor"] = int(scaling["factor"])
            params["high_freq_factor"] = int(scaling.get("high_freq_factor", 4))
    else:
        if scaling:
            raise HfFolderError(f"{where}: rope_scaling {scaling} is not supported for {arch}")
        params["use_hf_rope"] = True
        if arch == "Qwen2ForCausalLM":
            params["attention_qkv_bias"] = True
        else:
            if c.get("attention_bias"):
                raise HfFolderError(f"{where}: attention_bias is set; Qwen3 has none")
            params["use_qk_norm"] = True
            params["qk_norm_before_rope"] = True
    return params


def _shard_files(folder: HfFolder) -> list[str]:
    if "model.safetensors.index.json" in folder.files:
        index_path = folder.files["model.safetensors.index.json"]
        with open(index_path) as f:
            shards = sorted(set(json.load(f)["weight_map"].values()))
        missing = [s for s in shards if s not in folder.files]
        if missing:
            raise HfFolderError(
                f"{index_path} names {missing[0]}, which is not among the model's files: download every shard "
                f"({len(shards)} in all) into the folder"
            )
        return [folder.files[s] for s in shards]
    return [folder.path("model.safetensors", "download the weights (model.safetensors or its shards and index)")]


def _permute_for_meta_rope(weight: torch.Tensor, heads: int) -> torch.Tensor:
    """Hugging Face's rotate-half rows -> Meta's interleaved pairs, head by head."""
    rows, cols = weight.shape
    return weight.reshape(heads, 2, rows // heads // 2, cols).transpose(1, 2).reshape(rows, cols)


def _meta_name(name: str) -> str | None:
    if name in _TOP_LEVEL:
        return _TOP_LEVEL[name]
    parts = name.split(".", 3)
    if len(parts) == 4 and parts[:2] == ["model", "layers"] and parts[3] in _PER_LAYER:
        return f"layers.{int(parts[2])}.{_PER_LAYER[parts[3]]}"
    return None


def _expected_shapes(params: Mapping, arch: str) -> dict[str, tuple[int, ...]]:
    dim, heads, kv = params["dim"], params["n_heads"], params["n_kv_heads"]
    head_dim = params.get("head_dim") or dim // heads
    hidden, vocab = params["hidden_dim"], params["vocab_size"]
    shapes = {"tok_embeddings.weight": (vocab, dim), "norm.weight": (dim,), "output.weight": (vocab, dim)}
    for i in range(params["n_layers"]):
        layer = {
            "attention_norm.weight": (dim,),
            "ffn_norm.weight": (dim,),
            "attention.wq.weight": (heads * head_dim, dim),
            "attention.wk.weight": (kv * head_dim, dim),
            "attention.wv.weight": (kv * head_dim, dim),
            "attention.wo.weight": (dim, heads * head_dim),
            "feed_forward.w1.weight": (hidden, dim),
            "feed_forward.w2.weight": (dim, hidden),
            "feed_forward.w3.weight": (hidden, dim),
        }
        if arch == "Qwen2ForCausalLM":
            layer.update(
                {
                    "attention.wq.bias": (heads * head_dim,),
                    "attention.wk.bias": (kv * head_dim,),
                    "attention.wv.bias": (kv * head_dim,),
                }
            )
        if arch == "Qwen3ForCausalLM":
            layer.update({"attention.q_norm_fn.weight": (head_dim,), "attention.k_norm_fn.weight": (head_dim,)})
        shapes.update({f"layers.{i}.{k}": v for k, v in layer.items()})
    return shapes


def state_dict_from_folder(folder: HfFolder, params: Mapping) -> dict[str, torch.Tensor]:
    """The weights in Meta names, fp32, checked name by name and shape by shape against the config."""
    from safetensors import safe_open

    arch = folder.architecture()
    state_dict: dict[str, torch.Tensor] = {}
    for shard in _shard_files(folder):
        with safe_open(shard, framework="pt") as f:
            for name in f.keys():
                meta = _meta_name(name)
                if meta is None:
                    if name.endswith("rotary_emb.inv_freq"):
                        continue  # older folders save the rotary table; it is recomputed
                    raise HfFolderError(f"{shard}: tensor {name!r} is not part of a {arch} model")
                state_dict[meta] = f.get_tensor(name).to(torch.float32)
    if "output.weight" not in state_dict and "tok_embeddings.weight" in state_dict:
        # Tied embeddings: the exporter wants an explicit output layer.
        state_dict["output.weight"] = state_dict["tok_embeddings.weight"].clone()
    expected = _expected_shapes(params, arch)
    missing = sorted(set(expected) - set(state_dict))
    if missing:
        raise HfFolderError(
            f"the weights lack {len(missing)} tensors of the {arch} that {folder.config_path} describes "
            f"(first: {missing[0]}): download every shard, and the config.json that came with them"
        )
    for name, shape in expected.items():
        if tuple(state_dict[name].shape) != shape:
            raise HfFolderError(
                f"{name} is {list(state_dict[name].shape)} but {folder.config_path} implies {list(shape)}: "
                "the weights and config.json are from different models"
            )
    unexpected = sorted(set(state_dict) - set(expected))
    if unexpected:
        raise HfFolderError(f"the weights hold {unexpected[0]}, which {folder.config_path} does not describe")
    if arch == "LlamaForCausalLM":
        for i in range(params["n_layers"]):
            q, k = f"layers.{i}.attention.wq.weight", f"layers.{i}.attention.wk.weight"
            state_dict[q] = _permute_for_meta_rope(state_dict[q], params["n_heads"])
            state_dict[k] = _permute_for_meta_rope(state_dict[k], params["n_kv_heads"])
    return state_dict
