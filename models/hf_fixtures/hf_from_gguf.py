"""Writes a Hugging Face model folder from a llama GGUF file, as a user's download would look.

    hf_from_gguf --gguf=SmolLM2-135M-Instruct.Q4_1.gguf --out_dir=smollm2_hf

transformers reads the GGUF (de-quantizing to fp32, undoing llama.cpp's
rotary permutation, rebuilding the tokenizer and its chat template); the
folder gets config.json, generation_config.json, the weights as two
safetensors shards with their index, tokenizer.json and tokenizer_config.json.
fp32 keeps the values exact, so the folder converts to the same checkpoint as
the GGUF itself.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile

from absl import app, flags

from models.hf_fixtures import hf_folder

FLAGS = flags.FLAGS
flags.DEFINE_string("gguf", None, "A llama GGUF file.")
flags.DEFINE_string("out_dir", None, "Folder to write.")
flags.DEFINE_integer("shards", 2, "How many safetensors files the weights are split into.")
for _name in ("gguf", "out_dir"):
    flags.mark_flag_as_required(_name)


def main(argv: list[str]) -> None:
    del argv
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    with tempfile.TemporaryDirectory() as scratch:
        # transformers wants a folder; the file is linked into a scratch one.
        name = os.path.basename(FLAGS.gguf)
        os.symlink(os.path.abspath(FLAGS.gguf), os.path.join(scratch, name))
        model = AutoModelForCausalLM.from_pretrained(scratch, gguf_file=name, dtype=torch.float32)
        tokenizer = AutoTokenizer.from_pretrained(scratch, gguf_file=name)
        tokenizer_dir = os.path.join(scratch, "tokenizer")
        tokenizer.save_pretrained(tokenizer_dir)
        os.makedirs(FLAGS.out_dir, exist_ok=True)
        shutil.copyfile(os.path.join(tokenizer_dir, "tokenizer.json"), os.path.join(FLAGS.out_dir, "tokenizer.json"))
        with open(os.path.join(tokenizer_dir, "tokenizer_config.json")) as f:
            tokenizer_config = json.load(f)
    # What save_pretrained writes, less what the GGUF loader adds: how it
    # de-quantized and the scratch folder's name.
    config = model.config.to_diff_dict()
    for key in ("quantization_config", "_name_or_path", "_model_name_or_path"):
        config.pop(key, None)
    config["architectures"] = [type(model).__name__]
    # GGUF keeps the epsilon as a float32 (9.99999975e-06); the model's own
    # config.json says 1e-05.
    config["rms_norm_eps"] = float(f"{config['rms_norm_eps']:.6g}")
    hf_folder.write(
        FLAGS.out_dir,
        config=config,
        state_dict=model.state_dict(),
        shards=FLAGS.shards,
        tokenizer_config={
            "bos_token": tokenizer.bos_token,
            "eos_token": tokenizer.eos_token,
            "chat_template": tokenizer.chat_template,
            **{k: v for k, v in tokenizer_config.items() if k in ("add_bos_token", "model_max_length")},
        },
        generation_config={"bos_token_id": tokenizer.bos_token_id, "eos_token_id": tokenizer.eos_token_id},
    )


if __name__ == "__main__":
    app.run(main)
