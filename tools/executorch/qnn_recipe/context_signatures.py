"""Makes a QNN program's bytes independent of the clock.

ExecuTorch's QNN delegate payload starts with a small header: a magic, then
an 8-byte "signature" that ExecuTorch fills with the wall clock in
nanoseconds (it keys a per-process cache of QNN contexts), then the context
binary's size. The clock is the only byte difference between two exports, so
it is replaced by a hash of the context binary: still unique per context, now
the same on every machine.
"""

from __future__ import annotations

import hashlib

CONTEXT_MAGIC = (0x5678ABCD).to_bytes(4, "little")


def deterministic_context_signatures(pte: bytes) -> tuple[bytes, int]:
    """Returns the program with each QNN context signature set from its content, and how many."""
    data = bytearray(pte)
    count = 0
    start = data.find(CONTEXT_MAGIC)
    while start != -1:
        size = int.from_bytes(data[start + 12 : start + 16], "little")
        body = data[start + 16 : start + 16 + size]
        if size and len(body) == size:
            digest = hashlib.sha256(body).digest()
            # Kept positive: the runtime reads it as a signed 64-bit integer.
            signature = int.from_bytes(digest[:8], "little") & ((1 << 63) - 1)
            data[start + 4 : start + 12] = signature.to_bytes(8, "little")
            count += 1
        start = data.find(CONTEXT_MAGIC, start + 4)
    return bytes(data), count
