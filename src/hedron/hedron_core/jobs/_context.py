"""What a task function receives: its job, progress reporting, cancellation, sleeping."""

from __future__ import annotations

import abc
from collections.abc import Awaitable, Callable, Generator
from typing import Any, TypeAlias

from ._protocol import JobBackend
from ._types import JobScope, JobStatus

__all__ = ["JobCancelledError", "Task", "TaskContext"]


class JobCancelledError(Exception):
    """Raised inside a task at a cancellation point once a cancel was requested.

    Runners catch it and mark the job CANCELLED. Tasks may raise it themselves (or call
    :meth:`TaskContext.raise_if_cancelled`) to stop early.
    """


class TaskContext(abc.ABC):
    """The handle a task function gets: ``await ctx.sleep(s)``, ``ctx.progress(k, n, msg)``,
    ``ctx.cancelled``.

    The same task runs unchanged under every runner: the thread-pool runner sleeps for real,
    the :class:`~hedron_core.jobs.SteppingRunner` suspends the task until its virtual clock
    has advanced far enough.

    Attributes:
        job_id: The job being run.
        job_type: Its type.
        payload: Its JSON payload.
        scope: The :class:`~hedron_core.jobs.JobScope` it belongs to.
        attempt: 1 for the first run, 2+ when a crashed run is resumed by another worker.

    Example:
        >>> async def resize(ctx: TaskContext) -> dict[str, int]:
        ...     for i in range(3):
        ...         ctx.progress(i, 3, f"resizing {i + 1} of 3")
        ...         await ctx.sleep(0.5)
        ...     return {"resized": 3}
    """

    def __init__(self, backend: JobBackend, status: JobStatus) -> None:
        self._backend = backend
        self.job_id: str = status.id
        self.job_type: str = status.type
        self.payload: Any = status.payload
        self.scope: JobScope = status.scope
        self.attempt: int = status.attempts

    @property
    def cancelled(self) -> bool:
        """Whether a cancel was requested for this job (read from the backend)."""
        status = self._backend.load(self.job_id)
        return status is None or status.cancel_requested

    def raise_if_cancelled(self) -> None:
        """Raise :class:`JobCancelledError` if a cancel was requested."""
        if self.cancelled:
            raise JobCancelledError(self.job_id)

    def progress(self, k: int, n: int, message: str = "") -> None:
        """Report progress ``k`` of ``n`` (the job must be RUNNING, which it is inside a task)."""
        self._backend.progress(self.job_id, k, n, message)
        self._heartbeat()

    @abc.abstractmethod
    def sleep(self, seconds: float) -> Awaitable[None]:
        """Wait ``seconds`` (a cancellation point: raises :class:`JobCancelledError`)."""

    def _heartbeat(self) -> None:
        """Hook for runners that hold a lease on the job."""
        return None


Task: TypeAlias = Callable[[TaskContext], Awaitable[Any]] | Callable[[TaskContext], Any]
"""A task function: ``async def task(ctx) -> result`` or ``def task(ctx) -> result``."""


class SleepRequest:
    """Yielded by ``SteppingTaskContext.sleep`` to the stepping runner that drives the task."""

    __slots__ = ("seconds",)

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds

    def __await__(self) -> Generator[SleepRequest, None, None]:
        yield self


def check_seconds(seconds: object) -> float:
    """Validate a ``sleep`` argument, naming it."""
    if isinstance(seconds, bool) or not isinstance(seconds, int | float):
        raise TypeError(f"ctx.sleep: seconds must be a number, got {type(seconds).__name__}")
    if seconds < 0:
        raise ValueError(f"ctx.sleep: seconds must be >= 0, got {seconds}")
    return float(seconds)
