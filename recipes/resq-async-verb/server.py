"""A job that is done on its 4th status check.

Deterministic on purpose: the job's state depends on how many times it was checked, not on
the clock, so every run (in a terminal, in pytest, in the browser) answers the same way.
"""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.responses import JSONResponse

READY_AFTER = 4  # the job is done on this status check

app = FastAPI(title="A slow job")
checks: dict[str, int] = {}


@app.get("/job/{job_id}")
async def job_status(job_id: str) -> JSONResponse:
    """503 while the job runs, 200 with the result once it is done."""
    checks[job_id] = checks.get(job_id, 0) + 1
    n = checks[job_id]
    if n < READY_AFTER:
        return JSONResponse({"job": job_id, "state": "running", "check": n}, status_code=503)
    return JSONResponse({"job": job_id, "state": "done", "result": 42})
