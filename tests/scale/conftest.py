"""Fixtures for the scale-out tests: one real redis-server per session, fresh key prefixes."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from docsite.testing.redis_server import RedisServer


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test in this folder talks to a real redis-server."""
    here = Path(__file__).resolve().parent
    for item in items:
        if Path(str(item.fspath)).resolve().is_relative_to(here):
            item.add_marker(pytest.mark.redis)


@pytest.fixture
def redis_url(redis_server: RedisServer) -> str:
    return redis_server.url


@pytest.fixture
def prefix() -> str:
    """A key prefix no other test uses (tests share one redis-server)."""
    return f"test:{uuid.uuid4().hex[:12]}:"


@pytest.fixture
def redis_client(redis_server: RedisServer) -> Iterator[object]:
    import redis

    client = redis.Redis.from_url(redis_server.url)
    yield client
    client.close()
