"""Here a status route answers with ``fragment()``, and ends the poll with 286
(``job_status_response`` does both for a job backend's status)."""

import secrets

from fastapi.responses import HTMLResponse

from hedron import Hedron, Status, fragment
from hedron_core.htmx import STOP_POLLING_STATUS

app = Hedron(title="Jobs", session_secret=secrets.token_urlsafe(48))
finished: set[str] = set()


@app.get("/jobs/{job_id}/status")
def job_status(job_id: str) -> HTMLResponse:
    if job_id in finished:
        return fragment(Status("Done", tone="success"), status_code=STOP_POLLING_STATUS)
    return fragment(Status("Running…"))
