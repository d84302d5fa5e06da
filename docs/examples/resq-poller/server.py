"""A job of three parts that reports its progress; it is done on its 4th status check.

Deterministic on purpose: the job's state depends on how many times it was checked, not on
the clock, so every run (in a terminal, in pytest, in the browser) answers the same way.
"""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.responses import JSONResponse

PARTS = 3  # one part is finished per status check; the check after the last one answers 200

app = FastAPI(title="A job with progress")
checks: dict[str, int] = {}


@app.get("/job/{job_id}")
async def job_status(job_id: str) -> JSONResponse:
    """503 with the parts done so far while the job runs, 200 with the result once done."""
    checks[job_id] = checks.get(job_id, 0) + 1
    done = checks[job_id] - 1
    if done < PARTS:
        body = {"job": job_id, "state": "running", "parts_done": done, "parts": PARTS}
        return JSONResponse(body, status_code=503)
    return JSONResponse({"job": job_id, "state": "done", "result": 42})
