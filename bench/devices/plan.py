"""The staged plan: one variant per step of the optimisation ladder."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Variant:
    stage: str  # what this step adds, as the report's first column
    program: str  # //models target name; the .pte is models/<program>.pte
    runner_flags: tuple[str, ...] = ()
    unavailable: str = ""  # why it cannot run yet, or ""


PLANS = {
    # The classic ladder on SmolLM2-135M.
    "smollm2": (
        Variant("fp32 baseline", "llama_fp32"),
        Variant("+ int4 (8da4w, XNNPACK)", "llama_int4"),
        Variant(
            "+ QNN NPU",
            "llama_int4_qnn",
            # TODO(lead): llm_main does not link ExecuTorch's QNN backend yet;
            # on a phone it also needs the QNN runtime libraries pushed.
            unavailable="llm_main does not register ExecuTorch's QNN backend yet (//models:llama_int4_qnn exists)",
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
}
