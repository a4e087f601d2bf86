"""The free-running figures on hand-made replies, and the prompt set's shape."""

from __future__ import annotations

import unittest

from bench.answers.continuations import LIMITS, common_prefix, distinct_share, longest_run, overlap, score_reply
from bench.answers.prompts import load_prompts
from tools.executorch.testing import workspace_file


class FiguresTest(unittest.TestCase):
    def test_longest_run(self):
        self.assertEqual(longest_run([]), 0)
        self.assertEqual(longest_run([1, 2, 3]), 1)
        self.assertEqual(longest_run([1, 1, 2, 2, 2, 1]), 3)

    def test_distinct_share(self):
        self.assertEqual(distinct_share([]), 1.0)
        self.assertEqual(distinct_share([1, 2, 1, 2]), 0.5)

    def test_common_prefix_and_overlap(self):
        self.assertEqual(common_prefix([1, 2, 3], [1, 2, 4]), 2)
        self.assertEqual(common_prefix([1], []), 0)
        self.assertEqual(overlap([1, 2, 3], [3, 2, 1]), 1.0)
        self.assertEqual(overlap([1, 1], [1, 2]), 0.5)
        self.assertEqual(overlap([], []), 1.0)
        self.assertEqual(overlap([1], []), 0.0)


class DegenerationTest(unittest.TestCase):
    def test_one_token_over_and_over(self):
        self.assertIn("repeated 5 times", LIMITS.check([7, 8, 9, 9, 9, 9, 9])[0])

    def test_a_loop_of_two_tokens(self):
        # "₱₱₱…": each character is two tokens, so no token repeats back to
        # back, yet the reply has two distinct tokens in 24.
        problems = LIMITS.check([101, 102] * 12)
        self.assertEqual(len(problems), 1)
        self.assertIn("distinct", problems[0])

    def test_a_short_answer_is_not_a_loop(self):
        self.assertEqual(LIMITS.check([5, 5, 6]), [])

    def test_a_healthy_reply(self):
        self.assertEqual(LIMITS.check(list(range(40)) + [1, 2, 3]), [])

    def test_score_reply_carries_the_reasons(self):
        score = score_reply("p", [3] * 20, [1, 2, 3], LIMITS)
        self.assertEqual(score.tokens, 20)
        self.assertEqual(len(score.degenerate), 2)


class PromptSetTest(unittest.TestCase):
    def test_about_twenty_prompts_some_factual(self):
        prompts = load_prompts(workspace_file("bench/answers/chat_prompts.json"))
        self.assertEqual(len(prompts), 20)
        self.assertEqual(len({p.text for p in prompts}), 20)
        self.assertGreaterEqual(sum(1 for p in prompts if p.expect), 5)


if __name__ == "__main__":
    unittest.main()
