"""Fixtures for the jobs tests: real uvicorn servers (shared helper).

Headless Chromium comes from the shared, module-scoped ``chromium`` fixture (tests/conftest.py).
"""

from __future__ import annotations

from tests._support.live_server import live_server, serve  # noqa: F401
