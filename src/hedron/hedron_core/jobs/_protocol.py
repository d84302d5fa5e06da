"""The ``JobBackend`` protocol every backend implements (in-memory, SQLite, Redis, ...)."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any, Protocol, runtime_checkable

from ._types import JobState, JobStatus

__all__ = ["ClaimingJobBackend", "JobBackend"]


@runtime_checkable
class JobBackend(Protocol):
    """Stores jobs and their status; the seam between the web app and the workers.

    User-facing reads are **scoped**: ``get`` and ``request_cancel`` take the caller's
    ``auth_subject`` and ``tenant_id`` and treat a job of another scope exactly like a missing
    one (they return ``None`` in both cases). Worker-side calls (``load``, ``mark``,
    ``progress``) take only the job id.

    Every method validates its arguments before storing anything and raises ``TypeError`` /
    ``ValueError`` naming the bad parameter (the same rules for every backend: see "What a
    backend accepts" on the job backends page); an illegal state change raises
    :class:`~hedron_core.jobs.IllegalTransitionError` and leaves the job unchanged.

    Example:
        >>> from hedron_core.jobs import InMemoryJobBackend, JobState
        >>> backend = InMemoryJobBackend()
        >>> job = backend.submit("demo", {"n": 1}, auth_subject="u", tenant_id="t")
        >>> backend.mark(job.id, JobState.SUCCEEDED, result={"ok": True}).state.value
        'succeeded'
        >>> backend.get(job.id, auth_subject="someone-else", tenant_id="t") is None
        True
    """

    def submit(
        self,
        job_type: str,
        payload: Any,
        *,
        auth_subject: str,
        tenant_id: str,
        idempotency_key: str | None = None,
    ) -> JobStatus:
        """Store a new ``QUEUED`` job and return it once it is durably acknowledged.

        With an ``idempotency_key``, a second submit with the same key in the same scope
        returns the first job instead of creating a new one (same type and payload required,
        else :class:`~hedron_core.jobs.IdempotencyConflictError`). Keys of different scopes
        never collide.
        """
        ...

    def get(self, job_id: str, *, auth_subject: str, tenant_id: str) -> JobStatus | None:
        """The job if it exists **and** belongs to this scope, else ``None`` (no oracle)."""
        ...

    def load(self, job_id: str) -> JobStatus | None:
        """Worker-side unscoped read; ``None`` if the job does not exist."""
        ...

    def mark(
        self,
        job_id: str,
        state: JobState,
        *,
        result: Any = None,
        error: str | None = None,
    ) -> JobStatus:
        """Move the job forward to ``state`` (``result`` only with SUCCEEDED, ``error`` only
        with FAILED) and return the new status.

        Raises:
            JobNotFoundError: No such job.
            IllegalTransitionError: The state machine forbids the move; nothing changed.
        """
        ...

    def progress(self, job_id: str, k: int, n: int, message: str = "") -> JobStatus:
        """Record progress ``k`` of ``n`` with a message; only while the job is RUNNING.

        Raises:
            JobNotFoundError: No such job.
            IllegalTransitionError: The job is not RUNNING; nothing changed.
        """
        ...

    def request_cancel(self, job_id: str, *, auth_subject: str, tenant_id: str) -> JobStatus | None:
        """Ask for the job to stop (scoped); return the job once the cancel is recorded.

        A QUEUED job becomes CANCELLED at once. A RUNNING job gets its cancel flag set; the
        runner stops it at its next cancellation point. ``None`` when no cancel was recorded:
        the job is missing, of another scope, or already finished (then it is left
        unchanged), so ``if backend.request_cancel(...):`` tells whether the job will stop.
        """
        ...

    def cleanup_expired(self, *, now: float | None = None) -> int:
        """Delete terminal jobs older than the backend's retention; return how many."""
        ...

    def close(self) -> None:
        """Release connections and files (idempotent)."""
        ...


@runtime_checkable
class ClaimingJobBackend(JobBackend, Protocol):
    """A backend the built-in runners can pull work from (in-memory and SQLite).

    Claims are leases: a claimed job is RUNNING with ``lease_until = now + lease_s``. If the
    worker dies (even ``kill -9``) the lease runs out and another worker may claim the job
    again; the state stays RUNNING (states never move back) and ``attempts`` grows.
    """

    def claim(self, job_id: str, *, worker: str, lease_s: float) -> JobStatus | None:
        """Claim one job: QUEUED, or RUNNING with an expired lease. ``None`` otherwise."""
        ...

    def claim_next(
        self, *, worker: str, lease_s: float, job_types: Collection[str] | None = None
    ) -> JobStatus | None:
        """Claim the oldest claimable job (optionally only of ``job_types``), or ``None``."""
        ...

    def renew(self, job_id: str, *, worker: str, lease_s: float) -> bool:
        """Extend this worker's lease on a RUNNING job; ``False`` if it holds no lease."""
        ...
