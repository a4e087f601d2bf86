"""Exported tiny programs compute what ExecuTorch's eager llama model computes.

The eager reference recomputes the whole sequence at every step (no KV
cache), so this also checks the exported KV-cache and chunked-prefill paths.
"""

from __future__ import annotations

import json
import unittest

import torch

from tools.executorch.pte_runner import PteSession
from tools.executorch.testing import workspace_file

TINY = "models/tiny_random"
PROMPT = "The quick brown fox jumps over the lazy dog. " * 5  # longer than one 31-token prefill chunk


def eager_model():
    from executorch.examples.models.llama.llama_transformer import construct_transformer
    from executorch.examples.models.llama.model_args import ModelArgs

    with open(workspace_file(TINY + "/params.json")) as f:
        params = json.load(f)
    model = construct_transformer(ModelArgs(**params, max_seq_len=256, max_context_len=256, generate_full_logits=True))
    state = torch.load(workspace_file(TINY + "/checkpoint.pth"), weights_only=True)
    missing, unexpected = model.load_state_dict(state, strict=False)
    assert not unexpected, unexpected
    assert all("freqs" in k or "rope" in k or "mask" in k for k in missing), missing
    return model.eval()


def eager_logits(model, ids: list[int]) -> torch.Tensor:
    with torch.no_grad():
        return model(torch.tensor([ids])).reshape(len(ids), -1)[-1]


def session(name: str) -> PteSession:
    return PteSession(
        workspace_file(f"models/{name}.pte"),
        workspace_file(TINY + "/tokenizer.json"),
        workspace_file(TINY + "/tokenizer_config.json"),
    )


class TinyParityTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.model = eager_model()

    def test_fp32_prefill_logits_match_eager(self):
        pte = session("tiny_fp32")
        ids = pte.encode(PROMPT)
        self.assertGreater(len(ids), pte.limits.max_seq_len)
        got = pte.prefill(ids)
        want = eager_logits(self.model, ids)
        torch.testing.assert_close(got, want, atol=1e-4, rtol=1e-4)

    def test_fp32_greedy_tokens_match_eager(self):
        pte = session("tiny_fp32")
        ids = pte.encode(PROMPT)
        got = pte.greedy(ids, 16)
        want, seq = [], list(ids)
        for _ in range(16):
            token = int(torch.argmax(eager_logits(self.model, seq)))
            want.append(token)
            seq.append(token)
        self.assertEqual(got, want)

    def test_8da4w_logits_close_to_fp32(self):
        # 4-bit weights and int8 activations move a random model's logits a
        # little (measured cosine 0.966), not wholesale: a broken lowering
        # (fp32-sized file, logits 15-28x off) lands far below this bound.
        pte = session("tiny_8da4w")
        ids = pte.encode(PROMPT)
        got = pte.prefill(ids)
        want = eager_logits(self.model, ids)
        cosine = torch.nn.functional.cosine_similarity(got, want, dim=0).item()
        print(f"tiny 8da4w vs eager fp32: cosine {cosine:.4f}")
        self.assertGreater(cosine, 0.9)
        self.assertLess((got.norm() / want.norm()).item(), 1.2)

    def test_int4_computes_its_recipe(self):
        # The same recipe applied to the eager model: the program must run
        # what the recipe's modules compute (the embedding table's 8-bit
        # rounding is the only part left out, hence not an exact match).
        import copy

        from tools.executorch.quantize.recipe import linear_transform

        # The recipe the program was exported with, as its manifest records it.
        with open(workspace_file("models/tiny_int4.manifest.json")) as f:
            config = json.load(f)["config"]
        outlier_sets = [(s["linears"], s["channels"]) for s in config.get("outlierChannelSets", [])]
        self.assertTrue(outlier_sets, "tiny_int4 keeps outlier channels in fp32, as the recipe says")
        transform = linear_transform(config["quantize"], config["groupSize"], config["headQuantize"], outlier_sets)
        recipe = transform(copy.deepcopy(self.model))
        pte = session("tiny_int4")
        ids = pte.encode(PROMPT)
        got = pte.prefill(ids)
        want = eager_logits(recipe, ids)
        cosine = torch.nn.functional.cosine_similarity(got, want, dim=0).item()
        print(f"tiny int4 vs its eager recipe: cosine {cosine:.6f}")
        self.assertGreater(cosine, 0.999)


if __name__ == "__main__":
    unittest.main()
