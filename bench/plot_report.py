"""Draws the plots of a //bench:device run from its results.json.

    plot_report.py RESULTS_JSON OUT_DIR

Runs under the bench's own venv (@pypi_bench, matplotlib), not the exporter's.
Writes:
  decode_tokens_per_s.png  median decode tok/s per stage, bars from the
                           slowest to the fastest run;
  token_latency.png        per-token decode latency over each run, one line
                           per run: a climbing line is throttling.
"""

from __future__ import annotations

import json
import os
import sys

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402

# Fixed metadata keeps the PNG bytes free of a creation time.
PNG_METADATA = {"Software": None}


def ok_runs(variant: dict) -> list[dict]:
    return [r for r in variant["runs"] if r["status"] == "ok"]


def plot_decode(results: dict, path: str) -> None:
    variants = [v for v in results["variants"] if ok_runs(v)]
    labels = [v["stage"] for v in variants]
    medians, low, high = [], [], []
    for v in variants:
        rates = sorted(r["stats"]["decode_tokens_per_s"] for r in ok_runs(v))
        median = rates[len(rates) // 2]
        medians.append(median)
        low.append(median - rates[0])
        high.append(rates[-1] - median)
    figure, axes = plt.subplots(figsize=(7, 3.5), dpi=100)
    axes.bar(range(len(labels)), medians, yerr=[low, high], capsize=6, color="#4c72b0")
    axes.set_xticks(range(len(labels)), labels, fontsize=8)
    axes.set_ylabel("decode tokens/s")
    axes.set_title(f"{results['environment']['device']}: decode speed per stage (min-max bars)", fontsize=9)
    figure.tight_layout()
    figure.savefig(path, metadata=PNG_METADATA)
    plt.close(figure)


def plot_latency(results: dict, path: str) -> None:
    figure, axes = plt.subplots(figsize=(7, 3.5), dpi=100)
    for index, v in enumerate(results["variants"]):
        for run_index, run in enumerate(ok_runs(v)):
            series = run["stats"].get("token_latency_ms", [])
            axes.plot(
                range(1, len(series) + 1),
                series,
                color=f"C{index}",
                alpha=0.7,
                linewidth=1,
                label=v["stage"] if run_index == 0 else None,
            )
    axes.set_xlabel("decode step")
    axes.set_ylabel("ms per token")
    axes.set_yscale("log")
    axes.set_title("per-token latency over each run (a rising line is throttling)", fontsize=9)
    axes.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(path, metadata=PNG_METADATA)
    plt.close(figure)


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[1]) as f:
        results = json.load(f)
    plot_decode(results, os.path.join(argv[2], "decode_tokens_per_s.png"))
    plot_latency(results, os.path.join(argv[2], "token_latency.png"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
