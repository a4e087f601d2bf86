"""The profile table: every stage and step in order, shares of the total, and clear errors."""

from __future__ import annotations

import json
import os
import tempfile
import unittest

from bench.export_profile.export_profile import ProfileError, load, table

PROFILE = {
    "seconds": 200.0,
    "peak_rss_mb": 3000,
    "stages": [
        {"stage": "load checkpoint", "seconds": 50.0, "peak_rss_mb": 900},
        {
            "stage": "lower",
            "seconds": 150.0,
            "peak_rss_mb": 3000,
            "steps": {"XNNPACK preprocess: passes": 100.0, "other": 50.0},
        },
    ],
}


class TableTest(unittest.TestCase):
    def test_rows_follow_the_profile(self):
        rows = [line for line in table(PROFILE, "m").splitlines() if line.startswith("| ") and "---" not in line]
        self.assertEqual(
            rows[1:],
            [
                "| load checkpoint | 50.0 | 25.0% | 900 |",
                "| lower | 150.0 | 75.0% | 3000 |",
                "| · XNNPACK preprocess: passes | 100.0 | | |",
                "| · other | 50.0 | | |",
                "| **total** | **200.0** | 100% | 3000 |",
            ],
        )

    def test_before_column_lines_up_rows_and_marks_the_missing(self):
        before = {
            "seconds": 260.0,
            "peak_rss_mb": 3100,
            "stages": [
                {"stage": "load checkpoint", "seconds": 50.0, "peak_rss_mb": 900},
                {
                    "stage": "lower",
                    "seconds": 210.0,
                    "peak_rss_mb": 3100,
                    "steps": {"decompositions": 60.0, "XNNPACK preprocess: passes": 100.0, "other": 50.0},
                },
            ],
        }
        rows = [line for line in table(PROFILE, "m", before, "r1").splitlines() if line.startswith("| ")]
        self.assertEqual(
            rows,
            [
                "| stage | r1 s | s | share | peak RSS MB |",
                "| load checkpoint | 50.0 | 50.0 | 25.0% | 900 |",
                "| lower | 210.0 | 150.0 | 75.0% | 3000 |",
                "| · XNNPACK preprocess: passes | 100.0 | 100.0 | | |",
                "| · other | 50.0 | 50.0 | | |",
                "| · decompositions | 60.0 | - | | |",
                "| **total** | **260.0** | **200.0** | 100% | 3000 |",
            ],
        )

    def test_missing_profile_names_the_build(self):
        with self.assertRaisesRegex(
            ProfileError, r"no profile at .*bazel build //models:m --//tools/executorch:profile"
        ):
            load("/nonexistent/m.export_profile.json", "m")

    def test_other_json_is_refused(self):
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "p.json")
            with open(path, "w") as f:
                json.dump({"stages": []}, f)
            with self.assertRaisesRegex(ProfileError, "not an export profile; rebuild it"):
                load(path, "m")
            self.assertEqual(load(_write(folder, PROFILE), "m")["seconds"], 200.0)


def _write(folder: str, profile: dict) -> str:
    path = os.path.join(folder, "ok.json")
    with open(path, "w") as f:
        json.dump(profile, f)
    return path


if __name__ == "__main__":
    unittest.main()
