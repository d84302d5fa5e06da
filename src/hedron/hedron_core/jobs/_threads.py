"""``ThreadPoolRunner``: an in-process worker pool pulling jobs from a claiming backend."""

from __future__ import annotations

import asyncio
import inspect
import logging
import os
import secrets
import threading
import time
from collections.abc import Coroutine, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from ._checks import check_number
from ._context import Task, TaskContext, check_seconds
from ._finish import record_failure, record_success
from ._protocol import ClaimingJobBackend
from ._stepping import _check_runner_backend, _check_tasks
from ._types import JobStatus

__all__ = ["ThreadPoolRunner"]

log = logging.getLogger("hedron.jobs")

_MAX_S = 1e9  # about 31.7 years; longer timeouts overflow the threads' waits


class _RunnerStopping(BaseException):
    """Unwinds a task when its runner stops; the job stays RUNNING for the next worker."""


class _ThreadContext(TaskContext):
    def __init__(self, runner: ThreadPoolRunner, status: JobStatus) -> None:
        super().__init__(runner.backend, status)
        self._runner = runner
        self._renewed = time.monotonic()

    def sleep(self, seconds: float) -> Coroutine[Any, Any, None]:
        return self._sleep(check_seconds(seconds))

    async def _sleep(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while True:
            if self._runner.stopping:
                raise _RunnerStopping
            self.raise_if_cancelled()
            self._heartbeat()
            left = deadline - time.monotonic()
            if left <= 0:
                return
            await asyncio.sleep(min(left, self._runner.check_interval_s))

    def _heartbeat(self) -> None:
        if time.monotonic() - self._renewed >= self._runner.lease_s / 3:
            self._runner.backend.renew(
                self.job_id, worker=self._runner.worker, lease_s=self._runner.lease_s
            )
            self._renewed = time.monotonic()


class ThreadPoolRunner:
    """Runs jobs on worker threads of this process (``async def`` tasks via ``asyncio.run``).

    A dispatcher thread claims QUEUED jobs (and RUNNING jobs whose worker died, once their
    lease ran out) from the backend and hands them to up to ``max_workers`` threads. Several
    processes may run their own runner on one ``SQLiteJobBackend``: every claim is atomic, so
    a job runs in one place at a time. While a task sleeps or reports progress its lease is
    renewed; a plain ``def`` task must finish (or report progress) within ``lease_s``.

    :meth:`stop` lets running tasks reach their next ``ctx.sleep`` and leaves those jobs
    RUNNING with their lease released, so the next runner resumes them at once.

    Args:
        backend: A claiming backend (``InMemoryJobBackend`` or ``SQLiteJobBackend``).
        tasks: Maps job types to task functions; other job types are left alone.
        max_workers: Worker threads.
        lease_s: Seconds a claim stays valid without a heartbeat.
        poll_interval_s: How often the dispatcher looks for new jobs when idle
            (``wake()`` and ``submit()`` make it look at once).
        check_interval_s: How often a sleeping task checks for cancellation.
        autostart: Start the dispatcher now (else call :meth:`start`).

    Example:
        >>> from hedron_core.jobs import InMemoryJobBackend
        >>> async def double(ctx):
        ...     await ctx.sleep(0.01)
        ...     return {"value": ctx.payload["n"] * 2}
        >>> backend = InMemoryJobBackend()
        >>> with ThreadPoolRunner(backend, {"double": double}) as runner:
        ...     job = runner.submit("double", {"n": 21}, auth_subject="u", tenant_id="t")
        ...     runner.wait_idle(timeout=5)
        True
        >>> backend.load(job.id).result
        {'value': 42}
    """

    def __init__(
        self,
        backend: ClaimingJobBackend,
        tasks: Mapping[str, Task],
        *,
        max_workers: int = 4,
        lease_s: float = 60.0,
        poll_interval_s: float = 0.2,
        check_interval_s: float = 0.05,
        autostart: bool = True,
    ) -> None:
        _check_runner_backend(backend, "ThreadPoolRunner")
        _check_tasks(tasks, "ThreadPoolRunner")
        if isinstance(max_workers, bool) or not isinstance(max_workers, int) or max_workers < 1:
            raise ValueError("ThreadPoolRunner: max_workers must be an int >= 1")
        seconds = {
            name: check_number(value, name, "ThreadPoolRunner", positive=True, maximum=_MAX_S)
            for name, value in (
                ("lease_s", lease_s),
                ("poll_interval_s", poll_interval_s),
                ("check_interval_s", check_interval_s),
            )
        }
        self.backend = backend
        self.tasks = dict(tasks)
        self.max_workers = max_workers
        self.lease_s = seconds["lease_s"]
        self.poll_interval_s = seconds["poll_interval_s"]
        self.check_interval_s = seconds["check_interval_s"]
        self.worker = f"{os.getpid()}-{secrets.token_hex(4)}"
        self.stopping = False
        self._wake = threading.Event()
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)
        self._busy = 0
        self._looked_empty = False
        self._executor: ThreadPoolExecutor | None = None
        self._dispatcher: threading.Thread | None = None
        if autostart:
            self.start()

    def start(self) -> None:
        """Start the dispatcher and the worker threads (idempotent)."""
        if self._dispatcher is not None:
            return
        self.stopping = False
        self._executor = ThreadPoolExecutor(self.max_workers, thread_name_prefix="hedron-job")
        self._dispatcher = threading.Thread(
            target=self._dispatch, name="hedron-job-dispatcher", daemon=True
        )
        self._dispatcher.start()

    def stop(self, *, timeout: float | None = 10.0) -> None:
        """Stop claiming, let running tasks reach a stopping point, join the threads."""
        self.stopping = True
        self._wake.set()
        if self._dispatcher is not None:
            self._dispatcher.join(timeout)
            self._dispatcher = None
        if self._executor is not None:
            self._executor.shutdown(wait=True)
            self._executor = None

    def __enter__(self) -> ThreadPoolRunner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def wake(self) -> None:
        """Make the dispatcher look for claimable jobs now."""
        with self._lock:
            self._looked_empty = False
        self._wake.set()

    def submit(
        self,
        job_type: str,
        payload: Any,
        *,
        auth_subject: str,
        tenant_id: str,
        idempotency_key: str | None = None,
    ) -> JobStatus:
        """``backend.submit(...)`` then :meth:`wake`; returns the stored job."""
        status = self.backend.submit(
            job_type,
            payload,
            auth_subject=auth_subject,
            tenant_id=tenant_id,
            idempotency_key=idempotency_key,
        )
        self.wake()
        return status

    def wait_idle(self, timeout: float = 10.0) -> bool:
        """Wait until no task runs and the dispatcher found nothing to claim; ``False`` on
        timeout."""
        self.wake()
        deadline = time.monotonic() + timeout
        with self._idle:
            while self._busy or not self._looked_empty:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._idle.wait(left)
            return True

    # --- internals -----------------------------------------------------------------------

    def _dispatch(self) -> None:
        while not self.stopping:
            self._wake.clear()
            while not self.stopping and self._busy < self.max_workers:
                try:
                    status = self.backend.claim_next(
                        worker=self.worker, lease_s=self.lease_s, job_types=self.tasks.keys()
                    )
                except Exception:
                    log.exception("hedron jobs: claiming failed")
                    status = None
                if status is None:
                    with self._idle:
                        self._looked_empty = True
                        self._idle.notify_all()
                    break
                with self._lock:
                    self._busy += 1
                    self._looked_empty = False
                executor = self._executor
                if executor is None:
                    return
                try:
                    executor.submit(self._run, status)
                except RuntimeError:  # interpreter shutting down
                    return
            self._wake.wait(self.poll_interval_s)

    def _run(self, status: JobStatus) -> None:
        try:
            self._execute(status)
        finally:
            with self._idle:
                self._busy -= 1
                self._looked_empty = False
                self._idle.notify_all()
            self._wake.set()

    def _execute(self, status: JobStatus) -> None:
        ctx = _ThreadContext(self, status)
        task = self.tasks[status.type]
        try:
            if inspect.iscoroutinefunction(task):
                result = asyncio.run(task(ctx))
            else:
                result = task(ctx)
                if inspect.isawaitable(result):
                    result = asyncio.run(_await(result))
        except _RunnerStopping:
            release = getattr(self.backend, "release", None)
            if callable(release):  # else the lease runs out, then another worker claims it
                release(status.id, worker=self.worker)
            return
        except Exception as exc:
            record_failure(self.backend, status.id, exc)
            return
        record_success(self.backend, status.id, result)


async def _await(awaitable: Any) -> Any:
    return await awaitable
