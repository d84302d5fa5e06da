"""Cancel a running job: TaskFlow's Cancel button, and a task that stops at its next sleep."""

from __future__ import annotations

import os
import secrets

from fastapi import Request

from hedron import Hedron, Page, Text
from hedron.jobs import JobScope, TaskFlow
from hedron_core.jobs import InMemoryJobBackend, JobCancelledError, TaskContext, local_runner

backend = InMemoryJobBackend()  # local demo only; use SQLiteJobBackend on a real host
PARTS = 5


async def export(ctx: TaskContext) -> dict[str, int]:
    """Export a report in parts; every `await ctx.sleep(...)` is a cancellation point."""
    written = 0
    try:
        for part in range(PARTS):
            ctx.progress(part, PARTS, f"Writing part {part + 1} of {PARTS}")
            await ctx.sleep(1.6)  # raises JobCancelledError once Cancel was pressed
            written += 1
    except JobCancelledError:
        # Undo what a half-done export left behind here (temporary files...), then let
        # the runner record the job as CANCELLED.
        raise
    return {"parts": written}


runner = local_runner(backend, {"export": export})

app = Hedron(
    title="Cancel a job",
    session_secret=os.environ.get("HEDRON_SESSION_SECRET") or secrets.token_urlsafe(48),
    job_backend=backend,
)


def current_scope(request: Request) -> JobScope:
    """Explicit identity: a demo user kept in the session (use your real auth instead)."""
    session = request.session
    session.setdefault("auth_subject", "demo-user")
    session.setdefault("tenant_id", "demo-tenant")
    return JobScope(session["auth_subject"], session["tenant_id"])


flow = TaskFlow(
    "export",
    scope=current_scope,
    runner=runner,
    poll_interval_ms=2000,
    submit_label="Export",
)
flow.mount(app)


@app.page("/")
def home() -> Page:
    return Page(
        Text("Export a report in five parts; cancel it half way."),
        flow.form(),
        title="Cancel a job",
    )
