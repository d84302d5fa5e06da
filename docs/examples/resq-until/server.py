"""An export that answers 200 from the first check, but is only finished on the 4th.

Deterministic on purpose: the export's state depends on how many times it was checked, not
on the clock, so every run (in a terminal, in pytest, in the browser) answers the same way.
"""

from __future__ import annotations

from fastapi import FastAPI

READY_AFTER = 4  # the export is finished on this status check

app = FastAPI(title="Exports")
checks: dict[str, int] = {}


@app.get("/exports/{export_id}")
async def export_status(export_id: str) -> dict[str, object]:
    """Always 200: the state is in the body ("running", then "done" with a download path)."""
    checks[export_id] = checks.get(export_id, 0) + 1
    n = checks[export_id]
    if n < READY_AFTER:
        return {"export": export_id, "state": "running", "percent": 100 * n // READY_AFTER}
    return {"export": export_id, "state": "done", "download": f"/files/{export_id}.csv"}
