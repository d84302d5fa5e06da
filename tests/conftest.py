"""Fixtures shared by every test folder: Chromium, uvicorn servers, a redis-server."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from docsite.testing.browser import TEST_ARGS, chromium_browser
from docsite.testing.live_server import serve
from docsite.testing.redis_server import RedisServer, running_redis
from tests._support.selection import about, wanted_recipes


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--recipe",
        action="append",
        default=[],
        metavar="NAME",
        help="run only the checks of this recipe (repeatable): scripts/test --recipe NAME",
    )


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """Headless Debian Chromium (module-scoped, WebAssembly by the baseline compiler only: see
    ``docsite.testing.browser`` for why)."""
    with chromium_browser(TEST_ARGS) as browser:
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
    """A test that opens Chromium is a ``browser`` test, marked or not; one that needs the
    built site is ``slow``: ``scripts/test --quick`` leaves both out. With ``--recipe NAME``
    only the tests about that recipe are kept."""
    for item in items:
        fixtures = getattr(item, "fixturenames", ())
        if "chromium" in fixtures and not item.get_closest_marker("browser"):
            item.add_marker(pytest.mark.browser)
        if {"built_site", "site_server"} & set(fixtures):  # the whole site is built for it
            item.add_marker(pytest.mark.slow)
    if config.getoption("recipe"):
        wanted = set(wanted_recipes(config))
        keep = [item for item in items if about(item) & wanted]
        config.hook.pytest_deselected(items=[item for item in items if item not in keep])
        items[:] = keep
    items[:] = _longest_first(items)


def _longest_first(items: list[pytest.Item]) -> list[pytest.Item]:
    """The test modules in the order they should start when several processes share them
    (``scripts/test``: ``--dist loadfile --no-loadscope-reorder``): those that wait on real
    time or build the site first, then those that drive Chromium, then the quick ones, which
    fill the processes' last minutes. Each module's tests keep their order."""

    def weight(item: pytest.Item) -> int:
        return (
            0 if item.get_closest_marker("slow") else 1 if item.get_closest_marker("browser") else 2
        )

    modules: dict[str, int] = {}
    for item in items:
        module = item.nodeid.split("::", 1)[0]
        modules[module] = min(modules.get(module, 2), weight(item))
    return sorted(items, key=lambda item: modules[item.nodeid.split("::", 1)[0]])
