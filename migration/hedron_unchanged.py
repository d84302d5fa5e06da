"""hedron 1.1.3 code that runs here unchanged: the jobs names from ``hedron``, TaskFlow's
keyword form with ``app.include``, ``Card(header=, footer=)``, a dotted logical id and the
jobs-poll status endpoint."""

import secrets

from fastapi import Depends, HTTPException
from pydantic import BaseModel, Field

from hedron import Card, ComponentRef, Hedron, JobScope, Lazy, Page, Poll, Status, TaskFlow, Text
from hedron.jobs import enqueue_durable, job_status_response
from hedron_core.jobs import InMemoryJobBackend

backend = InMemoryJobBackend()
app = Hedron(title="Reports", session_secret=secrets.token_urlsafe(48), job_backend=backend)
SCOPE = {"auth_subject": "demo-user", "tenant_id": "demo-tenant"}


class ReportRequest(BaseModel):
    label: str = Field(min_length=1, max_length=80)


def allow() -> None:
    """Open development authorization — replace with a real check."""


reports = TaskFlow(
    name="report",
    input_model=ReportRequest,
    job_type="build-report",
    payload=lambda data: {"label": data.label},
    scope=lambda: JobScope(auth_subject="demo-user", tenant_id="demo-tenant"),
    authorize_submit=Depends(allow),
    result=lambda result: Text(str(result)),
)
app.include(reports)


@app.page("/")
def home() -> Page:
    job_id = enqueue_durable("demo", {"n": 1}, **SCOPE)
    ref = ComponentRef(logical_id="job-status", path=f"/jobs/{job_id}/status", method="GET")
    return Page(
        Card(reports.form(), header=Text("Build a report"), footer=Text("Scoped to you")),
        Lazy(ref=ComponentRef("activity.latest", "/activity")),
        Poll(ref=ref, interval_ms=2000, content=Status("Queued…")),
        title="Reports",
    )


@app.page("/activity")
def activity() -> Text:
    return Text("No activity yet.")


@app.get("/jobs/{job_id}/status")
def job_status(job_id: str):
    status = backend.get(job_id, **SCOPE)
    if status is None:
        raise HTTPException(status_code=404, detail="Job not found")
    return job_status_response(status, **SCOPE)
