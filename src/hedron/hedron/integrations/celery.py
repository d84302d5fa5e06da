"""Run hedron jobs on Celery workers, with job status in Redis.

One object wires everything: the Redis backend (status, progress, cancel, TTL), a Celery app
whose single generic task runs any registered task function, and the backend to give
``Hedron(job_backend=...)`` so ``enqueue_durable`` sends new jobs to Celery.

Example:
    ```python
    # myapp/jobs.py - imported by the web processes and by `celery -A myapp.jobs worker`
    from hedron.integrations import ScaleConfig
    from hedron.integrations.celery import CeleryJobs

    async def report(ctx):
        for i in range(3):
            ctx.progress(i + 1, 3, f"step {i + 1}")
            await ctx.sleep(1.0)
        return {"rows": 3}

    jobs = CeleryJobs(ScaleConfig.from_env(), {"report": report})
    celery = jobs.celery            # `celery -A myapp.jobs worker -Q hedron-jobs`
    backend = jobs.backend          # Hedron(job_backend=backend)
    ```
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hedron_core.jobs._checks import check_number
from hedron_core.jobs._context import Task
from hedron_core.jobs._types import JobStatus
from hedron_core.jobs.redis_backend import RedisJobBackend

from ._config import ScaleConfig
from ._queued import QueuedJobBackend
from ._worker import (
    DEFAULT_LEASE_S,
    DEFAULT_MAX_ATTEMPTS,
    MAX_SECONDS,
    check_attempts,
    check_now,
    check_tasks,
    run_job,
    worker_name,
)

__all__ = [
    "DEFAULT_REDELIVERY_S",
    "MAINTENANCE_TASK",
    "RUN_JOB_TASK",
    "CeleryJobs",
    "celery_task_id",
]

RUN_JOB_TASK = "hedron.run_job"
"""The name of the one Celery task that runs every hedron job (its argument is the job id)."""
MAINTENANCE_TASK = "hedron.maintenance"
"""Celery task that recovers lost jobs and deletes expired ones (scheduled for celery beat)."""


DEFAULT_REDELIVERY_S = 3600.0
"""Seconds before the broker hands out again a message whose worker died (Redis's default)."""


def _redelivery_options(redelivery_s: float) -> dict[str, float]:
    """Redis transport options: the visibility timeout, and a sweep for unacknowledged
    messages often enough for it (by default Kombu looks about every 100 s)."""
    sweep = min(10.0, max(1.0, redelivery_s / 4))
    return {
        "visibility_timeout": redelivery_s,
        "unacked_restore_interval": sweep,
        "unacked_restore_throttle": 1,
    }


def celery_task_id(job_id: str, attempt: int) -> str:
    """The Celery task id of a hedron job's delivery ``attempt`` (0 = first send).

    Example:
        >>> celery_task_id("abc", 0), celery_task_id("abc", 2)
        ('abc', 'abc-2')
    """
    return job_id if attempt == 0 else f"{job_id}-{attempt}"


class _CeleryDispatcher:
    engine = "celery"

    def __init__(self, owner: CeleryJobs) -> None:
        self._owner = owner

    def send(self, status: JobStatus) -> None:
        owner = self._owner
        owner.run_task.apply_async(
            args=[status.id],
            task_id=celery_task_id(status.id, status.attempts),
            queue=owner.config.queue_for(status.type),
            retry=False,
        )

    def revoke(self, job_id: str) -> None:
        # Workers drop revoked messages; the claim check would skip a cancelled job anyway.
        self._owner.celery.control.revoke(celery_task_id(job_id, 0))


class CeleryJobs:
    """hedron jobs on Celery: Redis for status, Celery for execution.

    Args:
        config: The shared settings (Redis URL, prefix, queues, retention).
        tasks: Job type -> task function (``async def task(ctx)`` or ``def task(ctx)``), the
            same functions the in-process runners run.
        celery_app: Use an existing Celery app (its broker is kept); by default a new app is
            created with ``config.effective_broker_url`` as broker.
        lease_s: A running job's lease; a worker renews it every ``lease_s / 3`` seconds.
        max_attempts: Workers that may start a job before a lost one is marked FAILED.
        redelivery_s: A message is acknowledged only once its job has run (late ack); if the
            worker taking it dies first, even before it claimed the job, the broker hands the
            message out again after this many seconds (Redis's visibility timeout). A
            redelivered message of a job another worker still runs is skipped (the claim).
        check: Ping Redis now (start-up fails clearly when Redis is unreachable).

    Raises:
        RedisUnavailableError: ``check`` is true and Redis does not answer.

    Attributes:
        celery: The Celery app (point ``celery -A`` at it).
        backend: The :class:`QueuedJobBackend` for ``Hedron(job_backend=...)``.
        redis: The plain :class:`RedisJobBackend` (status only, no dispatch).

    Example:
        ```python
        jobs = CeleryJobs(ScaleConfig.from_env(), {"report": report})
        celery = jobs.celery                       # celery -A myapp.jobs:celery worker
        app = Hedron(job_backend=jobs.backend)     # enqueue_durable sends to Celery
        ```
    """

    def __init__(
        self,
        config: ScaleConfig,
        tasks: Mapping[str, Task],
        *,
        celery_app: Any = None,
        lease_s: float = DEFAULT_LEASE_S,
        max_attempts: int = DEFAULT_MAX_ATTEMPTS,
        redelivery_s: float = DEFAULT_REDELIVERY_S,
        check: bool = True,
    ) -> None:
        if not isinstance(config, ScaleConfig):
            raise TypeError(
                f"CeleryJobs: config must be a ScaleConfig, got {type(config).__name__}"
            )
        self.config = config
        self.tasks = check_tasks(tasks)
        self.lease_s = check_number(
            lease_s, "lease_s", "CeleryJobs", positive=True, maximum=MAX_SECONDS
        )
        self.redelivery_s = check_number(
            redelivery_s, "redelivery_s", "CeleryJobs", positive=True, maximum=MAX_SECONDS
        )
        check_attempts("CeleryJobs", max_attempts)
        if celery_app is not None and not callable(getattr(celery_app, "task", None)):
            raise TypeError(
                "CeleryJobs: celery_app must be a celery.Celery app, "
                f"got {type(celery_app).__name__}"
            )
        self.redis: RedisJobBackend = config.backend(check=check)
        self.celery = celery_app if celery_app is not None else self._make_app()
        self.run_task = self._register()
        self.backend = QueuedJobBackend(
            self.redis, _CeleryDispatcher(self), max_attempts=max_attempts
        )

    def _make_app(self) -> Any:
        from celery import Celery

        app = Celery("hedron", broker=self.config.effective_broker_url)
        app.conf.update(
            task_default_queue=self.config.queue,
            task_ignore_result=True,
            worker_prefetch_multiplier=1,
            broker_connection_timeout=self.config.connect_timeout_s,
            # Fail fast at start-up (clear error); once running, reconnect after a Redis restart.
            broker_connection_retry_on_startup=False,
            # Late ack: a message taken by a worker that dies before the job is done (even
            # before the job was claimed) goes back to the queue instead of being lost.
            task_acks_late=True,
            task_reject_on_worker_lost=True,
            broker_transport_options=_redelivery_options(self.redelivery_s),
            beat_schedule={
                "hedron-maintenance": {"task": MAINTENANCE_TASK, "schedule": 60.0},
            },
        )
        return app

    def _register(self) -> Any:
        owner = self

        @self.celery.task(  # type: ignore[untyped-decorator]
            name=RUN_JOB_TASK, ignore_result=True, acks_late=True, reject_on_worker_lost=True
        )
        def run_hedron_job(job_id: str) -> str | None:
            state = run_job(
                owner.redis,
                owner.tasks,
                job_id,
                worker=worker_name("celery"),
                lease_s=owner.lease_s,
                max_attempts=owner.backend.max_attempts,
            )
            return None if state is None else state.value

        @self.celery.task(name=MAINTENANCE_TASK, ignore_result=True)  # type: ignore[untyped-decorator]
        def hedron_maintenance() -> dict[str, Any]:
            return owner.maintenance()

        return run_hedron_job

    def maintenance(self, *, now: float | None = None) -> dict[str, Any]:
        """Recover jobs of lost workers and delete expired finished jobs; return counts.

        ``retried``/``failed`` count RUNNING jobs whose lease ran out (re-sent, or FAILED after
        ``max_attempts``), ``deleted`` the finished jobs past retention. Messages of workers
        that died before claiming their job need no sweep here: the broker hands them out again
        after ``redelivery_s``.

        Args:
            now: The time to judge expiry by (seconds since the epoch; default: now).

        Raises:
            TypeError, ValueError: ``now`` is not a finite number (nothing is touched).
        """
        now = check_now("CeleryJobs", now)
        outcome = self.backend.recover_lost(now=now)
        return {
            "retried": len(outcome["retried"]),
            "failed": len(outcome["failed"]),
            "deleted": self.backend.cleanup_expired(now=now),
        }

    def close(self) -> None:
        """Close the Redis connection pool."""
        self.backend.close()
