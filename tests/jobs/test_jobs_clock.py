"""The clock seam (``use_clock``) and ``SteppingRunner.run_until``: virtual time like real time."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import pytest

from hedron_core.jobs import (
    InMemoryJobBackend,
    SQLiteJobBackend,
    SteppingRunner,
    TaskContext,
    VirtualClock,
    current_clock,
    use_clock,
)

SCOPE = {"auth_subject": "u", "tenant_id": "t"}


async def steps(ctx: TaskContext) -> dict[str, int]:
    n = int(ctx.payload["n"])
    for k in range(n):
        ctx.progress(k, n, f"step {k + 1}")
        await ctx.sleep(float(ctx.payload["pause"]))
    return {"done": n}


def _state(backend: InMemoryJobBackend, job_id: str) -> str:
    s = backend.load(job_id)
    assert s is not None
    return f"{s.state.value} {s.progress.k if s.progress else '-'}"


def test_backends_without_a_clock_read_the_current_one(tmp_path: Path) -> None:
    memory, sqlite = InMemoryJobBackend(), SQLiteJobBackend(tmp_path / "jobs.db")
    try:
        with use_clock(VirtualClock(start=7.0)) as clock:
            assert current_clock() is clock
            a = memory.submit("x", {}, **SCOPE)
            b = sqlite.submit("x", {}, **SCOPE)
        assert (a.created_at, b.created_at) == (7.0, 7.0)
        assert current_clock() is time.time
        c = memory.submit("x", {}, **SCOPE)
        assert abs(c.created_at - time.time()) < 60  # the system clock again
        # an explicit clock= wins over the current one
        pinned = InMemoryJobBackend(clock=VirtualClock(start=1.0))
        with use_clock(VirtualClock(start=99.0)):
            assert pinned.submit("x", {}, **SCOPE).created_at == 1.0
    finally:
        sqlite.close()


def test_the_current_clock_follows_anyio_worker_threads() -> None:
    # Starlette runs plain `def` endpoints on anyio's threads: they must see the demo's clock.
    backend = InMemoryJobBackend()

    async def go() -> float:
        with use_clock(VirtualClock(start=3.0)):
            job = await anyio.to_thread.run_sync(lambda: backend.submit("x", {}, **SCOPE))
        return job.created_at

    assert anyio.run(go) == 3.0


def test_bad_clocks_are_named() -> None:
    with pytest.raises(TypeError, match=r"use_clock\(\): clock must be a callable"):
        use_clock(3.0).__enter__()  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="InMemoryJobBackend: clock must be a callable"):
        InMemoryJobBackend(clock="now")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="SteppingRunner: clock must be a callable"):
        SteppingRunner(InMemoryJobBackend(), {"s": steps}, clock=1)  # type: ignore[arg-type]


def test_run_until_starts_a_job_at_its_submit_and_wakes_it_on_time() -> None:
    clock = VirtualClock()
    backend = InMemoryJobBackend(clock=clock)
    runner = SteppingRunner(backend, {"steps": steps}, clock=clock)
    clock.advance(0.25)
    job = backend.submit("steps", {"n": 3, "pause": 1.0}, **SCOPE)
    runner.run_until(0.25)  # submitted at 0.25: running at 0.25, not at the next tick
    assert _state(backend, job.id) == "running 0"
    assert backend.load(job.id).started_at == 0.25  # type: ignore[union-attr]
    runner.run_until(1.2)  # woke at 1.25? not yet
    assert (_state(backend, job.id), clock()) == ("running 0", 1.2)
    runner.run_until(3.0)  # wake-ups at 1.25 and 2.25 ran, in order
    assert _state(backend, job.id) == "running 2"
    runner.run_until(3.25)
    done = backend.load(job.id)
    assert done is not None
    assert (done.state.value, done.finished_at) == ("succeeded", 3.25)


def test_run_until_interleaves_jobs_in_time_order() -> None:
    clock = VirtualClock()
    backend = InMemoryJobBackend(clock=clock)
    seen: list[tuple[float, str]] = []

    async def tick(ctx: TaskContext) -> None:
        for _ in range(3):
            seen.append((clock(), ctx.payload["name"]))
            await ctx.sleep(float(ctx.payload["pause"]))

    runner = SteppingRunner(backend, {"tick": tick}, clock=clock)
    backend.submit("tick", {"name": "a", "pause": 1.5}, **SCOPE)
    backend.submit("tick", {"name": "b", "pause": 1.0}, **SCOPE)
    runner.run_until(10.0)
    assert seen == [(0, "a"), (0, "b"), (1, "b"), (1.5, "a"), (2, "b"), (3, "a")]
    assert clock() == 10.0


def test_run_until_reads_the_current_clock_and_checks_it_can_move() -> None:
    backend = InMemoryJobBackend()
    runner = SteppingRunner(backend, {"steps": steps})  # no clock: the current one
    with pytest.raises(TypeError, match="run_until: the clock cannot be moved"):
        runner.run_until(1.0)  # time.time cannot be moved
    with use_clock(VirtualClock(start=5.0)) as clock:
        job = backend.submit("steps", {"n": 1, "pause": 2.0}, **SCOPE)
        runner.run_until(7.0)
        assert (clock(), backend.load(job.id).finished_at) == (7.0, 7.0)  # type: ignore[union-attr]
        with pytest.raises(ValueError, match="lies before the clock"):
            runner.run_until(6.0)
        with pytest.raises(TypeError, match="when must be a number"):
            runner.run_until("8")  # type: ignore[arg-type]


def test_run_until_refuses_a_task_that_never_lets_time_pass() -> None:
    clock = VirtualClock()
    backend = InMemoryJobBackend(clock=clock)

    async def spin(ctx: TaskContext) -> Any:
        while True:
            await ctx.sleep(0)

    runner = SteppingRunner(backend, {"spin": spin}, clock=clock)
    backend.submit("spin", {}, **SCOPE)
    with pytest.raises(ValueError, match="keep waking at t=0"):
        runner.run_until(1.0)


def test_wake_is_accepted_like_the_thread_pools() -> None:
    runner = SteppingRunner(InMemoryJobBackend(), {"steps": steps}, clock=VirtualClock())
    assert runner.wake() is None
