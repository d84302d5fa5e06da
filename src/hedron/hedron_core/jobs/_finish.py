"""How every runner records a task's outcome (one place, used by all runners)."""

from __future__ import annotations

import logging
from typing import Any

from ._context import JobCancelledError
from ._machine import IllegalTransitionError, JobNotFoundError
from ._protocol import JobBackend
from ._types import JobState

__all__ = ["record_failure", "record_success"]

log = logging.getLogger("hedron.jobs")


def record_success(backend: JobBackend, job_id: str, result: Any) -> None:
    """Mark the job SUCCEEDED with ``result`` (FAILED if the result is not JSON)."""
    try:
        backend.mark(job_id, JobState.SUCCEEDED, result=result)
    except TypeError as exc:
        _mark(backend, job_id, JobState.FAILED, error=f"TypeError: {exc}")
    except (IllegalTransitionError, JobNotFoundError) as exc:
        log.warning("job %s finished but could not be marked SUCCEEDED: %s", job_id, exc)


def record_failure(backend: JobBackend, job_id: str, exc: BaseException) -> None:
    """Mark the job CANCELLED (for :class:`JobCancelledError`) or FAILED with the error text."""
    if isinstance(exc, JobCancelledError):
        _mark(backend, job_id, JobState.CANCELLED)
        return
    text = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    _mark(backend, job_id, JobState.FAILED, error=text)


def _mark(backend: JobBackend, job_id: str, state: JobState, error: str | None = None) -> None:
    try:
        backend.mark(job_id, state, error=error)
    except (IllegalTransitionError, JobNotFoundError) as exc:
        log.warning("job %s could not be marked %s: %s", job_id, state.value, exc)
