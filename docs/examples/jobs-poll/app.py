"""Polling job status with TaskFlow. In-memory backend: a local demo only."""

from __future__ import annotations

import os
import secrets

from fastapi import Request

from hedron import Hedron, Page, Text
from hedron.jobs import JobScope, TaskFlow
from hedron_core.jobs import InMemoryJobBackend, TaskContext, local_runner

backend = InMemoryJobBackend()


async def demo(ctx: TaskContext) -> dict[str, bool]:
    """The demo job as a task: wait a second, then succeed."""
    await ctx.sleep(1.0)
    return {"ok": True}


runner = local_runner(backend, {"demo": demo})

app = Hedron(
    title="Jobs poll demo",
    security="standard",
    explorer="off",
    session_secret=os.environ.get("HEDRON_SESSION_SECRET") or secrets.token_urlsafe(48),
    job_backend=backend,
)


def demo_scope(request: Request) -> JobScope:
    """Session-backed demo identity (replace with real auth in production)."""
    session = request.session
    session.setdefault("auth_subject", "demo-user")
    session.setdefault("tenant_id", "demo-tenant")
    return JobScope(session["auth_subject"], session["tenant_id"])


def may_submit(scope: JobScope, job_type: str, payload: object) -> bool:
    """authorize_submit's policy: who may start which job."""
    return scope.tenant_id == "demo-tenant" and job_type == "demo"


flow = TaskFlow(
    "demo",
    scope=demo_scope,
    policy=may_submit,
    runner=runner,
    poll_interval_ms=2000,
    submit_label="Start job",
)
flow.mount(app)


@app.page("/")
def home() -> Page:
    return Page(
        Text("Start a job, then watch its status (poll every 2s)."), flow.form(), title="Jobs poll"
    )
