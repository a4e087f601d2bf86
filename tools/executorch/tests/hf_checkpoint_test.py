"""Hugging Face folders: each supported family maps onto ExecuTorch's model, and bad folders fail by name.

The folders are written here, tiny, in each family's real config structure.
The mapping is checked against transformers itself: ExecuTorch's eager
llama_transformer, built from the converted params and weights, must give
transformers' logits.
"""

from __future__ import annotations

import copy
import json
import os
import tempfile
import unittest

import torch

from models.hf_fixtures import hf_folder
from tools.executorch import hf_checkpoint
from tools.executorch.hf_checkpoint import HfFolder, HfFolderError

VOCAB = 96
CONFIGS = {
    "LlamaForCausalLM": {
        "model_type": "llama",
        "head_dim": 16,
        "rope_scaling": {
            "factor": 32.0,
            "high_freq_factor": 4.0,
            "low_freq_factor": 1.0,
            "original_max_position_embeddings": 8192,
            "rope_type": "llama3",
        },
        "rope_theta": 500000.0,
        "tie_word_embeddings": True,
    },
    "Qwen2ForCausalLM": {"model_type": "qwen2", "rope_theta": 1000000.0, "tie_word_embeddings": False},
    "Qwen3ForCausalLM": {"model_type": "qwen3", "head_dim": 24, "rope_theta": 1000000.0, "tie_word_embeddings": True},
}


def config_for(arch: str) -> dict:
    return copy.deepcopy(
        {
            "architectures": [arch],
            "hidden_act": "silu",
            "hidden_size": 64,
            "intermediate_size": 96,
            "num_attention_heads": 4,
            "num_hidden_layers": 2,
            "num_key_value_heads": 2,
            "rms_norm_eps": 1e-06,
            "vocab_size": VOCAB,
            "max_position_embeddings": 131072,
            **CONFIGS[arch],
        }
    )


def write_folder(arch: str, edit_config=None, edit_state=None) -> tuple[str, object]:
    from transformers import AutoConfig, AutoModelForCausalLM

    config = config_for(arch)
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_config(AutoConfig.for_model(**config), dtype=torch.float32).eval()
    with torch.no_grad():
        for tensor in model.parameters():
            tensor.normal_(0.0, 0.2)
    state = {k: v.to(torch.bfloat16) for k, v in model.state_dict().items()}
    if edit_state:
        edit_state(state)
    if edit_config:
        edit_config(config)
    folder = tempfile.mkdtemp()
    hf_folder.write(folder, config=config, state_dict=state, shards=2, tokenizer_config={}, generation_config={})
    return folder, model


def paths(folder: str) -> list[str]:
    return [os.path.join(folder, name) for name in sorted(os.listdir(folder))]


def convert(folder: str):
    hf = HfFolder(paths(folder))
    params = hf_checkpoint.params_from_config(hf)
    return params, hf_checkpoint.state_dict_from_folder(hf, params)


class MappingTest(unittest.TestCase):
    def test_each_family_gives_transformers_logits(self):
        from executorch.examples.models.llama.llama_transformer import construct_transformer
        from executorch.examples.models.llama.model_args import ModelArgs

        for arch in CONFIGS:
            with self.subTest(arch=arch):
                folder, model = write_folder(arch)
                params, state = convert(folder)
                ours = construct_transformer(
                    ModelArgs(**params, max_seq_len=32, max_context_len=32, generate_full_logits=True)
                ).eval()
                missing, unexpected = ours.load_state_dict(state, strict=False)
                self.assertEqual([m for m in missing if "freqs" not in m and "mask" not in m], [])
                self.assertEqual(unexpected, [])
                # The folder is bf16: compare against the same bf16 weights.
                model.load_state_dict({k: v.to(torch.bfloat16).float() for k, v in model.state_dict().items()})
                ids = torch.randint(0, VOCAB, (1, 24), generator=torch.Generator().manual_seed(1))
                with torch.no_grad():
                    theirs = model(ids).logits[0]
                    mine = ours(ids)[0]
                torch.testing.assert_close(mine, theirs, rtol=1e-4, atol=1e-4)

    def test_rope_parameters_of_transformers_5(self):
        folder, _ = write_folder(
            "Qwen3ForCausalLM",
            edit_config=lambda c: c.update(rope_parameters={"rope_theta": 123.0, "rope_type": "default"}),
        )
        with open(os.path.join(folder, "config.json")) as f:
            config = json.load(f)
        config.pop("rope_theta")
        with open(os.path.join(folder, "config.json"), "w") as f:
            json.dump(config, f)
        self.assertEqual(convert(folder)[0]["rope_theta"], 123.0)


class BadFolderTest(unittest.TestCase):
    def assertFails(self, folder_paths, *needles):
        with self.assertRaises(HfFolderError) as raised:
            hf = HfFolder(folder_paths)
            params = hf_checkpoint.params_from_config(hf)
            hf_checkpoint.state_dict_from_folder(hf, params)
        for needle in needles:
            self.assertIn(needle, str(raised.exception))

    def test_missing_config(self):
        folder, _ = write_folder("Qwen2ForCausalLM")
        os.remove(os.path.join(folder, "config.json"))
        self.assertFails(paths(folder), "no config.json", "hf_model_folder")

    def test_unsupported_architecture_lists_the_supported_ones(self):
        folder, _ = write_folder(
            "Qwen2ForCausalLM", edit_config=lambda c: c.update(architectures=["MistralForCausalLM"])
        )
        self.assertFails(
            paths(folder), "MistralForCausalLM", "LlamaForCausalLM", "Qwen2ForCausalLM", "Qwen3ForCausalLM"
        )

    def test_shard_named_in_the_index_but_absent(self):
        folder, _ = write_folder("LlamaForCausalLM")
        present = [p for p in paths(folder) if not p.endswith("model-00002-of-00002.safetensors")]
        self.assertFails(present, "model-00002-of-00002.safetensors", "model.safetensors.index.json", "every shard")

    def test_shapes_that_do_not_match_the_config(self):
        folder, _ = write_folder("LlamaForCausalLM", edit_config=lambda c: c.update(intermediate_size=128))
        self.assertFails(paths(folder), "feed_forward.w1.weight is [96, 64]", "implies [128, 64]", "config.json")

    def test_unsupported_rope_scaling(self):
        folder, _ = write_folder("LlamaForCausalLM", edit_config=lambda c: c["rope_scaling"].update(rope_type="yarn"))
        self.assertFails(paths(folder), "rope_scaling of type 'yarn'")

    def test_a_pre_tokenizer_the_runtime_lacks_fails_at_conversion(self):
        from tools.executorch import convert_checkpoint

        folder = tempfile.mkdtemp()
        tokenizer_json = os.path.join(folder, "tokenizer.json")
        with open(os.environ["SMOLLM2_TOKENIZER"], encoding="utf-8") as f:
            tokenizer = json.load(f)
        # SentencePiece-style splitting (Llama 2, Mistral): never compiled into a wrong split.
        tokenizer["pre_tokenizer"] = {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "first"}
        with open(tokenizer_json, "w", encoding="utf-8") as f:
            json.dump(tokenizer, f)
        with self.assertRaises(convert_checkpoint.ConversionError) as raised:
            convert_checkpoint._check_runtime_can_tokenize(tokenizer_json, {"eos_token": "<|im_end|>"}, None)
        self.assertIn(tokenizer_json, str(raised.exception))
        self.assertIn("pre_tokenizer 'Metaspace' is not supported", str(raised.exception))

    def test_a_tensor_of_another_architecture(self):
        folder, _ = write_folder(
            "LlamaForCausalLM",
            edit_state=lambda s: s.update({"model.layers.0.self_attn.q_norm.weight": torch.ones(16)}),
        )
        self.assertFails(paths(folder), "layers.0.attention.q_norm_fn.weight", "does not describe")


if __name__ == "__main__":
    unittest.main()
