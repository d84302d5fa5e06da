"""Here the backend belongs to the app; enqueue_durable() inside its requests uses it."""

import secrets

from hedron import Hedron, Page, Text
from hedron.jobs import enqueue_durable
from hedron_core.jobs import InMemoryJobBackend

backend = InMemoryJobBackend()
app = Hedron(title="Jobs", session_secret=secrets.token_urlsafe(48), job_backend=backend)


@app.page("/")
def home() -> Page:
    job_id = enqueue_durable("demo", {"n": 1}, auth_subject="demo-user", tenant_id="demo-tenant")
    return Page(Text(f"Job {job_id} queued"), title="Jobs")
