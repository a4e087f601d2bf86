"""Writes a tiny Hugging Face model folder with seeded random weights and a family's real config structure.

    hf_tiny --config=qwen3_tiny.json --tokenizer_json=... --tokenizer_config=... --out_dir=qwen3_tiny

No Llama 3 or Qwen weights exist offline, but their architectures do: the
config is the family's own config.json with every width shrunk (2 layers,
hidden 128, GQA 4/2, the family's head_dim, biases and norms), so the whole
route (folder, converter, exporter, runtime) runs in seconds on real code.
Weights are bf16 and split into two shards with an index, as downloads are.
"""

from __future__ import annotations

import json
import shutil

from absl import app, flags

from models.hf_fixtures import hf_folder

FLAGS = flags.FLAGS
flags.DEFINE_string("config", None, "The family's config.json, shrunk.")
flags.DEFINE_string("tokenizer_json", None, "tokenizer.json for the folder.")
flags.DEFINE_string("tokenizer_config", None, "tokenizer_config.json for the folder.")
flags.DEFINE_integer("seed", 0, "Seed of the weights.")
flags.DEFINE_float("weight_std", 0.08, "Standard deviation of the matrices and biases.")
flags.DEFINE_string("out_dir", None, "Folder to write.")
for _name in ("config", "tokenizer_json", "tokenizer_config", "out_dir"):
    flags.mark_flag_as_required(_name)

# Hugging Face's 0.02 init leaves a 2-layer model with near-uniform logits,
# where any rounding flips the argmax; wider weights (the 0.08 default) give
# clear winners, so agreement tests measure the program, not ties. A deep
# model needs the narrower init: at 0.08 each linear multiplies the signal
# by ~3.6 at width 2048, and 16 layers of that turn rounding into chaos.


def main(argv: list[str]) -> None:
    del argv
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    with open(FLAGS.config) as f:
        config = json.load(f)
    torch.manual_seed(FLAGS.seed)
    model = AutoModelForCausalLM.from_config(AutoConfig.for_model(**config), dtype=torch.float32)
    with torch.no_grad():
        for name, tensor in model.named_parameters():
            if tensor.dim() == 2:
                tensor.normal_(0.0, FLAGS.weight_std)
            elif name.endswith("bias"):
                tensor.normal_(0.0, FLAGS.weight_std)
            else:  # norms: around 1, not exactly, so a missing norm shows
                tensor.normal_(1.0, 0.1)
    state_dict = {name: tensor.to(torch.bfloat16) for name, tensor in model.state_dict().items()}
    with open(FLAGS.tokenizer_config) as f:
        tokenizer_config = json.load(f)
    hf_folder.write(
        FLAGS.out_dir,
        config=config,
        state_dict=state_dict,
        shards=2,
        tokenizer_config=tokenizer_config,
        generation_config={"bos_token_id": config["bos_token_id"], "eos_token_id": config["eos_token_id"]},
    )
    shutil.copyfile(FLAGS.tokenizer_json, f"{FLAGS.out_dir}/tokenizer.json")


if __name__ == "__main__":
    app.run(main)
