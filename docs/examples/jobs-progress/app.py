"""Progress, shown your way: ctx.progress(k, n, message) and job_status_response(view=...)."""

from __future__ import annotations

import os
import secrets

from fastapi import Request
from starlette.responses import Response

from hedron import (
    Badge,
    Button,
    Component,
    ComponentRef,
    Form,
    Hedron,
    Page,
    Poll,
    ProgressBar,
    Stack,
    Status,
    Table,
    Text,
)
from hedron.jobs import JobScope, authorize_submit, enqueue_durable, job_status_response
from hedron_core.jobs import (
    InMemoryJobBackend,
    JobState,
    JobStatus,
    TaskContext,
    job_status_view,
    local_runner,
)

backend = InMemoryJobBackend()  # local demo only; use SQLiteJobBackend on a real host
DOCUMENTS = ["handbook.pdf", "pricing.xlsx", "roadmap.md", "minutes.txt"]


async def index_documents(ctx: TaskContext) -> dict[str, int]:
    """Index each document; the progress says how many are done and which one is next."""
    names = ctx.payload["documents"]
    for k, name in enumerate(names):
        ctx.progress(k, len(names), f"Indexing {name}")
        await ctx.sleep(1.7)
    return {"indexed": len(names)}


runner = local_runner(backend, {"index": index_documents})

app = Hedron(
    title="Job progress",
    session_secret=os.environ.get("HEDRON_SESSION_SECRET") or secrets.token_urlsafe(48),
    job_backend=backend,
)


def current_scope(request: Request) -> JobScope:
    """Explicit identity: a demo user kept in the session (use your real auth instead)."""
    session = request.session
    session.setdefault("auth_subject", "demo-user")
    session.setdefault("tenant_id", "demo-tenant")
    return JobScope(session["auth_subject"], session["tenant_id"])


def index_view(status: JobStatus) -> Component:
    """The whole status region, drawn from the job: a bar, then one line per document."""
    if status.state in (JobState.FAILED, JobState.CANCELLED):
        return job_status_view(status)  # the default view says what went wrong
    names = status.payload["documents"]
    finished = status.state is JobState.SUCCEEDED
    done = len(names) if finished else status.progress.k if status.progress else 0
    if finished:
        headline = Status(f"Indexed {done} documents.", tone="success")
    elif status.progress is None:
        headline = Status("Waiting for a worker…")
    else:
        headline = Status(status.progress.message)
    rows = []
    for i, name in enumerate(names):
        if i < done:
            state = Badge("indexed", tone="success")
        elif i == done and status.state is JobState.RUNNING:
            state = Badge("indexing", tone="info")
        else:
            state = Badge("waiting")
        rows.append([name, state])
    bar = ProgressBar(done, max=len(names), label="Documents indexed")
    return Stack(headline, bar, Table(["Document", "State"], rows), gap="sm")


@app.page("/")
def home() -> Page:
    start = Form(Button("Index the documents", type="submit"), action="/index")
    return Page(Text(f"Index {len(DOCUMENTS)} documents."), start, title="Job progress")


@app.action("/index")
def start_indexing(request: Request) -> Component:
    scope = authorize_submit(current_scope(request), "index")
    documents = {"documents": DOCUMENTS}
    job_id = enqueue_durable("index", documents, backend=backend, **scope.as_kwargs())
    runner.wake()  # start it now, not at the runner's next look for work
    ref = ComponentRef(logical_id="index-status", path=f"/index/{job_id}/status")
    return Poll(ref=ref, interval_ms=2000, content=Status("Queued…"))


@app.get("/index/{job_id}/status")
def index_status(job_id: str, request: Request) -> Response:
    scope = current_scope(request).as_kwargs()
    return job_status_response(backend.get(job_id, **scope), **scope, view=index_view)
