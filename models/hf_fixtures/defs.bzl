"""hf_tiny_folder: a tiny Hugging Face model folder with seeded weights, as a build action."""

# What every folder holds, as the Hub lays it out.
HF_FOLDER_FILES = [
    "config.json",
    "generation_config.json",
    "model-00001-of-00002.safetensors",
    "model-00002-of-00002.safetensors",
    "model.safetensors.index.json",
    "tokenizer.json",
    "tokenizer_config.json",
]

def hf_tiny_folder(name, config, tokenizer, tokenizer_config, seed = 0, weight_std = 0.08, **kwargs):
    """Writes `<name>/` (HF_FOLDER_FILES): `config`'s architecture with seeded bf16 weights.

        hf_tiny_folder(
            name = "qwen3_tiny_hf",
            config = "qwen3_tiny.json",
            tokenizer = "//tokenizer/runtime:qwen2_style/tokenizer.json",
            tokenizer_config = "//tokenizer/runtime:qwen2_style/tokenizer_config.json",
        )

    Args:
      name: the target, and the folder's name.
      config: a config.json (the family's, shrunk).
      tokenizer: tokenizer.json for the folder.
      tokenizer_config: tokenizer_config.json for the folder.
      seed: seed of the weights.
      weight_std: standard deviation of the matrices and biases (hf_tiny.py says why 0.08).
      **kwargs: passed to the genrule (visibility, tags).
    """
    tool = Label("//models/hf_fixtures:hf_tiny")
    native.genrule(
        name = name,
        srcs = [config, tokenizer, tokenizer_config],
        outs = ["{}/{}".format(name, f) for f in HF_FOLDER_FILES],
        cmd = " ".join([
            # Nothing is fetched; HOME keeps caches out of the user's home.
            "HF_HUB_OFFLINE=1 HOME=/tmp $(location {})".format(tool),
            "--config=$(location {})".format(config),
            "--tokenizer_json=$(location {})".format(tokenizer),
            "--tokenizer_config=$(location {})".format(tokenizer_config),
            "--seed={}".format(seed),
            "--weight_std={}".format(weight_std),
            "--out_dir=$(RULEDIR)/{}".format(name),
        ]),
        tools = [tool],
        **kwargs
    )
