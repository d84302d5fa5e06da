"""Job value types: states, scope, progress and the status snapshot."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, Final

from ._checks import check_encodable, check_key

__all__ = [
    "DEFAULT_RETRY_AFTER_S",
    "TERMINAL_STATES",
    "JobProgress",
    "JobScope",
    "JobState",
    "JobStatus",
]


class JobState(enum.StrEnum):
    """The five states of a job.

    A job starts ``QUEUED``, may become ``RUNNING`` and ends in exactly one terminal state
    (``SUCCEEDED``, ``FAILED`` or ``CANCELLED``). Transitions only move forward.

    Example:
        >>> JobState.SUCCEEDED.terminal
        True
        >>> JobState("running") is JobState.RUNNING
        True
    """

    QUEUED = "queued"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELLED = "cancelled"

    @property
    def terminal(self) -> bool:
        """Whether the state is final (``SUCCEEDED``, ``FAILED`` or ``CANCELLED``)."""
        return self in TERMINAL_STATES


TERMINAL_STATES: frozenset[JobState] = frozenset(
    {JobState.SUCCEEDED, JobState.FAILED, JobState.CANCELLED}
)
"""The terminal states: once a job reaches one of them it never changes state again."""


_MAX_STEPS = 2**63 - 1  # SQLite's (and most databases') largest integer

DEFAULT_RETRY_AFTER_S: Final = 2
"""The seconds a job's status answer advertises in ``Retry-After`` unless told otherwise."""


@dataclass(frozen=True, slots=True)
class JobScope:
    """Who a job belongs to: an authenticated subject inside a tenant.

    A scope is always explicit (never inferred from a request): every read of a job names the
    scope it is made for, and a job of another scope looks exactly like a missing one.

    Args:
        auth_subject: The authenticated user (or service) id.
        tenant_id: The tenant the subject acts for.

    Example:
        >>> scope = JobScope(auth_subject="u-1", tenant_id="t-1")
        >>> scope.as_kwargs()
        {'auth_subject': 'u-1', 'tenant_id': 't-1'}
    """

    auth_subject: str
    tenant_id: str

    def __post_init__(self) -> None:
        for name in ("auth_subject", "tenant_id"):
            if getattr(self, name) is None:
                raise TypeError(
                    f"JobScope: {name} is required; a job's scope is explicit, both parts "
                    "(write JobScope(auth_subject=<signed-in user id>, tenant_id=<their tenant>))"
                )
        check_key(self.auth_subject, "auth_subject", "JobScope")
        check_key(self.tenant_id, "tenant_id", "JobScope")

    def as_kwargs(self) -> dict[str, str]:
        """The scope as keyword arguments for ``backend.get(...)`` / ``enqueue_durable(...)``."""
        return {"auth_subject": self.auth_subject, "tenant_id": self.tenant_id}


@dataclass(frozen=True, slots=True)
class JobProgress:
    """Progress of a running job: step ``k`` of ``n`` with a short message.

    Args:
        k: Steps done, ``0 <= k <= n``.
        n: Total steps, ``n >= 1``.
        message: Short human-readable text ("Resizing image 3 of 10").

    Example:
        >>> JobProgress(3, 10, "resizing").fraction
        0.3
    """

    k: int
    n: int
    message: str = ""

    def __post_init__(self) -> None:
        for name in ("k", "n"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"progress: {name} must be an int, got {type(value).__name__}")
        if self.n < 1:
            raise ValueError(f"progress: n must be >= 1, got {self.n}")
        if self.n > _MAX_STEPS:
            raise ValueError(
                f"progress: n must be at most 2**63 - 1 (what databases store), got {self.n}"
            )
        if not 0 <= self.k <= self.n:
            raise ValueError(f"progress: k must be between 0 and n={self.n}, got {self.k}")
        if not isinstance(self.message, str):
            raise TypeError(f"progress: message must be a str, got {type(self.message).__name__}")
        check_encodable(self.message, "message", "progress")

    @property
    def fraction(self) -> float:
        """``k / n`` as a float between 0 and 1."""
        return self.k / self.n


@dataclass(frozen=True, slots=True)
class JobStatus:
    """An immutable snapshot of one job, as a backend returns it.

    Timestamps are seconds since the epoch as measured by the backend's clock.

    Attributes:
        id: The job id (at least 128 random bits, URL-safe).
        state: The current :class:`JobState`.
        type: The job type given at submit time (``"resize"``).
        scope: The :class:`JobScope` the job belongs to.
        payload: The JSON payload given at submit time.
        result: The JSON result once ``SUCCEEDED`` (else ``None``).
        error: The error text once ``FAILED`` (else ``None``).
        progress: The last :class:`JobProgress` reported while running, or ``None``.
        created_at: When the job was submitted.
        updated_at: When the job last changed.
        started_at: When the job became ``RUNNING`` (``None`` if it never did).
        finished_at: When the job reached a terminal state.
        cancel_requested: Whether a cancel was requested.
        idempotency_key: The key given at submit time, if any.
        attempts: How many times a worker claimed the job.

    Code written for hedron 1.1.3 reads the same values under their old names:
    ``job_id`` (``id``), ``job_type`` (``type``), ``auth_subject`` and ``tenant_id``
    (``scope.auth_subject``, ``scope.tenant_id``) and ``retry_after``
    (2: the seconds ``job_status_response`` advertises by default). They are read-only and
    not part of :meth:`to_public_dict`.

    Example:
        >>> from hedron_core.jobs import InMemoryJobBackend
        >>> backend = InMemoryJobBackend()
        >>> status = backend.submit("demo", {"n": 1}, auth_subject="u", tenant_id="t")
        >>> status.state, status.terminal
        (<JobState.QUEUED: 'queued'>, False)
    """

    id: str
    state: JobState
    type: str
    scope: JobScope
    payload: Any = None
    result: Any = None
    error: str | None = None
    progress: JobProgress | None = None
    created_at: float = 0.0
    updated_at: float = 0.0
    started_at: float | None = None
    finished_at: float | None = None
    cancel_requested: bool = False
    idempotency_key: str | None = None
    attempts: int = field(default=0)

    @property
    def terminal(self) -> bool:
        """Whether the job is in a terminal state."""
        return self.state in TERMINAL_STATES

    # --- the names hedron 1.1.3 used (read-only) ------------------------------------------

    @property
    def job_id(self) -> str:
        """The job id: the same as :attr:`id` (hedron 1.1.3's name)."""
        return self.id

    @property
    def job_type(self) -> str:
        """The job type: the same as :attr:`type` (hedron 1.1.3's name)."""
        return self.type

    @property
    def auth_subject(self) -> str:
        """``scope.auth_subject`` (hedron 1.1.3's name)."""
        return self.scope.auth_subject

    @property
    def tenant_id(self) -> str:
        """``scope.tenant_id`` (hedron 1.1.3's name)."""
        return self.scope.tenant_id

    @property
    def retry_after(self) -> int:
        """Seconds a client should wait before asking again: 2, what ``job_status_response``
        advertises unless told otherwise (hedron 1.1.3's name)."""
        return DEFAULT_RETRY_AFTER_S

    def owned_by(self, auth_subject: str, tenant_id: str) -> bool:
        """Whether the job belongs to exactly this subject in this tenant."""
        return self.scope.auth_subject == auth_subject and self.scope.tenant_id == tenant_id

    def to_public_dict(self) -> dict[str, Any]:
        """The JSON shape served to the job's owner (no payload, no scope).

        Returns:
            A dict with ``id``, ``state``, ``type``, ``result``, ``error``, ``progress``
            (``{"k", "n", "message"}`` or ``None``), the timestamps and ``cancel_requested``.
        """
        progress = None
        if self.progress is not None:
            progress = {
                "k": self.progress.k,
                "n": self.progress.n,
                "message": self.progress.message,
            }
        return {
            "id": self.id,
            "state": self.state.value,
            "terminal": self.terminal,
            "type": self.type,
            "result": self.result,
            "error": self.error,
            "progress": progress,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "started_at": self.started_at,
            "finished_at": self.finished_at,
            "cancel_requested": self.cancel_requested,
        }
