"""Faults with real parts: a worker killed mid-job, Redis restarted without persistence, a
broker that refuses the enqueue."""

from __future__ import annotations

import dataclasses
import re
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis

from docsite.testing.redis_server import RedisServer, free_port, running_redis
from docsite.testing.scale.procs import ManagedProcess, uvicorn_argv, wait_until
from docsite.testing.scale.stack import ENGINES, engine_env, stack, start_worker, worker_argv
from docsite.testing.scale.tasks import TASKS
from hedron.integrations import UNAVAILABLE_DETAIL, ScaleConfig
from hedron_core.jobs import JobState

pytestmark = pytest.mark.slow  # real workers, killed and restarted

ALICE = {"auth_subject": "alice", "tenant_id": "acme"}


def make_jobs(engine: str, config: ScaleConfig, **kwargs: Any) -> Any:
    if engine == "celery":
        from hedron.integrations.celery import CeleryJobs

        return CeleryJobs(config, TASKS, **kwargs)
    from hedron.integrations.rq import RQJobs

    return RQJobs(config, TASKS, **kwargs)


@pytest.fixture
def deployment_config(redis_server: RedisServer, prefix: str) -> ScaleConfig:
    return ScaleConfig(redis_url=redis_server.url, key_prefix=prefix, queue=prefix + "queue")


def _env(engine: str, config: ScaleConfig, *, lease_s: float, max_attempts: int) -> dict[str, str]:
    return engine_env(
        engine,
        config.redis_url,
        config.key_prefix,
        queue=config.queue,
        lease_s=lease_s,
        max_attempts=max_attempts,
    )


def _running_with_progress(jobs: Any, job_id: str) -> bool:
    status = jobs.backend.load(job_id)
    return bool(status.state is JobState.RUNNING and status.progress and status.progress.k >= 1)


def _rescue(engine: str, env: dict[str, str], jobs: Any, job_id: str) -> Any:
    """Start a healthy worker, wait until the job is finished, stop it; the job's status."""
    rescuer = start_worker(engine, env, "rescuer")
    try:
        wait_until(lambda: jobs.backend.load(job_id).terminal, timeout=30, what="the rescue")
    finally:
        rescuer.close()
    return jobs.backend.load(job_id)


@pytest.mark.parametrize("engine", ENGINES)
def test_killed_worker_job_is_retried_not_reported_succeeded(
    engine: str, deployment_config: ScaleConfig
) -> None:
    lease_s = 1.0
    jobs = make_jobs(engine, deployment_config, lease_s=lease_s, max_attempts=2)
    env = _env(engine, deployment_config, lease_s=lease_s, max_attempts=2)
    try:
        first = start_worker(engine, env, "doomed")
        try:
            job = jobs.backend.submit("count", {"n": 30, "step_s": 0.05}, **ALICE)
            wait_until(lambda: _running_with_progress(jobs, job.id), timeout=30, what="job start")
            first.kill_group(signal.SIGKILL)
            first.proc.wait(10)
        finally:
            first.close()
        # Nobody runs the job now: it is never reported SUCCEEDED, its lease runs out.
        wait_until(
            lambda: job.id in jobs.redis.expired_leases(),
            timeout=10,
            what="the dead worker's lease to expire",
        )
        lost = jobs.backend.load(job.id)
        assert lost.state is JobState.RUNNING
        assert lost.attempts == 1
        assert jobs.backend.recover_lost() == {"retried": [job.id], "failed": []}
        done = _rescue(engine, env, jobs, job.id)
        assert done.state is JobState.SUCCEEDED
        assert done.attempts == 2
        assert done.result["attempt"] == 2
    finally:
        jobs.close()


def test_celery_worker_dying_before_the_claim_does_not_lose_the_job(
    deployment_config: ScaleConfig,
) -> None:
    """A production (prefork) worker takes the message and dies, parent and child, before
    claiming the job (a Celery signal in docsite.testing.scale.app kills it there). With early
    acks the message would be gone and the job QUEUED for ever; it was not acknowledged, so the
    broker hands it to the next worker after ``redelivery_s``, with no ``resend()``."""
    jobs = make_jobs("celery", deployment_config, redelivery_s=2.0)
    env = _env("celery", deployment_config, lease_s=30.0, max_attempts=3)
    env["HEDRON_TEST_REDELIVERY_S"] = "2"  # what the workers use, as `jobs` above
    try:
        dying = {**env, "HEDRON_TEST_DIE_BEFORE_CLAIM": "worker"}
        doomed = start_worker("celery", dying, "doomed", pool="prefork")
        try:
            job = jobs.backend.submit("count", {"n": 2, "step_s": 0.01}, **ALICE)
            assert doomed.proc.wait(30) == -signal.SIGKILL  # it took the message and died
        finally:
            doomed.close()
        orphan = jobs.backend.load(job.id)
        assert (orphan.state, orphan.attempts) == (JobState.QUEUED, 0)  # nobody claimed it
        assert jobs.backend.recover_lost() == {"retried": [], "failed": []}  # no lease to see
        done = _rescue("celery", env, jobs, job.id)
        assert done.state is JobState.SUCCEEDED
        assert (done.attempts, done.result["attempt"]) == (1, 1)  # the same message, once
    finally:
        jobs.close()


# An RQ worker's record of a started message outlives the worker by its heartbeat TTL (RQ's
# job monitoring interval, 30 s, plus 60 s); maintenance judges expiry at this later time.
AFTER_RQ_HEARTBEAT_S = 120.0


def _rq_worker_dies_before_the_claim(env: dict[str, str], jobs: Any, job_id: str) -> None:
    """An RQ worker takes the job's message and dies (horse and parent) before the claim."""
    doomed = start_worker("rq", {**env, "HEDRON_TEST_DIE_BEFORE_CLAIM": "worker"}, "doomed")
    try:
        assert doomed.proc.wait(30) == -signal.SIGKILL
    finally:
        doomed.close()
    orphan = jobs.backend.load(job_id)
    assert (orphan.state, orphan.attempts) == (JobState.QUEUED, 0)  # nobody claimed it


def _assert_given_up(jobs: Any, job_id: str, reason: str) -> None:
    """The job is FAILED with the error that names RQ's last reason (a regex) for 1 retry."""
    failed = jobs.backend.load(job_id)
    assert failed.state is JobState.FAILED
    expected = (
        rf"RQ gave up on job {re.escape(job_id)} before any worker started it, after 1 "
        rf"retries \({reason}\)"
    )
    assert re.fullmatch(expected, failed.error), failed.error


def test_rq_worker_dying_before_the_claim_does_not_lose_the_job(
    deployment_config: ScaleConfig,
) -> None:
    """RQ keeps a dead worker's started message in its registry; maintenance() sweeps it once
    the worker's heartbeat has run out, and RQ sends it again (``Retry``), with no resend()."""
    jobs = make_jobs("rq", deployment_config, max_attempts=3)
    env = _env("rq", deployment_config, lease_s=30.0, max_attempts=3)
    try:
        job = jobs.backend.submit("count", {"n": 2, "step_s": 0.01}, **ALICE)
        _rq_worker_dies_before_the_claim(env, jobs, job.id)
        idle = {"abandoned": 0, "given_up": 0, "retried": 0, "failed": 0, "deleted": 0}
        assert jobs.maintenance() == idle  # its heartbeat has not run out yet
        assert jobs.queue().job_ids == []
        later = time.time() + AFTER_RQ_HEARTBEAT_S
        assert jobs.maintenance(now=later) == {**idle, "abandoned": 1}
        assert jobs.queue().job_ids == [f"hedron-{job.id}-0"]  # the same message, sent again
        done = _rescue("rq", env, jobs, job.id)
        assert done.state is JobState.SUCCEEDED
        assert (done.attempts, done.result["attempt"]) == (1, 1)
    finally:
        jobs.close()


@pytest.mark.parametrize("broker", ["status Redis", "separate broker"])
def test_rq_job_whose_workers_keep_dying_before_the_claim_fails_clearly(
    deployment_config: ScaleConfig, broker: str
) -> None:
    """Once RQ's retries are spent, the job no worker ever claimed is FAILED (not QUEUED for
    ever), with the reason in its error; pollers see a terminal state. With the queues in
    another Redis, maintenance() reads RQ's registries there and still writes the failure to
    the status Redis."""
    if broker == "separate broker":
        url = deployment_config.redis_url
        deployment_config = dataclasses.replace(
            deployment_config, broker_url=url.rsplit("/", 1)[0] + "/1"
        )
    jobs = make_jobs("rq", deployment_config, max_attempts=1)
    env = _env("rq", deployment_config, lease_s=30.0, max_attempts=1)
    if deployment_config.broker_url:
        env["HEDRON_BROKER_URL"] = deployment_config.broker_url
    try:
        job = jobs.backend.submit("count", {"n": 2, "step_s": 0.01}, **ALICE)
        _rq_worker_dies_before_the_claim(env, jobs, job.id)
        first = jobs.maintenance(now=time.time() + AFTER_RQ_HEARTBEAT_S)
        assert (first["abandoned"], first["given_up"]) == (1, 0)  # sent again: one retry left
        _rq_worker_dies_before_the_claim(env, jobs, job.id)  # the retry dies as well
        second = jobs.maintenance(now=time.time() + AFTER_RQ_HEARTBEAT_S)
        assert (second["abandoned"], second["given_up"]) == (1, 1)
        _assert_given_up(
            jobs, job.id, r"Moved to FailedJobRegistry, due to AbandonedJobError, at .+"
        )
        assert jobs.queue().job_ids == []
        assert jobs.maintenance()["given_up"] == 0  # counted once
    finally:
        jobs.close()


def test_rq_work_horse_killed_before_the_claim_is_sent_again_at_once(
    deployment_config: ScaleConfig, tmp_path: Path
) -> None:
    """The kernel kills the work horse (out of memory) and its parent lives on: RQ sends the
    message again at once (``Retry``), and the same worker runs the job; no sweep needed."""
    jobs = make_jobs("rq", deployment_config, max_attempts=3)
    env = _env("rq", deployment_config, lease_s=30.0, max_attempts=3)
    env |= {"HEDRON_TEST_DIE_BEFORE_CLAIM": "horse", "HEDRON_TEST_DIE_ONCE": str(tmp_path / "x")}
    try:
        job = jobs.backend.submit("count", {"n": 2, "step_s": 0.01}, **ALICE)
        done = _rescue("rq", env, jobs, job.id)
        assert (tmp_path / "x").exists()  # the first horse died
        assert done.state is JobState.SUCCEEDED
        assert (done.attempts, done.result["attempt"]) == (1, 1)
    finally:
        jobs.close()


def test_rq_job_whose_work_horses_keep_dying_fails_clearly(deployment_config: ScaleConfig) -> None:
    """Horses that die every time: RQ gives the message up after its retries; maintenance()
    finds it in RQ's failed registry and the job is FAILED with RQ's reason."""
    from rq.job import Job

    jobs = make_jobs("rq", deployment_config, max_attempts=1)
    env = _env("rq", deployment_config, lease_s=30.0, max_attempts=1)
    env["HEDRON_TEST_DIE_BEFORE_CLAIM"] = "horse"
    try:
        job = jobs.backend.submit("count", {"n": 2, "step_s": 0.01}, **ALICE)
        message = Job.fetch(f"hedron-{job.id}-0", connection=jobs.queue_connection)
        worker = start_worker("rq", env, "oom")
        try:
            wait_until(lambda: message.get_status() == "failed", timeout=30, what="RQ to give up")
            assert worker.alive()  # only the horses died
        finally:
            worker.close()
        assert jobs.backend.load(job.id).state is JobState.QUEUED  # until maintenance() looks
        assert jobs.maintenance()["given_up"] == 1
        _assert_given_up(jobs, job.id, r"Work-horse terminated unexpectedly; waitpid returned 9 .*")
    finally:
        jobs.close()


@pytest.mark.parametrize(
    ("value", "error", "message"),
    [
        ("5", TypeError, "redelivery_s must be a number of seconds, got '5'"),
        (True, TypeError, "redelivery_s must be a number"),
        (0, ValueError, "redelivery_s must be a finite number > 0, got 0"),
        (float("nan"), ValueError, "redelivery_s must be a finite number > 0"),
        (float("inf"), ValueError, "redelivery_s must be a finite number > 0"),
    ],
)
def test_celery_redelivery_s_is_checked_before_anything_connects(
    value: object, error: type[Exception], message: str
) -> None:
    from hedron.integrations.celery import CeleryJobs

    # an unreachable Redis: the check must fail first, naming the parameter
    config = ScaleConfig(redis_url=f"redis://127.0.0.1:{free_port()}/0", key_prefix="x:")
    with pytest.raises(error, match=re.escape(message)):
        CeleryJobs(config, TASKS, redelivery_s=value)  # type: ignore[arg-type]


def test_killed_worker_job_fails_after_max_attempts(deployment_config: ScaleConfig) -> None:
    jobs = make_jobs("rq", deployment_config, lease_s=1.0, max_attempts=1)
    env = _env("rq", deployment_config, lease_s=1.0, max_attempts=1)
    try:
        worker = start_worker("rq", env, "doomed")
        try:
            job = jobs.backend.submit("count", {"n": 200, "step_s": 0.05}, **ALICE)
            wait_until(lambda: _running_with_progress(jobs, job.id), timeout=30, what="job start")
            worker.kill_group(signal.SIGKILL)
            worker.proc.wait(10)
        finally:
            worker.close()
        wait_until(
            lambda: jobs.backend.recover_lost()["failed"] == [job.id],
            timeout=10,
            what="recover_lost to give up on the job",
        )
        failed = jobs.backend.load(job.id)
        assert failed.state is JobState.FAILED
        assert "worker lost" in failed.error
        assert "max_attempts=1" in failed.error
    finally:
        jobs.close()


@pytest.fixture
def refusing_broker() -> Iterator[RedisServer]:
    """A real Redis that refuses every write (it demands a replica that does not exist)."""
    with running_redis(extra_args=("--min-replicas-to-write", "1")) as server:
        yield server


@pytest.mark.parametrize("engine", ENGINES)
def test_a_refused_enqueue_fails_the_job_and_frees_its_key(
    engine: str, redis_server: RedisServer, refusing_broker: RedisServer, prefix: str
) -> None:
    config = ScaleConfig(
        redis_url=redis_server.url, broker_url=refusing_broker.url, key_prefix=prefix
    )
    jobs = make_jobs(engine, config)
    try:
        first = jobs.backend.submit("count", {"n": 1}, **ALICE, idempotency_key="order-1")
        assert first.state is JobState.FAILED
        assert first.error.startswith(f"could not enqueue job {first.id} on the {engine} queue")
        assert "NOREPLICAS" in first.error
        # Pollers see the same clear error, and the idempotency key is free again.
        seen = jobs.backend.get(first.id, **ALICE)
        assert (seen.state, seen.error) == (JobState.FAILED, first.error)
        again = jobs.backend.submit("count", {"n": 1}, **ALICE, idempotency_key="order-1")
        assert again.id != first.id
        assert again.state is JobState.FAILED
    finally:
        jobs.close()


def wait_idle(engine: str, worker: ManagedProcess, redis_url: str) -> None:
    """Wait until ``worker`` has finished a job, its own bookkeeping in Redis included.

    An RQ worker marks itself idle and then still writes a heartbeat and checks for suspension
    before it waits for the next job; only that wait retries a lost connection. So the wait
    itself is the sign: a client blocked on the queue (the job's own dequeue came before its
    "Job OK", so a blocked client now is the worker waiting for the next one)."""
    worker.wait_for_log("succeeded in" if engine == "celery" else "Job OK", timeout=30)
    if engine == "rq":
        client = redis.Redis.from_url(redis_url)
        try:
            wait_until(lambda: waiting_for_a_job(client), timeout=30, what="RQ to wait")
        finally:
            client.close()


def waiting_for_a_job(client: redis.Redis) -> bool:
    """Whether a client of this Redis is blocked taking a job from a queue."""
    return any("b" in c["flags"] and c["cmd"] in ("blpop", "blmove") for c in client.client_list())


@pytest.mark.parametrize("engine", ENGINES)
def test_redis_restart_without_persistence(engine: str) -> None:
    """While Redis is down the web process answers 503 (and logs which Redis failed); after
    a restart that lost every key, the old job is gone (404), the processes are still up, and
    new jobs run again."""
    with running_redis(persistence=False) as server:
        env = engine_env(engine, server.url, "restart:", lease_s=5.0)
        with stack(engine, env, webs=1, workers=1) as st:
            base = st.webs[0].base_url
            headers = {"x-user": "alice", "x-tenant": "acme"}

            def run_one() -> str:
                r = httpx.post(f"{base}/jobs", json={"type": "count", "payload": {"n": 1}},
                               headers=headers)  # fmt: skip
                assert r.status_code == 200, r.text
                job_id = str(r.json()["id"])
                wait_until(
                    lambda: httpx.get(f"{base}/jobs/{job_id}", headers=headers).status_code == 200,
                    timeout=30,
                    what="the job to finish",
                )
                return job_id

            before = run_one()
            # The worker records its own bookkeeping after hedron's job is SUCCEEDED; a restart
            # is tested once it waits for the next job. (Redis vanishing inside that window
            # makes RQ's worker process exit: RQ's own behaviour, which the scaling-out guide
            # tells to supervise.)
            wait_idle(engine, st.workers[0], server.url)
            server.stop()
            down = httpx.get(f"{base}/jobs/{before}", headers=headers)
            assert down.status_code == 503
            assert down.json() == {"detail": UNAVAILABLE_DETAIL}
            assert "Retry-After" in down.headers
            assert str(server.port) not in down.text
            assert f"127.0.0.1:{server.port}" in st.webs[0].proc.log()
            server.start()
            assert httpx.get(f"{base}/jobs/{before}", headers=headers).status_code == 404
            run_one()
            assert st.webs[0].proc.alive()
            assert all(w.alive() for w in st.workers)


@pytest.mark.parametrize("process", ["web", "celery"])
def test_start_up_fails_clearly_when_redis_is_unreachable(process: str) -> None:
    """A wrong Redis URL stops the deploy at start-up with a message naming the URL."""
    dead = f"redis://127.0.0.1:{free_port()}/0"
    env = engine_env("celery", dead, "dead:")
    argv = (
        uvicorn_argv("docsite.testing.scale.app:app", free_port())
        if process == "web"
        else worker_argv("celery", env, "dead")
    )
    proc = ManagedProcess(f"dead-{process}", argv, env)
    try:
        assert proc.proc.wait(30) != 0
        log = proc.log()
        assert f"RedisUnavailableError: Redis at {dead} is unreachable" in log
        assert "check HEDRON_REDIS_URL" in log
    finally:
        proc.close()
