"""Import circles among covert's modules: every import (top level or inside a function) drawn from the source.

    python benchmarks/import_circles.py          # prints the count and each circle's modules

A circle is a strongly connected component of two or more modules in the graph "module A imports module B"
(``from covert.x import y`` counts as an import of ``covert.x.y`` when that is a module, else of ``covert.x``),
counted as import-linter counts them.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path


def module_names(root: Path, package: str) -> dict[str, Path]:
    """Dotted module name -> source file, for every module under ``root/package``."""
    out: dict[str, Path] = {}
    for path in sorted((root / package).rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _resolve(name: str, modules: dict[str, Path]) -> str | None:
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def imports_of(module: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The package modules ``module`` imports, anywhere in its file (as import-linter's grimp counts them)."""
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = module.split(".") if is_package else module.split(".")[:-1]
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
        else:
            continue
        for target in targets:
            resolved = _resolve(target, modules)
            if resolved and resolved != module:
                found.add(resolved)
    return found


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with two or more members (Tarjan, iterative), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    out.append(sorted(component))
    return sorted(out)


def import_graph(root: Path, package: str = "covert") -> dict[str, set[str]]:
    """Module -> the package modules it imports."""
    modules = module_names(root, package)
    return {m: imports_of(m, p, modules) for m, p in modules.items()}


def main() -> None:
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[1]
    found = circles(import_graph(root))
    print(f"{len(found)} import circles among covert's modules")
    for component in found:
        print(f"  {len(component)} modules: {', '.join(component)}")


if __name__ == "__main__":
    main()
