"""Run hedron jobs on RQ workers, with job status in the same Redis.

Example:
    ```python
    # myapp/jobs.py - imported by the web processes; workers run `rq worker -u $URL hedron-jobs`
    from hedron.integrations import ScaleConfig
    from hedron.integrations.rq import RQJobs
    from myapp.tasks import report      # task functions must live at module level

    jobs = RQJobs(ScaleConfig.from_env(), {"report": report})
    backend = jobs.backend              # Hedron(job_backend=backend)
    ```

An RQ worker needs no hedron-specific set-up: each message names :func:`perform` and the
import path of the task function, and the job status is written through the worker's own
Redis connection under the configured prefix.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Mapping
from typing import Any

from hedron_core.jobs._context import Task
from hedron_core.jobs._types import JobStatus
from hedron_core.jobs.redis_backend import RedisJobBackend

from ._config import ScaleConfig
from ._queued import QueuedJobBackend
from ._worker import DEFAULT_LEASE_S, DEFAULT_MAX_ATTEMPTS, check_tasks, run_job, worker_name

__all__ = ["RQJobs", "perform", "rq_job_id", "task_ref"]


def task_ref(fn: Task) -> str:
    """``module:qualname`` of a task function, checked to be importable by a worker.

    Example:
        >>> from hedron.integrations._worker import run_job
        >>> task_ref(run_job)
        'hedron.integrations._worker:run_job'
    """
    module = getattr(fn, "__module__", None)
    qualname = getattr(fn, "__qualname__", None)
    if not module or not qualname or module == "__main__" or "<" in qualname:
        raise ValueError(
            f"RQJobs: task {fn!r} must be a module-level function importable by the RQ "
            "worker (not a lambda, a nested function or defined in __main__)"
        )
    return f"{module}:{qualname}"


def _import_ref(ref: str) -> Task:
    module, _, qualname = ref.partition(":")
    obj: Any = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj  # type: ignore[no-any-return]


def rq_job_id(job_id: str, attempt: int) -> str:
    """The RQ job id used for a hedron job's delivery number ``attempt`` (0 = first send).

    Example:
        >>> rq_job_id("abc", 0)
        'hedron-abc-0'
    """
    return f"hedron-{job_id}-{attempt}"


def perform(job_id: str, ref: str, settings: dict[str, Any]) -> str | None:
    """The function every RQ message runs: load the task function and run the job.

    Status goes to ``HEDRON_REDIS_URL`` when set, else to the Redis the worker dequeued from.
    You never call it yourself: :class:`RQJobs` enqueues it, an RQ worker runs it.

    Example:
        ```python
        queue.enqueue_call(perform, args=(job_id, "myapp.tasks:report", jobs.settings("report")))
        ```
    """
    import rq

    url = os.environ.get("HEDRON_REDIS_URL")
    current = rq.get_current_job()
    client: Any = url if url else current.connection if current is not None else None
    if client is None:
        raise RuntimeError("perform() must run inside an RQ worker or with HEDRON_REDIS_URL set")
    backend = RedisJobBackend(
        client,
        prefix=settings["prefix"],
        retention_s=settings["retention_s"],
        check=False,
    )
    try:
        job_type = settings["type"]
        state = run_job(
            backend,
            {job_type: _import_ref(ref)},
            job_id,
            worker=worker_name("rq"),
            lease_s=settings["lease_s"],
            max_attempts=settings["max_attempts"],
        )
    finally:
        backend.close()
    return None if state is None else state.value


class _RQDispatcher:
    engine = "rq"

    def __init__(self, owner: RQJobs) -> None:
        self._owner = owner

    def send(self, status: JobStatus) -> None:
        owner = self._owner
        queue = owner.queue(owner.config.queue_for(status.type))
        queue.enqueue_call(
            perform,
            args=(status.id, owner.refs[status.type], owner.settings(status.type)),
            job_id=rq_job_id(status.id, status.attempts),
            timeout=owner.job_timeout,
            result_ttl=0,
            failure_ttl=int(owner.config.ttl_seconds),
        )

    def revoke(self, job_id: str) -> None:
        from rq.job import Job

        job = Job.fetch(rq_job_id(job_id, 0), connection=self._owner.queue_connection)
        job.cancel()


class RQJobs:
    """hedron jobs on RQ: Redis for status and queue, RQ workers for execution.

    Args:
        config: The shared settings (Redis URL, prefix, queues, retention). RQ's queues live
            in ``config.effective_broker_url`` (the same Redis by default).
        tasks: Job type -> module-level task function (``async def task(ctx)`` or ``def``).
        lease_s: A running job's lease; renewed every ``lease_s / 3`` seconds while it runs.
        max_attempts: Workers that may start a job before a lost one is marked FAILED.
        job_timeout: RQ's hard time limit per job, in seconds.
        check: Ping Redis now (start-up fails clearly when Redis is unreachable).

    Raises:
        RedisUnavailableError: ``check`` is true and Redis does not answer.
        ValueError: A task function is not importable by a worker.

    Attributes:
        backend: The :class:`QueuedJobBackend` for ``Hedron(job_backend=...)``.
        redis: The plain :class:`RedisJobBackend`.

    Example:
        ```python
        jobs = RQJobs(ScaleConfig.from_env(), {"report": report})   # report: module-level
        app = Hedron(job_backend=jobs.backend)     # enqueue_durable sends to RQ
        # worker: rq worker -u "$HEDRON_REDIS_URL" -c myapp.jobs hedron-jobs
        ```
    """

    def __init__(
        self,
        config: ScaleConfig,
        tasks: Mapping[str, Task],
        *,
        lease_s: float = DEFAULT_LEASE_S,
        max_attempts: int = DEFAULT_MAX_ATTEMPTS,
        job_timeout: int = 3600,
        check: bool = True,
    ) -> None:
        if not isinstance(config, ScaleConfig):
            raise TypeError(f"RQJobs: config must be a ScaleConfig, got {type(config).__name__}")
        self.config = config
        self.tasks = check_tasks(tasks)
        self.refs = {name: task_ref(fn) for name, fn in self.tasks.items()}
        self.lease_s = float(lease_s)
        if self.lease_s <= 0:
            raise ValueError(f"RQJobs: lease_s must be > 0, got {lease_s!r}")
        self.job_timeout = int(job_timeout)
        self.redis: RedisJobBackend = config.backend(check=check)
        if config.effective_broker_url == config.redis_url:
            self.queue_connection: Any = self.redis.client
            self._owns_queue_connection = False
        else:
            self.queue_connection = ScaleConfig(
                redis_url=config.effective_broker_url,
                connect_timeout_s=config.connect_timeout_s,
            ).redis_client()
            self._owns_queue_connection = True
        self.backend = QueuedJobBackend(self.redis, _RQDispatcher(self), max_attempts=max_attempts)

    def settings(self, job_type: str) -> dict[str, Any]:
        """The non-secret settings each RQ message carries to :func:`perform`."""
        return {
            "type": job_type,
            "prefix": self.config.key_prefix,
            "retention_s": self.config.ttl_seconds,
            "lease_s": self.lease_s,
            "max_attempts": self.backend.max_attempts,
        }

    def queue(self, name: str | None = None) -> Any:
        """The ``rq.Queue`` called ``name`` (default: ``config.queue``)."""
        from rq import Queue

        return Queue(name or self.config.queue, connection=self.queue_connection)

    def maintenance(self) -> dict[str, Any]:
        """Recover jobs of lost workers and delete expired finished jobs; return counts."""
        outcome = self.backend.recover_lost()
        return {
            "retried": len(outcome["retried"]),
            "failed": len(outcome["failed"]),
            "deleted": self.backend.cleanup_expired(),
        }

    def close(self) -> None:
        """Close the Redis connection pools this object created."""
        if self._owns_queue_connection:
            self.queue_connection.close()
            self._owns_queue_connection = False
        self.backend.close()
