"""TaskFlow's keyword form (``name=``, ``input_model=``, ``job_type=``, ``payload=``,
``scope=``, ``authorize_submit=``, ``result=``, ``poll=``) through a real uvicorn server."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, Literal

import pytest
import requests
from fastapi import Depends, HTTPException, Request
from jobs_support import JOBS_SECRET
from pydantic import BaseModel, Field

from docsite.testing.live_server import serve
from hedron import Hedron, JobScope, Page, PollPolicy, TaskFlow, Text
from hedron_core.htmx import STOP_POLLING_STATUS
from hedron_core.jobs import InMemoryJobBackend, SteppingRunner, TaskContext, VirtualClock


class ReportRequest(BaseModel):
    label: str = Field(min_length=1, max_length=80, description="Shown on the cover")
    copies: int = Field(default=1, ge=1, le=5)
    urgent: bool = False
    kind: Literal["pdf", "csv"] = "pdf"


async def build_report(ctx: TaskContext) -> dict[str, Any]:
    return {"built": ctx.payload["label"], **ctx.payload}


class CountingBackend(InMemoryJobBackend):
    """Counts submits, so a refused request is seen to store nothing."""

    submits = 0

    def submit(self, *args: Any, **kwargs: Any) -> Any:
        type(self).submits += 1
        return super().submit(*args, **kwargs)


def allow(request: Request) -> None:
    if request.headers.get("x-deny"):
        raise HTTPException(status_code=403, detail="not for you")


class Server:
    def __init__(self, base: str, backend: CountingBackend, runner: SteppingRunner) -> None:
        self.base, self.backend, self.runner = base, backend, runner
        self.http = requests.Session()
        self.http.headers["HX-Request"] = "true"

    def home(self) -> str:
        response = self.http.get(self.base + "/", headers={"HX-Request": ""}, timeout=10)
        assert response.status_code == 200
        return response.text

    def submit(self, **fields: str) -> requests.Response:
        token = re.search(r'name="csrf_token" value="([^"]+)"', self.home())
        assert token
        data = {**fields, "csrf_token": token.group(1)}
        return self.http.post(self.base + "/tasks/build-report", data=data, timeout=10)


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    clock = VirtualClock()
    backend = CountingBackend(clock=clock)
    runner = SteppingRunner(backend, {"build-report": build_report}, clock=clock)
    app = Hedron(title="Reports", session_secret=JOBS_SECRET, job_backend=backend)
    reports = TaskFlow(
        name="report",
        input_model=ReportRequest,
        job_type="build-report",
        payload=lambda data: data.model_dump(),
        scope=lambda: JobScope(auth_subject="dev", tenant_id="local"),
        authorize_submit=Depends(allow),
        result=lambda r: Text(
            f"Built {r['built']} x{r['copies']} {r['kind']} urgent={r['urgent']}"
        ),
        poll=PollPolicy(interval_ms=2000),
        runner=runner,
    )
    app.include(reports)

    @app.page("/")
    def home() -> Page:
        return Page(reports.form(), title="Reports")

    with serve(app) as base:
        yield Server(base, backend, runner)


def test_the_model_becomes_the_form(server: Server) -> None:
    html = server.home()
    assert 'id="report-flow"' in html
    assert re.search(r'<input class="h-input" type="text"[^>]* name="label" required', html)
    assert "Shown on the cover" in html  # the field's description is its help text
    assert re.search(r'type="number"[^>]* name="copies" value="1" required', html) is None
    assert re.search(r'type="number"[^>]* name="copies" value="1"', html)
    assert re.search(r'type="checkbox"[^>]* name="urgent" value="true"', html)
    assert re.search(r'class="h-select"[^>]* name="kind"><option value="pdf" selected', html)
    assert '<option value="csv">csv</option>' in html
    assert ">Label</label>" in html
    assert ">Copies</label>" in html


def test_input_that_does_not_validate_shows_the_message_and_stores_nothing(server: Server) -> None:
    before = CountingBackend.submits
    response = server.submit(label="", copies="9")
    assert response.status_code == 200
    assert "Label: String should have at least 1 character" in response.text
    assert "Copies: Input should be less than or equal to 5" in response.text
    assert 'name="label"' in response.text  # the form is shown again
    assert CountingBackend.submits == before


@pytest.mark.parametrize(
    ("fields", "shown"),
    [
        ({"label": "Q3", "copies": "2", "kind": "csv"}, "Built Q3 x2 csv urgent=False"),
        ({"label": "Q4", "urgent": "true"}, "Built Q4 x1 pdf urgent=True"),
    ],
)
def test_a_valid_submit_polls_then_renders_the_result_value(
    server: Server, fields: dict[str, str], shown: str
) -> None:
    response = server.submit(**fields)
    assert response.status_code == 200, response.text
    assert 'hx-trigger="every 2000ms"' in response.text
    job = re.search(r'hx-get="(/tasks/build-report/[^"]+/status)"', response.text)
    assert job
    server.runner.run_until_idle()
    done = server.http.get(server.base + job.group(1), timeout=10)
    assert done.status_code == STOP_POLLING_STATUS
    assert shown in done.text


def test_authorize_submit_runs_before_the_flow_and_can_refuse(server: Server) -> None:
    token = re.search(r'name="csrf_token" value="([^"]+)"', server.home())
    assert token
    before = CountingBackend.submits
    refused = server.http.post(
        server.base + "/tasks/build-report",
        data={"label": "x", "csrf_token": token.group(1)},
        headers={"x-deny": "1"},
        timeout=10,
    )
    assert refused.status_code == 403
    assert CountingBackend.submits == before
    form = server.http.get(server.base + "/tasks/build-report/form", headers={"x-deny": "1"})
    assert form.status_code == 403


def test_the_flow_spelled_both_ways_is_refused() -> None:
    scope = lambda: JobScope("a", "t")  # noqa: E731
    with pytest.raises(ValueError, match="input_model= or fields=, not both"):
        TaskFlow("j", scope=scope, input_model=ReportRequest, fields=[Text("x")])
    with pytest.raises(ValueError, match="result= or result_view=, not both"):
        TaskFlow("j", scope=scope, result=str, result_view=lambda status: Text("x"))
    with pytest.raises(TypeError, match=r"input_model=\.\.\.\) must be a pydantic model class"):
        TaskFlow("j", scope=scope, input_model=dict)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"poll=\.\.\.\) must be a PollPolicy, got int"):
        TaskFlow("j", scope=scope, poll=2000)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"authorize_submit=\.\.\.\) must be a FastAPI dependency"):
        TaskFlow("j", scope=scope, authorize_submit="yes")
    with pytest.raises(TypeError, match=r"scope\(request\) or as scope\(\)"):
        TaskFlow("j", scope=lambda a, b: None)


def test_names_of_the_other_spelling_say_what_to_write() -> None:
    flow = TaskFlow("j", scope=lambda request: JobScope("a", "t"))
    with pytest.raises(AttributeError, match=r"'submit_command'; flow.form\(\) renders"):
        flow.submit_command  # noqa: B018
    with pytest.raises(AttributeError, match=r"'to_bundle'; flow.mount\(app\)"):
        flow.to_bundle()
    with pytest.raises(AttributeError, match=r"has no attribute 'nothing_like_it'$"):
        flow.nothing_like_it  # noqa: B018
    assert not hasattr(flow, "submit_command")


@pytest.mark.parametrize("style", ["request", "none", "keyword"])
def test_scope_may_take_the_request_or_nothing(style: str) -> None:
    scopes = {
        "request": lambda request: JobScope(request, "t"),
        "none": lambda: JobScope("nobody", "t"),
        "keyword": lambda *, request: JobScope(request, "t"),
    }
    flow = TaskFlow("j", scope=scopes[style])
    got = flow.scope("ann")  # type: ignore[arg-type]
    expected = {"request": "ann", "none": "nobody", "keyword": "ann"}[style]
    assert got.auth_subject == expected
