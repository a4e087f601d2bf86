"""Reads and rewrites MODULE.bazel files (the small Starlark subset they use).

MODULE.bazel is parsed with Python's own `ast`: its syntax is a subset of
Python's. Only top-level `module(...)` and `bazel_dep(...)` calls matter here.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field


class ModuleFileError(Exception):
    """A MODULE.bazel this tool cannot read or rewrite."""


@dataclass(frozen=True)
class Dep:
    name: str
    version: str  # "" when the file names no version
    dev: bool


@dataclass(frozen=True)
class ModuleFile:
    name: str
    version: str
    deps: tuple[Dep, ...] = field(default_factory=tuple)

    def deps_seen_by_others(self) -> tuple[Dep, ...]:
        """The deps Bazel uses when this is not the root module."""
        return tuple(d for d in self.deps if not d.dev)


def _top_level_calls(tree: ast.Module, function: str) -> list[ast.Call]:
    calls = []
    for stmt in tree.body:
        value = stmt.value if isinstance(stmt, ast.Expr) else None
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == function:
            calls.append(value)
    return calls


def _literal(call: ast.Call, keyword: str, default: object) -> object:
    for kw in call.keywords:
        if kw.arg == keyword:
            try:
                return ast.literal_eval(kw.value)
            except ValueError as e:
                raise ModuleFileError(f"{keyword} = ... on line {kw.value.lineno} is not a literal") from e
    return default


def _parse_tree(text: str, where: str) -> ast.Module:
    try:
        return ast.parse(text, filename=where)
    except SyntaxError as e:
        raise ModuleFileError(f"{where}: cannot parse: {e}") from e


def parse(text: str, where: str = "MODULE.bazel") -> ModuleFile:
    tree = _parse_tree(text, where)
    modules = _top_level_calls(tree, "module")
    if len(modules) != 1:
        raise ModuleFileError(f"{where}: expected one module(...) call, found {len(modules)}")
    deps = tuple(
        Dep(
            name=str(_literal(call, "name", "")),
            version=str(_literal(call, "version", "")),
            dev=bool(_literal(call, "dev_dependency", False)),
        )
        for call in _top_level_calls(tree, "bazel_dep")
    )
    return ModuleFile(
        name=str(_literal(modules[0], "name", "")),
        version=str(_literal(modules[0], "version", "")),
        deps=deps,
    )


def with_version(text: str, version: str, where: str = "MODULE.bazel") -> str:
    """`text` with module(version = ...) set to `version`; all else unchanged."""
    (call,) = _top_level_calls(_parse_tree(text, where), "module")
    data = text.encode()
    line_starts = [0]
    for line in data.splitlines(keepends=True):
        line_starts.append(line_starts[-1] + len(line))
    literal = f'"{version}"'.encode()
    by_name = {kw.arg: kw.value for kw in call.keywords}

    def start_of(node: ast.expr) -> int:
        return line_starts[node.lineno - 1] + node.col_offset

    def end_of(node: ast.expr) -> int:
        return line_starts[(node.end_lineno or node.lineno) - 1] + (node.end_col_offset or 0)

    if "version" in by_name:  # replace the old value
        start, end, new = start_of(by_name["version"]), end_of(by_name["version"]), literal
    elif "name" in by_name:  # add one after the name
        start = end = end_of(by_name["name"])
        new = b", version = " + literal
    else:
        raise ModuleFileError(f"{where}: module(...) has no name")
    return (data[:start] + new + data[end:]).decode()
