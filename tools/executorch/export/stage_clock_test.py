"""StageClock times stages and charges a stage's samples to the step on the stack."""

from __future__ import annotations

import json
import tempfile
import time
import unittest

from tools.executorch.export.stage_clock import NoClock, StageClock, Step, format_report

BUSY = Step("busy step", "stage_clock_test.py", "busy_loop")


def busy_loop(seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass


def idle_wait(seconds: float) -> None:
    time.sleep(seconds)


class StageClockTest(unittest.TestCase):
    def test_samples_go_to_the_innermost_known_step(self):
        clock = StageClock([BUSY])
        with clock.stage("work"):
            busy_loop(0.4)
            idle_wait(0.2)
        (stage,) = clock.report()["stages"]
        self.assertGreaterEqual(stage["seconds"], 0.6)
        steps = stage["steps"]
        self.assertAlmostEqual(steps["busy step"], 0.4, delta=0.15)
        self.assertAlmostEqual(steps["other"], 0.2, delta=0.15)

    def test_a_stage_with_no_known_step_has_no_split(self):
        clock = StageClock([BUSY])
        with clock.stage("sleep"):
            idle_wait(0.1)
        self.assertNotIn("steps", clock.report()["stages"][0])

    def test_mark_closes_the_time_since_the_last_stage(self):
        clock = StageClock()
        idle_wait(0.1)
        clock.mark("imports")
        with clock.stage("work"):
            idle_wait(0.05)
        names = [s["stage"] for s in clock.report()["stages"]]
        self.assertEqual(names, ["imports", "work"])
        self.assertGreaterEqual(clock.report()["stages"][0]["seconds"], 0.1)

    def test_write_is_json_and_the_table_names_every_stage(self):
        clock = StageClock([BUSY])
        with clock.stage("work"):
            busy_loop(0.05)
        with tempfile.NamedTemporaryFile("r", suffix=".json") as f:
            clock.write(f.name)
            report = json.load(f)
        self.assertEqual(report["stages"][0]["stage"], "work")
        self.assertIn("work", format_report(report))

    def test_no_clock_does_nothing(self):
        clock = NoClock()
        with clock.stage("work"):
            pass
        clock.mark("imports")
        clock.write("/nonexistent/never/written.json")


if __name__ == "__main__":
    unittest.main()
