"""ScaleConfig, QueuedJobBackend and the worker-side runner, in-process against real Redis."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from docsite.testing.redis_server import RedisServer, free_port
from docsite.testing.scale.tasks import TASKS
from hedron.integrations import (
    QueuedJobBackend,
    RedisJobBackend,
    RedisUnavailableError,
    ScaleConfig,
    redact_url,
)
from hedron.integrations._worker import run_job
from hedron_core.jobs import JobState, JobStatus, TaskContext

ALICE = {"auth_subject": "alice", "tenant_id": "acme"}


# --- ScaleConfig ---------------------------------------------------------------------------


def test_config_reads_everything_from_one_environment() -> None:
    cfg = ScaleConfig.from_env(
        {
            "HEDRON_REDIS_URL": "redis://cache:6380/2",
            "HEDRON_JOBS_PREFIX": "shop:jobs:",
            "HEDRON_JOBS_QUEUE": "shop",
            "HEDRON_JOBS_TTL_SECONDS": "3600",
            "HEDRON_BROKER_URL": "redis://broker:6379/0",
            "HEDRON_JOBS_QUEUES": "report=reports, thumbnail=images",
        }
    )
    assert cfg == ScaleConfig(
        redis_url="redis://cache:6380/2",
        key_prefix="shop:jobs:",
        queue="shop",
        ttl_seconds=3600.0,
        broker_url="redis://broker:6379/0",
        queues={"report": "reports", "thumbnail": "images"},
    )
    assert cfg.effective_broker_url == "redis://broker:6379/0"
    assert ScaleConfig.from_env({}) == ScaleConfig()
    assert ScaleConfig().effective_broker_url == ScaleConfig().redis_url


def test_config_routes_job_types_to_queues() -> None:
    cfg = ScaleConfig(queue="default", queues={"report": "slow"})
    assert (cfg.queue_for("report"), cfg.queue_for("resize")) == ("slow", "default")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"redis_url": "http://x"}, "redis_url must start with redis://"),
        ({"broker_url": "amqp://x"}, "broker_url must start with redis://"),
        ({"key_prefix": ""}, "key_prefix must be a non-empty string"),
        ({"queue": " "}, "queue must be a non-empty string"),
        ({"ttl_seconds": 0}, "ttl_seconds must be a positive number"),
        ({"ttl_seconds": True}, "ttl_seconds must be a positive number"),
        ({"connect_timeout_s": -1}, "connect_timeout_s must be a positive number"),
        ({"queues": {"report": ""}}, "queues must map job types"),
    ],
)
def test_config_rejects_bad_values_naming_them(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ScaleConfig(**kwargs)


def test_config_rejects_malformed_environment_values_naming_them() -> None:
    with pytest.raises(ValueError, match="HEDRON_JOBS_TTL_SECONDS must be a number"):
        ScaleConfig.from_env({"HEDRON_JOBS_TTL_SECONDS": "a week"})
    with pytest.raises(ValueError, match="HEDRON_JOBS_QUEUES must look like"):
        ScaleConfig.from_env({"HEDRON_JOBS_QUEUES": "reports"})


def test_unreachable_redis_fails_at_start_up_without_leaking_the_password() -> None:
    cfg = ScaleConfig(redis_url=f"redis://:hunter2@127.0.0.1:{free_port()}/0", connect_timeout_s=1)
    with pytest.raises(RedisUnavailableError, match="is unreachable") as info:
        cfg.check()
    assert "hunter2" not in str(info.value)
    assert ":***@127.0.0.1" in str(info.value)
    with pytest.raises(RedisUnavailableError):
        cfg.backend()
    assert redact_url("redis://127.0.0.1/0") == "redis://127.0.0.1/0"


def test_config_builds_a_working_backend(redis_server: RedisServer, prefix: str) -> None:
    cfg = ScaleConfig(redis_url=redis_server.url, key_prefix=prefix, ttl_seconds=90)
    cfg.check()
    backend = cfg.backend()
    try:
        assert (backend.prefix, backend.retention_s) == (prefix, 90.0)
        job = backend.submit("demo", {}, **ALICE)
        assert backend.get(job.id, **ALICE) == job
    finally:
        backend.close()


# --- QueuedJobBackend ------------------------------------------------------------------------


class RecordingDispatcher:
    engine = "test"

    def __init__(self, fail: Exception | None = None) -> None:
        self.sent: list[str] = []
        self.revoked: list[str] = []
        self.fail = fail

    def send(self, status: JobStatus) -> None:
        if self.fail is not None:
            raise self.fail
        self.sent.append(status.id)

    def revoke(self, job_id: str) -> None:
        self.revoked.append(job_id)


@pytest.fixture
def redis_backend(redis_url: str, prefix: str) -> Iterator[RedisJobBackend]:
    backend = RedisJobBackend(redis_url, prefix=prefix)
    yield backend
    backend.close()


def test_a_job_is_sent_once_even_when_resubmitted(redis_backend: RedisJobBackend) -> None:
    dispatcher = RecordingDispatcher()
    queued = QueuedJobBackend(redis_backend, dispatcher)
    first = queued.submit("count", {}, **ALICE, idempotency_key="k")
    again = queued.submit("count", {}, **ALICE, idempotency_key="k")
    other = queued.submit("count", {}, **ALICE)
    assert again.id == first.id
    assert dispatcher.sent == [first.id, other.id]


def test_resend_sends_only_queued_jobs(redis_backend: RedisJobBackend) -> None:
    dispatcher = RecordingDispatcher()
    queued = QueuedJobBackend(redis_backend, dispatcher)
    waiting = queued.submit("count", {}, **ALICE)
    done = queued.mark(queued.submit("count", {}, **ALICE).id, JobState.SUCCEEDED)
    assert queued.resend(waiting.id) == waiting
    assert queued.resend(done.id) == done
    assert queued.resend("missing") is None
    assert dispatcher.sent == [waiting.id, done.id, waiting.id]


def test_cancel_withdraws_only_queued_messages(redis_backend: RedisJobBackend) -> None:
    dispatcher = RecordingDispatcher()
    queued = QueuedJobBackend(redis_backend, dispatcher)
    waiting = queued.submit("count", {}, **ALICE)
    running = queued.submit("count", {}, **ALICE)
    queued.claim(running.id, worker="w", lease_s=30)
    assert queued.request_cancel(waiting.id, **ALICE).state is JobState.CANCELLED
    assert queued.request_cancel(running.id, **ALICE).cancel_requested
    assert queued.request_cancel(waiting.id, auth_subject="eve", tenant_id="acme") is None
    assert dispatcher.revoked == [waiting.id]


def test_queued_backend_validates_its_arguments(redis_backend: RedisJobBackend) -> None:
    with pytest.raises(TypeError, match="backend must be a RedisJobBackend"):
        QueuedJobBackend(object(), RecordingDispatcher())  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="max_attempts"):
        QueuedJobBackend(redis_backend, RecordingDispatcher(), max_attempts=0)


def test_a_broker_error_fails_the_job_with_its_reason(redis_backend: RedisJobBackend) -> None:
    queued = QueuedJobBackend(redis_backend, RecordingDispatcher(ConnectionError("refused")))
    job = queued.submit("count", {}, **ALICE, idempotency_key="k")
    assert job.state is JobState.FAILED
    assert (
        job.error == f"could not enqueue job {job.id} on the test queue (ConnectionError: refused)"
    )
    assert queued.submit("count", {}, **ALICE, idempotency_key="k").id != job.id


# --- run_job (the worker side) ----------------------------------------------------------------


def test_run_job_runs_the_task_once(redis_backend: RedisJobBackend) -> None:
    job = redis_backend.submit("count", {"n": 2, "step_s": 0}, **ALICE)
    assert run_job(redis_backend, TASKS, job.id, worker="w") is JobState.SUCCEEDED
    done = redis_backend.load(job.id)
    assert done is not None
    assert done.result["counted"] == 2
    # A duplicate delivery of the same message does nothing.
    assert run_job(redis_backend, TASKS, job.id, worker="w2") is None
    assert redis_backend.load(job.id) == done


def test_run_job_fails_unknown_types_and_skips_missing_jobs(
    redis_backend: RedisJobBackend,
) -> None:
    job = redis_backend.submit("nope", {}, **ALICE)
    assert run_job(redis_backend, TASKS, job.id, worker="w") is JobState.FAILED
    failed = redis_backend.load(job.id)
    assert failed is not None
    assert failed.error == "LookupError: no task function registered for job type 'nope'"
    assert run_job(redis_backend, TASKS, "missing-job", worker="w") is None


def test_run_job_supports_plain_def_tasks(redis_backend: RedisJobBackend) -> None:
    def plain(ctx: TaskContext) -> dict[str, int]:
        ctx.progress(1, 1, "done")
        return {"threads": threading.active_count()}

    job = redis_backend.submit("plain", {}, **ALICE)
    assert run_job(redis_backend, {"plain": plain}, job.id, worker="w") is JobState.SUCCEEDED


def test_run_job_stops_at_the_next_sleep_after_cancel(redis_backend: RedisJobBackend) -> None:
    steps: list[int] = []

    async def slow(ctx: TaskContext) -> None:
        for i in range(100):
            steps.append(i)
            if i == 2:
                redis_backend.request_cancel(ctx.job_id, **ALICE)
            await ctx.sleep(0)

    job = redis_backend.submit("slow", {}, **ALICE)
    assert run_job(redis_backend, {"slow": slow}, job.id, worker="w") is JobState.CANCELLED
    assert steps == [0, 1, 2]


def test_run_job_renews_its_lease_while_the_task_runs(redis_backend: RedisJobBackend) -> None:
    seen: list[bool] = []

    # The lease is renewed every third of it (every 0.5 s), so a renewal may come up to 1 s
    # late on a busy machine before the lease lapses; the task outlives the lease by 0.5 s.
    async def long(ctx: TaskContext) -> None:
        await asyncio.sleep(2.0)  # longer than the lease, no ctx calls at all
        seen.append(redis_backend.claim(ctx.job_id, worker="thief", lease_s=1) is None)

    job = redis_backend.submit("long", {}, **ALICE)
    assert run_job(redis_backend, {"long": long}, job.id, worker="w", lease_s=1.5) is (
        JobState.SUCCEEDED
    )
    assert seen == [True]


def test_built_in_runners_share_a_redis_backend(redis_url: str, prefix: str) -> None:
    """Without Celery or RQ: two thread-pool runners (as in two processes, each with its own
    connection pool) on one Redis run every job exactly once."""
    from hedron_core.jobs import ThreadPoolRunner

    backends = [RedisJobBackend(redis_url, prefix=prefix) for _ in range(2)]
    try:
        ids = [backends[0].submit("count", {"n": 2, "step_s": 0}, **ALICE).id for _ in range(20)]
        runners = [
            ThreadPoolRunner(b, TASKS, max_workers=2, poll_interval_s=0.01) for b in backends
        ]
        try:
            for runner in runners:
                runner.wake()
            for runner in runners:
                assert runner.wait_idle(timeout=30)
        finally:
            for runner in runners:
                runner.stop()
        finished = backends[1].load_many(ids)
        assert all(s is not None and s.state is JobState.SUCCEEDED for s in finished)
        assert all(s is not None and s.attempts == 1 for s in finished)
    finally:
        for b in backends:
            b.close()


def test_hedron_imports_without_redis_celery_or_rq() -> None:
    """redis-py, Celery and RQ are optional extras: importing hedron never needs them."""
    code = (
        "import sys\n"
        "for name in ('redis', 'celery', 'rq', 'kombu'):\n"
        "    sys.modules[name] = None\n"
        "import hedron_core.jobs, hedron_core.jobs.redis_backend, hedron.integrations\n"
        "import hedron.integrations.celery, hedron.integrations.rq\n"
        "try:\n"
        "    hedron_core.jobs.redis_backend.RedisJobBackend('redis://127.0.0.1:1/0')\n"
        "except RuntimeError as exc:\n"
        "    print(exc)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert out.returncode == 0, out.stderr
    assert "pip install 'hedron[redis]'" in out.stdout


def test_the_same_task_functions_run_under_the_stepping_runner() -> None:
    """The task functions the Celery/RQ workers run are the in-process ones, unchanged."""
    from hedron_core.jobs import InMemoryJobBackend, SteppingRunner, VirtualClock

    clock = VirtualClock()
    backend = InMemoryJobBackend(clock=clock)
    runner = SteppingRunner(backend, TASKS, clock=clock)
    job = backend.submit("count", {"n": 2, "step_s": 1.0}, **ALICE)
    for _ in range(10):
        runner.step()
        if backend.load(job.id).terminal:  # type: ignore[union-attr]
            break
    done = backend.load(job.id)
    assert done is not None
    assert done.state is JobState.SUCCEEDED
    assert done.result["counted"] == 2
    assert clock() == 2.0


def _jobs_for(engine: str, config: ScaleConfig) -> Any:
    """``CeleryJobs`` or ``RQJobs`` on ``config`` with the test tasks."""
    if engine == "celery":
        from hedron.integrations.celery import CeleryJobs

        return CeleryJobs(config, TASKS)
    from hedron.integrations.rq import RQJobs

    return RQJobs(config, TASKS)


@pytest.mark.parametrize("engine", ["celery", "rq"])
@pytest.mark.parametrize(
    ("now", "error", "message"),
    [
        ("soon", TypeError, "now must be seconds since the epoch or None, got 'soon'"),
        (True, TypeError, "now must be seconds since the epoch or None, got True"),
        (float("nan"), ValueError, "now must be a finite number, got nan"),
        (float("inf"), ValueError, "now must be a finite number, got inf"),
    ],
)
def test_maintenance_checks_now_before_touching_anything(
    engine: str,
    now: object,
    error: type[Exception],
    message: str,
    redis_server: RedisServer,
    prefix: str,
) -> None:
    config = ScaleConfig(redis_url=redis_server.url, key_prefix=prefix, queue=prefix + "q")
    jobs = _jobs_for(engine, config)
    owner = type(jobs).__name__
    try:
        lost = jobs.backend.submit("count", {}, **ALICE)
        jobs.backend.claim(lost.id, worker="dead", lease_s=60)
        jobs.backend.release(lost.id, worker="dead")  # its lease ended: a sweep re-sends it
        before = jobs.backend.load(lost.id)
        with pytest.raises(error, match=re.escape(f"{owner}.maintenance: {message}")):
            jobs.maintenance(now=now)
        assert jobs.backend.load(lost.id) == before  # nothing touched
        assert jobs.maintenance()["retried"] == 1  # the job is still there to recover
    finally:
        jobs.close()


@pytest.mark.parametrize("engine", ["celery", "rq"])
def test_maintenance_resends_lost_jobs_to_the_real_broker(
    engine: str, redis_server: RedisServer, prefix: str, redis_client: Any
) -> None:
    config = ScaleConfig(redis_url=redis_server.url, key_prefix=prefix, queue=prefix + "q")
    jobs = _jobs_for(engine, config)
    try:
        lost = jobs.backend.submit("count", {}, **ALICE)
        done = jobs.backend.submit("count", {}, **ALICE)
        jobs.backend.claim(lost.id, worker="dead", lease_s=60)
        jobs.backend.release(lost.id, worker="dead")  # a worker that vanished
        jobs.backend.mark(done.id, JobState.SUCCEEDED)
        outcome = jobs.maintenance()
        expected = {"retried": 1, "failed": 0, "deleted": 0}
        if engine == "rq":
            expected |= {"abandoned": 0, "given_up": 0}  # RQ's registries: no worker died
        assert outcome == expected
        if engine == "celery":
            messages = [json.loads(m) for m in redis_client.lrange(config.queue, 0, -1)]
            task_ids = sorted(m["headers"]["id"] for m in messages)
            assert task_ids == sorted([lost.id, done.id, f"{lost.id}-1"])
        else:
            ids = jobs.queue().job_ids
            assert ids == [f"hedron-{lost.id}-0", f"hedron-{done.id}-0", f"hedron-{lost.id}-1"]
    finally:
        jobs.close()
