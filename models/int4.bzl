"""int4_program: an executorch_pte with this repository's 4-bit recipe.

Every 4-bit XNNPACK program here (llama_int4 and the tiny model the tests
export the same recipe on) takes it from one place: asymmetric int4
linears in blocks of 32, an 8-bit head and embedding table (see
docs/quantization.md).
"""

load("//tools/executorch:defs.bzl", "executorch_pte")

INT4_RECIPE = {
    "backend": "xnnpack",
    "embedding_quantize": "8,32",
    "group_size": 32,
    "head_quantize": "8da8w",
    "quantize": "8da4w_asym",
}

def int4_program(name, model, **kwargs):
    """The recipe on `model`; kwargs (max_context_len, max_seq_len, tags...) go to executorch_pte."""
    executorch_pte(
        name = name,
        model = model,
        **dict(INT4_RECIPE, **kwargs)
    )
