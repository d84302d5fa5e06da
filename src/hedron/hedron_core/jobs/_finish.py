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
    """Mark the job SUCCEEDED with ``result`` (FAILED if the result cannot be stored as JSON)."""
    try:
        backend.mark(job_id, JobState.SUCCEEDED, result=result)
    except (IllegalTransitionError, JobNotFoundError) as exc:
        log.warning("job %s finished but could not be marked SUCCEEDED: %s", job_id, exc)
    except (TypeError, ValueError) as exc:  # a result JSON cannot hold (or too deep)
        _mark(backend, job_id, JobState.FAILED, error=_text(exc))


def record_failure(backend: JobBackend, job_id: str, exc: BaseException) -> None:
    """Mark the job CANCELLED (for :class:`JobCancelledError`) or FAILED with the error text."""
    if isinstance(exc, JobCancelledError):
        _mark(backend, job_id, JobState.CANCELLED)
        return
    _mark(backend, job_id, JobState.FAILED, error=_text(exc))


def _text(exc: BaseException) -> str:
    """``"Type: message"``, with any lone surrogate (a file name, say) escaped as ``\\udcxx``."""
    message = str(exc)
    text = f"{type(exc).__name__}: {message}" if message else type(exc).__name__
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _mark(backend: JobBackend, job_id: str, state: JobState, error: str | None = None) -> None:
    try:
        backend.mark(job_id, state, error=error)
    except (IllegalTransitionError, JobNotFoundError) as exc:
        log.warning("job %s could not be marked %s: %s", job_id, state.value, exc)
