"""The staged plan: one variant per step of the optimisation ladder."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Variant:
    stage: str  # what this step adds, as the report's first column
    program: str  # //models target name; the .pte is models/<program>.pte
    runner_flags: tuple[str, ...] = ()
    unavailable: str = ""  # why it cannot run yet, or ""
    delegate: str = ""  # "qnn": needs ExecuTorch's QNN backend and the QAIRT libraries
    not_on_host: str = ""  # why this host cannot measure it, or ""
    # For a QNN program: the calibration_set it was exported with
    # (models/<calibration>.json), so that its perplexity is scored through
    # the quantized graph it was lowered from (ladder_quality.py).
    calibration: str = ""


# On this host a QNN program runs only in the HTP simulator, which emulates
# the DSP instruction by instruction: right answers, meaningless timings.
SIMULATOR_ONLY = (
    "on a host the QNN program runs only in the HTP simulator (15-35 s per token of SmolLM2): "
    "it checks correctness, not speed; attach a Snapdragon phone"
)

PLANS = {
    # The classic ladder on SmolLM2-135M.
    "smollm2": (
        Variant("fp32 baseline", "llama_fp32"),
        Variant("+ int4 (asymmetric, fp32 outlier channels, 8-bit head, XNNPACK)", "llama_int4"),
        Variant(
            "+ QNN NPU",
            "llama_int4_qnn",
            delegate="qnn",
            not_on_host=SIMULATOR_ONLY,
            calibration="smollm2_calibration",
        ),
        # The same int4 program without the runner's static arena: what the
        # planned arena and allocation-free decode buy.
        Variant("int4 without the static arena", "llama_int4", runner_flags=("--no_static_arena",)),
    ),
    # Seeded 2-layer models: the same ladder in seconds, for tests.
    "tiny": (
        Variant("fp32 baseline", "tiny_fp32"),
        Variant("+ int4 (8da4w, XNNPACK)", "tiny_8da4w"),
        Variant("int4 without the static arena", "tiny_8da4w", runner_flags=("--no_static_arena",)),
    ),
    # One tiny model per Hugging Face family (//models/hf_fixtures), fp32 and
    # with the 4-bit recipe: each family's graph on the phone's runner.
    "hf_tiny": tuple(
        Variant(f"{family} {stage}", f"{program}_tiny_{suffix}")
        for family, program in (("Llama 3", "llama3"), ("Qwen2.5", "qwen2_5"), ("Qwen3", "qwen3"))
        for stage, suffix in (("fp32", "fp32"), ("int4", "int4"))
    ),
    # The QNN stage alone on the tiny model: small enough for the simulator,
    # so tests run the whole QNN path on the host and its checks on a phone.
    "tiny_qnn": (Variant("+ QNN NPU", "tiny_qnn", delegate="qnn", calibration="tiny_calibration"),),
}
