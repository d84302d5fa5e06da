"""The repository's foundation: two distributions, resq installable without FastAPI."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _deps(project: str) -> list[str]:
    data = tomllib.loads((ROOT / "src" / project / "pyproject.toml").read_text())
    names = [re.split(r"[<>=\[ ]", d, maxsplit=1)[0] for d in data["project"]["dependencies"]]
    return [n.lower() for n in names]


def test_resq_depends_only_on_its_engines() -> None:
    assert sorted(_deps("resq")) == ["anyio", "httpx", "requests"]


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
