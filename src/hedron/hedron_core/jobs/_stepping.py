"""``SteppingRunner``: drives task coroutines itself, one step at a time, no threads."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Coroutine, Generator, Mapping
from dataclasses import dataclass
from typing import Any

from ._clock import VirtualClock
from ._context import SleepRequest, Task, TaskContext, check_seconds
from ._finish import record_failure, record_success
from ._machine import check_clock
from ._protocol import ClaimingJobBackend
from ._types import JobStatus

__all__ = ["SteppingRunner"]

_FOREVER = 1e12


class _SteppingContext(TaskContext):
    def sleep(self, seconds: float) -> Coroutine[Any, Any, None]:
        return self._sleep(check_seconds(seconds))

    async def _sleep(self, seconds: float) -> None:
        self.raise_if_cancelled()
        await SleepRequest(seconds)
        self.raise_if_cancelled()


@dataclass
class _Active:
    status: JobStatus
    ctx: _SteppingContext
    wake_at: float
    coro: Coroutine[Any, Any, Any] | Generator[Any, None, Any] | None = None


class SteppingRunner:
    """Runs tasks deterministically, one step per :meth:`step` call, with no threads or loop.

    A *step* resumes every due task until its next ``await ctx.sleep(...)`` (or its end).
    A sleeping task becomes due when the clock reaches its wake-up time; with a
    :class:`~hedron_core.jobs.VirtualClock`, ``step()`` jumps the clock to the next wake-up
    when nothing is due, so each call makes progress. This is how the docs' in-browser demos
    (Pyodide has no threads) advance a job one click at a time. Plain ``def`` tasks finish in
    one step. Tasks may only await ``ctx.sleep``; awaiting anything else fails the job with
    a clear error.

    Args:
        backend: A claiming backend (``InMemoryJobBackend`` or ``SQLiteJobBackend``).
        tasks: Maps job types to task functions.
        clock: "now" in seconds; share one ``VirtualClock`` with the backend for determinism.

    Example:
        >>> from hedron_core.jobs import InMemoryJobBackend, VirtualClock
        >>> clock = VirtualClock()
        >>> backend = InMemoryJobBackend(clock=clock)
        >>> async def demo(ctx):
        ...     ctx.progress(1, 2, "half way")
        ...     await ctx.sleep(1.0)
        ...     return {"ok": True}
        >>> runner = SteppingRunner(backend, {"demo": demo}, clock=clock)
        >>> job = backend.submit("demo", {}, auth_subject="u", tenant_id="t")
        >>> runner.step(), backend.load(job.id).state.value
        (1, 'running')
        >>> runner.step(), backend.load(job.id).state.value, clock()
        (1, 'succeeded', 1.0)
    """

    def __init__(
        self,
        backend: ClaimingJobBackend,
        tasks: Mapping[str, Task],
        *,
        clock: Callable[[], float] | None = None,
        worker: str = "stepping-runner",
    ) -> None:
        _check_runner_backend(backend, "SteppingRunner")
        _check_tasks(tasks, "SteppingRunner")
        if not isinstance(worker, str) or not worker.strip():
            raise TypeError(f"SteppingRunner: worker must be a non-empty str, got {worker!r:.40}")
        self.backend = backend
        self.tasks = dict(tasks)
        self.clock: Callable[[], float] = check_clock(clock, "SteppingRunner") or VirtualClock()
        self._worker = worker
        self._active: dict[str, _Active] = {}

    @property
    def active(self) -> int:
        """How many claimed jobs are not finished yet."""
        return len(self._active)

    def next_wake(self) -> float | None:
        """The earliest wake-up time among sleeping tasks, or ``None`` when none sleeps."""
        return min((a.wake_at for a in self._active.values()), default=None)

    def step(self, *, advance: bool = True) -> int:
        """Claim queued jobs and resume every due task once; return how many were resumed.

        Args:
            advance: When nothing is due and the clock is a ``VirtualClock``, first move the
                clock to the next wake-up time.
        """
        self._claim_all()
        due = self._due()
        if not due and advance and isinstance(self.clock, VirtualClock):
            wake = self.next_wake()
            if wake is not None:
                self.clock.advance_to(wake)
                due = self._due()
        for active in due:
            self._resume(active)
        return len(due)

    def run_until_idle(self, *, max_steps: int = 10_000) -> int:
        """Step until no job is left (or ``max_steps``); return the number of steps taken."""
        steps = 0
        while steps < max_steps and self.step():
            steps += 1
        return steps

    # --- internals -----------------------------------------------------------------------

    def _claim_all(self) -> None:
        while True:
            status = self.backend.claim_next(
                worker=self._worker, lease_s=_FOREVER, job_types=self.tasks.keys()
            )
            if status is None:
                return
            ctx = _SteppingContext(self.backend, status)
            self._active[status.id] = _Active(status, ctx, wake_at=self.clock())

    def _due(self) -> list[_Active]:
        now = self.clock()
        return [a for a in self._active.values() if a.wake_at <= now or a.ctx.cancelled]

    def _resume(self, active: _Active) -> None:
        job_id = active.status.id
        try:
            if active.coro is None:
                outcome = self.tasks[active.status.type](active.ctx)
                if not inspect.isawaitable(outcome):
                    self._done(job_id, outcome)
                    return
                active.coro = _as_coroutine(outcome)
            request = active.coro.send(None)
        except StopIteration as stop:
            self._done(job_id, stop.value)
            return
        except Exception as exc:
            del self._active[job_id]
            record_failure(self.backend, job_id, exc)
            return
        if isinstance(request, SleepRequest):
            active.wake_at = self.clock() + request.seconds
            return
        active.coro.close()
        del self._active[job_id]
        record_failure(
            self.backend,
            job_id,
            TypeError(
                "tasks run by SteppingRunner may only await ctx.sleep(...); "
                f"the task awaited {type(request).__name__}"
            ),
        )

    def _done(self, job_id: str, result: Any) -> None:
        del self._active[job_id]
        record_success(self.backend, job_id, result)


def _as_coroutine(awaitable: Any) -> Coroutine[Any, Any, Any] | Generator[Any, None, Any]:
    if inspect.iscoroutine(awaitable):
        return awaitable
    return awaitable.__await__()  # type: ignore[no-any-return]


def _check_runner_backend(backend: object, owner: str) -> None:
    """A claiming backend instance (``InMemoryJobBackend()``, ``SQLiteJobBackend(path)``)."""
    if isinstance(backend, type) or not isinstance(backend, ClaimingJobBackend):
        what = (
            f"the class {backend.__name__}"
            if isinstance(backend, type)
            else (type(backend).__name__)
        )
        raise TypeError(
            f"{owner}: backend must be a claiming job backend instance such as "
            f"InMemoryJobBackend() or SQLiteJobBackend(path), got {what}"
        )


def _check_tasks(tasks: object, owner: str) -> None:
    if not isinstance(tasks, Mapping):
        raise TypeError(f"{owner}: tasks must be a mapping of job type to task function")
    for name, fn in tasks.items():
        if not isinstance(name, str) or not name:
            raise TypeError(f"{owner}: tasks keys must be non-empty job type strings")
        if not callable(fn):
            raise TypeError(f"{owner}: tasks[{name!r}] must be callable")
