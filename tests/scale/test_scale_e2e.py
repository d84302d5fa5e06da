"""Two uvicorn processes, one Celery or RQ worker, one real Redis: submit through one web
process, poll to completion through the other with resq."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from docsite.testing.redis_server import RedisServer
from docsite.testing.scale.procs import wait_until
from docsite.testing.scale.stack import ENGINES, Stack, engine_env, stack
from hedron.integrations.rq import rq_job_id
from resq import Requests

pytestmark = pytest.mark.slow  # real Celery and RQ workers

ALICE = {"x-user": "alice", "x-tenant": "acme"}


@pytest.fixture(scope="module", params=ENGINES)
def deployment(request: pytest.FixtureRequest, redis_server: RedisServer) -> Iterator[Stack]:
    engine = request.param
    env = engine_env(engine, redis_server.url, f"e2e-{engine}-{uuid.uuid4().hex[:8]}:")
    with stack(engine, env, webs=2, workers=1) as st:
        yield st


def submit(st: Stack, job_type: str, payload: dict[str, Any], *, web: int = 0, **extra: Any) -> str:
    r = httpx.post(
        f"{st.webs[web].base_url}/jobs",
        json={"type": job_type, "payload": payload, **extra},
        headers=ALICE,
        timeout=10,
    )
    assert r.status_code == 200, r.text
    return str(r.json()["id"])


def status(st: Stack, job_id: str, *, web: int = 1, headers: dict[str, str] = ALICE) -> Any:
    return httpx.get(f"{st.webs[web].base_url}/jobs/{job_id}", headers=headers, timeout=10)


def wait_terminal(st: Stack, job_id: str, *, web: int = 1, timeout: float = 30) -> dict[str, Any]:
    with Requests(st.webs[web].base_url, adapter="requests", timeout=5, headers=ALICE) as client:
        r = client.get(f"/jobs/{job_id}", timeout=timeout, delay=0.05)
    assert r.status_code == 200, f"{r.status_code} {r.text}"
    body: dict[str, Any] = r.json()
    body["served_by"] = int(r.headers["X-Served-By"])
    return body


def test_submit_through_one_process_poll_through_the_other(deployment: Stack) -> None:
    job_id = submit(deployment, "count", {"n": 3, "step_s": 0.02}, web=0)
    body = wait_terminal(deployment, job_id, web=1)
    assert body["state"] == "succeeded"
    assert body["result"]["counted"] == 3
    assert body["progress"] == {"k": 3, "n": 3, "message": "done"}
    web_pids = {w.proc.pid for w in deployment.webs}
    worker_pids = {w.pid for w in deployment.workers}
    assert body["served_by"] == deployment.webs[1].proc.pid
    # The task ran in the worker (RQ forks a work horse per job, so compare against the
    # worker process or its children), never inside a web process.
    assert body["result"]["pid"] not in web_pids
    if deployment.engine == "celery":
        assert body["result"]["pid"] in worker_pids


def test_progress_is_seen_by_the_other_process_while_running(deployment: Stack) -> None:
    job_id = submit(deployment, "count", {"n": 40, "step_s": 0.05}, web=0)

    def mid_progress() -> Any:
        r = status(deployment, job_id, web=1)
        body = r.json()
        k = (body.get("progress") or {}).get("k", 0)
        return body if r.status_code == 409 and body["state"] == "running" and k > 0 else None

    seen = wait_until(mid_progress, timeout=30, what="progress while running", interval=0.02)
    assert seen["progress"]["n"] == 40
    assert seen["progress"]["message"].startswith("counting")
    assert wait_terminal(deployment, job_id)["state"] == "succeeded"


def test_a_failing_task_is_reported_failed_with_its_error(deployment: Stack) -> None:
    job_id = submit(deployment, "boom", {"why": "disk full"})
    body = wait_terminal(deployment, job_id)
    assert body["state"] == "failed"
    assert body["error"] == "ValueError: boom: disk full"
    assert body["result"] is None


def test_htmx_status_fragment_stops_polling_when_done(deployment: Stack) -> None:
    job_id = submit(deployment, "count", {"n": 1, "step_s": 0})
    wait_terminal(deployment, job_id)
    url = f"{deployment.webs[1].base_url}/jobs/{job_id}/status"
    html = httpx.get(url, headers={**ALICE, "HX-Request": "true"})
    assert html.status_code == 286
    assert html.headers["cache-control"] == "no-store"
    as_json = httpx.get(url, headers={**ALICE, "Accept": "application/json"})
    assert as_json.json()["state"] == "succeeded"


def test_status_is_scoped_across_processes(deployment: Stack) -> None:
    job_id = submit(deployment, "count", {"n": 1, "step_s": 0})
    wait_terminal(deployment, job_id)
    other = {"x-user": "mallory", "x-tenant": "acme"}
    foreign = status(deployment, job_id, headers=other)
    missing = status(deployment, "x" * 24, headers=other)
    assert foreign.status_code == missing.status_code == 404
    assert foreign.json() == missing.json()


def test_idempotent_submits_through_both_processes_run_once(deployment: Stack) -> None:
    key = f"order-{uuid.uuid4().hex}"
    payload = {"n": 2, "step_s": 0.02}
    first = submit(deployment, "count", payload, web=0, idempotency_key=key)
    second = submit(deployment, "count", payload, web=1, idempotency_key=key)
    assert first == second
    body = wait_terminal(deployment, first)
    assert body["state"] == "succeeded"
    assert body["result"]["attempt"] == 1


def test_cancel_running_and_queued_jobs(deployment: Stack) -> None:
    """The single worker is busy with a long job; a second job waits in the queue.
    Cancelling the queued one ends it at once and it never starts; cancelling the running
    one stops it at its next ``await ctx.sleep``."""
    long_id = submit(deployment, "count", {"n": 400, "step_s": 0.05}, web=0)
    wait_until(
        lambda: status(deployment, long_id).json()["state"] == "running",
        timeout=30,
        what="the long job to start",
    )
    queued_id = submit(deployment, "count", {"n": 1, "step_s": 0}, web=0)
    r = httpx.post(f"{deployment.webs[1].base_url}/jobs/{queued_id}/cancel", headers=ALICE)
    assert r.json()["state"] == "cancelled"
    r = httpx.post(f"{deployment.webs[1].base_url}/jobs/{long_id}/cancel", headers=ALICE)
    assert r.json()["state"] == "running"
    assert r.json()["cancel_requested"] is True
    assert wait_terminal(deployment, long_id)["state"] == "cancelled"
    # The worker is free again: a new job completes, and the cancelled one never started.
    assert wait_terminal(deployment, submit(deployment, "count", {"n": 1}))["state"] == "succeeded"
    never = wait_terminal(deployment, queued_id)
    assert never["state"] == "cancelled"
    assert never["started_at"] is None
    # RQ withdraws the queued message itself. (Celery's revoke is a broadcast that a busy
    # solo worker may see after the message; the claim check above is the guarantee.)
    if deployment.engine == "rq":
        import redis
        from rq.job import Job

        conn = redis.Redis.from_url(deployment.env["HEDRON_REDIS_URL"])
        try:
            assert Job.fetch(rq_job_id(queued_id, 0), connection=conn).get_status() == "canceled"
        finally:
            conn.close()
