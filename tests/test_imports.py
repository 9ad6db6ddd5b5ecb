"""The package's import graph has one direction: no module imports, even lazily, a module that imports it.

Imports placed inside functions or under ``if TYPE_CHECKING:`` count too, since they are still a
dependency of one module on the other. The page engine stays free of Scrapy and Twisted, so that
``webclean_scrapy.engine.api`` can be used without a crawler installed.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from collections.abc import Collection, Iterator
from pathlib import Path

PACKAGE = "webclean_scrapy"
ROOT = Path(__file__).resolve().parent.parent / PACKAGE

#: Frameworks the page engine must not import.
CRAWLER_PACKAGES = ("scrapy", "twisted")


def module_name(path: Path, root: Path = ROOT) -> str:
    """The dotted name of the module at *path* in the package at *root*."""
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def package_modules(root: Path = ROOT) -> dict[str, Path]:
    """Every module of the package by dotted name: its ``.py`` files and the ``.pyx`` sources of
    its compiled modules (so that an import of one is not taken for an import of its package)."""
    return {module_name(path, root): path for pattern in ("*.py", "*.pyx") for path in sorted(root.rglob(pattern))}


#: A Python-level import line of a ``.pyx`` source (``cimport`` reads declarations at build time).
_PYX_IMPORT = re.compile(r"^\s*(?:from\s+(\S+)\s+import\s+([^#]+)|import\s+([^#]+))$", re.M)


def module_imports(path: Path, module: str) -> list[tuple[str, tuple[str, ...], int]]:
    """The imports of one module, read with :mod:`ast` (Cython sources with a pattern)."""
    source = path.read_text(encoding="utf-8")
    if path.suffix == ".pyx":
        found = []
        for match in _PYX_IMPORT.finditer(source):
            line = source.count("\n", 0, match.start()) + 1
            if match.group(1):
                names = tuple(name.split(" as ")[0].strip(" ()") for name in match.group(2).split(","))
                found.append((match.group(1), names, line))
            else:
                found.extend((name.split(" as ")[0].strip(), (), line) for name in match.group(3).split(","))
        return found
    tree = ast.parse(source, filename=str(path))
    return list(imported_names(tree, module, path.name == "__init__.py"))


def imported_names(tree: ast.Module, module: str, is_package: bool) -> Iterator[tuple[str, tuple[str, ...], int]]:
    """Each import anywhere in *tree*: the dotted module it names, the names taken from it, its line.

    Relative imports are resolved against *module*; a plain ``import a.b`` takes no names.
    """
    base = module.split(".") if is_package else module.split(".")[:-1]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, (), node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                anchor = base[: len(base) - node.level + 1]
                source = ".".join(anchor + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            yield source, tuple(alias.name for alias in node.names), node.lineno


def imported_modules(source: str, names: tuple[str, ...], modules: Collection[str]) -> set[str]:
    """The package modules one import statement depends on.

    ``from pkg import name`` depends on the submodule ``pkg.name`` when there is one, else on
    ``pkg`` itself. The parent packages that Python runs before any submodule are not counted.
    """
    if not names:
        return {source} & set(modules)
    found = set()
    for name in names:
        submodule = f"{source}.{name}"
        found.add(submodule if submodule in modules else source)
    return found & set(modules)


def import_graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> the package modules it imports, at module level, in functions or for type checking."""
    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        targets: set[str] = set()
        for source, names, _line in module_imports(path, module):
            targets |= imported_modules(source, names, modules)
        targets.discard(module)
        graph[module] = targets
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            advanced = False
            for successor in successors:
                if successor not in graph:
                    continue
                if successor not in index:
                    index[successor] = low[successor] = counter
                    counter += 1
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(graph[successor]))))
                    advanced = True
                    break
                if successor in on_stack:
                    low[node] = min(low[node], index[successor])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def crawler_imports(modules: dict[str, Path]) -> list[str]:
    """``module:line imports name`` for each import of Scrapy or Twisted in the engine."""
    found = []
    for module, path in modules.items():
        if not module.startswith(f"{PACKAGE}.engine"):
            continue
        for source, _names, line in module_imports(path, module):
            if source.split(".")[0] in CRAWLER_PACKAGES:
                found.append(f"{module}:{line} imports {source}")
    return sorted(set(found))


def test_package_has_no_import_cycle() -> None:
    found = cycles(import_graph(package_modules()))
    assert not found, "import cycles:\n" + "\n".join(" <-> ".join(component) for component in found)


def test_engine_does_not_import_crawler() -> None:
    found = crawler_imports(package_modules())
    assert not found, "\n".join(found)


def test_engine_api_imports_without_crawler() -> None:
    code = (
        "import sys, webclean_scrapy.engine.api; "
        f"print(','.join(sorted(name for name in {CRAWLER_PACKAGES!r} if name in sys.modules)))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT.parent)
    assert result.stdout.strip() == "", f"importing the engine API loaded {result.stdout.strip()}"


def test_cycle_finder_sees_a_lazy_cycle(tmp_path: Path) -> None:
    package = tmp_path / PACKAGE
    (package / "engine").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "engine" / "__init__.py").write_text("")
    (package / "engine" / "a.py").write_text("from webclean_scrapy.engine import b\n")
    (package / "engine" / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from webclean_scrapy.engine.c import C\n"
    )
    (package / "engine" / "c.py").write_text("def f():\n    from .a import x\n    import scrapy\n")
    modules = package_modules(package)
    assert cycles(import_graph(modules)) == [[f"{PACKAGE}.engine.a", f"{PACKAGE}.engine.b", f"{PACKAGE}.engine.c"]]
    assert crawler_imports(modules) == [f"{PACKAGE}.engine.c:3 imports scrapy"]
