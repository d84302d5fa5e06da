"""Every public jobs constructor refuses a bad value naming the parameter (storing nothing),
or works with it: TaskFlow, JobScope, JobProgress, VirtualClock, the in-memory and SQLite
backends and ``submit`` on them, ThreadPoolRunner and SteppingRunner.

Each has a hypothesis property (random bad values) and a sweep of every known-tricky value;
see ``tests/_support/bad_values.py`` for both and for the rule.
"""

from __future__ import annotations

import tempfile
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import Request
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jobs_support import flow_serves

from hedron import Field, Input
from hedron.jobs import JobScope, TaskFlow, job_status_response
from hedron_core.jobs import (
    InMemoryJobBackend,
    JobProgress,
    JobState,
    SQLiteJobBackend,
    SteppingRunner,
    TaskContext,
    ThreadPoolRunner,
    VirtualClock,
)
from tests._support.bad_values import JUNK, NOT_CALLABLE, refused_or_works, sweep

with warnings.catch_warnings():
    warnings.simplefilter("ignore")

OWNER = {"auth_subject": "alice", "tenant_id": "acme"}
FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


async def echo(ctx: TaskContext) -> dict[str, Any]:
    return {"echo": ctx.payload}


def _value(param: str, callables: frozenset[str]) -> st.SearchStrategy[Any]:
    return NOT_CALLABLE if param in callables else JUNK


class Constructor:
    """One constructor under the rule: ``build(param, value)`` and ``use(obj)``."""

    def __init__(
        self,
        build: Callable[[str, Any], Any],
        use: Callable[[Any], object],
        params: tuple[str, ...],
        callables: frozenset[str] = frozenset(),
        lenient: frozenset[str] = frozenset(),
    ) -> None:
        self.build, self.use, self.params, self.callables = build, use, params, callables
        #: Parameters that take any value by design (``cancel=``: its truth value): random
        #: values only, the sweep of every tricky value would only repeat the same two cases.
        self.swept = tuple(p for p in params if p not in lenient)


# --- TaskFlow ------------------------------------------------------------------------------


def _scope(request: Request) -> JobScope:
    return JobScope("alice", "acme")


def _flow(param: str, value: Any) -> TaskFlow:
    kwargs: dict[str, Any] = {
        "job_type": "demo",
        "scope": _scope,
        "fields": [Field("N", Input("n"))],
        param: value,
    }
    return TaskFlow(**kwargs)


# --- backends and submit --------------------------------------------------------------------


_TMP: list[Path] = []  # the test's temporary folder (set by the autouse fixture)


def _fresh_db() -> Path:
    folder = Path(tempfile.mkdtemp(dir=_TMP[0]))
    return folder / "jobs.db"


def _sqlite(param: str, value: Any) -> SQLiteJobBackend:
    path = _fresh_db()
    kwargs: dict[str, Any] = {"path": path, param: value}
    try:
        return SQLiteJobBackend(**kwargs)
    except (TypeError, ValueError):
        assert not path.exists(), f"{param}={value!r} was refused but the database was created"
        raise


def _backend_works(backend: Any) -> None:
    try:
        job = backend.submit("demo", {"n": 1}, **OWNER)
        backend.mark(job.id, JobState.RUNNING)
        backend.progress(job.id, 1, 2, "half")
        backend.mark(job.id, JobState.SUCCEEDED, result={"ok": 1})
        stored = backend.get(job.id, **OWNER)
        assert stored is not None
        job_status_response(stored, **OWNER).body.decode("utf-8")
        backend.cleanup_expired()
    finally:
        backend.close()


def _submit_build(param: str, value: Any) -> tuple[InMemoryJobBackend, Any]:
    backend = InMemoryJobBackend()
    kwargs: dict[str, Any] = {"job_type": "demo", "payload": {"n": 1}, **OWNER, param: value}
    job_type, payload = kwargs.pop("job_type"), kwargs.pop("payload")
    try:
        return backend, backend.submit(job_type, payload, **kwargs)
    except (TypeError, ValueError):
        assert len(backend) == 0, f"{param}={value!r} was refused but a job was stored"
        raise


def _submitted_works(made: tuple[InMemoryJobBackend, Any]) -> None:
    backend, job = made
    stored = backend.get(job.id, **job.scope.as_kwargs())
    assert stored is not None
    response = job_status_response(stored, **job.scope.as_kwargs())
    assert response.status_code == 200
    response.body.decode("utf-8")
    response.json_response.body.decode("utf-8")


# --- runners ---------------------------------------------------------------------------------


def _runner(kind: type[Any]) -> Callable[[str, Any], Any]:
    """Builds ``kind(backend, tasks, **options)`` with one argument replaced."""

    def build(param: str, value: Any) -> Any:
        kwargs: dict[str, Any] = {"backend": InMemoryJobBackend(), "tasks": {"echo": echo}}
        kwargs[param] = value
        backend, tasks = kwargs.pop("backend"), kwargs.pop("tasks")
        return kind(backend, tasks, **kwargs)

    return build


def _threads_work(runner: ThreadPoolRunner) -> None:
    runner.start()
    try:
        if "echo" not in runner.tasks:
            return
        job = runner.submit("echo", {"n": 1}, **OWNER)
        assert runner.wait_idle(timeout=10)
        done = runner.backend.load(job.id)
        assert done is not None
        assert done.state is JobState.SUCCEEDED, done
    finally:
        runner.stop()


def _stepping_works(runner: SteppingRunner) -> None:
    if "echo" not in runner.tasks:
        return
    job = runner.backend.submit("echo", {"n": 1}, **OWNER)
    for _ in range(5):
        runner.step()
    done = runner.backend.load(job.id)
    assert done is not None
    assert done.state is JobState.SUCCEEDED, done


def _progress_works(progress: JobProgress) -> None:
    """Stored by every embedded backend and shown by the status view."""
    for backend in (InMemoryJobBackend(), SQLiteJobBackend(_fresh_db())):
        try:
            job = backend.submit("demo", {}, **OWNER)
            backend.mark(job.id, JobState.RUNNING)
            backend.progress(job.id, progress.k, progress.n, progress.message)
            stored = backend.get(job.id, **OWNER)
            assert stored is not None
            assert stored.progress == progress
            job_status_response(stored, **OWNER).body.decode("utf-8")
        finally:
            backend.close()


def _clock_works(clock: VirtualClock) -> None:
    clock.advance(1.5)
    backend = InMemoryJobBackend(clock=clock)
    _backend_works(backend)


CONSTRUCTORS: dict[str, Constructor] = {
    "TaskFlow": Constructor(
        _flow,
        flow_serves,
        (
            *("job_type", "scope", "fields", "payload", "backend", "policy", "result_view"),
            *("cancel", "restart", "poll_interval_ms", "submit_label", "path", "name"),
        ),
        callables=frozenset({"scope", "payload", "policy", "result_view"}),
        lenient=frozenset({"cancel", "restart"}),
    ),
    "JobScope": Constructor(
        lambda p, v: JobScope(**{"auth_subject": "a", "tenant_id": "t", p: v}),
        lambda scope: InMemoryJobBackend().submit("demo", {}, **scope.as_kwargs()),
        ("auth_subject", "tenant_id"),
    ),
    "JobProgress": Constructor(
        lambda p, v: JobProgress(**{"k": 1, "n": 2, "message": "m", p: v}),
        _progress_works,
        ("k", "n", "message"),
    ),
    "VirtualClock": Constructor(lambda p, v: VirtualClock(**{p: v}), _clock_works, ("start",)),
    "InMemoryJobBackend": Constructor(
        lambda p, v: InMemoryJobBackend(**{p: v}),
        _backend_works,
        ("clock", "retention_s"),
        callables=frozenset({"clock"}),
    ),
    "SQLiteJobBackend": Constructor(
        _sqlite,
        _backend_works,
        ("clock", "retention_s", "synchronous", "busy_timeout_s"),
        callables=frozenset({"clock"}),
    ),
    "submit": Constructor(
        _submit_build,
        _submitted_works,
        ("job_type", "payload", "auth_subject", "tenant_id", "idempotency_key"),
    ),
    "ThreadPoolRunner": Constructor(
        _runner(ThreadPoolRunner),
        _threads_work,
        (
            *("backend", "tasks", "max_workers", "lease_s", "poll_interval_s"),
            *("check_interval_s", "autostart"),
        ),
    ),
    "SteppingRunner": Constructor(
        _runner(SteppingRunner),
        _stepping_works,
        ("backend", "tasks", "clock", "worker"),
        callables=frozenset({"clock"}),
    ),
}


@pytest.fixture(autouse=True)
def _setting(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    monkeypatch.delenv("HEDRON_ENV", raising=False)
    _TMP[:] = [tmp_path]
    yield
    _TMP.clear()


@pytest.mark.parametrize("name", sorted(CONSTRUCTORS))
@FAST
@given(data=st.data())
def test_a_bad_argument_is_refused_naming_it_or_works(name: str, data: Any) -> None:
    ctor = CONSTRUCTORS[name]
    param = data.draw(st.sampled_from(ctor.params), label="param")
    value = data.draw(_value(param, ctor.callables), label="value")
    refused_or_works(lambda: ctor.build(param, value), ctor.use, param, value)


@pytest.mark.parametrize("name", sorted(CONSTRUCTORS))
def test_every_tricky_argument_is_refused_naming_it_or_works(name: str) -> None:
    ctor = CONSTRUCTORS[name]
    sweep(ctor.build, ctor.use, ctor.swept, callables=ctor.callables)
