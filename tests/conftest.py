"""Fixtures shared by every test folder: Chromium, uvicorn servers, a redis-server."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from docsite.testing.browser import chromium_browser
from docsite.testing.live_server import serve
from docsite.testing.redis_server import RedisServer, running_redis


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
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test that opens Chromium is a ``browser`` test, marked or not: ``scripts/test`` runs
    those one at a time, after the others."""
    for item in items:
        if "chromium" in getattr(item, "fixturenames", ()) and not item.get_closest_marker(
            "browser"
        ):
            item.add_marker(pytest.mark.browser)
