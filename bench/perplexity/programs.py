"""The programs //bench:quality scores; the first is the reference."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class QualityProgram:
    name: str  # //models target; the .pte is models/<name>.pte
    what: str  # for the report
    by_default: bool = True  # scored when --programs is not given
    needs_qnn_sdk: bool = False  # runs in the QNN HTP simulator (tools/qnn/simulator.py)


PROGRAMS = (
    # fp32 on XNNPACK matches the portable-kernel llama_fp32 to float rounding
    # (HF top-1 agreement 0.984) and decodes several times faster.
    QualityProgram("llama_fp32_xnnpack", "fp32, XNNPACK"),
    QualityProgram("llama_int4", "8da4w g32 + 4-bit embedding table"),
    QualityProgram("llama_8da4w", "8da4w g32, fp32 embedding table"),
    # On this host the QNN program runs in the HTP simulator at about 8-20 s per
    # token, so it is scored only on request, with few short windows
    # (its context is 512, so --context must be at most 512):
    #   bazel run //bench:quality -- --programs=llama_fp32_xnnpack,llama_int4_qnn --windows=1 --context=64
    QualityProgram("llama_int4_qnn", "16a4w_block g32, QNN HTP (simulator)", by_default=False, needs_qnn_sdk=True),
)
