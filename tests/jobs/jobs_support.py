"""Constants and checks shared by the jobs tests."""

from __future__ import annotations

import secrets
import warnings
from typing import Any

from hedron import Hedron, Page, Text
from hedron_core.jobs import InMemoryJobBackend, JobState

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

# A random session secret of the recommended length (no placeholder warnings in tests).
JOBS_SECRET = secrets.token_urlsafe(48)


def flow_serves(flow: Any, backend: Any = None) -> None:
    """Mount ``flow`` on a fresh app: its page, a finished job's status (286) and its fresh
    form all answer without an error."""
    backend = backend or flow.backend or InMemoryJobBackend()
    app = Hedron(title="flow", session_secret=JOBS_SECRET, job_backend=backend)
    flow.mount(app)

    @app.page("/")
    def home() -> Page:
        return Page(Text("x"), flow.form())

    owner = {"auth_subject": "alice", "tenant_id": "acme"}
    with TestClient(app) as client:
        page = client.get("/")
        assert page.status_code == 200, page.text
        done = backend.submit(flow.job_type, {"n": 1}, **owner)
        backend.mark(done.id, JobState.SUCCEEDED, result={"ok": True})
        final = client.get(f"{flow.path}/{done.id}/status", headers={"HX-Request": "true"})
        assert final.status_code == 286, final.text
        form = client.get(f"{flow.path}/form", headers={"HX-Request": "true"})
        assert form.status_code == 200, form.text
