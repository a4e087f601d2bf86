"""The results tables of README.md and docs/*.md are their records' tables."""

from __future__ import annotations

import json
import os
import tempfile
import unittest

from tools.docs.results_tables import UPDATE, ResultsTablesError, docs, regenerate, regions, stray_dates
from tools.python.runfile import workspace_dir


class CommittedDocsTest(unittest.TestCase):
    def setUp(self) -> None:
        self.workspace = workspace_dir()
        self.docs = docs(self.workspace)
        # An empty list would pass everything: the test's data must bring the docs.
        self.assertIn("README.md", self.docs)
        self.assertIn("docs/benchmarks.md", self.docs)

    def read(self, doc: str) -> str:
        with open(os.path.join(self.workspace, doc), encoding="utf-8") as f:
            return f.read()

    def test_every_doc_matches_its_records(self) -> None:
        for doc in self.docs:
            with self.subTest(doc=doc):
                text = self.read(doc)
                self.assertEqual(
                    regenerate(text, doc, self.workspace), text, f"{doc} differs from its records: {UPDATE}"
                )

    def test_dates_only_in_records(self) -> None:
        found = [line for doc in self.docs for line in stray_dates(self.read(doc), doc)]
        self.assertEqual(found, [], "a doc names no dates: its records do (move the figures into a results region)")

    def test_markers_are_well_formed_and_a_doc_without_any_is_unchanged(self) -> None:
        for doc in self.docs:
            with self.subTest(doc=doc):
                text = self.read(doc)
                if not regions(text, doc):  # raises on an open without a close, or a close without an open
                    self.assertEqual(regenerate(text, doc, self.workspace), text)


TABLES = [
    {
        "caption": "## Chat",
        "columns": ["system", "decode tok/s", "TTFT ms"],
        "rows": [["ours", "41.2", "80"], ["llama.cpp", "38.0", "95"]],
    },
    {
        "caption": "## Layers",
        "columns": ["layer", "ms"],
        "rows": [["a", "1"], ["b", "2"], ["c", "3"], ["d", "4"], ["e", "5"]],
    },
]


class RegenerateTest(unittest.TestCase):
    def setUp(self) -> None:
        self.workspace = tempfile.mkdtemp()
        os.makedirs(os.path.join(self.workspace, "bench", "results"))
        record = {
            "bench": "peers-x",
            "command": "bazel run //bench:peers",
            "date": "D",
            "machine": "M, 2 cores",
            "results": {},
            "tables": TABLES,
        }
        with open(os.path.join(self.workspace, "bench", "results", "peers-x.json"), "w", encoding="utf-8") as f:
            json.dump(record, f)

    def fill(self, marker: str, doc: str = "docs/x.md") -> str:
        return regenerate(f"# X\n\n{marker}\nstale\n<!-- /results -->\nafter\n", doc, self.workspace)

    def assertFails(self, marker: str, *words: str, text: str = "") -> None:
        with self.assertRaises(ResultsTablesError) as caught:
            if text:
                regenerate(text, "docs/x.md", self.workspace)
            else:
                self.fill(marker)
        for word in ("docs/x.md", *words):
            self.assertIn(word, str(caught.exception))

    def test_a_whole_table_and_its_record(self) -> None:
        marker = "<!-- results: bench/results/peers-x.json table=1 -->"
        self.assertEqual(
            self.fill(marker),
            f"# X\n\n{marker}\n"
            "| system | decode tok/s | TTFT ms |\n|---|---|---|\n| ours | 41.2 | 80 |\n| llama.cpp | 38.0 | 95 |\n\n"
            "Record: [bench/results/peers-x.json](../bench/results/peers-x.json) (M, 2 cores).\n"
            "<!-- /results -->\nafter\n",
        )

    def test_a_date_outside_a_region_is_stray(self) -> None:
        text = (
            "# X\n\nMeasured on 2026-11-30:\n"
            "<!-- results: bench/results/peers-x.json table=1 -->\nRecord: (M, 2026-12-02).\n<!-- /results -->\n"
            "`bench/out/<date>-x` and 2026-1-2 are not dates.\n"
        )
        self.assertEqual(stray_dates(text, "docs/x.md"), ["docs/x.md:3: Measured on 2026-11-30:"])

    def test_the_link_is_relative_to_the_doc(self) -> None:
        filled = self.fill("<!-- results: bench/results/peers-x.json table=1 -->", doc="README.md")
        self.assertIn("[bench/results/peers-x.json](bench/results/peers-x.json)", filled)

    def test_regenerating_twice_changes_nothing(self) -> None:
        once = self.fill("<!-- results: bench/results/peers-x.json table=2 rows=2-3 -->")
        self.assertEqual(regenerate(once, "docs/x.md", self.workspace), once)

    def test_columns_picked_and_ordered_by_header(self) -> None:
        filled = self.fill('<!-- results: bench/results/peers-x.json table=1 columns="TTFT ms,system" -->')
        self.assertIn("| TTFT ms | system |\n|---|---|\n| 80 | ours |\n| 95 | llama.cpp |\n", filled)

    def test_rows_by_range_and_by_list(self) -> None:
        self.assertIn(
            "|---|---|\n| b | 2 |\n| c | 3 |\n\n",
            self.fill("<!-- results: bench/results/peers-x.json table=2 rows=2-3 -->"),
        )
        self.assertIn(
            "|---|---|\n| b | 2 |\n| e | 5 |\n\n",
            self.fill("<!-- results: bench/results/peers-x.json table=2 rows=2,5 -->"),
        )
        self.assertIn(
            "| ms |\n|---|\n| 1 |\n| 5 |\n\n",
            self.fill("<!-- results: bench/results/peers-x.json table=2 columns=ms rows=1,5 -->"),
        )

    def test_a_marker_in_a_code_block_is_text(self) -> None:
        text = "```\n<!-- results: bench/results/none.json table=9 -->\n```\n"
        self.assertEqual(regenerate(text, "docs/x.md", self.workspace), text)

    def test_errors_name_the_doc_the_marker_and_the_fix(self) -> None:
        self.assertFails(
            "<!-- results: bench/results/peers-y.json table=1 -->", "no record bench/results/peers-y.json", "--record"
        )
        self.assertFails("<!-- results: bench/results/peers-x.json table=3 -->", "has 2 tables", "table=1..2")
        self.assertFails("<!-- results: bench/results/peers-x.json table=0 -->", "table=<n>")
        self.assertFails("<!-- results: bench/results/peers-x.json -->", "table=<n>")
        self.assertFails(
            "<!-- results: bench/results/peers-x.json table=1 columns=system,tok/s -->",
            "no column 'tok/s'",
            "'decode tok/s'",
        )
        self.assertFails("<!-- results: bench/results/peers-x.json table=2 rows=4-6 -->", "not a row 6", "1-5")
        self.assertFails("<!-- results: bench/results/peers-x.json table=2 rows=3-1 -->", "rows=3-1", "rows=1-3")
        self.assertFails("<!-- results: bench/results/peers-x.json table=1 sort=a -->", "unknown option 'sort=a'")
        self.assertFails("<!-- results: docs/x.json table=1 -->", "bench/results/<name>.json")
        self.assertFails("<!-- results bench/results/peers-x.json -->", "not a marker")

    def test_markers_must_pair(self) -> None:
        marker = "<!-- results: bench/results/peers-x.json table=1 -->"
        self.assertFails("", "not closed", "<!-- /results -->", text=f"{marker}\n")
        self.assertFails("", "docs/x.md:1", "not closed before line 2", text=f"{marker}\n{marker}\n<!-- /results -->\n")
        self.assertFails("", "docs/x.md:2", "closes no region", text="x\n<!-- /results -->\n")


if __name__ == "__main__":
    unittest.main()
