"""docs/rules_reference.md is what the rules' .bzl files say today."""

from __future__ import annotations

import unittest

from tools.docs.rules_reference import render
from tools.python.runfile import runfile, workspace_dir


class RulesReferenceTest(unittest.TestCase):
    def test_the_committed_page_matches_the_code(self) -> None:
        with open(runfile("docs/rules_reference.md"), encoding="utf-8") as f:
            committed = f.read()
        self.assertEqual(
            render(workspace_dir()),
            committed,
            "docs/rules_reference.md is out of date: bazel run //tools/docs:update_rules_reference",
        )

    def test_every_public_attribute_has_a_doc_and_a_default(self) -> None:
        page = render(workspace_dir())
        section = ""
        for line in page.splitlines():
            if line.startswith("## "):
                section = line
            elif line.startswith("| `"):
                cells = [c.strip() for c in line.strip("|").split("|")]
                if section == "## Recipes":  # recipe | sets | what
                    self.assertEqual(len(cells), 3, line)
                    self.assertTrue(cells[1] and cells[2], f"a recipe sets nothing or says nothing: {line}")
                    continue
                self.assertEqual(len(cells), 4, line)
                self.assertTrue(cells[3], f"no doc: {line}")
                self.assertTrue(cells[2], f"no default: {line}")


if __name__ == "__main__":
    unittest.main()
