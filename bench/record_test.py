"""bench/record.py: the tables of a report, a record's shape, the command it names."""

from __future__ import annotations

import datetime
import json
import os
import re
import tempfile
import unittest
from unittest import mock

from bench.record import command, machine, tables_of, write_record

REPORT = """# Peers

Host, 2 threads.

## Chat: median of 5 rounds

| system | decode tok/s | note |
|---|---:|---|
| ours | 41.2 | a \\| b |
|  llama.cpp  |  38.0 |  |

Some text between.
| layer | ms |
|:--|--:|
| attention | 1.5 |

| a |
|---|
"""


class TablesOfTest(unittest.TestCase):
    def test_every_table_in_order_with_its_caption(self) -> None:
        tables = tables_of(REPORT)
        self.assertEqual([t["caption"] for t in tables], ["## Chat: median of 5 rounds", "Some text between.", ""])
        self.assertEqual(tables[0]["columns"], ["system", "decode tok/s", "note"])
        # Cells as printed, escaped pipes included; only the padding goes.
        self.assertEqual(tables[0]["rows"], [["ours", "41.2", "a \\| b"], ["llama.cpp", "38.0", ""]])
        self.assertEqual(
            tables[1], {"caption": "Some text between.", "columns": ["layer", "ms"], "rows": [["attention", "1.5"]]}
        )
        self.assertEqual(tables[2]["rows"], [])

    def test_no_table(self) -> None:
        self.assertEqual(tables_of("| not a table, no separator |\ntext\n"), [])


class CommandTest(unittest.TestCase):
    def test_drops_where_it_wrote_and_the_build_files_args(self) -> None:
        args = [
            "--corpus_files=a,b",
            "--model=llama3_2_1b_shape",
            "--record",
            "--out",
            "/tmp/x",
            "--norecord",
            "--windows=2",
        ]
        self.assertEqual(
            command("//bench:quality", args, drop=("corpus_files",)),
            "bazel run //bench:quality -- --model=llama3_2_1b_shape --windows=2",
        )

    def test_no_args(self) -> None:
        self.assertEqual(command("//bench:rag", ["--out=x", "--record"]), "bazel run //bench:rag")

    def test_quotes_what_the_shell_would_split(self) -> None:
        self.assertEqual(command("//bench:rag", ["--variants=a b"]), "bazel run //bench:rag -- '--variants=a b'")


class WriteRecordTest(unittest.TestCase):
    def setUp(self) -> None:
        self.dir = tempfile.mkdtemp()
        self.workspace = os.path.join(self.dir, "checkout")
        self.path = os.path.join(self.workspace, "bench", "results", "peers-x.json")

    def write(self, results: dict, machine_name: str = "") -> str:
        with mock.patch.dict(os.environ, {"BUILD_WORKSPACE_DIRECTORY": self.workspace}):
            write_record(self.path, "peers-x", "bazel run //bench:peers", results, REPORT, machine_name)
        with open(self.path, encoding="utf-8") as f:
            return f.read()

    def test_keys_date_and_machine(self) -> None:
        record = json.loads(self.write({"figure": 1.5}))
        self.assertEqual(sorted(record), ["bench", "command", "date", "machine", "results", "tables"])
        self.assertEqual(record["date"], datetime.date.today().isoformat())
        self.assertEqual(record["bench"], "peers-x")
        self.assertEqual(record["results"], {"figure": 1.5})
        self.assertEqual(record["tables"], tables_of(REPORT))
        self.assertRegex(record["machine"], r".+, \d+ cores$")
        self.assertEqual(record["machine"], machine())

    def test_a_phone_names_itself(self) -> None:
        self.assertEqual(
            json.loads(self.write({}, "Pixel 8 (Tensor G3), 9 cores"))["machine"], "Pixel 8 (Tensor G3), 9 cores"
        )

    def test_sorted_indented_one_trailing_newline(self) -> None:
        text = self.write({"b": 1, "a": {"d": 2, "c": 3}})
        self.assertEqual(text, json.dumps(json.loads(text), indent=2, sort_keys=True) + "\n")

    def test_no_absolute_paths_and_one_date(self) -> None:
        results = {
            "pte": os.path.join(self.workspace, "bazel-bin", "models", "x.pte"),
            "in runfiles": os.path.abspath(__file__),
            "cache": os.path.join(os.path.expanduser("~"), ".cache", "x.gguf"),
            "argv": [f"--phone_runner={self.workspace}/bazel-bin/runtime/llm_main"],
            "environment": {"cpu": "x", "date": "2020-01-01T00:00:00+00:00"},
        }
        record = json.loads(self.write(results))
        self.assertEqual(record["results"]["pte"], "bazel-bin/models/x.pte")
        self.assertEqual(record["results"]["in runfiles"], "bench/record_test.py")
        self.assertEqual(record["results"]["cache"], "~/.cache/x.gguf")
        self.assertEqual(record["results"]["argv"], ["--phone_runner=bazel-bin/runtime/llm_main"])
        self.assertEqual(record["results"]["environment"], {"cpu": "x"})
        text = json.dumps(record)
        self.assertNotIn(self.dir, text)
        self.assertEqual(re.findall(r"\d{4}-\d\d-\d\d", text), [record["date"]])

    def test_a_sibling_of_the_workspace_is_not_mistaken_for_it(self) -> None:
        # (Under bazel test the home folder may hold the temp folder: ~ is fine.)
        sibling = json.loads(self.write({"p": self.workspace + "-old/x"}))["results"]["p"]
        self.assertTrue(sibling.endswith(os.path.basename(self.workspace) + "-old/x"), sibling)


if __name__ == "__main__":
    unittest.main()
