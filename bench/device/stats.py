"""Summary statistics and throttling detection for benchmark runs."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence

# A run counts as throttled when the hottest zone warmed by more than this,
# or the fastest core's clock fell by more than this fraction.
THROTTLE_TEMP_RISE_C = 10.0
THROTTLE_FREQ_DROP = 0.10


def median(values: Sequence[float]) -> float:
    return float(statistics.median(values))


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile, q in [0, 100]."""
    if not values:
        raise ValueError("percentile of no values")
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100.0 * len(ordered)))
    return float(ordered[rank - 1])


def slow_tail(values: Sequence[float], higher_is_better: bool) -> float:
    """The p95 that matters: 95th percentile of times, 5th of rates."""
    return percentile(values, 5 if higher_is_better else 95)


def throttled(
    temps_before: dict[str, float],
    temps_after: dict[str, float],
    freqs_before: Sequence[float],
    freqs_after: Sequence[float],
) -> tuple[bool, str]:
    """Whether a run heated the device or lost clock speed enough to distort it."""
    reasons = []
    common = set(temps_before) & set(temps_after)
    if common:
        rise = max(temps_after[z] - temps_before[z] for z in common)
        if rise > THROTTLE_TEMP_RISE_C:
            reasons.append(f"+{rise:.1f} C")
    if freqs_before and freqs_after:
        before, after = max(freqs_before), max(freqs_after)
        if before > 0 and (before - after) / before > THROTTLE_FREQ_DROP:
            reasons.append(f"max clock {before:.0f} -> {after:.0f} MHz")
    return bool(reasons), ", ".join(reasons)


def hottest(temps: dict[str, float]) -> float | None:
    return max(temps.values()) if temps else None
