"""Where an export's time goes: each stage's wall time and peak memory, and
inside a stage, which of ExecuTorch's steps.

Stages are the exporter's own calls (load, torch.export, lowering, ...), timed
directly. Inside one call ExecuTorch runs many steps (decompositions, edge
passes, partitioning, XNNPACK's per-partition preprocess, memory planning,
emission) that the exporter cannot time without patching upstream code. A
sampler thread instead reads the main thread's stack every few milliseconds
and charges each sample to the innermost known step on it, as py-spy would.

    clock = StageClock(STEPS)
    with clock.stage("torch.export"):
        ...
    clock.write("profile.json")

The profile is a side file of a build made with
`--//tools/executorch:profile_exports`; it never enters a .pte or a manifest,
so programs stay byte-identical.
"""

from __future__ import annotations

import contextlib
import json
import resource
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Step:
    """An upstream function, named by a suffix of its file and its name."""

    label: str
    file_suffix: str
    function: str


# ExecuTorch's and torch's steps of a CPU export, innermost first wins.
STEPS: tuple[Step, ...] = (
    Step("torch.export (trace)", "torch/export/_trace.py", "_export"),
    Step("decompositions", "torch/export/exported_program.py", "run_decompositions"),
    Step("edge dialect passes", "exir/program/_program.py", "_generate_edge_program"),
    Step("edge dialect passes", "tools/executorch/export/edge_dialect.py", "generate_edge_program"),
    Step("partitioner: tag nodes", "xnnpack/partition/xnnpack_partitioner.py", "partition"),
    Step("partitioner: tag nodes", "exir/backend/partitioner.py", "partition"),
    Step("partitioner: cut submodules", "exir/backend/backend_api.py", "_create_partitions"),
    Step("XNNPACK preprocess: passes", "backends/xnnpack/_passes/__init__.py", "transform"),
    Step("XNNPACK preprocess: serialize", "backends/xnnpack/xnnpack_preprocess.py", "preprocess"),
    Step("QNN preprocess", "backends/qualcomm/qnn_preprocess.py", "preprocess"),
    Step("edge transform (ConvertToLinearPass)", "exir/program/_program.py", "transform"),
    Step("to_executorch passes", "exir/program/_program.py", "to_executorch"),
    Step("memory planning", "exir/passes/memory_planning_pass.py", "run"),
    Step("emit", "exir/emit/_emitter.py", "run"),
    Step("emit", "exir/emit/_emit_program.py", "emit_program"),
    Step("serialize", "exir/_serialize/_program.py", "serialize_pte_binary"),
)


def _peak_rss_mb() -> float:
    # ru_maxrss is in KiB on Linux.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


@dataclass
class _Sampler:
    """Counts, every `interval` seconds, the innermost Step on the main thread's stack."""

    steps: Sequence[Step]
    interval: float = 0.005
    counts: Counter = field(default_factory=Counter)
    _stop: threading.Event = field(default_factory=threading.Event)

    def _step_of(self, frame) -> str:
        while frame is not None:
            code = frame.f_code
            for step in self.steps:
                if code.co_name == step.function and code.co_filename.endswith(step.file_suffix):
                    return step.label
            frame = frame.f_back
        return "other"

    def _run(self, thread_id: int) -> None:
        while not self._stop.wait(self.interval):
            frame = sys._current_frames().get(thread_id)
            if frame is not None:
                self.counts[self._step_of(frame)] += 1

    @contextlib.contextmanager
    def running(self) -> Iterator[None]:
        thread = threading.Thread(target=self._run, args=(threading.get_ident(),), daemon=True)
        thread.start()
        try:
            yield
        finally:
            self._stop.set()
            thread.join()


class StageClock:
    """Times named stages; with `steps`, splits each stage by upstream step."""

    def __init__(self, steps: Sequence[Step] = ()) -> None:
        self.steps = steps
        self.stages: list[dict] = []
        self._started = time.monotonic()
        self._last = self._started

    def mark(self, name: str) -> None:
        """Closes a stage that ran since the previous one ended (imports, for one), untimed by a sampler."""
        now = time.monotonic()
        self.stages.append({"stage": name, "seconds": round(now - self._last, 2), "peak_rss_mb": round(_peak_rss_mb())})
        self._last = now

    @contextlib.contextmanager
    def stage(self, name: str) -> Iterator[None]:
        sampler = _Sampler(self.steps)
        start = time.monotonic()
        with sampler.running():
            yield
        self._last = time.monotonic()
        record = {"stage": name, "seconds": round(self._last - start, 2), "peak_rss_mb": round(_peak_rss_mb())}
        total = sum(sampler.counts.values())
        if total and set(sampler.counts) != {"other"}:
            seconds = self._last - start
            record["steps"] = {
                label: round(seconds * n / total, 2)
                for label, n in sorted(sampler.counts.items(), key=lambda kv: -kv[1])
            }
        self.stages.append(record)

    def report(self) -> dict:
        total = time.monotonic() - self._started
        return {"seconds": round(total, 2), "peak_rss_mb": round(_peak_rss_mb()), "stages": self.stages}

    def write(self, path: str) -> None:
        report = self.report()
        with open(path, "w") as f:
            json.dump(report, f, indent=2)
            f.write("\n")
        print(format_report(report), file=sys.stderr)


def format_report(report: dict) -> str:
    """The profile as a plain table, the way it is printed and quoted in docs/build.md."""
    lines = [f"export profile: {report['seconds']:.1f} s, peak RSS {report['peak_rss_mb']} MB"]
    for stage in report["stages"]:
        share = 100 * stage["seconds"] / report["seconds"] if report["seconds"] else 0
        lines.append(f"  {stage['stage']:<34} {stage['seconds']:8.1f} s {share:5.1f}%  {stage['peak_rss_mb']:6d} MB")
        for label, seconds in stage.get("steps", {}).items():
            lines.append(f"      {label:<30} {seconds:8.1f} s")
    return "\n".join(lines)


class NoClock:
    """StageClock's interface, doing nothing: the exporter's default."""

    def mark(self, name: str) -> None:
        del name

    @contextlib.contextmanager
    def stage(self, name: str) -> Iterator[None]:
        del name
        yield

    def write(self, path: str) -> None:
        del path
