"""Here the experimental SSE helper is ``hedron.jobs.job_status_events`` (prefer Poll)."""

import secrets

from hedron import Hedron
from hedron.jobs import job_status_events
from hedron_core.jobs import InMemoryJobBackend

backend = InMemoryJobBackend()
app = Hedron(title="Jobs", session_secret=secrets.token_urlsafe(48), job_backend=backend)
SCOPE = {"auth_subject": "demo-user", "tenant_id": "demo-tenant"}


@app.get("/jobs/{job_id}/events")
def events(job_id: str):
    return job_status_events(backend, job_id, **SCOPE)
