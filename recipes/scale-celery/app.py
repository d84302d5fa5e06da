"""The web app: TaskFlow as before, its jobs stored in Redis and run by Celery workers."""

from __future__ import annotations

import os
import secrets

from fastapi import Request
from jobs import jobs

from hedron import Field, Hedron, Input, Page, Text
from hedron.integrations import install_unavailable_handler
from hedron.jobs import JobScope, TaskFlow

app = Hedron(
    title="TaskFlow on Celery",
    # the same secret in every web process, so any of them can serve any session
    session_secret=os.environ.get("HEDRON_SESSION_SECRET") or secrets.token_urlsafe(48),
    job_backend=jobs.backend,  # Redis: every web process sees every job
)
install_unavailable_handler(app)  # 503 with Retry-After while Redis is down, not a crash


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
    poll_interval_ms=2000,
    submit_label="Resize",
)  # no runner: the Celery workers take the jobs from the queue
flow.mount(app)


@app.page("/")
def home() -> Page:
    text = Text("Resize a batch of images on a Celery worker.")
    return Page(text, flow.form(), title="TaskFlow on Celery")
