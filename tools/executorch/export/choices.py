"""The values each export setting takes, read from the rules' own list.

tools/executorch/private/choices.bzl is the one source: llm_pte checks a
target's attributes against it at analysis, and export_pte's flags take
their choices from it here, so the two cannot drift apart.
"""

from __future__ import annotations

import ast
import os

# Beside this package in the runfiles tree (a data dependency), as in the checkout.
CHOICES_BZL = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "private", "choices.bzl")


def read_choices(path: str = CHOICES_BZL) -> dict[str, list]:
    """The CHOICES literal of `path`."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), filename=path)
    for node in tree.body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", "") for t in node.targets] == ["CHOICES"]:
            return ast.literal_eval(node.value)
    raise RuntimeError(f"{path} has no CHOICES = {{...}} literal")


CHOICES = read_choices()
