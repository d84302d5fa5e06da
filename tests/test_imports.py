"""How the code is wired: imports run one way (tests import product code, never the reverse), no
import circles, no ``sys.path`` edits, one reader of ``recipe.toml``, one place that loads a
recipe's files by path. Read from the source with ``ast``, so a comment or a string never
counts."""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ROOT / "src"


def _python_files(*folders: str) -> Iterator[Path]:
    for folder in folders:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if "__pycache__" not in path.parts and "vendor" not in path.parts:
                yield path


@functools.cache
def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), str(path))


def _imports(tree: ast.Module) -> Iterator[str]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            yield node.module
            yield from (f"{node.module}.{alias.name}" for alias in node.names)


def test_no_file_edits_sys_path() -> None:
    offenders = []
    for path in _python_files("src", "scripts", "tests", "recipes"):
        for node in ast.walk(_tree(path)):
            if (
                isinstance(node, ast.Attribute)
                and node.attr == "path"
                and isinstance(node.value, ast.Name)
                and node.value.id == "sys"
            ):
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert offenders == []


def test_nothing_outside_tests_imports_tests() -> None:
    offenders = [
        str(path.relative_to(ROOT))
        for path in _python_files("src", "scripts", "recipes")
        if any(name == "tests" or name.startswith("tests.") for name in _imports(_tree(path)))
    ]
    assert offenders == []


def _strings(tree: ast.Module) -> set[str]:
    """The string constants of ``tree`` but its docstrings."""
    docstrings = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            docstrings.add(id(body[0].value))
    return {
        n.value
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docstrings
    }


def _parses_toml(tree: ast.Module) -> bool:
    return any(
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("load", "loads")
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "tomllib"
        for node in ast.walk(tree)
    )


def test_exactly_one_module_reads_recipe_toml() -> None:
    readers = [
        str(path.relative_to(ROOT))
        for path in _python_files("src", "scripts", "tests")
        for tree in [_tree(path)]
        if _parses_toml(tree) and any("recipe.toml" in s for s in _strings(tree))
    ]
    assert readers == ["src/tryit/tryit/recipe.py"]


def test_files_are_loaded_by_path_in_one_place() -> None:
    loaders = [
        str(path.relative_to(ROOT))
        for path in _python_files("src", "scripts", "tests")
        if any(
            isinstance(node, ast.Attribute)
            and node.attr in ("spec_from_file_location", "run_path", "SourceFileLoader")
            for node in ast.walk(_tree(path))
        )
    ]
    assert loaders == ["src/tryit/tryit/recipe.py", "tests/_support/snippets.py"]


def _module_names() -> dict[str, Path]:
    modules = {}
    for project in sorted(p for p in PACKAGES.iterdir() if (p / "pyproject.toml").is_file()):
        for path in _python_files(str(project.relative_to(ROOT))):
            parts = list(path.relative_to(project).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            if parts and parts[0] != "hatch_build":
                modules[".".join(parts)] = path
    return modules


def _graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    """Every first-party import of each module (anywhere in it: ``TYPE_CHECKING`` blocks and
    imports inside functions count), resolved to the module it names."""
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        edges = set()
        for node in ast.walk(_tree(path)):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*up, base] if base else up)
                for alias in node.names:
                    child = f"{base}.{alias.name}"
                    targets.append(child if child in modules else base)
            for target in targets:
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    edges.add(target)
        graph[name] = edges
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_circles_in_the_distributions() -> None:
    modules = _module_names()
    assert {"resq", "hedron", "hedron_core", "tryit", "docsite"} <= set(modules)
    assert _cycles(_graph(modules)) == []


def test_the_circle_check_finds_a_circle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
