"""Calling blocking code (a job backend, a plain ``def`` handler) from async code.

A job backend call can wait seconds (another process holds SQLite's write lock, Redis is slow
to answer); made on the event loop it would stall every request the process serves. So async
code hands such calls to :func:`run_blocking`, which runs them on anyio's worker threads (the
pool Starlette uses for plain ``def`` endpoints). Pyodide has no threads: there the call runs
inline, which is what the single-user in-browser demos need.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TypeVar

import anyio.to_thread

__all__ = ["run_blocking"]

T = TypeVar("T")

_IN_BROWSER = sys.platform == "emscripten"


async def run_blocking(func: Callable[[], T]) -> T:
    """``func()`` on a worker thread (inline under Pyodide); context variables follow it."""
    if _IN_BROWSER:
        return func()
    return await anyio.to_thread.run_sync(func)
