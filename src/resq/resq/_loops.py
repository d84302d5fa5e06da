"""Which event loop runs: resq takes asyncio's own primitives where they are cheaper."""

from __future__ import annotations

import asyncio

__all__ = ["running_asyncio_loop"]


def running_asyncio_loop() -> asyncio.AbstractEventLoop | None:
    """The running asyncio loop, or None under another event loop (trio) or none."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None
