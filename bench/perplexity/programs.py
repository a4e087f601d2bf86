"""The programs //bench:quality scores; the first is the reference."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class QualityProgram:
    name: str  # //models target; the .pte is models/<name>.pte
    what: str  # for the report
    unavailable: str = ""  # why it cannot be scored yet, or ""


PROGRAMS = (
    # fp32 on XNNPACK matches the portable-kernel llama_fp32 to float rounding
    # (HF top-1 agreement 0.984) and decodes several times faster.
    QualityProgram("llama_fp32_xnnpack", "fp32, XNNPACK"),
    QualityProgram("llama_int4", "8da4w g32 + 4-bit embedding table"),
    QualityProgram("llama_8da4w", "8da4w g32, fp32 embedding table"),
    # TODO(lead): drop `unavailable` and add //models:llama_int4_qnn to the
    # data of //bench:quality once it is on main; PteSession runs it in the
    # HTP simulator when QNN_SDK_ROOT and LD_LIBRARY_PATH are set.
    QualityProgram(
        "llama_int4_qnn",
        "16a4w, QNN HTP (simulator)",
        unavailable="//models:llama_int4_qnn is not on main yet (the Qualcomm issue)",
    ),
)
