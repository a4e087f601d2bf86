"""The values each setting of a QNN program takes.

One source for the rule's checks (qnn_pte.bzl) and the exporter's flags:
tools/executorch/qnn_recipe/quantizer.py reads CHOICES from this file as a
literal, so keep it one. The SoCs are //tools/qnn:socs.bzl's.
"""

CHOICES = {
    # LPBQ block sizes of 16a4w_block's 4-bit weights.
    "group_size": [32, 64, 128],
    # QnnQuantizer's schemes: activation and weight bits.
    "quantize": ["16a4w", "16a4w_block", "16a4w_block_asym", "16a8w", "8a8w"],
}
