"""Exports a BERT sentence encoder (e.g. all-MiniLM-L6-v2) to an ExecuTorch .pte and writes its manifest.

One invocation is one Bazel action (see the encoder_pte rule). The program
is the whole sentence-transformers embedding in one method:

    forward(input_ids: int64[1, L], attention_mask: int64[1, L]) -> float32[1, dim]

BERT's last hidden states, mean-pooled over the attention mask and L2
normalised, for L in 2..max_seq_len (a tokenized text is never shorter than
[CLS] [SEP]). The manifest is the LLM exports' (manifest.proto): the encoder
fills `architecture` with its sizes, `config.max_seq_len` and
`config.max_context_len` with its longest input, and `tokenizer` with
bos = [CLS], eos = [SEP].
"""

from __future__ import annotations

import json
import os

from absl import app, flags

from tools.executorch.export import errors, manifest
from tools.executorch.export.choices import read_choices
from tools.executorch.export.digest import sha256_of
from tools.executorch.export.errors import ExportError
from tools.executorch.export.op_counts import count_ops
from tools.executorch.export.special_tokens import SpecialTokens

FLAGS = flags.FLAGS
# The rule's own list (a data dependency), beside this package as in the checkout.
CHOICES = read_choices(
    os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "private", "encoder_choices.bzl")
)
flags.DEFINE_string("config", None, "Hugging Face config.json of a BertModel.")
flags.DEFINE_string("weights", None, "model.safetensors with the BertModel's weights.")
flags.DEFINE_string("tokenizer", None, "tokenizer.json (WordPiece) the input ids refer to.")
flags.DEFINE_string("model_label", "", "Bazel label of the sentence_encoder, recorded in the manifest.")
flags.DEFINE_enum("pooling", "mean", ["mean"], "How token states become one vector.")
flags.DEFINE_bool("normalize", True, "L2-normalise the pooled vector.")
flags.DEFINE_enum(
    "quantize",
    "none",
    CHOICES["quantize"],
    "none: fp32; 8da8w: int8 per-channel linear weights with int8 dynamic activations, int8 embedding tables.",
)
flags.DEFINE_enum("backend", "xnnpack", CHOICES["backend"], "Where the graph runs.")
flags.DEFINE_integer("max_seq_len", 256, "Longest input, in tokens including [CLS] and [SEP].")
flags.DEFINE_string("out_pte", None, "Output .pte path.")
flags.DEFINE_string("out_manifest", None, "Output manifest JSON path.")
for _name in ("config", "weights", "tokenizer", "out_pte", "out_manifest"):
    flags.mark_flag_as_required(_name)

# [CLS] [SEP] alone: the shortest input a WordPiece tokenizer produces.
MIN_SEQ_LEN = 2


def read_bert_config(path: str) -> dict:
    with open(path) as f:
        config = json.load(f)
    if config.get("model_type") != "bert":
        raise ExportError(
            f"{path} describes a {config.get('model_type')!r} model; export_encoder handles BERT encoders "
            "(model_type 'bert', e.g. all-MiniLM-L6-v2)"
        )
    if not MIN_SEQ_LEN <= FLAGS.max_seq_len <= config["max_position_embeddings"]:
        raise ExportError(
            f"max_seq_len={FLAGS.max_seq_len} must be in {MIN_SEQ_LEN}..{config['max_position_embeddings']} "
            "(the model's max_position_embeddings)"
        )
    return config


def special_token_ids(tokenizer_json: str) -> tuple[int, int]:
    with open(tokenizer_json) as f:
        tokenizer = json.load(f)
    if tokenizer.get("model", {}).get("type") != "WordPiece":
        raise ExportError(f"{tokenizer_json} is not a WordPiece tokenizer; a BERT encoder needs its own tokenizer.json")
    vocab = tokenizer["model"]["vocab"]
    missing = [t for t in ("[CLS]", "[SEP]") if t not in vocab]
    if missing:
        raise ExportError(f"{tokenizer_json} has no {missing} token: not a BERT tokenizer")
    return vocab["[CLS]"], vocab["[SEP]"]


def build_encoder(config: dict):
    """BertModel with the given weights, wrapped with pooling and normalisation."""
    import torch
    from safetensors.torch import load_file
    from transformers import BertConfig, BertModel

    bert_config = BertConfig(**config)
    # Plain matmul + softmax attention: lowers to XNNPACK op by op, and is
    # what the reference computes up to rounding.
    bert_config._attn_implementation = "eager"
    bert = BertModel(bert_config, add_pooling_layer=False)
    state = load_file(FLAGS.weights)
    # The pooler is unused (mean pooling); position_ids / token_type_ids are
    # index buffers the constructor fills, saved only by older transformers.
    buffers = ("position_ids", "token_type_ids")
    state = {k.removeprefix("bert."): v for k, v in state.items()}
    state = {k: v for k, v in state.items() if not k.startswith("pooler.") and not k.endswith(buffers)}
    missing, unexpected = bert.load_state_dict(state, strict=False)
    missing = [k for k in missing if not k.endswith(buffers)]
    if missing or unexpected:
        raise ExportError(
            f"{FLAGS.weights} does not fit {FLAGS.config}: missing {missing[:5]}, unexpected {unexpected[:5]}"
        )
    bert.eval()

    class SentenceEncoder(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.bert = bert

        def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
            hidden = self.bert(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1e-9)
            if FLAGS.normalize:
                pooled = torch.nn.functional.normalize(pooled, p=2.0, dim=1)
            return pooled

    return SentenceEncoder().eval(), sum(p.numel() for p in bert.parameters())


def example_inputs(length: int):
    import torch

    generator = torch.Generator().manual_seed(0)
    ids = torch.randint(1000, 30000, (1, length), generator=generator, dtype=torch.long)
    return ids, torch.ones((1, length), dtype=torch.long)


def export(encoder):
    import torch
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import EdgeCompileConfig, to_edge_transform_and_lower

    inputs = example_inputs(min(16, FLAGS.max_seq_len))
    seq = torch.export.Dim("seq", min=MIN_SEQ_LEN, max=FLAGS.max_seq_len)
    dynamic_shapes = ({1: seq}, {1: seq})
    with torch.no_grad():
        if FLAGS.quantize == "8da8w":
            quantize_8da8w(encoder)
        exported = torch.export.export(encoder, inputs, dynamic_shapes=dynamic_shapes, strict=False)
        partitioners = [XnnpackPartitioner()] if FLAGS.backend == "xnnpack" else []
        edge = to_edge_transform_and_lower(
            exported, partitioner=partitioners, compile_config=EdgeCompileConfig(_check_ir_validity=False)
        )
        ops = count_ops(edge.exported_program())
        program = edge.to_executorch()
    return program, ops


def quantize_8da8w(encoder) -> None:
    """int8 per-channel weights, int8 dynamic per-token activations on every linear layer; int8 embeddings (in place).

    torchao's Int8DynamicActivationIntxWeightConfig, the same path as the LLMs'
    8da4w with 8-bit weights, which XNNPACK runs as dynamically quantized
    fully-connected layers. (XNNPACKQuantizer's PT2E flow also annotates the
    attention-mask arithmetic of this graph and does not run.)
    """
    import torch
    from torchao.quantization import Int8DynamicActivationIntxWeightConfig, quantize_
    from torchao.quantization.granularity import PerAxis

    quantize_(
        encoder,
        Int8DynamicActivationIntxWeightConfig(weight_dtype=torch.int8, weight_granularity=PerAxis(0)),
        filter_fn=lambda module, _: isinstance(module, torch.nn.Linear),
    )
    # The token, position and segment tables as int8 rows with one scale
    # each (ExecuTorch's embedding_byte kernel): the word table alone is
    # 47 MB in fp32.
    from executorch.examples.models.llama.source_transformation.quantize import EmbeddingQuantHandler

    EmbeddingQuantHandler(encoder, bitwidth=8, group_size=None, packed=False, quantize_with_hqq=False).quantized_model()


def main(argv: list[str]) -> None:
    del argv
    errors.quiet_libraries()
    try:
        errors.require_files(
            ((what, getattr(FLAGS, what)) for what in ("config", "weights", "tokenizer")), "check the sentence_encoder"
        )
        config = read_bert_config(FLAGS.config)
        cls_id, sep_id = special_token_ids(FLAGS.tokenizer)
        if FLAGS.quantize == "8da8w" and FLAGS.backend != "xnnpack":
            raise ExportError("quantize='8da8w' runs only on backend='xnnpack'; set backend = \"xnnpack\"")
        import torch

        torch.manual_seed(0)
        encoder, n_params = build_encoder(config)
    except ExportError as e:
        errors.fail("export_encoder", e)

    from tools.executorch import manifest_pb2

    program, ops = export(encoder)
    with open(FLAGS.out_pte, "wb") as f:
        program.write_to_file(f)

    pte_manifest = manifest_pb2.PteManifest(
        **manifest.program_fields(FLAGS.out_pte),
        versions=manifest.versions(),
        config=manifest_pb2.ExportConfig(
            model=FLAGS.model_label,
            quantize=FLAGS.quantize,
            backend=FLAGS.backend,
            max_seq_len=FLAGS.max_seq_len,
            max_context_len=FLAGS.max_seq_len,
            dtype="fp32",
        ),
        architecture=manifest_pb2.Architecture(
            dim=config["hidden_size"],
            n_layers=config["num_hidden_layers"],
            n_heads=config["num_attention_heads"],
            n_kv_heads=config["num_attention_heads"],
            hidden_dim=config["intermediate_size"],
            vocab_size=config["vocab_size"],
            parameters=n_params,
        ),
        ops=manifest_pb2.OpCounts(**ops.manifest_fields()),
        tokenizer=manifest.tokenizer_ref(
            FLAGS.tokenizer, SpecialTokens(bos_id=cls_id, eos_ids=[sep_id], has_chat_template=False)
        ),
        checkpoint_sha256=sha256_of(FLAGS.weights),
    )
    manifest.write_manifest(FLAGS.out_manifest, pte_manifest)


if __name__ == "__main__":
    app.run(main)
