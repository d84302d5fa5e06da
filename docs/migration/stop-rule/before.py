"""hedron 1.1.3: a status route returned a component; a finished job got an ordinary 200."""

import secrets

from hedron import Hedron, Status

app = Hedron(title="Jobs", session_secret=secrets.token_urlsafe(48))
finished: set[str] = set()


@app.get("/jobs/{job_id}/status")
def job_status(job_id: str):
    if job_id in finished:
        return Status("Done", tone="success")
    return Status("Running…")
