"""``SteppingRunner``: drives task coroutines itself, one step at a time, no threads."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Coroutine, Generator, Mapping
from dataclasses import dataclass
from typing import Any

from ._checks import MAX_LEASE_S, check_key
from ._clock import VirtualClock, check_clock, current_clock
from ._context import SleepRequest, Task, TaskContext, check_seconds
from ._finish import record_failure, record_success
from ._protocol import ClaimingJobBackend
from ._types import JobStatus

__all__ = ["SteppingRunner"]

_FOREVER = MAX_LEASE_S
_MAX_RESUMES_AT_ONE_INSTANT = 10_000


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
    """Runs tasks deterministically, with no threads or event loop, when it is told to.

    :meth:`step` resumes every due task until its next ``await ctx.sleep(...)`` (or its end);
    :meth:`run_until` runs everything that falls due up to a point in time, in time order,
    moving a :class:`~hedron_core.jobs.VirtualClock` along. A job submitted at time ``t``
    starts at ``t`` and ``await ctx.sleep(d)`` ends at ``t + d``, as on the worker threads of a
    :class:`~hedron_core.jobs.ThreadPoolRunner`: this is how the docs' in-browser demos
    (Pyodide has no threads) run the very task code a server runs. Plain ``def`` tasks
    finish in one step. Tasks may only await ``ctx.sleep``; awaiting anything else fails the
    job with a clear error.

    Args:
        backend: A claiming backend (``InMemoryJobBackend`` or ``SQLiteJobBackend``).
        tasks: Maps job types to task functions.
        clock: "now" in seconds; share one ``VirtualClock`` with the backend for determinism.
            Without one the runner reads the current clock
            (:func:`~hedron_core.jobs.use_clock`) each time, as the backends do.

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
        check_key(worker, "worker", "SteppingRunner")
        self.backend = backend
        self.tasks = dict(tasks)
        self._clock = check_clock(clock, "SteppingRunner")
        self._worker = worker
        self._active: dict[str, _Active] = {}

    @property
    def clock(self) -> Callable[[], float]:
        """The clock in use: the one given, else the current clock."""
        return self._clock if self._clock is not None else current_clock()

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

    def run_until(self, when: float) -> int:
        """Run everything due up to ``when``, in time order; return how many resumes ran.

        Claims the queued jobs at the current time, then resumes each sleeping task at its
        wake-up time, earliest first, moving the clock to that time before it runs; finally
        leaves the clock at ``when``. So a job submitted at ``t`` starts at ``t``, and a
        task's ``await ctx.sleep(d)`` ends at ``t + d`` whatever the steps in between.

        Args:
            when: The time to run to, in the clock's seconds (not before its reading).

        Raises:
            TypeError: the clock cannot be moved (give the runner, or :func:`use_clock`, a
                :class:`~hedron_core.jobs.VirtualClock`), or ``when`` is not a number.
            ValueError: ``when`` lies before the clock's reading, or tasks keep waking at
                one instant without end.

        Example:
            >>> from hedron_core.jobs import InMemoryJobBackend, VirtualClock
            >>> clock = VirtualClock()
            >>> backend = InMemoryJobBackend(clock=clock)
            >>> async def two(ctx):
            ...     await ctx.sleep(1.0)
            ...     await ctx.sleep(1.0)
            >>> runner = SteppingRunner(backend, {"two": two}, clock=clock)
            >>> job = backend.submit("two", {}, auth_subject="u", tenant_id="t")
            >>> runner.run_until(1.5), clock(), backend.load(job.id).state.value
            (2, 1.5, 'running')
            >>> runner.run_until(2.0), backend.load(job.id).finished_at
            (1, 2.0)
        """
        clock = self.clock
        advance_to = getattr(clock, "advance_to", None)
        if not callable(advance_to):
            raise TypeError(
                "SteppingRunner.run_until: the clock cannot be moved; give the runner (or "
                f"use_clock) a VirtualClock, got {type(clock).__name__}"
            )
        if isinstance(when, bool) or not isinstance(when, int | float):
            raise TypeError(f"SteppingRunner.run_until: when must be a number, got {when!r}")
        if when < clock():
            raise ValueError(
                f"SteppingRunner.run_until: when={when} lies before the clock ({clock()}); "
                "time never goes back"
            )
        resumed = 0
        while True:
            at_this_instant = 0
            while True:
                self._claim_all()
                due = self._due()
                if not due:
                    break
                for active in due:
                    self._resume(active)
                at_this_instant += len(due)
                if at_this_instant > _MAX_RESUMES_AT_ONE_INSTANT:
                    raise ValueError(
                        f"SteppingRunner.run_until: tasks keep waking at t={clock()} "
                        "(a loop of ctx.sleep(0)?)"
                    )
            resumed += at_this_instant
            wake = self.next_wake()
            if wake is None or wake > when:
                break
            advance_to(wake)
        advance_to(when)
        return resumed

    def wake(self) -> None:
        """Nothing to do: queued jobs are claimed by the next :meth:`step` or
        :meth:`run_until`. Here so that code may wake any local runner (``TaskFlow`` does).
        """

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
