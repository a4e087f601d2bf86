"""Writes docs/rules_reference.md: every attribute of the public rules, with
its type, default and doc, read from the rules' own .bzl files.

    bazel run //tools/docs:update_rules_reference

//tools/docs:rules_reference_test regenerates it and fails when the committed
page differs, so the reference cannot drift from the code. Starlark's syntax
is a subset of Python's, so the .bzl files parse with Python's ast module.
"""

from __future__ import annotations

import ast
import os
import sys

from absl import app, flags

FLAGS = flags.FLAGS
flags.DEFINE_string("out", "", "Write the page here; default docs/rules_reference.md in the workspace.")

# (rule, its .bzl file, the load line users write)
RULES = [
    ("llm_checkpoint", "tools/executorch/private/llm_checkpoint.bzl", "//tools/executorch:defs.bzl"),
    ("executorch_pte", "tools/executorch/private/executorch_pte.bzl", "//tools/executorch:defs.bzl"),
    ("calibration_set", "tools/executorch/private/calibration_set.bzl", "//tools/executorch:defs.bzl"),
    ("sentence_encoder", "tools/executorch/private/sentence_encoder.bzl", "//tools/executorch:defs.bzl"),
    ("compiled_tokenizer", "tools/tokenizer/defs.bzl", "//tools/tokenizer:defs.bzl"),
    ("rag_index", "tools/rag/private/rag_index.bzl", "//tools/rag:defs.bzl"),
]


class ReferenceError(Exception):
    pass


def _text(node: ast.AST | None) -> str:
    if node is None:
        return ""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _text(node.left) + _text(node.right)
    return ast.unparse(node)


def _literal(node: ast.AST) -> str:
    """A default as a user writes it in a BUILD file."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return '"' + node.value + '"'
    if isinstance(node, ast.Constant) and isinstance(node.value, bool):
        return "True" if node.value else "False"
    return ast.unparse(node).replace("'", '"')


def _keyword(call: ast.Call, name: str) -> ast.AST | None:
    return next((k.value for k in call.keywords if k.arg == name), None)


def _attrs(tree: ast.Module, rule: str, path: str) -> tuple[str, list[tuple[str, str, str, str]]]:
    """The rule's doc and its public attributes: (name, type, default, doc)."""
    assigned = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            assigned[node.targets[0].id] = node.value
    call = assigned.get(rule)
    if not (isinstance(call, ast.Call) and ast.unparse(call.func) == "rule"):
        raise ReferenceError(f"{path}: no `{rule} = rule(...)`")
    attrs = _keyword(call, "attrs")
    if isinstance(attrs, ast.Name):
        attrs = assigned.get(attrs.id)
    if not isinstance(attrs, ast.Dict):
        raise ReferenceError(f"{path}: {rule}'s attrs are not a dict literal")
    rows = []
    for key, value in zip(attrs.keys, attrs.values, strict=True):
        name = _text(key)
        if name.startswith("_") or not isinstance(value, ast.Call):
            continue
        kind = ast.unparse(value.func).removeprefix("attr.")
        default = _keyword(value, "default")
        if _keyword(value, "mandatory") is not None and ast.unparse(_keyword(value, "mandatory")) == "True":
            shown = "required"
        elif default is None:
            shown = {"string": '`""`', "int": "`0`", "bool": "`False`", "label": "none"}.get(kind, "empty")
        else:
            shown = f"`{_literal(default)}`"
        doc = " ".join(_text(_keyword(value, "doc")).split()).replace("|", "\\|")
        rows.append((name, kind, shown, doc))
    return " ".join(_text(_keyword(call, "doc")).split()), rows


def render(workspace: str) -> str:
    lines = [
        "# Rule reference",
        "",
        "Generated from the rules' `.bzl` files by `bazel run //tools/docs:update_rules_reference`;",
        "`//tools/docs:rules_reference_test` fails when this page and the code disagree.",
        "How to use the rules: [rules.md](rules.md).",
    ]
    for rule, path, load in RULES:
        with open(os.path.join(workspace, path), encoding="utf-8") as f:
            tree = ast.parse(f.read(), filename=path)
        doc, rows = _attrs(tree, rule, path)
        lines += ["", f"## `{rule}`", "", f'`load("{load}", "{rule}")`', "", doc, ""]
        lines += ["| attribute | type | default | what |", "|---|---|---|---|"]
        lines += [f"| `{name}` | {kind} | {default} | {text} |" for name, kind, default, text in rows]
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> None:
    del argv
    workspace = os.environ.get("BUILD_WORKSPACE_DIRECTORY")
    if not workspace:
        sys.exit("rules_reference: run it with bazel run //tools/docs:update_rules_reference")
    out = FLAGS.out or os.path.join(workspace, "docs", "rules_reference.md")
    with open(out, "w", encoding="utf-8") as f:
        f.write(render(workspace))
    print(f"rules_reference: wrote {out}")


if __name__ == "__main__":
    app.run(main)
