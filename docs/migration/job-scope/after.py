"""Here a scope always names both the subject and the tenant, on submit and on every read."""

import secrets

from fastapi import HTTPException

from hedron import Hedron, JobScope, Page, Text
from hedron.jobs import enqueue_durable, job_status_response
from hedron_core.jobs import InMemoryJobBackend

backend = InMemoryJobBackend()
app = Hedron(title="Exports", session_secret=secrets.token_urlsafe(48), job_backend=backend)
scope = JobScope(auth_subject="ann", tenant_id="acme")


@app.page("/")
def home() -> Page:
    job_id = enqueue_durable("export", {"rows": 10}, **scope.as_kwargs())
    return Page(Text(f"Job {job_id}"), title="Exports")


@app.get("/jobs/{job_id}/status")
def job_status(job_id: str):
    status = backend.get(job_id, **scope.as_kwargs())
    if status is None:
        raise HTTPException(status_code=404, detail="Job not found")
    return job_status_response(status, **scope.as_kwargs())
