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
