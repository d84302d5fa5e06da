"""Here the flow renders its own form; ``path=`` puts its routes under /report/."""

import secrets

from fastapi import Depends
from pydantic import BaseModel, Field

from hedron import Hedron, JobScope, Page, TaskFlow, Text
from hedron_core.jobs import InMemoryJobBackend

app = Hedron(title="Reports", session_secret=secrets.token_urlsafe(48))


class ReportRequest(BaseModel):
    label: str = Field(min_length=1, max_length=80)


def allow() -> None:
    """Open development authorization — replace with a real check."""


reports = TaskFlow(
    name="report",
    input_model=ReportRequest,
    job_type="build-report",
    payload=lambda data: {"label": data.label},
    scope=lambda: JobScope(auth_subject="dev", tenant_id="local"),
    authorize_submit=Depends(allow),
    result=lambda result: Text(str(result)),
    backend=InMemoryJobBackend(),
    path="/report",  # POST /report, GET /report/{job_id}/status
)
app.include(reports)


@app.page("/")
def home() -> Page:
    return Page(reports.form(), title="Reports")
