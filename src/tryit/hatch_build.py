"""Build hook: the repository's ``recipes/`` go into the wheel as ``tryit/_recipes/``.

An editable install needs nothing: :func:`tryit.recipes_root` then finds the repository's own
``recipes/`` folder.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

RECIPES = Path(__file__).resolve().parent.parent.parent / "recipes"


class CustomBuildHook(BuildHookInterface):  # type: ignore[misc]
    """Add every recipe file (no bytecode caches) under ``tryit/_recipes/``."""

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel" or version == "editable":
            return
        if not RECIPES.is_dir():
            raise RuntimeError(f"{RECIPES} is missing: the tryit wheel is built in its repository")
        for path in sorted(RECIPES.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
                rel = path.relative_to(RECIPES).as_posix()
                build_data["force_include"][str(path)] = f"tryit/_recipes/{rel}"
