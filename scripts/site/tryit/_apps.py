"""What the driver sets up around a recipe's app: its environment and its job runner."""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Iterator
from typing import Any

DEMO_ENV = {
    "HEDRON_JOB_RUNNER": "stepping",  # no threads: the demo steps the jobs itself
    "HEDRON_SESSION_SECRET": secrets.token_urlsafe(48),  # in-process only
}


@contextlib.contextmanager
def demo_environment() -> Iterator[None]:
    """Set the demo's environment while the recipe module is imported."""
    saved = {key: os.environ.get(key) for key in DEMO_ENV}
    os.environ.update(DEMO_ENV)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def advance_jobs(runner: Any, seconds: float) -> None:
    """Move the runner's virtual clock by ``seconds`` and run what became due."""
    if runner is None:
        return
    advance = getattr(runner.clock, "advance", None)
    if callable(advance):
        advance(seconds)
    runner.step(advance=False)
