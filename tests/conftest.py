"""Fixtures shared by every test folder: Chromium, uvicorn servers, a redis-server."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from docsite.testing.browser import chromium_browser
from docsite.testing.live_server import serve
from docsite.testing.redis_server import RedisServer, running_redis
from tryit.recipe import recipe_names

RECIPES = frozenset(recipe_names())


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--recipe",
        action="append",
        default=[],
        metavar="NAME",
        help="run only the checks of this recipe (repeatable): scripts/test --recipe NAME",
    )


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


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """Headless Debian Chromium (module-scoped: see ``docsite.testing.browser`` for why)."""
    with chromium_browser() as browser:
        yield browser


@pytest.fixture
def live_server() -> Iterator[Callable[..., str]]:
    """Factory: ``live_server(app, **uvicorn_config) -> base_url``; stopped after the test."""
    with contextlib.ExitStack() as stack:
        yield lambda app, **config: stack.enter_context(serve(app, **config))


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    """One real redis-server (persistence off) shared by a test session. Tests that restart or
    kill Redis start their own :class:`RedisServer` instead."""
    with running_redis() as server:
        yield server


@pytest.hookimpl(tryfirst=True)  # before ``-m`` selects by mark
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A test that opens Chromium is a ``browser`` test, marked or not: ``scripts/test`` runs
    those one at a time, after the others. With ``--recipe NAME`` only the tests about that
    recipe are kept."""
    for item in items:
        if "chromium" in getattr(item, "fixturenames", ()) and not item.get_closest_marker(
            "browser"
        ):
            item.add_marker(pytest.mark.browser)
    if config.getoption("recipe"):
        wanted = set(wanted_recipes(config))
        keep = [item for item in items if about(item) & wanted]
        config.hook.pytest_deselected(items=[item for item in items if item not in keep])
        items[:] = keep
