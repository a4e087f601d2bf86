"""Statistics and throttling detection used by //bench:device."""

from __future__ import annotations

import unittest

from bench.device import stats


class StatsTest(unittest.TestCase):
    def test_median_and_percentiles(self) -> None:
        values = [5.0, 1.0, 4.0, 2.0, 3.0]
        self.assertEqual(stats.median(values), 3.0)
        self.assertEqual(stats.percentile(values, 95), 5.0)
        self.assertEqual(stats.percentile(values, 5), 1.0)
        self.assertEqual(stats.percentile(list(range(1, 101)), 95), 95.0)
        with self.assertRaises(ValueError):
            stats.percentile([], 50)

    def test_slow_tail_depends_on_direction(self) -> None:
        rates = [100.0, 200.0, 150.0]
        self.assertEqual(stats.slow_tail(rates, higher_is_better=True), 100.0)
        self.assertEqual(stats.slow_tail(rates, higher_is_better=False), 200.0)

    def test_throttling_by_temperature(self) -> None:
        hot, why = stats.throttled({"z0": 40.0, "z1": 38.0}, {"z0": 44.0, "z1": 52.5}, [], [])
        self.assertTrue(hot)
        self.assertIn("+14.5 C", why)
        self.assertFalse(stats.throttled({"z0": 40.0}, {"z0": 45.0}, [], [])[0])

    def test_throttling_by_clock(self) -> None:
        hot, why = stats.throttled({}, {}, [2000.0, 1800.0], [1500.0, 1400.0])
        self.assertTrue(hot)
        self.assertIn("2000 -> 1500 MHz", why)
        self.assertFalse(stats.throttled({}, {}, [2000.0], [1900.0])[0])

    def test_no_readings_is_not_throttling(self) -> None:
        self.assertEqual(stats.throttled({}, {}, [], []), (False, ""))
        self.assertIsNone(stats.hottest({}))


if __name__ == "__main__":
    unittest.main()
