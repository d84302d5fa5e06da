"""An app for ``uvicorn --workers N`` over one SQLite file (path in ``JOBS_TEST_DB``)."""

from __future__ import annotations

import os
import secrets

from fastapi import Request
from starlette.responses import JSONResponse, Response

from hedron import Hedron
from hedron.jobs import enqueue_durable, job_result_response
from hedron_core.jobs import SQLiteJobBackend, TaskContext, ThreadPoolRunner

SCOPE = {"auth_subject": "alice", "tenant_id": "acme"}

backend = SQLiteJobBackend(os.environ["JOBS_TEST_DB"])


async def work(ctx: TaskContext) -> dict[str, int]:
    ctx.progress(0, 1, "working")
    await ctx.sleep(0.05)
    return {"pid": os.getpid(), "i": int(ctx.payload["i"])}


runner = ThreadPoolRunner(backend, {"work": work}, max_workers=2, poll_interval_s=0.05)
app = Hedron(title="workers", session_secret=secrets.token_urlsafe(48), job_backend=backend)


@app.post("/jobs")
async def submit(request: Request) -> JSONResponse:
    body = await request.json()
    job_id = enqueue_durable(
        "work", {"i": body["i"]}, backend=backend, idempotency_key=f"k{body['i']}", **SCOPE
    )
    runner.wake()
    return JSONResponse({"id": job_id, "pid": os.getpid()})


@app.get("/jobs/{job_id}/result")
def result(job_id: str) -> Response:
    return job_result_response(backend.get(job_id, **SCOPE), **SCOPE)
