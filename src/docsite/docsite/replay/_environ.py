"""The process environment, shared by the real runs of several recipes side by side.

A recipe's app reads ``HEDRON_JOB_RUNNER`` when it is imported (:func:`job_runner`), while a
recipe with processes of its own copies the environment for them (:func:`copied`): both take
one lock, so a copy never sees the environment half changed (iterating ``os.environ`` while
another thread removes a key raises ``KeyError``).
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator

_LOCK = threading.Lock()


@contextlib.contextmanager
def job_runner(value: str) -> Iterator[None]:
    """``HEDRON_JOB_RUNNER=value`` while the block runs (an app being imported), then as before."""
    with _LOCK:
        saved = os.environ.get("HEDRON_JOB_RUNNER")
        os.environ["HEDRON_JOB_RUNNER"] = value
        try:
            yield
        finally:
            if saved is None:
                os.environ.pop("HEDRON_JOB_RUNNER", None)
            else:
                os.environ["HEDRON_JOB_RUNNER"] = saved


def copied() -> dict[str, str]:
    """A copy of the environment, never taken while :func:`job_runner` has it changed."""
    with _LOCK:
        return dict(os.environ)
