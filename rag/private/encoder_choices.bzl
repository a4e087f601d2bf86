"""The values each setting of a sentence encoder's program takes.

One source for the rule's checks (encoder_pte.bzl) and the exporter's flags:
rag/encoder/export_encoder.py reads CHOICES from this file as a literal, so
keep it one.
"""

CHOICES = {
    "backend": ["portable", "xnnpack"],
    # none: fp32; 8da8w: int8 per-channel linear weights with int8 dynamic
    # activations, int8 embedding tables (XNNPACK only).
    "quantize": ["none", "8da8w"],
}
