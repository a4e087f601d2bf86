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
    ("hf_model_folder", "tools/executorch/private/hf_model_folder.bzl", "//tools/executorch:repositories.bzl"),
    ("llm_pte", "tools/executorch/private/llm_pte.bzl", "//tools/executorch:defs.bzl"),
    ("qnn_pte", "tools/executorch/private/qnn_pte.bzl", "//tools/executorch:defs.bzl"),
    ("calibration_set", "tools/executorch/private/calibration_set.bzl", "//tools/executorch:defs.bzl"),
    ("llm_chat", "tools/executorch/private/llm_chat.bzl", "//tools/executorch:defs.bzl"),
    ("compiled_tokenizer", "tokenizer/private/compiled_tokenizer.bzl", "//tokenizer:defs.bzl"),
    ("wordpiece_vocab", "tokenizer/private/wordpiece_vocab.bzl", "//tokenizer:defs.bzl"),
    ("sentence_encoder", "rag/private/sentence_encoder.bzl", "//rag:defs.bzl"),
    ("encoder_pte", "rag/private/encoder_pte.bzl", "//rag:defs.bzl"),
    ("rag_index", "rag/private/rag_index.bzl", "//rag:defs.bzl"),
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


def _globals(path: str) -> dict[str, ast.AST]:
    """Top-level assignments of a .bzl file, with what it loads from files beside it."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), filename=path)
    names: dict[str, ast.AST] = {}
    for node in tree.body:
        call = node.value if isinstance(node, ast.Expr) else None
        if isinstance(call, ast.Call) and ast.unparse(call.func) == "load":
            source = _text(call.args[0])
            # Only files beside it, and only those given to the test as data:
            # a name it needs from elsewhere is reported as unreadable attrs.
            beside = os.path.join(os.path.dirname(path), source[1:])
            if source.startswith(":") and os.path.exists(beside):
                loaded = _globals(beside)
                for arg in call.args[1:]:
                    if _text(arg) in loaded:
                        names[_text(arg)] = loaded[_text(arg)]
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            names[node.targets[0].id] = node.value
    return names


def _dict_items(node: ast.AST, names: dict[str, ast.AST], path: str) -> list[tuple[ast.AST, ast.AST]]:
    """Key/value pairs of a dict literal, a name bound to one, or dict(a, **b)."""
    if isinstance(node, ast.Name) and node.id in names:
        return _dict_items(names[node.id], names, path)
    if isinstance(node, ast.Dict):
        return list(zip(node.keys, node.values, strict=True))
    if isinstance(node, ast.Call) and ast.unparse(node.func) == "dict":
        items = []
        for arg in node.args:
            items += _dict_items(arg, names, path)
        for keyword in node.keywords:
            items += _dict_items(keyword.value, names, path)
        return items
    raise ReferenceError(f"{path}: cannot read the attrs {ast.unparse(node)}")


def _attrs(names: dict[str, ast.AST], rule: str, path: str) -> tuple[str, list[tuple[str, str, str, str]]]:
    """The rule's doc and its public attributes: (name, type, default, doc)."""
    call = names.get(rule)
    if not (isinstance(call, ast.Call) and ast.unparse(call.func) in ("rule", "repository_rule")):
        raise ReferenceError(f"{path}: no `{rule} = rule(...)` or `repository_rule(...)`")
    rows = []
    for key, value in _dict_items(_keyword(call, "attrs"), names, path):
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
    return _text(_keyword(call, "doc")), rows


def _doc_lines(doc: str) -> list[str]:
    """A rule's doc as Markdown: paragraphs and "* " items joined from their
    lines, and an indented block after a blank line as Starlark."""
    out: list[str] = []
    block: list[str] = []  # the paragraph, item or code being read
    kind = ""  # "text", "item" or "code"

    def flush() -> None:
        nonlocal kind
        if kind == "code":
            while block and not block[-1]:
                block.pop()
            out.extend(["```starlark", *block, "```", ""])
        elif kind == "text":
            out.extend([" ".join(block), ""])
        elif kind == "item":
            out.append(" ".join(block))
        block.clear()
        kind = ""

    for line in doc.splitlines():
        stripped = line.strip()
        if not stripped:
            if kind != "code":
                flush()
                if out and out[-1] != "":
                    out.append("")
            else:
                block.append("")
        elif stripped.startswith("* "):
            flush()
            kind = "item"
            block.append(stripped)
        elif line.startswith("    ") and kind in ("", "code"):
            kind = "code"
            block.append(line[4:].rstrip())
        else:
            if kind == "code":
                flush()
            kind = kind or "text"
            block.append(stripped)
    flush()
    while out and not out[-1]:
        out.pop()
    return out


RECIPES = "tools/executorch/private/recipes.bzl"


def _recipes(workspace: str) -> list[str]:
    """The recipes table: each name, what it sets and its doc, from RECIPES's literal."""
    recipes = ast.literal_eval(_globals(os.path.join(workspace, RECIPES))["RECIPES"])
    lines = [
        "",
        "## Recipes",
        "",
        '`executorch_pte(..., recipe = "<name>")` sets these attributes together; a target that names a',
        "recipe leaves them out. From `RECIPES` in `" + RECIPES + "`.",
        "",
        "| recipe | sets | what |",
        "|---|---|---|",
    ]
    for name, recipe in recipes.items():
        sets = ", ".join(f"`{k} = {_literal(ast.Constant(v))}`" for k, v in sorted(recipe["attrs"].items()))
        lines.append(f"| `{name}` | {sets} | {recipe['doc']} |")
    return lines


def render(workspace: str) -> str:
    lines = [
        "# Rule reference",
        "",
        "Generated from the rules' `.bzl` files by `bazel run //tools/docs:update_rules_reference`;",
        "`//tools/docs:rules_reference_test` fails when this page and the code disagree.",
        "How to use the rules: [rules.md](rules.md). `executorch_pte` is a macro that makes an",
        '`llm_pte`, or a `qnn_pte` for `backend = "qnn"`, with the attributes below, or names a',
        "[recipe](#recipes).",
        *_recipes(workspace),
    ]
    for rule, path, load in RULES:
        names = _globals(os.path.join(workspace, path))
        # A macro that checks its arguments wraps the rule `<rule>_rule`.
        doc, rows = _attrs(names, rule if rule in names else rule + "_rule", path)
        lines += ["", f"## `{rule}`", "", f'`load("{load}", "{rule}")`', "", *_doc_lines(doc), ""]
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
