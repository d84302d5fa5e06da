"""A hedron app whose job result resq can wait for: 409 until the job is done, then 200."""

from __future__ import annotations

import os
import secrets

from starlette.responses import JSONResponse

from hedron import Hedron
from hedron.jobs import JobScope, enqueue_durable, job_result_response
from hedron_core.jobs import InMemoryJobBackend, TaskContext, local_runner

backend = InMemoryJobBackend()  # local demo only; SQLiteJobBackend on a real host


async def report(ctx: TaskContext) -> dict[str, int]:
    for k in range(2):
        ctx.progress(k, 2, f"building part {k + 1} of 2")
        await ctx.sleep(2.5)
    return {"rows": 3}


runner = local_runner(backend, {"report": report})

app = Hedron(
    title="Reports",
    session_secret=os.environ.get("HEDRON_SESSION_SECRET") or secrets.token_urlsafe(48),
    job_backend=backend,
)

# An API identity. A real API authenticates each request (for example a bearer token) and
# builds the scope from it; the demo uses one fixed scope.
API_SCOPE = JobScope("api-client", "demo-tenant")


@app.post("/reports")
def create_report() -> JSONResponse:
    job_id = enqueue_durable("report", {}, backend=backend, **API_SCOPE.as_kwargs())
    runner.wake()  # start it now, not at the runner's next look for work
    return JSONResponse({"id": job_id, "result": f"/reports/{job_id}/result"}, status_code=201)


@app.get("/reports/{job_id}/result")
def report_result(job_id: str) -> JSONResponse:
    scope = API_SCOPE.as_kwargs()
    return job_result_response(backend.get(job_id, **scope), **scope)
