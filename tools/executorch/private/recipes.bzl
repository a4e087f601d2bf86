"""Named recipes: the quantization and backend settings of a program, as one value.

    executorch_pte(name = "my_model_int4", model = ":my_model", recipe = "int4")

A recipe sets `backend`, `quantize`, `group_size`, `head_quantize`,
`embedding_quantize`, `outlier_channels` and `logit_rows` together, in a combination that is measured
(docs/quantization.md) and known to lower. The separate attributes stay for
experiments; a target sets either a recipe or them, not both.

RECIPES is a plain literal so that tools outside Bazel read it as it is
(//tools/docs:rules_reference writes it into docs/rules_reference.md).
"""

RECIPES = {
    "int4": {
        "doc": "The 4-bit CPU program: asymmetric int4 linears in blocks of 32 (GGUF Q4_1's layout) on XNNPACK's 4-bit kernels with int8 dynamic activations, the 8 largest channels of each linear's input in fp32 (chosen on calibration text), an 8-bit output head and embedding table; it verifies speculative drafts of up to 7 tokens in one call (logit_rows = 8). The recipe of llama_int4, which the app, RAG and the benches ship.",
        "attrs": {
            "backend": "xnnpack",
            "embedding_quantize": "8,32",
            "group_size": 32,
            "head_quantize": "8da8w",
            "logit_rows": 8,
            "outlier_channels": 8,
            "quantize": "8da4w_asym",
        },
    },
    "int4_qnn": {
        "doc": "The Qualcomm NPU program: asymmetric int4 linears in blocks of 32 (LPBQ scales, the block offsets as an 8-bit linear over block means), an 8-bit output head, 16-bit activations, from QnnQuantizer with post-training calibration. Needs `soc` and `calibration`.",
        "attrs": {
            "backend": "qnn",
            "group_size": 32,
            "quantize": "16a4w_block_asym",
        },
    },
    "fp32": {
        "doc": "fp32 weights on ExecuTorch's portable kernels: the reference other programs are compared against.",
        "attrs": {
            "backend": "portable",
        },
    },
    "fp32_xnnpack": {
        "doc": "fp32 weights on XNNPACK: the reference of the quality figures, and a fast fp32 program.",
        "attrs": {
            "backend": "xnnpack",
        },
    },
    "executorch_8da4w": {
        "doc": "ExecuTorch's stock 8da4w: symmetric int4 linears and head in blocks of 32, fp32 embedding table. Kept as the baseline the int4 recipe is measured against; it loses far more perplexity.",
        "attrs": {
            "backend": "xnnpack",
            "group_size": 32,
            "quantize": "8da4w",
        },
    },
}

# What a recipe decides; a target that names a recipe leaves these out.
RECIPE_ATTRS = ["backend", "embedding_quantize", "group_size", "head_quantize", "logit_rows", "outlier_channels", "quantize"]

def expand_recipe(rule, name, recipe, attrs):
    """The attributes `recipe` stands for, merged into `attrs`.

    Args:
      rule: the macro's name, for messages.
      name: the target's name.
      recipe: a key of RECIPES.
      attrs: the target's other attributes (a dict).

    Returns:
      (merged attributes, "") or (None, the error naming the fix).
    """
    if recipe not in RECIPES:
        return None, "{} {}: unknown recipe \"{}\"; choose one of {} (docs/rules_reference.md#recipes)".format(rule, name, recipe, sorted(RECIPES.keys()))
    given = [a for a in RECIPE_ATTRS if a in attrs]
    if given:
        return None, "{} {}: recipe = \"{}\" already sets {}; drop {} or drop the recipe and set every attribute yourself".format(
            rule,
            name,
            recipe,
            ", ".join(given),
            "them" if len(given) > 1 else "it",
        )
    return dict(attrs, **RECIPES[recipe]["attrs"]), ""
