"""The export service your code talks to: 503 while an export runs, 200 once it is done.

Deterministic on purpose: an export's state depends on how many times it was checked, not on
the clock, so every run (in a terminal, in pytest, in the browser) answers the same way.
"""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.responses import JSONResponse

READY_AFTER = 4  # an export is done on this status check

app = FastAPI(title="Exports")
checks: dict[str, int] = {}


@app.get("/exports/{export_id}")
async def export_status(export_id: str) -> JSONResponse:
    """503 while the export runs, 200 with its download path once it is done."""
    checks[export_id] = checks.get(export_id, 0) + 1
    if checks[export_id] < READY_AFTER:
        return JSONResponse({"export": export_id, "state": "running"}, status_code=503)
    body = {"export": export_id, "state": "done", "download": f"/files/{export_id}.csv"}
    return JSONResponse(body)
