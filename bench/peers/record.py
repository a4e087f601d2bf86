"""One result record per (model, phase, system) of //bench:peers, and its printers (md, json, csv).

As llama-bench does, every figure the bench measures lands in one flat
record, and `--output=md|json|csv` picks how the records are printed.
Medians over the measured rounds; the tokens are the first round's.
"""

from __future__ import annotations

import csv
import io
import json
import statistics
from dataclasses import asdict, dataclass, fields


@dataclass(frozen=True)
class PeerRecord:
    model: str
    phase: str  # "chat": a 64-token prompt, 64 new; "long": llama-bench's pp512 and tg128 sizes in one run
    system: str
    prompt_tokens: int
    new_tokens: int
    threads: int
    rounds: int
    load_ms: float
    ttft_ms: float
    prefill_tok_s: float
    decode_tok_s: float
    peak_rss_mb: float | None  # ours only: llm_main's stats
    same_tokens_as_ours: int  # leading greedy tokens equal to ours


def leading_agreement(tokens: list[int], reference: list[int]) -> int:
    n = 0
    for a, b in zip(tokens, reference, strict=False):
        if a != b:
            break
        n += 1
    return n


def from_runs(model: str, phase: str, system: str, runs: list[dict], ours: list[int], threads: int) -> PeerRecord:
    def median(key: str) -> float:
        return statistics.median(r[key] for r in runs)

    first = runs[0]
    return PeerRecord(
        model=model,
        phase=phase,
        system=system,
        prompt_tokens=first["prompt_tokens"],
        new_tokens=len(first["tokens"]),
        threads=threads,
        rounds=len(runs),
        load_ms=median("load_ms"),
        ttft_ms=median("ttft_ms"),
        prefill_tok_s=median("prefill_tok_s"),
        decode_tok_s=median("decode_tok_s"),
        peak_rss_mb=median("peak_rss_mb") if "peak_rss_mb" in first else None,
        same_tokens_as_ours=leading_agreement(first["tokens"], ours),
    )


def to_json(records: list[PeerRecord]) -> str:
    return json.dumps([asdict(r) for r in records], indent=1)


def to_csv(records: list[PeerRecord]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=[f.name for f in fields(PeerRecord)], lineterminator="\n")
    writer.writeheader()
    for r in records:
        writer.writerow(asdict(r))
    return out.getvalue()


def to_markdown(records: list[PeerRecord]) -> str:
    lines = [
        "| model | phase | system | TTFT ms | prefill tok/s | decode tok/s | load ms | peak RSS MB | same tokens |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in records:
        rss = f"{r.peak_rss_mb:.0f}" if r.peak_rss_mb is not None else ""
        lines.append(
            f"| {r.model} | {r.phase} | {r.system} | {r.ttft_ms:.1f} | {r.prefill_tok_s:.1f} | {r.decode_tok_s:.1f} "
            f"| {r.load_ms:.0f} | {rss} | {r.same_tokens_as_ours}/{r.new_tokens} |"
        )
    return "\n".join(lines) + "\n"


PRINTERS = {"md": to_markdown, "json": to_json, "csv": to_csv}
