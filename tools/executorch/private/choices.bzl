"""The values each setting of a CPU language-model program takes.

One source for the rule's checks (llm_pte.bzl) and the exporter's flags:
tools/executorch/export/choices.py reads CHOICES from this file as a
literal, so keep it one.
"""

CHOICES = {
    "backend": ["portable", "xnnpack"],
    "group_size": [32, 64, 128],
    "head_quantize": ["", "8da8w"],
    "quantize": ["none", "int4_weight_only", "8da4w", "8da4w_asym"],
}
