"""``QueuedJobBackend``: a Redis job backend that also hands each new job to a queue engine.

Pass it as ``Hedron(job_backend=...)`` (or ``enqueue_durable(..., backend=...)``): ``submit``
stores the job in Redis and then sends it to Celery or RQ. Nothing else in the app changes -
``enqueue_durable``, scoped ``get`` and ``job_status_response`` work as with any backend.
"""

from __future__ import annotations

import logging
from collections.abc import Collection
from typing import Any, Protocol

from hedron_core.jobs._machine import IllegalTransitionError, JobNotFoundError
from hedron_core.jobs._types import JobState, JobStatus
from hedron_core.jobs.redis_backend import RedisJobBackend

from ._worker import DEFAULT_MAX_ATTEMPTS, check_attempts

__all__ = ["Dispatcher", "EnqueueRefusedError", "QueuedJobBackend"]

log = logging.getLogger("hedron.jobs.queue")


class EnqueueRefusedError(RuntimeError):
    """The queue engine (broker) refused a job; the job was marked FAILED with this text."""


class Dispatcher(Protocol):
    """What a queue engine adapter provides (Celery and RQ adapters implement it)."""

    engine: str

    def send(self, status: JobStatus) -> None:
        """Put the job on its queue; raise on any broker error."""
        ...

    def revoke(self, job_id: str) -> None:
        """Withdraw a queued job's message (best effort; the claim protects anyway)."""
        ...


class QueuedJobBackend:
    """A :class:`~hedron_core.jobs.redis_backend.RedisJobBackend` that dispatches new jobs.

    * ``submit`` stores the job, then sends it to the queue **once** (an idempotent resubmit
      returns the existing job without sending it again). If the broker refuses, the job is
      marked FAILED with a clear error (visible to pollers) and its idempotency key is freed,
      so the user can simply submit again.
    * ``request_cancel`` cancels a QUEUED job and withdraws its message; a RUNNING job stops at
      its next ``await ctx.sleep(...)``.
    * :meth:`recover_lost` re-sends RUNNING jobs whose worker stopped renewing its lease
      (killed, OOM, host lost), or marks them FAILED after ``max_attempts``.

    Every other call goes straight to the Redis backend.

    Args:
        backend: The shared Redis backend.
        dispatcher: The queue engine adapter (built by the Celery/RQ integration).
        max_attempts: How many workers may start a job before a lost one is marked FAILED.

    Example:
        ```python
        jobs = CeleryJobs(ScaleConfig.from_env(), {"report": report})
        app = Hedron(job_backend=jobs.backend)  # jobs.backend is a QueuedJobBackend
        job_id = enqueue_durable("report", {}, auth_subject="u", tenant_id="t",
                                 backend=jobs.backend)
        jobs.backend.recover_lost()  # on a schedule: retry or fail jobs of dead workers
        ```
    """

    def __init__(
        self,
        backend: RedisJobBackend,
        dispatcher: Dispatcher,
        *,
        max_attempts: int = DEFAULT_MAX_ATTEMPTS,
    ) -> None:
        if not isinstance(backend, RedisJobBackend):
            raise TypeError(
                f"QueuedJobBackend: backend must be a RedisJobBackend, got {type(backend).__name__}"
            )
        check_attempts("QueuedJobBackend", max_attempts)
        if not all(callable(getattr(dispatcher, m, None)) for m in ("send", "revoke")) or not (
            isinstance(getattr(dispatcher, "engine", None), str)
        ):
            raise TypeError(
                "QueuedJobBackend: dispatcher must have send(status), revoke(job_id) and an "
                "engine name (the Celery/RQ integrations build one), "
                f"got {type(dispatcher).__name__}"
            )
        self.redis = backend
        self.dispatcher = dispatcher
        self.max_attempts = max_attempts

    # --- the calls that involve the queue ------------------------------------------------

    def submit(
        self,
        job_type: str,
        payload: Any,
        *,
        auth_subject: str,
        tenant_id: str,
        idempotency_key: str | None = None,
    ) -> JobStatus:
        """Store the job and send it to the queue (FAILED with a clear error if refused)."""
        status, created = self.redis.submit_new(
            job_type,
            payload,
            auth_subject=auth_subject,
            tenant_id=tenant_id,
            idempotency_key=idempotency_key,
        )
        if not created:
            return status
        return self._send(status)

    def _send(self, status: JobStatus) -> JobStatus:
        try:
            self.dispatcher.send(status)
        except Exception as exc:
            error = EnqueueRefusedError(
                f"could not enqueue job {status.id} on the {self.dispatcher.engine} queue "
                f"({type(exc).__name__}: {exc})"
            )
            log.error("%s", error)
            return self._fail_unsent(status.id, str(error))
        return status

    def _fail_unsent(self, job_id: str, error: str) -> JobStatus:
        try:
            failed = self.redis.mark(job_id, JobState.FAILED, error=error)
        except (IllegalTransitionError, JobNotFoundError):
            current = self.redis.load(job_id)
            if current is None:
                raise
            failed = current
        self.redis.release_idempotency_key(job_id)
        return failed

    def request_cancel(self, job_id: str, *, auth_subject: str, tenant_id: str) -> JobStatus | None:
        """Cancel (QUEUED) or flag (RUNNING) the job; withdraw its queued message."""
        was = self.redis.get(job_id, auth_subject=auth_subject, tenant_id=tenant_id)
        status = self.redis.request_cancel(job_id, auth_subject=auth_subject, tenant_id=tenant_id)
        if was is not None and was.state is JobState.QUEUED and status is not None:
            try:
                self.dispatcher.revoke(job_id)
            except Exception as exc:  # the claim check still stops a cancelled job
                log.warning("job %s: could not withdraw the queued message: %s", job_id, exc)
        return status

    def recover_lost(self, *, now: float | None = None) -> dict[str, list[str]]:
        """Retry or fail RUNNING jobs whose worker lease ran out; return the ids by outcome.

        Run it on a schedule (the Celery integration registers it as a beat task; with RQ run
        it from ``rq cron`` or any timer). A job started ``max_attempts`` times is marked
        FAILED with an error saying the worker was lost.
        """
        outcome: dict[str, list[str]] = {"retried": [], "failed": []}
        for job_id in self.redis.expired_leases(now=now):
            status = self.redis.load(job_id)
            if status is None or status.state is not JobState.RUNNING:
                continue
            if status.attempts >= self.max_attempts:
                try:
                    self.redis.mark(
                        job_id,
                        JobState.FAILED,
                        error=(
                            f"worker lost: the job was started {status.attempts} times and its "
                            f"worker stopped each time (max_attempts={self.max_attempts})"
                        ),
                    )
                except IllegalTransitionError:
                    continue
                outcome["failed"].append(job_id)
            else:
                self._send(status)
                outcome["retried"].append(job_id)
        return outcome

    def resend(self, job_id: str) -> JobStatus | None:
        """Send a QUEUED job to its queue again (e.g. its message was lost); ``None`` if the
        job is missing. A job in any other state is returned unchanged and not sent: a
        duplicate message is harmless anyway, since a worker only runs a job it can claim.
        """
        status = self.redis.load(job_id)
        if status is None or status.state is not JobState.QUEUED:
            return status
        return self._send(status)

    # --- everything else goes straight to Redis ------------------------------------------

    def get(self, job_id: str, *, auth_subject: str, tenant_id: str) -> JobStatus | None:
        """Scoped read (see :meth:`JobBackend.get`)."""
        return self.redis.get(job_id, auth_subject=auth_subject, tenant_id=tenant_id)

    def load(self, job_id: str) -> JobStatus | None:
        """Unscoped worker read."""
        return self.redis.load(job_id)

    def mark(
        self, job_id: str, state: JobState, *, result: Any = None, error: str | None = None
    ) -> JobStatus:
        """Move the job forward (see :meth:`JobBackend.mark`)."""
        return self.redis.mark(job_id, state, result=result, error=error)

    def progress(self, job_id: str, k: int, n: int, message: str = "") -> JobStatus:
        """Record progress while RUNNING."""
        return self.redis.progress(job_id, k, n, message)

    def claim(self, job_id: str, *, worker: str, lease_s: float) -> JobStatus | None:
        """Claim one job (see :meth:`RedisJobBackend.claim`)."""
        return self.redis.claim(job_id, worker=worker, lease_s=lease_s)

    def claim_next(
        self, *, worker: str, lease_s: float, job_types: Collection[str] | None = None
    ) -> JobStatus | None:
        """Claim the oldest claimable job."""
        return self.redis.claim_next(worker=worker, lease_s=lease_s, job_types=job_types)

    def renew(self, job_id: str, *, worker: str, lease_s: float) -> bool:
        """Extend a worker's lease."""
        return self.redis.renew(job_id, worker=worker, lease_s=lease_s)

    def release(self, job_id: str, *, worker: str) -> bool:
        """End a worker's lease now (another worker may claim the job at once)."""
        return self.redis.release(job_id, worker=worker)

    def cleanup_expired(self, *, now: float | None = None) -> int:
        """Delete terminal jobs past retention (running jobs are never deleted)."""
        return self.redis.cleanup_expired(now=now)

    def close(self) -> None:
        """Close the Redis backend."""
        self.redis.close()
