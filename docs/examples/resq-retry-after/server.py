"""A busy job service that says when to come back: 503 with a Retry-After header.

Deterministic on purpose: the answers depend on how many times the job was checked, not on
the clock, so every run (in a terminal, in pytest, in the browser) answers the same way. A
real service would compute Retry-After from its own estimate of the remaining work.
"""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.responses import JSONResponse

# (state, seconds to wait) for the 1st and 2nd status checks; the 3rd finds the job done.
NOT_YET = [("queued", 4), ("running", 2)]

app = FastAPI(title="A busy job service")
checks: dict[str, int] = {}


@app.get("/job/{job_id}")
async def job_status(job_id: str) -> JSONResponse:
    """503 with Retry-After while the job is not done, then 200 with the result."""
    checks[job_id] = checks.get(job_id, 0) + 1
    n = checks[job_id]
    if n <= len(NOT_YET):
        state, wait = NOT_YET[n - 1]
        return JSONResponse(
            {"job": job_id, "state": state},
            status_code=503,
            headers={"Retry-After": str(wait)},
        )
    return JSONResponse({"job": job_id, "state": "done", "result": 42})
