"""bazel run //bench:peers: our runner against the other CPU runtimes, on the same weights.

    bazel run //bench:peers -- --rounds=5
    bazel run //bench:peers -- --model=llama3_2_1b_shape   # after building it (manual)

One checkpoint (bench_models.py), three forms of it: our 4-bit program, and
a GGUF written from the same checkpoint (write_gguf.py) for llama.cpp and
OpenVINO GenAI. The same prompt ids, the same greedy length with EOS
ignored, the same thread count, fresh processes in rotating order every
round (systems.py), so drift and heat hit all alike. Two phases:
  * chat: a 64-token prompt and 64 new tokens, what an app does per turn;
  * pp512+tg128: llama-bench's sizes, a 512-token prompt then 128 tokens.
Limits: the read bandwidth (read_bandwidth.cc) and the bytes a decode step
reads give each system's decode ceiling; the machine's fp32 GEMM rate
(gemm_probe.py) is the yardstick for prefill. An ETDump trace says where our
decode time goes. Every figure lands in one record per (phase, system)
(record.py); --output picks md, json or csv for stdout, and
bench/out/<date>-peers-<model>/ gets results.json and report.md.
On this shared 2-core host, only ratios measured in one run mean anything;
absolute figures are context.
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
from dataclasses import asdict

from absl import app, flags

from bench.fixed_prompt import fixed_prompt_ids
from bench.peers import pte_bytes, record
from bench.peers.bench_models import MODELS, ModelFilesMissing, locate
from bench.peers.systems import LABELS, LLAMA_CPP_VARIANTS, PEERS, SYSTEMS, PeersError, Runner, run_json
from bench.record import command as record_command
from bench.report import publish
from tools.python.runfile import runfile, workspace_dir

FLAGS = flags.FLAGS
flags.DEFINE_enum("model", "smollm2_135m", sorted(MODELS), "Which model (bench_models.py).")
flags.DEFINE_integer("prompt_tokens", 64, "Chat phase: prompt length in tokens.")
flags.DEFINE_integer("new_tokens", 64, "Chat phase: tokens generated per run (greedy, EOS ignored).")
flags.DEFINE_integer("rounds", 5, "Chat phase: measured rounds (one fresh-process run of each system per round).")
flags.DEFINE_integer("warmup", 1, "Unmeasured rounds first (page cache, CPU clocks).")
flags.DEFINE_integer("long_prompt_tokens", 512, "pp512+tg128 phase: prompt length.")
flags.DEFINE_integer("long_new_tokens", 128, "pp512+tg128 phase: tokens generated.")
flags.DEFINE_integer("long_rounds", 3, "pp512+tg128 phase: measured rounds; 0 = skip the phase.")
flags.DEFINE_integer("threads", 2, "Threads for every system.")
flags.DEFINE_integer("bandwidth_mib", 512, "Buffer the bandwidth probe reads (far above the caches).")
flags.DEFINE_integer("profile_steps", 32, "Decode steps traced with ETDump for the per-op profile; 0 = none.")
flags.DEFINE_enum("output", "md", sorted(record.PRINTERS), "How the result records are printed.")
flags.DEFINE_string("out", "", "Output folder; default bench/out/<date>-peers-<model> in the workspace.")
flags.DEFINE_bool(
    "record", False, "Also write bench/results/peers-<model>.json, the record the docs' tables come from."
)

CHAT, LONG = "chat", "long"  # long: llama-bench's pp512 and tg128 sizes, in one run
# The goals. Decode: at least this many times the peer (llama.cpp on the
# small model, the best peer at 1B) and this share of the ceiling.
DECODE_GOAL = {"smollm2_135m": 1.5, "llama3_2_1b_shape": 1.2}
CEILING_GOAL = 0.60
TTFT_GOAL = 0.5  # ours / llama.cpp TTFT, at most
MEMORY_SLACK = 1.15  # peak RSS <= (.pte + KV cache) x this


def measure(runner: Runner, ids: list[int], new_tokens: int, rounds: int, warmup: int, tag: str) -> dict:
    runs: dict[str, list[dict]] = {name: [] for name in SYSTEMS}
    bandwidth = []
    for index in range(warmup + rounds):
        shift = index % len(SYSTEMS)
        for name in SYSTEMS[shift:] + SYSTEMS[:shift]:
            result = runner.run(name, ids, new_tokens)
            result["prompt_tokens"] = len(ids)
            if index >= warmup:
                runs[name].append(result)
        # The probe runs between rounds; the best pass of all is the
        # machine's bandwidth (other tenants only ever lower it).
        bandwidth.append(measure_bandwidth())
        label = f"{tag} round {index - warmup + 1}/{rounds}" if index >= warmup else f"{tag} warm-up"
        print(
            f"{label}: "
            + ", ".join(f"{n} {runs[n][-1]['ttft_ms']:.0f} ms / {runs[n][-1]['decode_tok_s']:.1f} tok/s" for n in runs)
            if index >= warmup
            else label,
            flush=True,
        )
    return {"runs": runs, "bandwidth": bandwidth}


def measure_bandwidth() -> dict:
    return run_json(
        [runfile("bench/peers/read_bandwidth"), f"--threads={FLAGS.threads}", f"--mib={FLAGS.bandwidth_mib}"]
    )


def gemm_rate() -> dict:
    env = dict(os.environ, PYTHONPATH=workspace_dir())
    return run_json([sys.executable, "-m", "bench.peers.gemm_probe", f"--threads={FLAGS.threads}"], env=env)


def etdump_profile(pte: str, ids: list[int]) -> dict:
    env = dict(os.environ, PYTHONPATH=workspace_dir())
    argv = [sys.executable, "-m", "bench.peers.etdump_profile", pte, str(FLAGS.threads), str(FLAGS.profile_steps)]
    return run_json([*argv, ",".join(map(str, ids))], env=env)


def best_llama_cpp(records: dict[str, record.PeerRecord]) -> dict:
    """llama.cpp at its better OpenMP setting, per metric."""
    variants = [records[v] for v in LLAMA_CPP_VARIANTS]
    return {
        "decode_tok_s": max(r.decode_tok_s for r in variants),
        "prefill_tok_s": max(r.prefill_tok_s for r in variants),
        "ttft_ms": min(r.ttft_ms for r in variants),
    }


def ratios(records: dict[str, record.PeerRecord]) -> dict:
    """ours / peer: decode and prefill higher is better, TTFT lower is better."""
    ours = records["ours"]
    peers = {"llama_cpp": best_llama_cpp(records)}
    peers["openvino"] = {k: getattr(records["openvino"], k) for k in ("decode_tok_s", "prefill_tok_s", "ttft_ms")}
    out = {}
    for peer, m in peers.items():
        out[peer] = {
            "decode": ours.decode_tok_s / m["decode_tok_s"],
            "prefill": ours.prefill_tok_s / m["prefill_tok_s"],
            "ttft": ours.ttft_ms / m["ttft_ms"],
        }
    out["best_peer"] = {
        "decode": min(out[p]["decode"] for p in PEERS),
        "prefill": min(out[p]["prefill"] for p in PEERS),
        "ttft": max(out[p]["ttft"] for p in PEERS),
    }
    return out


def ceilings(bandwidth_gb_s: float, info: pte_bytes.DecodeBytes, gguf_bytes: int, decode: dict) -> dict:
    """Each system's decode speed as a share of bandwidth / the bytes it reads per token."""
    position = FLAGS.prompt_tokens + FLAGS.new_tokens / 2
    kv = info.kv_bytes_per_position * position  # ours: fp32
    # llama.cpp and OpenVINO read the GGUF's weights (the head is the tied
    # embedding table, so all of it), with an f16 and a u8 KV cache.
    read = {"ours": info.weight_bytes_per_token + kv, "llama_cpp": gguf_bytes + kv / 2, "openvino": gguf_bytes + kv / 4}
    read["executorch_python"] = read["ours"]
    out = {"bandwidth_gb_s": bandwidth_gb_s, "mean_decode_position": position}
    for name, bytes_per_token in read.items():
        top = pte_bytes.ceiling_tokens_per_s(bandwidth_gb_s, bytes_per_token)
        out[name] = {"bytes_per_token": bytes_per_token, "ceiling_tok_s": top, "share": decode[name] / top}
    return out


def linear_flops_per_token(arch: dict) -> float:
    """2 x the decoder's linear weights: what one prompt token costs (attention and the head aside)."""
    dim, heads, kv_heads, layers = (int(arch[k]) for k in ("dim", "nHeads", "nKvHeads", "nLayers"))
    head_dim = dim // heads
    per_layer = 2 * dim * heads * head_dim + 2 * dim * kv_heads * head_dim + 3 * dim * int(arch["hiddenDim"])
    return 2.0 * layers * per_layer


def memory_check(peak_rss_mb: float, info: pte_bytes.DecodeBytes, context: int) -> dict:
    budget = (info.file_bytes + info.kv_bytes_per_position * context) * MEMORY_SLACK / 2**20
    return {"peak_rss_mb": peak_rss_mb, "budget_mb": budget, "met": peak_rss_mb <= budget}


def verdict(results: dict) -> list[str]:
    """Every goal, met or by how much it is missed: a table, so that the docs can quote it from the record."""
    lines = ["| goal | result |", "|---|---|"]
    for g in results["goals"].values():
        lines.append(f"| {g['what']} | {'met' if g['met'] else 'NOT met, ' + g['distance']} |")
    return lines


def goals(results: dict) -> dict:
    chat = results["phases"][CHAT]["ratios"]
    prefill_phase = LONG if LONG in results["phases"] else CHAT
    prefill = results["phases"][prefill_phase]["ratios"]["best_peer"]["prefill"]
    c = results["ceiling"]["ours"]
    decode_goal = DECODE_GOAL[results["settings"]["model"]]
    peer = "llama_cpp" if results["settings"]["model"] == "smollm2_135m" else "best_peer"
    decode = chat[peer]["decode"]
    ttft = chat["llama_cpp"]["ttft"]
    memory = results["memory"]
    return {
        "decode_vs_peer": {
            "what": f"decode: ours is {decode:.2f}x {peer.replace('_', ' ')}'s (goal >= {decode_goal}x)",
            "met": decode >= decode_goal,
            "distance": f"{100 * (decode_goal / decode - 1):.0f}% short",
        },
        "decode_vs_ceiling": {
            "what": f"decode: ours reaches {100 * c['share']:.1f}% of its ceiling (goal >= {100 * CEILING_GOAL:.0f}%)",
            "met": c["share"] >= CEILING_GOAL,
            "distance": f"{100 * (CEILING_GOAL - c['share']):.1f} points short",
        },
        "ttft_vs_llama_cpp": {
            "what": f"TTFT: ours is {ttft:.2f}x llama.cpp's (goal <= {TTFT_GOAL}x)",
            "met": ttft <= TTFT_GOAL,
            "distance": f"{100 * (ttft / TTFT_GOAL - 1):.0f}% too slow",
        },
        "prefill_vs_every_peer": {
            "what": f"prefill ({results['prefill_compute']['phase']}): ours is {prefill:.2f}x the fastest peer's "
            "(goal > 1x)",
            "met": prefill > 1.0,
            "distance": f"{100 * (1 / prefill - 1):.0f}% short",
        },
        "memory": {
            "what": f"peak RSS while decoding: {memory['peak_rss_mb']:.0f} MB against (.pte + KV cache) x "
            f"{MEMORY_SLACK} = {memory['budget_mb']:.0f} MB",
            "met": memory["met"],
            "distance": f"{memory['peak_rss_mb'] - memory['budget_mb']:.0f} MB over",
        },
    }


def phase_table(results: dict, phase: str) -> list[str]:
    records = {r["system"]: r for r in results["records"] if r["phase"] == phase}
    ours = records["ours"]
    lines = [
        "| system | TTFT ms | prefill tok/s | decode tok/s | load ms | ours: decode x | prefill x | TTFT x "
        "| same tokens as ours |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name in SYSTEMS:
        r = records[name]
        own = name == "ours"
        rel = (
            "| | | "
            if own
            else f"| {ours['decode_tok_s'] / r['decode_tok_s']:.2f} | {ours['prefill_tok_s'] / r['prefill_tok_s']:.2f} "
            f"| {ours['ttft_ms'] / r['ttft_ms']:.2f} "
        )
        lines.append(
            f"| {LABELS[name]} | {r['ttft_ms']:.0f} | {r['prefill_tok_s']:.1f} | {r['decode_tok_s']:.1f} "
            f"| {r['load_ms']:.0f} {rel}| {r['same_tokens_as_ours']}/{r['new_tokens']} |"
        )
    return lines


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


def command(argv: list[str]) -> str:
    return "bazel run //bench:peers" + (" -- " + " ".join(argv) if argv else "")


def report_markdown(results: dict) -> str:
    s, env, c = results["settings"], results["environment"], results["ceiling"]
    lines = [
        f"# {s['title']} at 4 bits: our runner against its peers",
        "",
        f"{env['date']}. Host {env['cpu']} ({env['cores']} cores, shared with other work; load average "
        f"{env['load_before']:.2f} before, {env['load_after']:.2f} after), {s['threads']} threads each, fresh "
        f"processes in rotating order. Ours: {s['pte']}; llama.cpp and OpenVINO GenAI: {s['gguf']}, written "
        "from the same checkpoint. Command: `" + command(s["argv"]) + "`",
        "",
        f"## Chat: {s['prompt_tokens']}-token prompt, {s['new_tokens']} greedy tokens, median of {s['rounds']} rounds",
        "",
        *phase_table(results, CHAT),
    ]
    if LONG in results["phases"]:
        lines += [
            "",
            f"## pp{s['long_prompt_tokens']}+tg{s['long_new_tokens']}: llama-bench's sizes, in one run per "
            f"system (tg from the end of the prompt, where llama-bench starts from an empty context), median of "
            f"{s['long_rounds']} rounds",
            "",
            *phase_table(results, LONG),
        ]
    lines += [
        "",
        "Ratios are ours / theirs: decode and prefill higher is better, TTFT lower is better. Goals compare "
        "with llama.cpp's better OpenMP setting per metric. 'Same tokens' counts the leading greedy tokens "
        "equal to ours: weights and rounding differ in the last bits (4-bit kernels, int8 activations, "
        "OpenVINO's u8 KV cache), so paths part after a while.",
        "",
        "## Against the limits",
        "",
        f"Read bandwidth, {s['threads']} threads (read_bandwidth.cc, probed after every round): "
        f"{c['bandwidth_gb_s']:.1f} GB/s best pass. Bytes per decode token at the mean position "
        f"{c['mean_decode_position']:.0f}: ours streams the XNNPACK weights and the program's constants less "
        "the gathered embedding and rotary tables, plus the fp32 KV cache; the GGUF readers stream the whole "
        "file (the head is the tied embedding table) plus their KV cache.",
        "",
        "| system | MB per token | ceiling tok/s | measured tok/s | share of ceiling |",
        "|---|---|---|---|---|",
    ]
    decode = results["decode_for_ceiling"]
    for name in ("ours", "executorch_python", "llama_cpp", "openvino"):
        x = c[name]
        lines.append(
            f"| {LABELS[name]} | {x['bytes_per_token'] / 1e6:.1f} | {x['ceiling_tok_s']:.0f} | {decode[name]:.1f} "
            f"| {100 * x['share']:.0f}% |"
        )
    p = results["prefill_compute"]
    lines += [
        "",
        f"Prefill ({p['phase']}) against arithmetic: the decoder's linears cost {p['gflop_per_token']:.2f} GFLOP "
        f"per prompt token. This machine's fp32 GEMM (gemm_probe.py, {s['threads']} threads) runs at "
        f"{p['fp32_gemm_gflop_s']:.0f} GFLOP/s; "
        + ", ".join(
            f"{LABELS[n]} {g:.0f} GFLOP/s ({100 * g / p['fp32_gemm_gflop_s']:.0f}%)" for n, g in p["by_system"].items()
        )
        + ".",
        "",
        "## Verdict",
        "",
        *verdict(results),
    ]
    if results.get("profile_summary"):
        lines += ["", "## Where our decode time goes", "", *results["profile_summary"]]
    lines += ["", "## Records", "", record.to_markdown([record.PeerRecord(**r) for r in results["records"]])]
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


def prompt_ids(tokenizer_json: str, length: int) -> list[int]:
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(tokenizer_json)
    return fixed_prompt_ids(lambda text: tokenizer.encode(text, add_special_tokens=False).ids, length)


def run(argv: list[str]) -> dict:
    model = MODELS[FLAGS.model]
    files = locate(model)
    runner = Runner(files, FLAGS.threads)
    ids = prompt_ids(files.tokenizer_json, FLAGS.prompt_tokens)
    load_before = os.getloadavg()[0]
    phases = {CHAT: measure(runner, ids, FLAGS.new_tokens, FLAGS.rounds, FLAGS.warmup, CHAT)}
    if FLAGS.long_rounds:
        long_ids = prompt_ids(files.tokenizer_json, FLAGS.long_prompt_tokens)
        phases[LONG] = measure(runner, long_ids, FLAGS.long_new_tokens, FLAGS.long_rounds, 0, LONG)
    print("reading the program's bytes per token, timing a GEMM ...", flush=True)
    info = pte_bytes.decode_bytes(files.pte, files.manifest)
    gemm = gemm_rate()
    profile = {}
    if FLAGS.profile_steps:
        print(f"tracing {FLAGS.profile_steps} decode steps with ETDump ...", flush=True)
        profile = etdump_profile(files.pte, ids)
    load_after = os.getloadavg()[0]
    with open(files.manifest) as f:
        manifest = json.load(f)
    records, by_phase, phase_records = [], {}, {}
    for phase, measured in phases.items():
        ours_tokens = measured["runs"]["ours"][0]["tokens"]
        recs = {
            n: record.from_runs(model.name, phase, n, measured["runs"][n], ours_tokens, FLAGS.threads) for n in SYSTEMS
        }
        records += recs.values()
        phase_records[phase] = recs
        by_phase[phase] = {"runs": measured["runs"], "ratios": ratios(recs)}
    chat = phase_records[CHAT]
    decode = {n: chat[n].decode_tok_s for n in SYSTEMS}
    decode["llama_cpp"] = best_llama_cpp(chat)["decode_tok_s"]
    bandwidth = [b for m in phases.values() for b in m["bandwidth"]]
    best_gb_s = max(b["best_gb_s"] for b in bandwidth)
    prefill_phase = LONG if LONG in phases else CHAT
    prefill_records = phase_records[prefill_phase]
    prefill = {n: r.prefill_tok_s for n, r in prefill_records.items() if n not in LLAMA_CPP_VARIANTS}
    prefill["llama_cpp"] = best_llama_cpp(prefill_records)["prefill_tok_s"]
    flops = linear_flops_per_token(manifest["architecture"])
    results = {
        "settings": {
            "model": model.name,
            "title": model.title,
            "pte": os.path.basename(files.pte),
            "gguf": os.path.basename(files.gguf),
            "prompt_tokens": FLAGS.prompt_tokens,
            "new_tokens": FLAGS.new_tokens,
            "rounds": FLAGS.rounds,
            "warmup": FLAGS.warmup,
            "long_prompt_tokens": FLAGS.long_prompt_tokens,
            "long_new_tokens": FLAGS.long_new_tokens,
            "long_rounds": FLAGS.long_rounds,
            "threads": FLAGS.threads,
            "argv": argv[1:],
        },
        "environment": {
            "cpu": cpu_name(),
            "cores": os.cpu_count(),
            "load_before": load_before,
            "load_after": load_after,
            "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
            "llama_cpp_system_info": phases[CHAT]["runs"]["llama_cpp"][0].get("system_info", ""),
            "openvino_genai": phases[CHAT]["runs"]["openvino"][0].get("openvino_genai", ""),
        },
        "prompt_ids": ids,
        "phases": by_phase,
        "records": [asdict(r) for r in records],
        "bandwidth": {
            "best_gb_s": best_gb_s,
            "median_gb_s": statistics.median(b["median_gb_s"] for b in bandwidth),
            "probes": bandwidth,
        },
        "decode_bytes": info.as_dict(),
        "decode_for_ceiling": decode,
        "ceiling": ceilings(best_gb_s, info, os.path.getsize(files.gguf), decode),
        "prefill_compute": {
            "phase": f"pp{FLAGS.long_prompt_tokens}" if prefill_phase == LONG else f"pp{FLAGS.prompt_tokens}",
            "gflop_per_token": flops / 1e9,
            "fp32_gemm_gflop_s": gemm["fp32_gflop_s"],
            "by_system": {n: flops * tok_s / 1e9 for n, tok_s in prefill.items()},
        },
        "memory": memory_check(chat["ours"].peak_rss_mb, info, int(manifest["config"]["maxContextLen"])),
    }
    if profile:
        results["profile"] = profile
        results["profile_summary"] = profile_lines(profile, info.weight_bytes_per_token, best_gb_s)
    results["goals"] = goals(results)
    return results


def main(argv: list[str]) -> None:
    try:
        results = run(argv)
    except (PeersError, ModelFilesMissing, subprocess.TimeoutExpired) as e:
        sys.exit(f"peers: {e}")
    name = f"peers-{FLAGS.model}"
    typed = record_command("//bench:peers", sys.argv[1:])
    folder = publish(name, results, report_markdown(results), FLAGS.out, FLAGS.record, typed)
    print(record.PRINTERS[FLAGS.output]([record.PeerRecord(**r) for r in results["records"]]))
    print(f"records printed as {FLAGS.output}; the full report is {folder}/report.md")


if __name__ == "__main__":
    app.run(main)
