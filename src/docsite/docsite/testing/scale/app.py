"""The app under test: a hedron web app and a Celery or RQ worker set-up, configured from env.

``HEDRON_TEST_ENGINE`` picks ``celery`` or ``rq``; ``HEDRON_REDIS_URL``, ``HEDRON_JOBS_PREFIX``
and ``HEDRON_JOBS_QUEUE`` are read by ``ScaleConfig.from_env``. The same module is imported by
both uvicorn processes and by the worker (``celery -A docsite.testing.scale.app worker``).
"""

from __future__ import annotations

import os
import secrets
from typing import Any

from fastapi import HTTPException, Request
from fastapi.responses import Response

from docsite.testing.scale.tasks import TASKS
from hedron import Hedron
from hedron.integrations import ScaleConfig, install_unavailable_handler
from hedron.jobs import enqueue_durable, job_result_response, job_status_response

ENGINE = os.environ.get("HEDRON_TEST_ENGINE", "celery")
LEASE_S = float(os.environ.get("HEDRON_TEST_LEASE_S", "30"))
MAX_ATTEMPTS = int(os.environ.get("HEDRON_TEST_MAX_ATTEMPTS", "3"))
REDELIVERY_S = float(os.environ.get("HEDRON_TEST_REDELIVERY_S", "3600"))
config = ScaleConfig.from_env()

jobs: Any
if ENGINE == "celery":
    from hedron.integrations.celery import CeleryJobs

    jobs = CeleryJobs(
        config, TASKS, lease_s=LEASE_S, max_attempts=MAX_ATTEMPTS, redelivery_s=REDELIVERY_S
    )
    celery = jobs.celery
    if os.environ.get("HEDRON_TEST_DIE_BEFORE_CLAIM") == "worker":
        # The whole worker (parent and pool child) dies after taking a message (in the prefork
        # pool it is acknowledged then, unless acks are late) and before claiming its job.
        import signal

        from celery.signals import task_prerun

        @task_prerun.connect
        def _die(**_: Any) -> None:
            os.killpg(os.getpgid(0), signal.SIGKILL)
else:
    from hedron.integrations.rq import RQJobs

    jobs = RQJobs(config, TASKS, lease_s=LEASE_S, max_attempts=MAX_ATTEMPTS)

backend = jobs.backend
secret = os.environ.get("HEDRON_TEST_SECRET") or secrets.token_urlsafe(48)
app = Hedron(title="scale test", session_secret=secret, job_backend=backend)
install_unavailable_handler(app)


def _scope(request: Request) -> dict[str, str]:
    return {
        "auth_subject": request.headers.get("x-user", "alice"),
        "tenant_id": request.headers.get("x-tenant", "acme"),
    }


@app.get("/healthz")
def healthz() -> dict[str, Any]:
    return {"ok": True, "pid": os.getpid()}


@app.post("/jobs")
async def submit(request: Request) -> dict[str, Any]:
    body = await request.json()
    job_id = enqueue_durable(
        body["type"],
        body.get("payload", {}),
        idempotency_key=body.get("idempotency_key"),
        backend=backend,
        **_scope(request),
    )
    return {"id": job_id, "pid": os.getpid()}


@app.get("/jobs/{job_id}")
def result(job_id: str, request: Request) -> Response:
    """resq-pollable: 409 + Retry-After until the job is finished, then 200 with its status."""
    scope = _scope(request)
    response = job_result_response(backend.get(job_id, **scope), **scope)
    response.headers["X-Served-By"] = str(os.getpid())
    return response


@app.get("/jobs/{job_id}/status")
def job_status(job_id: str, request: Request) -> Response:
    """The htmx status fragment (286 once terminal), JSON on ``Accept: application/json``."""
    scope = _scope(request)
    return job_status_response(backend.get(job_id, **scope), **scope)


@app.post("/jobs/{job_id}/cancel")
def cancel(job_id: str, request: Request) -> dict[str, Any]:
    status = backend.request_cancel(job_id, **_scope(request))
    if status is None:
        raise HTTPException(status_code=404, detail="Job not found")
    return status.to_public_dict()
