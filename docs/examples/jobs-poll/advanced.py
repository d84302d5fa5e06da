"""The same job, spelled out: enqueue_durable, Poll and job_status_response (custom URLs)."""

from __future__ import annotations

import os
import secrets

from fastapi import Request
from starlette.responses import Response

from hedron import ComponentRef, Hedron, Page, Poll, Status, Text
from hedron.jobs import JobScope, authorize_submit, enqueue_durable, job_status_response
from hedron_core.jobs import InMemoryJobBackend, TaskContext, local_runner

backend = InMemoryJobBackend()


async def demo(ctx: TaskContext) -> dict[str, bool]:
    await ctx.sleep(1.0)
    return {"ok": True}


runner = local_runner(backend, {"demo": demo})

app = Hedron(
    title="Jobs poll demo (advanced)",
    session_secret=os.environ.get("HEDRON_SESSION_SECRET") or secrets.token_urlsafe(48),
    job_backend=backend,
)

JOB_STATUS = "/jobs/{job_id}/status"


def demo_scope(request: Request) -> JobScope:
    """Session-backed demo identity (replace with real auth in production)."""
    session = request.session
    session.setdefault("auth_subject", "demo-user")
    session.setdefault("tenant_id", "demo-tenant")
    return JobScope(session["auth_subject"], session["tenant_id"])


@app.page("/")
def home(request: Request) -> Page:
    scope = authorize_submit(demo_scope(request), "demo")
    job_id = enqueue_durable("demo", {"n": 1}, backend=backend, **scope.as_kwargs())
    ref = ComponentRef(logical_id="job-status", path=JOB_STATUS.format(job_id=job_id))
    return Page(
        Text(f"Job {job_id} (poll every 2s)"),
        Poll(ref=ref, interval_ms=2000, content=Status("Queued…")),
        title="Jobs poll",
    )


@app.get(JOB_STATUS)
def job_status(job_id: str, request: Request) -> Response:
    scope = demo_scope(request).as_kwargs()
    return job_status_response(backend.get(job_id, **scope), **scope)
