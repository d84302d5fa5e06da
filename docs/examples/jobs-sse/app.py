"""Experimental: a job's status as Server-Sent Events, pushed as it changes."""

from __future__ import annotations

import os
import secrets

from starlette.responses import JSONResponse, Response

from hedron import Hedron
from hedron.jobs import JobScope, enqueue_durable, job_status_events
from hedron_core.jobs import InMemoryJobBackend, TaskContext, local_runner

backend = InMemoryJobBackend()  # local demo only; SQLiteJobBackend on a real host


async def report(ctx: TaskContext) -> dict[str, int]:
    for k in range(3):
        if k:  # each change lasts 1.2 s: every one of them is seen (read every 0.5 s)
            ctx.progress(k, 3, f"Reading log {k + 1} of 3")
        await ctx.sleep(1.2)
    return {"lines": 1200}


# One worker thread: a second report waits for the first (a queue you can watch).
runner = local_runner(backend, {"report": report}, max_workers=1)

app = Hedron(
    title="Job events",
    session_secret=os.environ.get("HEDRON_SESSION_SECRET") or secrets.token_urlsafe(48),
    job_backend=backend,
)

# An API identity. A real API authenticates each request (for example a bearer token) and
# builds the scope from it; the demo uses one fixed scope.
API_SCOPE = JobScope("api-client", "demo-tenant")


@app.post("/reports")
def create_report() -> JSONResponse:
    job_id = enqueue_durable("report", {}, backend=backend, **API_SCOPE.as_kwargs())
    runner.wake()  # start it now if the worker is free
    return JSONResponse({"id": job_id, "events": f"/reports/{job_id}/events"}, status_code=201)


@app.get("/reports/{job_id}/events")
def report_events(job_id: str) -> Response:
    # One open response per watcher: an event each time the job changes, then "end".
    return job_status_events(backend, job_id, **API_SCOPE.as_kwargs(), interval_s=0.5)
