"""TaskFlow: a submit form, a status region that polls, the result, and a Cancel button."""

from __future__ import annotations

import os
import secrets

from fastapi import Request

from hedron import Field, Hedron, Input, Page, Text
from hedron.jobs import JobScope, TaskFlow
from hedron_core.jobs import InMemoryJobBackend, TaskContext, local_runner

backend = InMemoryJobBackend()  # local demo only; use SQLiteJobBackend on a real host


async def resize(ctx: TaskContext) -> dict[str, int]:
    """Written once: runs on worker threads here, on the demo's virtual time in the browser."""
    steps = int(ctx.payload["steps"])
    for k in range(steps):
        ctx.progress(k, steps, f"Resizing image {k + 1} of {steps}")
        await ctx.sleep(1.6)  # a cancellation point too
    return {"resized": steps}


runner = local_runner(backend, {"resize": resize})

app = Hedron(
    title="TaskFlow demo",
    session_secret=os.environ.get("HEDRON_SESSION_SECRET") or secrets.token_urlsafe(48),
    job_backend=backend,
)


def current_scope(request: Request) -> JobScope:
    """Explicit identity: a demo user kept in the session (use your real auth instead)."""
    session = request.session
    session.setdefault("auth_subject", "demo-user")
    session.setdefault("tenant_id", "demo-tenant")
    return JobScope(session["auth_subject"], session["tenant_id"])


def parse(form: dict[str, str]) -> dict[str, int]:
    steps = int(form.get("steps") or 0)
    if not 1 <= steps <= 5:
        raise ValueError("Steps must be between 1 and 5.")
    return {"steps": steps}


flow = TaskFlow(
    "resize",
    scope=current_scope,
    fields=[Field("Steps", Input("steps", type="number", value="3", required=True))],
    payload=parse,
    runner=runner,
    poll_interval_ms=2000,
    submit_label="Resize",
)
flow.mount(app)


@app.page("/")
def home() -> Page:
    return Page(Text("Resize a batch of images in the background."), flow.form(), title="TaskFlow")
