"""bazel run //bench:device: TTFT, decode speed and peak memory on a phone.

Finds phones with `adb devices` (or takes --serial), and for each variant of
the plan pushes the android-arm64 runner, its libraries, the .pte and runs
it: warm-up runs, then --runs measured runs with a cool-down before each
(until the hottest thermal zone is back within --cooldown_c of where it
started, or --cooldown_timeout_s passes). Thermal zones and CPU clocks are
read around every run; runs that heated or slowed the device are marked.

With no phone attached it runs the same plan on this host with the host
runner, and the report says "host". Writes bench/out/<date>-<device>/:
results.json (every run, plus the environment), report.md and two PNG plots
(decode tok/s per stage; per-token latency over each run).

The QNN stage needs more on a phone: before anything runs, the phone's SoC
and the QAIRT version of the libraries given with --qnn_libs are checked
against the program's manifest (qnn_preflight.py); then those libraries are
pushed and the runner loads ExecuTorch's QNN backend. On a host that stage
is reported as not run: the HTP simulator measures correctness, not speed.

A phone that disconnects mid-run keeps the runs measured so far, marks the
rest failed, and the exit code is 1.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time

from absl import app, flags

from bench.bench_venv import bench_python
from bench.device import stats
from bench.device.adb import Adb, AdbError, DeviceLost, list_devices
from bench.device.plan import PLANS, Variant
from bench.device.qnn_preflight import QnnPreflightError
from bench.device.targets import HostTarget, PhoneTarget, sha256_file
from bench.fixed_prompt import fixed_prompt_ids
from bench.record import command
from bench.report import output_folder, save_record, write_report, write_results
from runtime.llm_main_process import LlmMainError
from tools.python.runfile import runfile

FLAGS = flags.FLAGS
flags.DEFINE_string("adb", "adb", "adb executable.")
flags.DEFINE_string("serial", "", "Phone to use; default: the only one attached.")
flags.DEFINE_bool("host", False, "Run on this host even if a phone is attached.")
flags.DEFINE_enum("plan", "smollm2", sorted(PLANS), "Which ladder of variants to run.")
flags.DEFINE_integer("runs", 5, "Measured runs per variant.")
flags.DEFINE_integer("warmup", 1, "Unmeasured runs per variant first.")
flags.DEFINE_integer("prompt_tokens", 64, "Prompt length in tokens.")
flags.DEFINE_integer("new_tokens", 64, "Tokens generated per run (EOS ignored).")
flags.DEFINE_integer("threads", 0, "Runner threads; 0 = half the device's cores.")
flags.DEFINE_float("cooldown_c", 2.0, "Wait until the hottest zone is within this of its start temperature.")
flags.DEFINE_float("cooldown_timeout_s", 120.0, "Longest wait for a cool-down.")
flags.DEFINE_string(
    "phone_runner",
    "",
    "The runner for the phone: bazel build --config=android_arm64 //runtime:llm_main.",
)
flags.DEFINE_list("phone_libs", [], "Shared libraries the phone runner needs (libexecutorch*.so ...).")
flags.DEFINE_list(
    "qnn_libs",
    [],
    "For the QNN stage on a phone: the QAIRT Android libraries (//tools/qnn:android_runtime_<soc>, from the SDK "
    "that compiled the program) and ExecuTorch's libqnn_executorch_backend.so.",
)
flags.DEFINE_string("out", "", "Output folder; default bench/out/<date>-<device> in the workspace.")
flags.DEFINE_bool(
    "record", False, "Also write bench/results/device-<device>.json, the record the docs' tables come from."
)
flags.DEFINE_string(
    "quality_text", "", "Held-out text for each stage's perplexity (bazel run passes Emma); empty: none."
)
flags.DEFINE_integer("quality_tokens", 256, "Tokens of --quality_text each stage is scored on.")
flags.DEFINE_bool(
    "qnn_perplexity",
    True,
    "Score QNN stages too, through the quantized graph each was lowered from (minutes for SmolLM2: the graph "
    "is calibrated again, and runs a few tokens per second); --noqnn_perplexity leaves their column n/a.",
)

METRICS = (  # stats JSON key, report label, higher is better
    ("load_ms", "load ms", False),
    ("ttft_ms", "TTFT ms", False),
    ("prefill_tokens_per_s", "prefill tok/s", True),
    ("decode_tokens_per_s", "decode tok/s", True),
    ("peak_rss_mb", "peak RSS MB", False),
)


def prompt_ids(count: int) -> list[int]:
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(runfile("models/smollm2_135m/tokenizer.json"))
    return fixed_prompt_ids(lambda text: tokenizer.encode(text, add_special_tokens=False).ids, count)


def choose_target():
    if not FLAGS.host:
        serials = list_devices(FLAGS.adb) if (FLAGS.serial or _adb_exists()) else []
        if FLAGS.serial and FLAGS.serial not in serials:
            raise AdbError(f"--serial={FLAGS.serial} is not attached (adb devices lists: {serials or 'none'})")
        if len(serials) > 1 and not FLAGS.serial:
            raise AdbError(f"several phones attached ({', '.join(serials)}): pick one with --serial")
        if serials:
            if not FLAGS.phone_runner:
                raise AdbError(
                    "a phone is attached but --phone_runner is not set: build the Android runner with "
                    "`bazel build --config=android_arm64 //runtime:llm_main` and pass --phone_runner and "
                    "--phone_libs (see README), or pass --host"
                )
            return PhoneTarget(
                Adb(FLAGS.adb, FLAGS.serial or serials[0]), FLAGS.phone_runner, FLAGS.phone_libs, FLAGS.qnn_libs
            )
    return HostTarget(runfile("runtime/llm_main"), runfile("runtime/host_qnn/libexecutorch_backend_qnn.so"))


def _adb_exists() -> bool:
    from shutil import which

    return which(FLAGS.adb) is not None or os.path.exists(FLAGS.adb)


def cool_down(target, start_temp: float | None) -> tuple[float, float | None]:
    """Waits until the device is back near its start temperature; returns (seconds waited, temp)."""
    began = time.monotonic()
    temp = stats.hottest(target.thermal())
    while (
        start_temp is not None
        and temp is not None
        and temp > start_temp + FLAGS.cooldown_c
        and time.monotonic() - began < FLAGS.cooldown_timeout_s
    ):
        time.sleep(1.0)
        temp = stats.hottest(target.thermal())
    return time.monotonic() - began, temp


def summarize(runs: list[dict]) -> dict:
    ok = [r for r in runs if r["status"] == "ok"]
    summary = {
        "runs_ok": len(ok),
        "runs_failed": len(runs) - len(ok),
        "throttled_runs": sum(r["throttled"] for r in ok),
    }
    for key, _, higher_is_better in METRICS:
        values = [r["stats"][key] for r in ok]
        if values:
            summary[key] = {"median": stats.median(values), "p95": stats.slow_tail(values, higher_is_better)}
    summary["integrity"] = sorted({r["stats"].get("integrity", "") for r in ok})
    checks = sorted(r["stats"]["integrity_ms"] for r in ok if "integrity_ms" in r["stats"])
    if checks:
        summary["integrity_ms"] = checks[len(checks) // 2]
    allocations = {r["stats"].get("decode_allocations") for r in ok}
    summary["decode_allocations"] = sorted(a for a in allocations if a is not None)
    return summary


def bench_variant(target, variant: Variant, ids: list[int], threads: int, start_temp, lost: list[str]) -> dict:
    record = {"stage": variant.stage, "program": variant.program, "runs": []}
    pte = runfile(f"models/{variant.program}.pte")
    if variant.unavailable or not os.path.exists(pte) or (target.kind == "host" and variant.not_on_host):
        record["status"] = "unavailable"
        record["reason"] = variant.unavailable or (
            variant.not_on_host if os.path.exists(pte) else f"{pte} is not built"
        )
        return record
    record["model_bytes"] = os.path.getsize(pte)
    record["model_sha256"] = sha256_file(pte)
    failed = lambda why: {"status": "failed", "error": why, "throttled": False}  # noqa: E731
    if lost:
        record["status"] = "failed"
        record["runs"] = [failed(lost[0]) for _ in range(FLAGS.runs)]
        return record
    manifest_path = runfile(f"models/{variant.program}.manifest.json")
    try:
        with open(manifest_path) as f:
            manifest = json.load(f)
        if "qnn" in manifest:
            record["qnn"] = {k: manifest["qnn"][k] for k in ("soc", "htpArch", "qairtBuildId")}
        delegate_flags, delegate_env = target.prepare_delegate(variant, manifest)
        # The manifest goes along, and is named explicitly: the runner then
        # checks the pushed program's sha256 against it at every load.
        installed = target.install([pte, manifest_path])
        args = [
            f"--model={installed[pte]}",
            f"--manifest={installed[manifest_path]}",
            "--prompt_ids=" + ",".join(map(str, ids)),
            f"--max_new_tokens={FLAGS.new_tokens}",
            f"--threads={threads}",
            "--ignore_eos",
            "--print_ids",
            *variant.runner_flags,
            *delegate_flags,
        ]
        for _ in range(FLAGS.warmup):
            target.run(args, timeout=1800, env=delegate_env)
        for _ in range(FLAGS.runs):
            waited, _ = cool_down(target, start_temp)
            temps_before, freqs_before = target.thermal(), target.cpu_freqs_mhz()
            run_stats = target.run(args, timeout=1800, env=delegate_env)
            temps_after, freqs_after = target.thermal(), target.cpu_freqs_mhz()
            hot, why = stats.throttled(temps_before, temps_after, freqs_before, freqs_after)
            record["runs"].append(
                {
                    "status": "ok",
                    "stats": run_stats,
                    "cooldown_s": round(waited, 1),
                    "thermal_before": temps_before,
                    "thermal_after": temps_after,
                    "cpu_mhz_before": freqs_before,
                    "cpu_mhz_after": freqs_after,
                    "throttled": hot,
                    "throttle_reason": why,
                }
            )
    except DeviceLost as e:
        lost.append(str(e))
        record["runs"] += [failed(str(e)) for _ in range(FLAGS.runs - len(record["runs"]))]
    except (AdbError, LlmMainError, QnnPreflightError) as e:
        record["runs"] += [failed(str(e)) for _ in range(FLAGS.runs - len(record["runs"]))]
    record["status"] = "ok" if all(r["status"] == "ok" for r in record["runs"]) else "failed"
    record["summary"] = summarize(record["runs"])
    return record


def draw_plots(results_json: str, out: str) -> bool:
    """Runs plot_report.py under the bench venv; False (and why) if it cannot."""
    python = bench_python()
    if not python:
        print("bench: no plots: the @pypi_bench interpreter is not in the runfiles", file=sys.stderr)
        return False
    result = subprocess.run(
        [python, runfile("bench/plot_report.py"), results_json, out], capture_output=True, text=True
    )
    if result.returncode != 0:
        print(f"bench: plotting failed: {result.stderr[-2000:]}", file=sys.stderr)
        return False
    return True


def report_markdown(results: dict) -> str:
    env = results["environment"]
    where = "**host** (no phone attached)" if env["kind"] == "host" else f"phone {env['device']}"
    lines = [
        f"# Device benchmark: {env['device']}",
        "",
        f"Ran on {where}; SoC/CPU: {env['soc'] or 'unknown'}; {env['os']}; {env['cores']} cores, "
        f"{results['settings']['threads']} threads.",
        f"{results['settings']['prompt_tokens']}-token prompt, {results['settings']['new_tokens']} new tokens, "
        f"{results['settings']['warmup']} warm-up + {results['settings']['runs']} measured runs per stage; "
        "median (p95: the slow tail).",
        "",
        "| stage | perplexity | TTFT ms | decode tok/s | prefill tok/s | load ms | peak memory MB | model MB "
        "| decode allocs | runs |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    quality = results.get("perplexity", {})
    first = next((quality[v["program"]] for v in results["variants"] if v["program"] in quality), None)

    def perplexity(program: str) -> str:
        if program not in quality:
            return "n/a"
        value = quality[program]
        return f"{value:.2f} ({100 * (value - first) / first:+.1f}%)" if value != first else f"{value:.2f}"

    for v in results["variants"]:
        if v["status"] == "unavailable":
            lines.append(f"| {v['stage']} | {perplexity(v['program'])} | n/a | | | | | | | not run: {v['reason']} |")
            continue
        s = v.get("summary", {})

        def cell(key: str, s: dict = s) -> str:
            return f"{s[key]['median']:.1f} ({s[key]['p95']:.1f})" if key in s else "failed"

        runs = f"{s.get('runs_ok', 0)} ok"
        if s.get("runs_failed"):
            runs += f", {s['runs_failed']} failed"
        if s.get("throttled_runs"):
            runs += f", {s['throttled_runs']} throttled"
        lines.append(
            f"| {v['stage']} | {perplexity(v['program'])} | {cell('ttft_ms')} | {cell('decode_tokens_per_s')} | {cell('prefill_tokens_per_s')} "
            f"| {cell('load_ms')} | {cell('peak_rss_mb')} | {v['model_bytes'] / 1e6:.1f} "
            f"| {'/'.join(str(a) for a in s.get('decode_allocations', [])) or 'n/a'} | {runs} |"
        )
    checked = [
        f"{v['stage']} {v['summary']['integrity_ms']:.0f} ms"
        for v in results["variants"]
        if "verified" in v.get("summary", {}).get("integrity", []) and "integrity_ms" in v["summary"]
    ]
    if checked:
        lines += [
            "",
            "Each load checked the program's sha256 against its manifest (included in load ms): "
            + ", ".join(checked)
            + ".",
        ]
    if quality:
        lines += [
            "",
            f"Perplexity: each stage's program on this host, teacher-forced over {results['settings']['quality_tokens']} "
            "tokens of held-out text (Emma), against the first stage; lower is better.",
        ]
    errors = sorted({r["error"] for v in results["variants"] for r in v["runs"] if r["status"] == "failed"})
    if errors:
        lines += ["", "Failures:", *[f"- {e}" for e in errors]]
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> None:
    del argv
    try:
        target = choose_target()
        environment = target.environment()
    except AdbError as e:
        sys.exit(f"bench: {e}")
    threads = FLAGS.threads or max(1, target.cpu_count() // 2)
    ids = prompt_ids(FLAGS.prompt_tokens)
    start_temp = stats.hottest(target.thermal())
    lost: list[str] = []
    variants = [bench_variant(target, v, ids, threads, start_temp, lost) for v in PLANS[FLAGS.plan]]
    quality = {}
    if FLAGS.quality_text:
        # Imported only now, after every timed run: it loads torch, and a
        # runner forked from a process that big reports the parent's size as
        # its own peak RSS (Linux keeps ru_maxrss across fork and exec).
        from bench.device.ladder_quality import stage_perplexities

        text = FLAGS.quality_text if os.path.isabs(FLAGS.quality_text) else runfile(FLAGS.quality_text)
        with open(text, encoding="utf-8") as f:
            quality = stage_perplexities(PLANS[FLAGS.plan], f.read(), FLAGS.quality_tokens, FLAGS.qnn_perplexity)
    results = {
        "environment": environment,
        "runner_sha256": sha256_file(target.runner),
        "settings": {
            "plan": FLAGS.plan,
            "runs": FLAGS.runs,
            "warmup": FLAGS.warmup,
            "prompt_tokens": FLAGS.prompt_tokens,
            "new_tokens": FLAGS.new_tokens,
            "threads": threads,
            "cooldown_c": FLAGS.cooldown_c,
            "quality_tokens": FLAGS.quality_tokens,
        },
        "perplexity": quality,
        "variants": variants,
    }
    slug = re.sub(r"[^A-Za-z0-9]+", "-", environment["device"]).strip("-").lower()
    out = output_folder(slug, FLAGS.out)
    plotted = draw_plots(write_results(out, results), out)
    report = report_markdown(results)
    if plotted:
        report += "\n![decode tok/s per stage](decode_tokens_per_s.png)\n\n![per-token latency](token_latency.png)\n"
    write_report(out, report)
    print(report)
    print(
        f"bench: wrote {out}/: results.json, report.md"
        + (", decode_tokens_per_s.png, token_latency.png" if plotted else "")
    )
    if FLAGS.record:
        # A phone's figures are the phone's: the record names it, not this host.
        phone = f"{environment['device']} ({environment['soc']}), {environment['cores']} cores"
        typed = command("//bench:device", sys.argv[1:], drop=("quality_text",))
        name = f"device-{slug}"
        save_record(name, results, report, typed, phone if target.kind == "phone" else "")
    if any(v["status"] == "failed" for v in variants):
        sys.exit(1)


if __name__ == "__main__":
    app.run(main)
