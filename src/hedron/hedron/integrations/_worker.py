"""Run one job inside a queue worker (Celery or RQ): claim, heartbeat, run the task, record.

The task function is the same ``async def task(ctx)`` (or plain ``def``) the in-process runners
run; here ``ctx.sleep`` really sleeps (on an event loop) and the worker's lease on the job is
renewed in the background, so a worker that dies stops renewing and the job can be recovered.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import math
import os
import socket
from collections.abc import Coroutine, Mapping
from typing import Any

from hedron_core.jobs._context import JobCancelledError, Task, TaskContext, check_seconds
from hedron_core.jobs._finish import record_failure, record_success
from hedron_core.jobs._types import JobState, JobStatus
from hedron_core.jobs.redis_backend import RedisJobBackend

__all__ = [
    "DEFAULT_LEASE_S",
    "DEFAULT_MAX_ATTEMPTS",
    "MAX_SECONDS",
    "check_attempts",
    "check_now",
    "check_tasks",
    "run_job",
    "worker_name",
]

log = logging.getLogger("hedron.jobs.worker")

DEFAULT_LEASE_S = 30.0
"""A running job's lease: renewed every third of it; a dead worker's job is free after it."""
DEFAULT_MAX_ATTEMPTS = 3
"""How many workers may start a job before a lost one is marked FAILED instead of retried."""
MAX_SECONDS = 1e9
"""The longest lease, timeout or TTL the integrations take (about 31.7 years)."""


def check_attempts(owner: str, max_attempts: object) -> int:
    """Validate ``max_attempts``: an int >= 1, naming it."""
    if isinstance(max_attempts, bool) or not isinstance(max_attempts, int) or max_attempts < 1:
        raise ValueError(f"{owner}: max_attempts must be an int >= 1, got {max_attempts!r:.40}")
    return max_attempts


def check_tasks(tasks: object) -> dict[str, Task]:
    """Validate a job type -> task function mapping, naming the bad entry."""
    if not isinstance(tasks, Mapping) or not tasks:
        raise ValueError("tasks must be a non-empty mapping of job type -> task function")
    for name, fn in tasks.items():
        if not isinstance(name, str) or not name:
            raise ValueError(f"tasks: job types must be non-empty strings, got {name!r}")
        if not callable(fn):
            raise TypeError(f"tasks[{name!r}] must be a task function, got {type(fn).__name__}")
    return dict(tasks)


def check_now(owner: str, now: object) -> float | None:
    """Validate the ``now`` of ``<owner>.maintenance(now=...)``: ``None`` (the clock) or a
    finite number of seconds since the epoch, naming it before anything is read or written."""
    if now is None:
        return None
    if isinstance(now, bool) or not isinstance(now, int | float):
        raise TypeError(
            f"{owner}.maintenance: now must be seconds since the epoch or None, got {now!r}"
        )
    if not math.isfinite(now):
        raise ValueError(f"{owner}.maintenance: now must be a finite number, got {now!r}")
    return float(now)


def worker_name(engine: str) -> str:
    """A worker id unique on this host: ``<engine>@<hostname>:<pid>``."""
    return f"{engine}@{socket.gethostname()}:{os.getpid()}"


class QueueTaskContext(TaskContext):
    """The task context inside a Celery/RQ worker: real sleeps, lease renewed on progress."""

    def __init__(
        self, backend: RedisJobBackend, status: JobStatus, *, worker: str, lease_s: float
    ) -> None:
        super().__init__(backend, status)
        self._redis_backend = backend
        self._worker = worker
        self._lease_s = lease_s

    def sleep(self, seconds: float) -> Coroutine[Any, Any, None]:
        return self._sleep(check_seconds(seconds))

    async def _sleep(self, seconds: float) -> None:
        # Redis is read on a worker thread, so a slow Redis never stalls other coroutines of
        # the task (its own asyncio.gather, the lease renewer).
        await asyncio.to_thread(self.raise_if_cancelled)
        await asyncio.sleep(seconds)
        await asyncio.to_thread(self.raise_if_cancelled)

    def _heartbeat(self) -> None:
        self._redis_backend.renew(self.job_id, worker=self._worker, lease_s=self._lease_s)


async def _renew_forever(ctx: QueueTaskContext, every: float) -> None:
    while True:
        await asyncio.sleep(every)
        try:
            await asyncio.to_thread(ctx._heartbeat)
        except Exception as exc:  # keep the task running; the lease may lapse
            log.warning("job %s: lease renewal failed: %s", ctx.job_id, exc)


async def _drive(task: Task, ctx: QueueTaskContext, lease_s: float) -> Any:
    renewer = asyncio.create_task(_renew_forever(ctx, max(lease_s / 3.0, 0.05)))
    try:
        if inspect.iscoroutinefunction(task):
            return await task(ctx)
        result = await asyncio.to_thread(task, ctx)
        if inspect.isawaitable(result):
            return await result
        return result
    finally:
        renewer.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await renewer


def run_job(
    backend: RedisJobBackend,
    tasks: Mapping[str, Task],
    job_id: str,
    *,
    worker: str,
    lease_s: float = DEFAULT_LEASE_S,
    max_attempts: int = DEFAULT_MAX_ATTEMPTS,
) -> JobState | None:
    """Claim ``job_id`` and run its task to a terminal state; return that state.

    Returns ``None`` without doing anything when the job cannot be claimed: it is missing
    (expired, or Redis lost its data), already finished or cancelled, or another live worker
    holds it. A duplicate delivery of the same message is therefore harmless.

    Example:
        ```python
        state = run_job(backend, {"report": report}, job_id, worker=worker_name("celery"))
        ```
    """
    status = backend.claim(job_id, worker=worker, lease_s=lease_s)
    if status is None:
        current = backend.load(job_id)
        if current is None:
            log.error(
                "job %s not found in Redis (expired, or Redis restarted without persistence); "
                "nothing to run",
                job_id,
            )
        else:
            log.info("job %s is %s; not claimed by %s", job_id, current.state.value, worker)
        return None
    if status.attempts > max_attempts:
        record_failure(
            backend,
            job_id,
            RuntimeError(
                f"gave up after {max_attempts} attempts: the worker running the job was lost"
            ),
        )
        return JobState.FAILED
    if status.cancel_requested:
        record_failure(backend, job_id, JobCancelledError(job_id))
        return JobState.CANCELLED
    task = tasks.get(status.type)
    if task is None:
        record_failure(
            backend,
            job_id,
            LookupError(f"no task function registered for job type {status.type!r}"),
        )
        return JobState.FAILED
    ctx = QueueTaskContext(backend, status, worker=worker, lease_s=lease_s)
    try:
        result = asyncio.run(_drive(task, ctx, lease_s))
    except Exception as exc:
        record_failure(backend, job_id, exc)
    else:
        record_success(backend, job_id, result)
    final = backend.load(job_id)
    return None if final is None else final.state
