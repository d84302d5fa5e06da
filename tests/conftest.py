"""Fixtures shared by every test folder."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests._support.browser import chromium_browser


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """Headless Debian Chromium (module-scoped: see ``tests/_support/browser.py`` for why)."""
    with chromium_browser() as browser:
        yield browser


@pytest.hookimpl(tryfirst=True)  # before ``-m`` selects by mark
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test that opens Chromium is a ``browser`` test, marked or not: ``scripts/test`` runs
    those one at a time, after the others."""
    for item in items:
        if "chromium" in getattr(item, "fixturenames", ()) and not item.get_closest_marker(
            "browser"
        ):
            item.add_marker(pytest.mark.browser)
