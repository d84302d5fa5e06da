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

Every message carries ``Retry(max=max_attempts)``. When a work horse dies before claiming its
job, its parent worker sends the message again at once; when the whole worker dies, its
record in RQ's started registry outlives it for a while, and :meth:`RQJobs.maintenance` finds
it after that and has RQ send the message again. A message RQ gives up on (retries spent) is
in RQ's failed registry, where :meth:`RQJobs.maintenance` also looks: a job that no worker
ever claimed is then marked FAILED, so no job stays QUEUED for ever.
"""

from __future__ import annotations

import importlib
import os
import time
from collections.abc import Mapping
from typing import Any

from hedron_core.jobs._checks import check_number
from hedron_core.jobs._context import Task
from hedron_core.jobs._machine import IllegalTransitionError
from hedron_core.jobs._types import JobState, JobStatus
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

__all__ = ["GIVEN_UP_LOOKBACK_S", "RQJobs", "perform", "rq_job_id", "task_ref"]

#: How far back :meth:`RQJobs.maintenance` looks for messages RQ gave up on (seconds).
GIVEN_UP_LOOKBACK_S = 3600.0


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


def _hedron_job_id(rq_id: str) -> str | None:
    """The hedron job id inside an RQ job id made by :func:`rq_job_id` (else ``None``)."""
    head, sep, attempt = rq_id.rpartition("-")
    if not head.startswith("hedron-") or not sep or not attempt.isdigit():
        return None
    return head[len("hedron-") :] or None


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
        from rq import Retry

        owner = self._owner
        queue = owner.queue(owner.config.queue_for(status.type))
        queue.enqueue_call(
            perform,
            args=(status.id, owner.refs[status.type], owner.settings(status.type)),
            job_id=rq_job_id(status.id, status.attempts),
            timeout=owner.job_timeout,
            result_ttl=0,
            failure_ttl=int(owner.config.ttl_seconds),
            retry=Retry(max=owner.backend.max_attempts),
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
        max_attempts: Workers that may start a job before a lost one is marked FAILED; also
            how many times RQ sends a message again whose worker died before claiming its job
            (``Retry(max=max_attempts)``, see :meth:`maintenance`).
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
        self.lease_s = check_number(
            lease_s, "lease_s", "RQJobs", positive=True, maximum=MAX_SECONDS
        )
        timeout = check_number(
            job_timeout, "job_timeout", "RQJobs", positive=True, maximum=MAX_SECONDS
        )
        self.job_timeout = max(1, int(timeout))
        check_attempts("RQJobs", max_attempts)
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

    def maintenance(self, *, now: float | None = None) -> dict[str, Any]:
        """Run every minute: recover jobs of lost workers, delete expired finished jobs.

        Returns counts:

        * ``abandoned``: messages whose RQ worker died (RQ's started registry, once the dead
          worker's heartbeat has run out: RQ's job monitoring interval plus 60 s). RQ sends
          each one again while it has retries left. RQ's own workers look only every
          ``--maintenance-interval`` (10 minutes).
        * ``given_up``: jobs that no worker ever claimed and whose message RQ gave up on in
          the last :data:`GIVEN_UP_LOOKBACK_S` seconds (retries spent); they are marked FAILED
          with RQ's last reason.
        * ``retried``/``failed``: RUNNING jobs whose lease ran out (re-sent, or FAILED after
          ``max_attempts``).
        * ``deleted``: finished jobs past retention.

        Args:
            now: The time to judge expiry by (seconds since the epoch; default: now).

        Raises:
            TypeError, ValueError: ``now`` is not a finite number (nothing is touched).
        """
        from rq.registry import StartedJobRegistry

        now = check_now("RQJobs", now)

        abandoned = given_up = 0
        for name in sorted({self.config.queue_for(t) for t in self.tasks}):
            queue = self.queue(name)
            started = StartedJobRegistry(queue=queue)
            abandoned += len(started.get_expired_job_ids(now))
            started.cleanup(now)  # RQ re-sends what has retries left, fails the rest
            given_up += self._fail_given_up(queue, now)
        outcome = self.backend.recover_lost(now=now)
        return {
            "abandoned": abandoned,
            "given_up": given_up,
            "retried": len(outcome["retried"]),
            "failed": len(outcome["failed"]),
            "deleted": self.backend.cleanup_expired(now=now),
        }

    def _fail_given_up(self, queue: Any, now: float | None) -> int:
        """Mark FAILED the QUEUED jobs whose message is recently in RQ's failed registry."""
        from rq.exceptions import NoSuchJobError
        from rq.job import Job
        from rq.job import JobStatus as RQStatus
        from rq.registry import FailedJobRegistry

        failed = FailedJobRegistry(queue=queue)
        # An entry's score is when it expires: the time RQ gave up plus our failure_ttl.
        since = (time.time() if now is None else now) - GIVEN_UP_LOOKBACK_S
        recent = failed.connection.zrangebyscore(
            failed.key, since + self.config.ttl_seconds, "+inf"
        )
        pairs: list[tuple[str, str]] = []
        for raw in recent:
            rq_id = raw.decode() if isinstance(raw, bytes) else str(raw)
            job_id = _hedron_job_id(rq_id)
            if job_id is not None:
                pairs.append((rq_id, job_id))
        statuses = self.redis.load_many([job_id for _, job_id in pairs])
        count = 0
        for (rq_id, job_id), status in zip(pairs, statuses, strict=True):
            if status is None or status.state is not JobState.QUEUED:
                continue
            try:
                message = Job.fetch(rq_id, connection=queue.connection)
            except NoSuchJobError:
                continue
            if message.get_status() != RQStatus.FAILED:  # sent again since (resend())
                continue
            result = message.latest_result()
            lines = (getattr(result, "exc_string", None) or "").strip().splitlines()
            reason = lines[-1].strip() if lines else "no reason recorded"
            try:
                self.redis.mark(
                    job_id,
                    JobState.FAILED,
                    error=(
                        f"RQ gave up on job {job_id} before any worker started it, after "
                        f"{self.backend.max_attempts} retries ({reason})"
                    ),
                )
            except IllegalTransitionError:  # claimed or cancelled meanwhile
                continue
            count += 1
        return count

    def close(self) -> None:
        """Close the Redis connection pools this object created."""
        if self._owns_queue_connection:
            self.queue_connection.close()
            self._owns_queue_connection = False
        self.backend.close()
