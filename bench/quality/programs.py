"""The programs //bench:quality scores; the first is the reference."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class QualityProgram:
    name: str  # the row's name in --programs and the report
    what: str  # for the report
    by_default: bool = True  # scored when --programs is not given
    needs_qnn_sdk: bool = False  # runs in the QNN HTP simulator (tools/qnn/simulator.py)
    llama_cpp: bool = False  # not a .pte: llama.cpp on --peer_gguf (llama_cpp_scorer.py)
    # The //models target, when not `name` (the .pte is models/<target>.pte),
    # or a .pte path from the workspace root.
    target: str = ""
    # A QNN program scored through the quantized graph it was lowered from
    # (qnn_recipe/rebuilt_graph.py), rebuilt with this calibration_set
    # (models/<calibration>.json): what the HTP is asked to compute, at
    # PyTorch's speed rather than the simulator's.
    calibration: str = ""

    @property
    def program(self) -> str:
        return self.target or self.name


PROGRAMS = (
    # fp32 on XNNPACK matches the portable-kernel llama_fp32 to float rounding
    # (HF top-1 agreement 0.984) and decodes several times faster.
    QualityProgram("llama_fp32_xnnpack", "fp32, XNNPACK"),
    QualityProgram(
        "llama_int4", "asymmetric int4 g32 linears with fp32 outlier channels, int8 head and embedding table"
    ),
    QualityProgram("llama_8da4w", "ExecuTorch's 8da4w g32 (symmetric, 4-bit head), fp32 embedding table"),
    # The peer: llama.cpp on the Q4_1 GGUF our fp32 checkpoint is de-quantized
    # from, so its weights are fp32's exactly and only its 8-bit activation
    # rounding costs it anything.
    QualityProgram("llama.cpp", "llama.cpp 0.3.36, the Q4_1 GGUF", llama_cpp=True),
    # The NPU program, through its quantized graph: the converted PyTorch
    # model export_qnn lowers, which the simulator follows on at least 0.95
    # of teacher-forced steps (//tools/executorch/tests:qnn_graph_fidelity_test).
    # A few tenths of a second per token in PyTorch: most of a default run.
    QualityProgram(
        "llama_int4_qnn",
        "16a4w_block_asym g32 and an 8-bit head for the QNN HTP, its quantized graph",
        calibration="smollm2_calibration",
    ),
    # The program itself runs on this host only in the HTP simulator, seconds
    # per token, so it is scored only on request, with few short windows
    # (its context is 512, so --context must be at most 512). The simulator
    # cannot load llama_int4_qnn's shared weights, so this row runs its twin
    # with a copy per method, built first (manual: a long export):
    #   bazel build //models:llama_int4_qnn_sim
    #   bazel run //bench:quality -- --programs=llama_fp32_xnnpack,llama_int4_qnn_htp --windows=1 --context=64
    QualityProgram(
        "llama_int4_qnn_htp",
        "16a4w_block_asym g32 and an 8-bit head, QNN HTP (simulator)",
        by_default=False,
        needs_qnn_sdk=True,
        target="bazel-bin/models/llama_int4_qnn_sim.pte",
    ),
)
