"""How much of SmolLM2's perplexity each way of fitting its weights to the HTP's 4-bit blocks keeps.

The NPU's 4-bit block weights (LPBQ) are symmetric, with one fp32 scale per
output channel and a 4-bit multiple of it per block of 32. SmolLM2's packaged
weights are GGUF Q4_1: asymmetric blocks of 32. Each candidate here fits the
fp32 checkpoint's linears to the HTP's layout and scores the model on the
same windows as //bench:quality (by default 8 x 512 tokens of Emma and of the KJV),
one full-sequence forward per window in PyTorch. Only the weights change:
activations stay fp32, so this isolates the weight recipe, in seconds per
candidate. The chosen recipe is then scored through the program's own
quantized graph, 16-bit activations included, by //bench:quality.

    bazel run //bench:npu_recipes -- --record

writes bench/results/npu_recipes.json, the record docs/quantization.md's
table comes from.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from dataclasses import dataclass

import torch
from absl import app, flags

from bench.quality.perplexity import windows
from bench.record import command
from bench.report import publish
from tools.executorch.qnn_recipe import block_offsets
from tools.python.runfile import bundled_or_own

_MODEL = flags.DEFINE_string(
    "model", "models/smollm2_135m", "An llm_checkpoint's folder (checkpoint.pth, params.json, tokenizer.json)."
)
_CORPUS_FILES = flags.DEFINE_list("corpus_files", [], "Books to score, as //bench:quality does.")
_CONTEXT = flags.DEFINE_integer("context", 512, "Tokens per window.")
_WINDOWS = flags.DEFINE_integer("windows", 8, "Windows per book, spread evenly over the text.")
_THREADS = flags.DEFINE_integer("threads", 2, "PyTorch threads.")
_OUT = flags.DEFINE_string("out", "", "Output folder; default bench/out/<date>-npu_recipes in the workspace.")
_RECORD = flags.DEFINE_bool("record", False, "Also write bench/results/npu_recipes.json.")

GROUP = 32
SYMMETRIC_MAX = 7  # QnnQuantizer's 16a4w_block levels: -7..7


def blocks(weight: torch.Tensor) -> torch.Tensor:
    return weight.reshape(weight.shape[0], -1, GROUP)


def symmetric_min_max(weight: torch.Tensor) -> torch.Tensor:
    """16a4w_block's graph: each block's scale from its max |w|, levels -7..7."""
    b = blocks(weight)
    scale = b.abs().amax(-1, keepdim=True).clamp(min=1e-12) / SYMMETRIC_MAX
    return (torch.clamp(torch.round(b / scale), -SYMMETRIC_MAX, SYMMETRIC_MAX) * scale).reshape(weight.shape)


def symmetric_min_max_on_htp(weight: torch.Tensor) -> torch.Tensor:
    """16a4w_block on the HTP: the same levels, the block scales rounded to k/16 of the channel's largest at lowering."""
    b = blocks(weight)
    scale = b.abs().amax(-1, keepdim=True).clamp(min=1e-12) / SYMMETRIC_MAX
    levels = torch.clamp(torch.round(b / scale), -SYMMETRIC_MAX, SYMMETRIC_MAX)
    unit = scale.amax(1, keepdim=True) / block_offsets.SCALE_STEPS
    rounded = torch.clamp(torch.round(scale / unit), 1, block_offsets.SCALE_STEPS) * unit
    return (levels * rounded).reshape(weight.shape)


def symmetric_lpbq(weight: torch.Tensor) -> torch.Tensor:
    """Symmetric blocks with the scale chosen on the HTP's grid by least squares (levels -8..7)."""
    b = blocks(weight)
    unit = (b.abs().amax(-1, keepdim=True).clamp(min=1e-12) / SYMMETRIC_MAX).amax(1, keepdim=True)
    unit = unit / block_offsets.SCALE_STEPS
    best, best_error = None, None
    for k in range(1, block_offsets.SCALE_STEPS + 1):
        fitted = torch.clamp(torch.round(b / (unit * k)), *block_offsets.LEVELS) * unit * k
        error = ((fitted - b) ** 2).sum(-1, keepdim=True)
        better = error < best_error if best is not None else torch.ones_like(error, dtype=torch.bool)
        best = fitted if best is None else torch.where(better, fitted, best)
        best_error = error if best_error is None else torch.where(better, error, best_error)
    return best.reshape(weight.shape)


def per_channel_int8(weight: torch.Tensor) -> torch.Tensor:
    """The 8-bit per-channel weights of a 16a8w linear."""
    scale = weight.abs().amax(1, keepdim=True).clamp(min=1e-12) / 127
    return torch.clamp(torch.round(weight / scale), -127, 127) * scale


def asymmetric_lpbq(weight: torch.Tensor) -> torch.Tensor:
    """16a4w_block_asym: block_offsets' fit, with the offset linear's weights rounded to 8 bits per channel."""
    symmetric, _, offsets = block_offsets.fit_blocks(weight, GROUP)
    offsets = per_channel_int8(offsets * GROUP) / GROUP
    return (blocks(symmetric) + offsets.unsqueeze(-1)).reshape(weight.shape)


@dataclass(frozen=True)
class Candidate:
    name: str
    body: Callable[[torch.Tensor], torch.Tensor]  # every decoder linear
    head: Callable[[torch.Tensor], torch.Tensor]  # the output head
    body_bits: float  # weight bits per decoder parameter, offsets included, scales not
    head_bits: float


CANDIDATES = (
    Candidate("fp32", lambda w: w, lambda w: w, 32, 32),
    Candidate("16a4w_block, as its graph computes", symmetric_min_max, symmetric_min_max, 4, 4),
    Candidate("16a4w_block, as the HTP computes", symmetric_min_max_on_htp, symmetric_min_max_on_htp, 4, 4),
    Candidate("symmetric, least-squares LPBQ scales", symmetric_lpbq, symmetric_lpbq, 4, 4),
    Candidate("symmetric, least-squares LPBQ scales, 8-bit head", symmetric_lpbq, per_channel_int8, 4, 8),
    Candidate("asymmetric (block offsets), 4-bit head", asymmetric_lpbq, symmetric_lpbq, 4 + 8 / GROUP, 4),
    Candidate(
        "asymmetric (block offsets), 8-bit head: 16a4w_block_asym", asymmetric_lpbq, per_channel_int8, 4 + 8 / GROUP, 8
    ),
)


def model_file(name: str) -> str:
    return f"{bundled_or_own(_MODEL.value)}/{name}"


def load_model():
    from executorch.extension.llm.export.config.llm_config import LlmConfig, ModelType

    from tools.executorch.export import upstream

    config = LlmConfig()
    config.base.model_class = ModelType("llama3_2")
    config.base.checkpoint = model_file("checkpoint.pth")
    config.base.params = model_file("params.json")
    # Full-sequence logits, no KV cache: one forward scores a window.
    config.model.use_kv_cache = False
    config.model.enable_dynamic_shape = False
    config.export.max_seq_length = _CONTEXT.value
    config.export.max_context_length = _CONTEXT.value
    config.debug.generate_full_logits = True
    return upstream.load_llama(config).model.eval()


def perplexity(model, corpus_windows: list[list[int]]) -> float:
    nll, count = 0.0, 0
    with torch.no_grad():
        for window in corpus_windows:
            tokens = torch.tensor([window])
            logits = model(tokens).reshape(len(window), -1)[:-1].to(torch.float64)
            nll += float(torch.nn.functional.cross_entropy(logits, tokens[0, 1:], reduction="sum"))
            count += len(window) - 1
    return math.exp(nll / count)


def measure() -> dict:
    from tokenizers import Tokenizer

    torch.set_num_threads(_THREADS.value)
    model = load_model()
    tokenizer = Tokenizer.from_file(model_file("tokenizer.json"))
    texts = {}
    for path in _CORPUS_FILES.value:
        name = path.rsplit("/", 1)[-1].removesuffix(".txt")
        with open(path, encoding="utf-8") as f:
            ids = tokenizer.encode(f.read(), add_special_tokens=False).ids
        texts[name] = windows(ids, _CONTEXT.value, _WINDOWS.value)
    linears = {name: m for name, m in model.named_modules() if isinstance(m, torch.nn.Linear)}
    original = {name: m.weight.detach().clone() for name, m in linears.items()}
    head_params = original["output"].numel()
    body_params = sum(w.numel() for name, w in original.items() if name != "output")
    rows = []
    for candidate in CANDIDATES:
        for name, module in linears.items():
            fit = candidate.head if name == "output" else candidate.body
            module.weight.data = fit(original[name])
        scores = {corpus: perplexity(model, corpus_windows) for corpus, corpus_windows in texts.items()}
        bits = (candidate.body_bits * body_params + candidate.head_bits * head_params) / (body_params + head_params)
        rows.append({"candidate": candidate.name, "bits_per_weight": round(bits, 3), "perplexity": scores})
        print(f"{candidate.name}: {scores}", file=sys.stderr, flush=True)
    return {
        "settings": {"context": _CONTEXT.value, "windows": _WINDOWS.value, "corpora": list(texts)},
        "rows": rows,
    }


def report(measured: dict) -> str:
    corpora = measured["settings"]["corpora"]
    reference = measured["rows"][0]["perplexity"]
    lines = [
        "# npu_recipes",
        "",
        f"Weights fitted to the HTP's 4-bit blocks, activations fp32: {measured['settings']['windows']} windows of "
        f"{measured['settings']['context']} tokens per book, as //bench:quality's. Lower is better.",
        "",
        "| weights | bits per weight | " + " | ".join(corpora) + " |",
        "|---|---|" + "---|" * len(corpora),
    ]
    for row in measured["rows"]:
        cells = []
        for corpus in corpora:
            value = row["perplexity"][corpus]
            delta = 100 * (value / reference[corpus] - 1)
            cells.append(f"{value:.2f}" if row is measured["rows"][0] else f"{value:.2f} ({delta:+.1f}%)")
        lines.append(f"| {row['candidate']} | {row['bits_per_weight']:.2f} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> None:
    del argv
    measured = measure()
    publish(
        "npu_recipes",
        measured,
        report(measured),
        _OUT.value,
        _RECORD.value,
        command("//bench:npu_recipes", sys.argv[1:], drop=("corpus_files",)),
    )


if __name__ == "__main__":
    app.run(main)
