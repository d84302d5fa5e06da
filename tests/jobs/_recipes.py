"""Load a recipe's module fresh from ``recipes/<name>/`` (each load gets new state)."""

from __future__ import annotations

import importlib.util
import itertools
from pathlib import Path
from types import ModuleType

RECIPES = Path(__file__).resolve().parents[2] / "recipes"
_counter = itertools.count()


def load_recipe_module(name: str, filename: str) -> ModuleType:
    path = RECIPES / name / filename
    stem = f"jobs_recipe_{name.replace('-', '_')}_{path.stem}_{next(_counter)}"
    spec = importlib.util.spec_from_file_location(stem, path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
