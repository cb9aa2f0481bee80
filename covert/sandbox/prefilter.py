"""An AST pre-filter for untrusted Python: imports outside an allow-list and escape hatches are refused.

Defence in depth only, never the barrier: the sandbox (namespaces, read-only file system, seccomp,
rlimits, a process per call) is what holds. A static filter of Python cannot be complete (a module
reached through an alias assigned at run time, a name built from parts), so the filter refuses cheaply
what is plainly an escape attempt, and the OS barrier stops the rest; tests run hostile code with the
filter off to show it. What it refuses: imports outside :data:`ALLOWED_MODULES`; builtins and attributes
that reach frames, code or string evaluation; dunder and private attributes; ``.format`` on non-literals;
another module reached through an allowed one (``dataclasses.sys``, ``json.codecs``,
``from dataclasses import sys``); and ``operator.attrgetter``/``methodcaller``, ``getattr`` by another
name. Each reason is one line, ``"code: detail (line N)"``; the codes are in :data:`REASON_CODES`.
"""

from __future__ import annotations

import ast
import string
from collections.abc import Iterable

ALLOWED_MODULES = frozenset({
    "__future__", "abc", "bisect", "cmath", "collections", "collections.abc", "copy", "dataclasses", "decimal",
    "enum", "fractions", "functools", "hashlib", "heapq", "itertools", "json", "math", "numbers", "operator",
    "random", "re", "statistics", "string", "textwrap", "typing", "covert.procgen.contract",
})
"""Modules untrusted code may import (pure computation; nothing that reaches the OS)."""

FORBIDDEN_NAMES = frozenset({
    "__import__", "eval", "exec", "compile", "open", "input", "breakpoint", "globals", "locals", "vars",
    "getattr", "setattr", "delattr", "help", "exit", "quit", "memoryview", "__builtins__", "__loader__",
    "__spec__", "__build_class__",
})
"""Builtins (and module globals) untrusted code may not name."""

FORBIDDEN_ATTRIBUTES = frozenset({
    "f_globals", "f_locals", "f_back", "f_builtins", "f_code", "gi_frame", "gi_code", "cr_frame", "cr_code",
    "ag_frame", "tb_frame", "tb_next", "co_code", "get_type_hints", "ForwardRef", "make_dataclass",
    "format_map", "mro", "attrgetter", "methodcaller",
})
"""Attribute names that lead to frames, code objects or string evaluation."""

ALLOWED_DUNDERS = frozenset({"__init__", "__post_init__", "__name__"})

REASON_CODES = ("too_large", "syntax_error", "forbidden_import", "forbidden_name", "dunder_access",
                "private_attribute", "forbidden_attribute", "format_string", "dunder_string", "module_attribute")


def prefilter(source: str, *, allowed_modules: Iterable[str] = ALLOWED_MODULES,
              max_bytes: int = 256 << 10) -> list[str]:
    """The reasons to refuse ``source`` without running it (empty list: it may run in the sandbox)."""
    if len(source.encode("utf-8", "replace")) > max_bytes:
        return [f"too_large: the source is over {max_bytes} bytes"]
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, MemoryError, RecursionError) as exc:
        return [f"syntax_error: {exc}".splitlines()[0][:200]]
    checker = _Checker(frozenset(allowed_modules))
    try:
        checker.bind_imports(tree)
        checker.visit(tree)
    except RecursionError:
        return ["syntax_error: the source nests too deeply"]
    return checker.reasons


class _Checker(ast.NodeVisitor):
    def __init__(self, allowed: frozenset[str]) -> None:
        self.allowed = allowed
        self.reasons: list[str] = []
        self.modules: dict[str, str] = {}  # name bound by an import -> the module it names

    def bind_imports(self, tree: ast.AST) -> None:
        """Note the names every ``import`` binds (anywhere in the module, before any use is checked)."""
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        self.modules[alias.asname] = alias.name
                    else:
                        head = alias.name.split(".")[0]
                        self.modules[head] = head

    def _reaches_module(self, module: str, attr: str) -> str | None:
        """The module ``module.attr`` is, when it is one that is not allowed (``dataclasses.sys``)."""
        import importlib
        import types

        if module not in self.allowed or f"{module}.{attr}" in self.allowed:
            return None
        try:
            value = getattr(importlib.import_module(module), attr, None)
        except ImportError:
            return None
        if isinstance(value, types.ModuleType) and value.__name__ not in self.allowed:
            return value.__name__
        return None

    def _refuse(self, code: str, detail: str, node: ast.AST) -> None:
        reason = f"{code}: {detail} (line {getattr(node, 'lineno', 0)})"
        if reason not in self.reasons and len(self.reasons) < 50:
            self.reasons.append(reason)

    def _module_ok(self, name: str) -> bool:
        return name in self.allowed

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if not self._module_ok(alias.name):
                self._refuse("forbidden_import", f"import {alias.name} is not allowed", node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = "." * node.level + (node.module or "")
        if node.level or not self._module_ok(module):
            self._refuse("forbidden_import", f"from {module} import is not allowed", node)
        for alias in node.names:
            if alias.name == "*" or (alias.name.startswith("_") and module != "__future__") \
                    or alias.name in FORBIDDEN_ATTRIBUTES or alias.name in FORBIDDEN_NAMES:
                self._refuse("forbidden_import", f"from {module} import {alias.name} is not allowed", node)
            elif not node.level and self._reaches_module(module, alias.name):
                self._refuse("module_attribute", f"from {module} import {alias.name} reaches another module", node)

    def visit_Name(self, node: ast.Name) -> None:
        if node.id in FORBIDDEN_NAMES:
            self._refuse("forbidden_name", f"{node.id} is not allowed", node)
        elif node.id.startswith("__") and node.id not in ALLOWED_DUNDERS:
            self._refuse("dunder_access", f"name {node.id} is not allowed", node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        attr = node.attr
        if attr.startswith("__") and attr.endswith("__") and attr not in ALLOWED_DUNDERS:
            self._refuse("dunder_access", f"attribute {attr} is not allowed", node)
        elif attr.startswith("_") and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
            self._refuse("private_attribute", f"attribute {attr} is only allowed on self or cls", node)
        elif attr in FORBIDDEN_ATTRIBUTES:
            self._refuse("forbidden_attribute", f"attribute {attr} is not allowed", node)
        elif (dotted := _dotted(node.value, self.modules)) is not None and self._reaches_module(dotted, attr):
            self._refuse("module_attribute", f"{dotted}.{attr} reaches another module", node)
        elif attr == "format" and not _safe_format_string(node.value):
            self._refuse("format_string", ".format is only allowed on a literal without attribute or index "
                         "fields", node)
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, str) and "__" in node.value:
            self._refuse("dunder_string", "string literals may not contain '__'", node)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._check_def_name(node)
        self.generic_visit(node)

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        self._check_def_name(node)
        self.generic_visit(node)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for keyword in node.keywords:
            if keyword.arg == "metaclass":
                self._refuse("forbidden_name", "metaclasses are not allowed", node)
        self.generic_visit(node)

    def _check_def_name(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        name = node.name
        if name.startswith("__") and name.endswith("__") and name not in ALLOWED_DUNDERS | {
                "__eq__", "__hash__", "__repr__", "__lt__", "__len__", "__iter__"}:
            self._refuse("dunder_access", f"defining {name} is not allowed", node)


def _dotted(node: ast.expr, modules: dict[str, str]) -> str | None:
    """The module a ``name`` or ``name.sub`` expression names through the imports (``None`` otherwise)."""
    if isinstance(node, ast.Name):
        return modules.get(node.id)
    if isinstance(node, ast.Attribute):
        head = _dotted(node.value, modules)
        return f"{head}.{node.attr}" if head is not None else None
    return None


def _safe_format_string(value: ast.expr) -> bool:
    if not (isinstance(value, ast.Constant) and isinstance(value.value, str)):
        return False
    try:
        fields = [f for _, f, spec, _ in string.Formatter().parse(value.value) if f is not None]
    except ValueError:
        return False
    return not any("." in f or "[" in f for f in fields)
