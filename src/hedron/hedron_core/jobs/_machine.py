"""The forward-only job state machine and the errors backends raise."""

from __future__ import annotations

import secrets
from typing import Any

from ._checks import (
    MAX_IDEMPOTENCY_KEY_LENGTH,
    check_encodable,
    check_key,
    check_lease,
    check_number,
    dump_json,
)
from ._types import TERMINAL_STATES, JobProgress, JobState

__all__ = [
    "IdempotencyConflictError",
    "IllegalTransitionError",
    "JobNotFoundError",
    "check_transition",
    "new_job_id",
]

_ALLOWED: dict[JobState, frozenset[JobState]] = {
    JobState.QUEUED: frozenset({JobState.RUNNING, *TERMINAL_STATES}),
    JobState.RUNNING: frozenset(TERMINAL_STATES),
}

JOB_ID_BYTES = 18
"""Random bytes in a job id (144 bits; the id is the URL-safe base64 of them, 24 characters)."""


class IllegalTransitionError(ValueError):
    """A transition the state machine forbids (for example ``SUCCEEDED -> RUNNING``).

    Raised before anything is stored: the job is left exactly as it was.
    """

    def __init__(self, job_id: str, current: JobState, requested: JobState | str) -> None:
        self.job_id = job_id
        self.current = current
        self.requested = requested
        shown = requested.value if isinstance(requested, JobState) else requested
        allowed = sorted(s.value for s in _ALLOWED.get(current, frozenset()))
        hint = f"allowed: {', '.join(allowed)}" if allowed else f"{current.value} is terminal"
        super().__init__(
            f"job {job_id}: illegal transition {current.value} -> {shown} ({hint}); "
            "job states only move forward"
        )


class JobNotFoundError(KeyError):
    """A worker-side call named a job id the backend does not hold."""

    def __init__(self, job_id: str) -> None:
        self.job_id = job_id
        super().__init__(f"job {job_id!r} not found")

    def __str__(self) -> str:
        return str(self.args[0])


class IdempotencyConflictError(ValueError):
    """An idempotency key was reused in the same scope with a different type or payload."""


def new_job_id() -> str:
    """A fresh job id with 144 random bits (URL-safe text).

    Example:
        >>> len(new_job_id())
        24
    """
    return secrets.token_urlsafe(JOB_ID_BYTES)


def check_transition(job_id: str, current: JobState, requested: JobState) -> None:
    """Raise :class:`IllegalTransitionError` unless ``current -> requested`` is allowed.

    Allowed: ``QUEUED -> RUNNING``, ``QUEUED -> terminal`` and ``RUNNING -> terminal``.

    Example:
        >>> check_transition("j", JobState.QUEUED, JobState.SUCCEEDED)  # fine
        >>> check_transition("j", JobState.SUCCEEDED, JobState.RUNNING)
        Traceback (most recent call last):
        ...
        hedron_core.jobs._machine.IllegalTransitionError: job j: illegal transition ...
    """
    if requested not in _ALLOWED.get(current, frozenset()):
        raise IllegalTransitionError(job_id, current, requested)


# --- argument validation shared by every backend (raised before anything is stored) ---


def coerce_state(state: object) -> JobState:
    """Accept a :class:`JobState` or its value; raise a clear error naming ``state``."""
    if isinstance(state, JobState):
        return state
    if isinstance(state, str):
        try:
            return JobState(state)
        except ValueError:
            names = ", ".join(s.value for s in JobState)
            raise ValueError(f"mark: state must be one of {names}, got {state!r}") from None
    raise TypeError(f"mark: state must be a JobState, got {type(state).__name__}")


def validate_mark(state: JobState, result: Any, error: str | None) -> tuple[str | None, str | None]:
    """Check ``mark`` arguments; return the JSON text of ``result`` and the error text."""
    result_json = None
    if result is not None:
        if state is not JobState.SUCCEEDED:
            raise ValueError(f"mark: result is only allowed with SUCCEEDED, not {state.value}")
        result_json = dump_json(result, "result", "mark")
    if error is not None:
        if not isinstance(error, str):
            raise TypeError(f"mark: error must be a str, got {type(error).__name__}")
        if state is not JobState.FAILED:
            raise ValueError(f"mark: error is only allowed with FAILED, not {state.value}")
        check_encodable(error, "error", "mark")
    return result_json, error


def validate_submit(
    job_type: object,
    auth_subject: object,
    tenant_id: object,
    idempotency_key: object,
    owner: str = "submit",
) -> None:
    """Check ``submit`` arguments, naming the bad parameter."""
    check_key(job_type, "job_type", owner)
    validate_scope(auth_subject, tenant_id, owner)
    if idempotency_key is not None:
        check_key(idempotency_key, "idempotency_key", owner, MAX_IDEMPOTENCY_KEY_LENGTH)


def validate_scope(auth_subject: object, tenant_id: object, owner: str) -> None:
    """Check a scope pair passed to a scoped call, naming the bad parameter."""
    check_key(auth_subject, "auth_subject", owner)
    check_key(tenant_id, "tenant_id", owner)


def validate_lease(worker: object, lease_s: object, owner: str) -> float:
    """Check the ``worker`` and ``lease_s`` of a claim or renewal; return the lease."""
    check_key(worker, "worker", owner)
    return check_lease(lease_s, owner)


def cleanup_now(now: object, clock: Any) -> float:
    """``cleanup_expired(now=...)``: a number of seconds (any sign), or ``None`` for now."""
    if now is None:
        return float(clock())
    return check_number(now, "now", "cleanup_expired", negative=True)


def make_progress(k: object, n: object, message: object) -> JobProgress:
    """Build a :class:`JobProgress`, raising errors that name ``k``, ``n`` or ``message``."""
    return JobProgress(k, n, message)  # type: ignore[arg-type]
