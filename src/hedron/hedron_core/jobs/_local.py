"""``local_runner``: the right built-in runner for where the code runs."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping
from typing import Any

from ._context import Task
from ._protocol import ClaimingJobBackend
from ._stepping import SteppingRunner
from ._threads import ThreadPoolRunner

__all__ = ["RUNNER_ENV", "local_runner"]

RUNNER_ENV = "HEDRON_JOB_RUNNER"
"""Environment variable that picks the runner: ``threads`` or ``stepping``."""


def local_runner(
    backend: ClaimingJobBackend,
    tasks: Mapping[str, Task],
    *,
    kind: str | None = None,
    clock: Callable[[], float] | None = None,
    **options: Any,
) -> ThreadPoolRunner | SteppingRunner:
    """A :class:`ThreadPoolRunner`, or a :class:`SteppingRunner` where threads do not exist.

    The kind is ``kind`` if given, else the ``HEDRON_JOB_RUNNER`` environment variable, else
    ``"stepping"`` under Pyodide (``sys.platform == "emscripten"``) and ``"threads"``
    elsewhere. Application code written against this function runs unchanged in a server
    and in the docs' in-browser demos.

    Args:
        backend: The claiming backend to pull jobs from.
        tasks: Maps job types to task functions.
        kind: ``"threads"`` or ``"stepping"``.
        clock: The stepping runner's clock (ignored by the thread pool).
        **options: Passed on to the runner's constructor.

    Example:
        >>> from hedron_core.jobs import InMemoryJobBackend
        >>> async def noop(ctx):
        ...     return None
        >>> runner = local_runner(InMemoryJobBackend(), {"noop": noop}, kind="stepping")
        >>> type(runner).__name__
        'SteppingRunner'
    """
    if kind is None:
        kind = os.environ.get(RUNNER_ENV) or (
            "stepping" if sys.platform == "emscripten" else "threads"
        )
    if kind == "stepping":
        return SteppingRunner(backend, tasks, clock=clock, **options)
    if kind == "threads":
        return ThreadPoolRunner(backend, tasks, **options)
    raise ValueError(f"local_runner: kind must be 'threads' or 'stepping', got {kind!r}")
