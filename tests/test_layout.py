"""The repository's foundation: two distributions, resq installable without FastAPI."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: Import names whose distribution is named otherwise.
_DISTRIBUTION = {"multipart": "python-multipart", "yaml": "pyyaml"}


def _deps(project: str) -> list[str]:
    data = tomllib.loads((ROOT / "src" / project / "pyproject.toml").read_text())
    names = [re.split(r"[<>=\[ ]", d, maxsplit=1)[0] for d in data["project"]["dependencies"]]
    return [n.lower() for n in names]


def test_resq_depends_only_on_its_engines() -> None:
    assert sorted(_deps("resq")) == ["anyio", "httpcore", "httpx", "requests"]


@pytest.mark.parametrize(
    ("project", "packages"), [("resq", ["resq"]), ("hedron", ["hedron", "hedron_core"])]
)
def test_every_library_a_distribution_imports_is_declared(
    project: str, packages: list[str]
) -> None:
    data = tomllib.loads((ROOT / "src" / project / "pyproject.toml").read_text())
    declared = set(_deps(project))
    for extra in data["project"].get("optional-dependencies", {}).values():
        declared |= {re.split(r"[<>=\[ ]", d, maxsplit=1)[0].lower() for d in extra}
    imported: set[str] = set()
    for package in packages:
        for path in (ROOT / "src" / project / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    imported |= {a.name.split(".")[0] for a in node.names}
                elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                    imported.add(node.module.split(".")[0])
    third_party = imported - set(sys.stdlib_module_names) - set(packages) - {"__future__"}
    third_party -= {"pyodide", "js"}  # the browser's Python provides them: no distribution
    names = {_DISTRIBUTION.get(name, name) for name in third_party}
    assert names <= declared, sorted(names - declared)


def test_hedron_ships_fastapi_host() -> None:
    assert "fastapi" in _deps("hedron")


def test_ci_runs_the_readme_test_command() -> None:
    readme = (ROOT / "README.md").read_text()
    assert "scripts/test" in readme
    assert "exec scripts/test" in (ROOT / ".ci" / "run").read_text()


def test_the_top_level_is_the_fixed_layout() -> None:
    """Only the agreed top-level entries are tracked (docs sources live under docs/, etc.)."""
    import subprocess

    tracked = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    top = {path.split("/", 1)[0] for path in tracked}
    allowed = {"mkdocs.yml", "docs", "src", "recipes", "tests", "scripts"}
    allowed |= {"README.md", "pyproject.toml", ".ci", ".github", ".gitignore"}
    assert top <= allowed, sorted(top - allowed)
