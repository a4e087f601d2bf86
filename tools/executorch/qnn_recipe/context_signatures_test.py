"""Context signatures: set from the context binary's content, so two exports of one graph are equal."""

from __future__ import annotations

import unittest

from tools.executorch.qnn_recipe.context_signatures import CONTEXT_MAGIC, deterministic_context_signatures


def context(clock: int, body: bytes) -> bytes:
    return CONTEXT_MAGIC + clock.to_bytes(8, "little") + len(body).to_bytes(4, "little") + body


class ContextSignaturesTest(unittest.TestCase):
    def test_the_clock_no_longer_matters(self):
        first, count = deterministic_context_signatures(b"head" + context(111, b"binary-1") + context(5, b"b2"))
        second, _ = deterministic_context_signatures(b"head" + context(999, b"binary-1") + context(7, b"b2"))
        self.assertEqual(count, 2)
        self.assertEqual(first, second)

    def test_different_contexts_keep_different_positive_signatures(self):
        data, _ = deterministic_context_signatures(context(0, b"one") + context(0, b"two"))
        first = int.from_bytes(data[4:12], "little", signed=True)
        second = int.from_bytes(data[len(context(0, b"one")) + 4 :][:8], "little", signed=True)
        self.assertNotEqual(first, second)
        self.assertGreater(first, 0)
        self.assertGreater(second, 0)

    def test_a_truncated_header_is_left_alone(self):
        truncated = CONTEXT_MAGIC + (1).to_bytes(8, "little") + (100).to_bytes(4, "little") + b"short"
        self.assertEqual(deterministic_context_signatures(truncated), (truncated, 0))


if __name__ == "__main__":
    unittest.main()
