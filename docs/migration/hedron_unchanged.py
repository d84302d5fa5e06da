"""hedron 1.1.3 code that runs here unchanged: the jobs names from ``hedron``, TaskFlow's
keyword form with ``app.include``, ``Card(header=, footer=)``, a dotted logical id and the
jobs-poll status endpoint."""

import secrets
from typing import Literal

from fastapi import Depends, HTTPException
from pydantic import BaseModel, Field

from hedron import Card, ComponentRef, Hedron, JobScope, Lazy, Page, Poll, Status, TaskFlow, Text
from hedron.jobs import enqueue_durable, job_status_response
from hedron_core.jobs import InMemoryJobBackend

backend = InMemoryJobBackend()
app = Hedron(title="Exports", session_secret=secrets.token_urlsafe(48), job_backend=backend)
SCOPE = {"auth_subject": "demo-user", "tenant_id": "demo-tenant"}


class ExportRequest(BaseModel):
    rows: int = Field(ge=1, le=1000, description="How many rows to export")
    fmt: Literal["csv", "json"] = "csv"


def may_export() -> None:
    """Open development authorization — replace with a real check."""


exports = TaskFlow(
    name="export",
    input_model=ExportRequest,
    job_type="export-rows",
    payload=lambda data: data.model_dump(),
    scope=lambda: JobScope(auth_subject="demo-user", tenant_id="demo-tenant"),
    authorize_submit=Depends(may_export),
    result=lambda result: Text(f"{result['rows']} rows exported"),
)
app.include(exports)


@app.page("/")
def home() -> Page:
    job_id = enqueue_durable("demo", {"n": 1}, **SCOPE)
    ref = ComponentRef(logical_id="job-status", path=f"/jobs/{job_id}/status", method="GET")
    return Page(
        Card(exports.form(), header=Text("Export rows"), footer=Text("Scoped to you")),
        Lazy(ref=ComponentRef("activity.latest", "/activity")),
        Poll(ref=ref, interval_ms=2000, content=Status("Queued…")),
        title="Exports",
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
