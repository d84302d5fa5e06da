"""Fixtures for the resq tests: one real uvicorn server per session, a unique job key per test."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import requests
from resq_app import app

from docsite.testing.live_server import refused_url, serve


@pytest.fixture(scope="session")
def base_url() -> Iterator[str]:
    """The test app served by uvicorn on 127.0.0.1."""
    with serve(app) as url:
        yield url


@pytest.fixture
def key() -> str:
    """A fresh job key, so each test has its own server-side counters."""
    return uuid.uuid4().hex


@pytest.fixture
def calls(base_url: str) -> Any:
    """``calls(key)`` -> what the server received for that key, via a plain requests call."""

    def get(key: str) -> list[dict[str, Any]]:
        with requests.Session() as s:
            result: list[dict[str, Any]] = s.get(f"{base_url}/calls/{key}", timeout=5).json()
            return result

    return get


@pytest.fixture
def refused() -> Iterator[str]:
    with refused_url() as url:
        yield url


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)
