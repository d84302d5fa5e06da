"""Fixtures for the hedron tests: real uvicorn servers (Chromium: the shared ``chromium``)."""

from __future__ import annotations

from tests._support.live_server import live_server, serve  # noqa: F401
