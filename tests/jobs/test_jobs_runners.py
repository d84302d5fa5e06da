"""One task function, every runner: stepping (deterministic, no threads) and thread pool."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import pytest

from hedron_core.jobs import (
    RUNNER_ENV,
    InMemoryJobBackend,
    JobState,
    ProductionRefusedError,
    SteppingRunner,
    TaskContext,
    ThreadPoolRunner,
    VirtualClock,
    local_runner,
)

SCOPE = {"auth_subject": "alice", "tenant_id": "acme"}


async def count_to(ctx: TaskContext) -> dict[str, Any]:
    """The shared task: three steps with progress, one second apart."""
    n = int(ctx.payload["n"])
    for k in range(n):
        ctx.progress(k, n, f"step {k + 1} of {n}")
        await ctx.sleep(ctx.payload.get("pause", 1.0))
    ctx.progress(n, n, "done")
    return {"counted": n}


def plain(ctx: TaskContext) -> int:
    return int(ctx.payload["x"]) * 2


async def broken(ctx: TaskContext) -> None:
    await ctx.sleep(0)
    raise ValueError("width must be > 0")


async def not_json(ctx: TaskContext) -> object:
    return {1, 2}


async def awaits_asyncio(ctx: TaskContext) -> None:
    await asyncio.sleep(0)


TASKS = {
    "count": count_to,
    "plain": plain,
    "broken": broken,
    "not_json": not_json,
    "asyncio": awaits_asyncio,
}


def _trace(backend: InMemoryJobBackend, job_id: str) -> str:
    s = backend.load(job_id)
    assert s is not None
    prog = f" {s.progress.k}/{s.progress.n} {s.progress.message}" if s.progress else ""
    return f"{s.state.value}{prog}"


def _stepping() -> tuple[VirtualClock, InMemoryJobBackend, SteppingRunner]:
    clock = VirtualClock()
    backend = InMemoryJobBackend(clock=clock)
    return clock, backend, SteppingRunner(backend, TASKS, clock=clock)


class TestSteppingRunner:
    def test_one_step_per_call_deterministically(self) -> None:
        def run() -> list[str]:
            clock, backend, runner = _stepping()
            job = backend.submit("count", {"n": 3}, **SCOPE)
            lines = [f"t={clock():.0f} {_trace(backend, job.id)}"]
            while runner.step():
                lines.append(f"t={clock():.0f} {_trace(backend, job.id)}")
            return lines

        first = run()
        assert first == [
            "t=0 queued",
            "t=0 running 0/3 step 1 of 3",
            "t=1 running 1/3 step 2 of 3",
            "t=2 running 2/3 step 3 of 3",
            "t=3 succeeded 3/3 done",
        ]
        assert run() == first

    def test_result_and_timestamps_follow_the_virtual_clock(self) -> None:
        clock, backend, runner = _stepping()
        job = backend.submit("count", {"n": 2, "pause": 5}, **SCOPE)
        assert runner.run_until_idle() == 3
        done = backend.load(job.id)
        assert done is not None
        assert done.result == {"counted": 2}
        assert (done.started_at, done.finished_at, clock()) == (0.0, 10.0, 10.0)

    def test_no_advance_means_no_progress_until_time_passes(self) -> None:
        clock, backend, runner = _stepping()
        job = backend.submit("count", {"n": 2}, **SCOPE)
        assert runner.step(advance=False) == 1
        assert runner.step(advance=False) == 0
        assert runner.next_wake() == 1.0
        clock.advance(0.5)
        assert runner.step(advance=False) == 0
        clock.advance(0.5)
        assert runner.step(advance=False) == 1
        assert _trace(backend, job.id) == "running 1/2 step 2 of 2"

    def test_plain_def_task_finishes_in_one_step(self) -> None:
        _, backend, runner = _stepping()
        job = backend.submit("plain", {"x": 21}, **SCOPE)
        assert runner.step() == 1
        assert backend.load(job.id).result == 42  # type: ignore[union-attr]
        assert runner.active == 0

    def test_exception_fails_the_job_with_its_text(self) -> None:
        _, backend, runner = _stepping()
        job = backend.submit("broken", {}, **SCOPE)
        runner.run_until_idle()
        failed = backend.load(job.id)
        assert failed is not None
        assert failed.state is JobState.FAILED
        assert failed.error == "ValueError: width must be > 0"

    def test_non_json_result_fails_the_job(self) -> None:
        _, backend, runner = _stepping()
        job = backend.submit("not_json", {}, **SCOPE)
        runner.run_until_idle()
        failed = backend.load(job.id)
        assert failed is not None
        assert failed.state is JobState.FAILED
        assert "result must be JSON-serialisable" in (failed.error or "")

    def test_awaiting_anything_but_ctx_sleep_is_a_clear_error(self) -> None:
        _, backend, runner = _stepping()
        job = backend.submit("asyncio", {}, **SCOPE)
        runner.run_until_idle()
        failed = backend.load(job.id)
        assert failed is not None
        assert failed.state is JobState.FAILED
        assert "may only await ctx.sleep" in (failed.error or "")

    def test_cancel_while_sleeping_stops_at_the_next_step(self) -> None:
        clock, backend, runner = _stepping()
        job = backend.submit("count", {"n": 3, "pause": 100}, **SCOPE)
        runner.step()
        backend.request_cancel(job.id, **SCOPE)
        assert runner.step(advance=False) == 1
        assert clock() == 0.0
        assert _trace(backend, job.id).startswith("cancelled")
        assert runner.active == 0

    def test_cancel_while_queued_never_runs(self) -> None:
        _, backend, runner = _stepping()
        job = backend.submit("count", {"n": 3}, **SCOPE)
        backend.request_cancel(job.id, **SCOPE)
        assert runner.step() == 0
        assert backend.load(job.id).state is JobState.CANCELLED  # type: ignore[union-attr]

    def test_unknown_job_types_are_left_alone(self) -> None:
        _, backend, runner = _stepping()
        job = backend.submit("somebody-else", {}, **SCOPE)
        assert runner.step() == 0
        assert backend.load(job.id).state is JobState.QUEUED  # type: ignore[union-attr]

    def test_tasks_must_be_a_mapping_of_callables(self) -> None:
        backend = InMemoryJobBackend()
        with pytest.raises(TypeError, match="tasks"):
            SteppingRunner(backend, [count_to])  # type: ignore[arg-type]
        with pytest.raises(TypeError, match=r"tasks\['x'\]"):
            SteppingRunner(backend, {"x": 3})  # type: ignore[dict-item]

    def test_sleep_validates_seconds(self) -> None:
        async def bad_sleep(ctx: TaskContext) -> None:
            await ctx.sleep(-1)

        backend = InMemoryJobBackend()
        runner = SteppingRunner(backend, {"bad": bad_sleep})
        job = backend.submit("bad", {}, **SCOPE)
        runner.run_until_idle()
        assert "seconds must be >= 0" in (backend.load(job.id).error or "")  # type: ignore[union-attr]


def _wait_for(condition: Any, timeout: float = 10.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.01)
    raise AssertionError("condition not met in time")


class TestThreadPoolRunner:
    def test_the_same_task_runs_on_threads(self) -> None:
        backend = InMemoryJobBackend()
        with ThreadPoolRunner(backend, TASKS, max_workers=2) as runner:
            job = runner.submit("count", {"n": 3, "pause": 0.01}, **SCOPE)
            plain_job = runner.submit("plain", {"x": 5}, **SCOPE)
            assert runner.wait_idle(timeout=10)
        done = backend.load(job.id)
        assert done is not None
        assert done.state is JobState.SUCCEEDED
        assert done.result == {"counted": 3}
        assert done.progress is not None
        assert (done.progress.k, done.progress.message) == (3, "done")
        assert backend.load(plain_job.id).result == 10  # type: ignore[union-attr]

    def test_failures_are_recorded(self) -> None:
        backend = InMemoryJobBackend()
        with ThreadPoolRunner(backend, TASKS) as runner:
            job = runner.submit("broken", {}, **SCOPE)
            assert runner.wait_idle(timeout=10)
        assert backend.load(job.id).error == "ValueError: width must be > 0"  # type: ignore[union-attr]

    def test_cancel_interrupts_a_sleeping_task(self) -> None:
        backend = InMemoryJobBackend()
        with ThreadPoolRunner(backend, TASKS) as runner:
            job = runner.submit("count", {"n": 1, "pause": 60}, **SCOPE)
            _wait_for(lambda: backend.load(job.id).state is JobState.RUNNING)  # type: ignore[union-attr]
            backend.request_cancel(job.id, **SCOPE)
            assert runner.wait_idle(timeout=10)
        assert backend.load(job.id).state is JobState.CANCELLED  # type: ignore[union-attr]

    def test_stop_leaves_the_job_for_the_next_runner(self) -> None:
        backend = InMemoryJobBackend()
        runner = ThreadPoolRunner(backend, TASKS, lease_s=60)
        job = runner.submit("count", {"n": 2, "pause": 60}, **SCOPE)
        _wait_for(lambda: backend.load(job.id).progress is not None)  # type: ignore[union-attr]
        runner.stop()
        left = backend.load(job.id)
        assert left is not None
        assert left.state is JobState.RUNNING
        fast = {"count": count_to}
        with ThreadPoolRunner(backend, fast) as second:
            # The released lease lets the next runner resume at once (attempt 2).
            resumed = _wait_for(lambda: (s := backend.load(job.id)) and s.attempts == 2 and s)
            assert resumed.state is JobState.RUNNING
            second.stop(timeout=5)

    def test_several_workers_run_jobs_concurrently(self) -> None:
        started = threading.Barrier(3, timeout=10)

        def meet(ctx: TaskContext) -> str:
            started.wait()
            return threading.current_thread().name

        backend = InMemoryJobBackend()
        with ThreadPoolRunner(backend, {"meet": meet}, max_workers=3) as runner:
            jobs = [runner.submit("meet", {"i": i}, **SCOPE) for i in range(3)]
            assert runner.wait_idle(timeout=10)
        names = {backend.load(j.id).result for j in jobs}  # type: ignore[union-attr]
        assert len(names) == 3

    def test_bad_options_are_refused(self) -> None:
        backend = InMemoryJobBackend()
        with pytest.raises(ValueError, match="max_workers"):
            ThreadPoolRunner(backend, TASKS, max_workers=0, autostart=False)
        with pytest.raises(ValueError, match="lease_s"):
            ThreadPoolRunner(backend, TASKS, lease_s=0, autostart=False)


def test_local_runner_picks_by_kind_and_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    backend = InMemoryJobBackend()
    assert isinstance(local_runner(backend, TASKS, kind="stepping"), SteppingRunner)
    monkeypatch.setenv(RUNNER_ENV, "stepping")
    assert isinstance(local_runner(backend, TASKS), SteppingRunner)
    monkeypatch.setenv(RUNNER_ENV, "threads")
    runner = local_runner(backend, TASKS, autostart=False)
    assert isinstance(runner, ThreadPoolRunner)
    with pytest.raises(ValueError, match="kind"):
        local_runner(backend, TASKS, kind="greenlets")


def test_in_memory_backend_is_refused_in_production(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HEDRON_ENV", "production")
    with pytest.raises(ProductionRefusedError, match="HEDRON_ENV=production"):
        InMemoryJobBackend()
    monkeypatch.setenv("HEDRON_ENV", "development")
    assert len(InMemoryJobBackend()) == 0


def test_jobs_import_without_sqlite3_and_without_starting_threads() -> None:
    """Pyodide ships sqlite3 separately and has no threads: importing must need neither."""
    import subprocess
    import sys

    code = (
        "import builtins, threading\n"
        "real = builtins.__import__\n"
        "def guard(name, *a, **k):\n"
        "    if name == 'sqlite3': raise ImportError('no sqlite3')\n"
        "    return real(name, *a, **k)\n"
        "builtins.__import__ = guard\n"
        "before = threading.active_count()\n"
        "import hedron_core.jobs, hedron.jobs\n"
        "from hedron_core.jobs import InMemoryJobBackend, SteppingRunner\n"
        "SteppingRunner(InMemoryJobBackend(), {'t': lambda ctx: 1})\n"
        "assert threading.active_count() == before, threading.enumerate()\n"
        "print('ok')\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert run.stdout.strip() == "ok", run.stderr
