"""The environment a recipe's module is imported in for the demo."""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Iterator

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
