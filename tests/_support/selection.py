"""Which recipes a test run is about: ``--recipe NAME`` (``scripts/test --recipe NAME``)."""

from __future__ import annotations

import pytest

from tryit.recipe import recipe_names

RECIPES = frozenset(recipe_names())


def about(item: pytest.Item) -> frozenset[str]:
    """The recipes a test checks: its ``name``/``recipe`` parameter when that names a recipe,
    or the names of its ``recipes`` mark (``@pytest.mark.recipes("a", "b")``)."""
    callspec = getattr(item, "callspec", None)
    params = callspec.params if callspec is not None else {}
    found = {params[k] for k in ("name", "recipe") if isinstance(params.get(k), str)}
    marker = item.get_closest_marker("recipes")
    if marker is not None:
        found |= set(marker.args)
    return frozenset(found & RECIPES)


def wanted_recipes(config: pytest.Config) -> list[str]:
    """The recipes ``--recipe`` names (every recipe without it). A module-scoped fixture that
    runs several recipes at once (the real replays) runs only these.

    Raises:
        pytest.UsageError: a name is not a recipe.
    """
    names: list[str] = config.getoption("recipe")
    unknown = sorted(set(names) - RECIPES)
    if unknown:
        raise pytest.UsageError(
            f"--recipe: no recipe named {unknown} (recipes/: {sorted(RECIPES)})"
        )
    return names or sorted(RECIPES)
