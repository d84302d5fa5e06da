"""Finding recipes (``recipes/<name>/recipe.toml``) and loading their modules fresh."""

from __future__ import annotations

import importlib.util
import itertools
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

_counter = itertools.count()


def recipes_root() -> Path:
    """Where the recipes are: inside the wheel (browser) or the repository's ``recipes/``."""
    bundled = Path(__file__).resolve().parent / "_recipes"
    if bundled.is_dir():
        return bundled
    return Path(__file__).resolve().parents[3] / "recipes"


def recipe_names(root: Path | None = None) -> list[str]:
    """Names of every recipe folder holding a ``recipe.toml``, sorted."""
    base = root or recipes_root()
    return sorted(p.parent.name for p in base.glob("*/recipe.toml"))


@dataclass(frozen=True)
class Recipe:
    """A recipe folder and its ``recipe.toml``.

    Attributes:
        name: Folder name.
        folder: Absolute path of the folder.
        library: ``"resq"`` or ``"hedron"``.
        demo: The ``[demo]`` table (driver settings such as ``adapter`` or ``window``).
    """

    name: str
    folder: Path
    library: str
    demo: dict[str, Any] = field(default_factory=dict)

    def load(self, filename: str) -> ModuleType:
        """Import ``filename`` from the folder as a fresh module (new state every run)."""
        path = self.folder / filename
        stem = f"recipe_{self.name.replace('-', '_')}_{path.stem}_{next(_counter)}"
        spec = importlib.util.spec_from_file_location(stem, path)
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot import {path}")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    @property
    def transcript_path(self) -> Path:
        """The committed transcript."""
        return self.folder / "transcript.txt"


def load_recipe(name: str, root: Path | None = None) -> Recipe:
    """Read ``<root>/<name>/recipe.toml``.

    Raises:
        ValueError: no recipe of that name, or its ``library`` is unknown.
    """
    folder = (root or recipes_root()) / name
    toml = folder / "recipe.toml"
    if not toml.is_file():
        raise ValueError(f"recipe: no recipe named {name!r} (looked for {toml})")
    data = tomllib.loads(toml.read_text(encoding="utf-8"))
    library = data.get("library")
    if library not in ("resq", "hedron"):
        raise ValueError(f"recipe {name!r}: library must be 'resq' or 'hedron', got {library!r}")
    return Recipe(name=name, folder=folder, library=library, demo=dict(data.get("demo", {})))
