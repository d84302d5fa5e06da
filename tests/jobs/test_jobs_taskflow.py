"""TaskFlow: submit (CSRF, explicit identity, policy) → polling status → result → cancel."""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi import Request
from jobs_support import JOBS_SECRET

from hedron import Field, Hedron, Input, Page
from hedron.jobs import JobScope, TaskFlow
from hedron_core import render
from hedron_core.htmx import STOP_POLLING_STATUS
from hedron_core.jobs import InMemoryJobBackend, SteppingRunner, TaskContext, VirtualClock

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient


async def count(ctx: TaskContext) -> dict[str, int]:
    n = int(ctx.payload["n"])
    for k in range(n):
        ctx.progress(k, n, f"item {k + 1} of {n}")
        await ctx.sleep(1.0)
    return {"counted": n}


def header_scope(request: Request) -> JobScope | None:
    user = request.headers.get("x-user")
    return JobScope(user, "acme") if user else None


def parse(form: dict[str, str]) -> dict[str, int]:
    n = int(form.get("n") or 0)
    if n < 1:
        raise ValueError("n must be at least 1")
    return {"n": n}


class Harness:
    def __init__(self) -> None:
        self.clock = VirtualClock()
        self.backend = InMemoryJobBackend(clock=self.clock)
        self.runner = SteppingRunner(self.backend, {"count": count}, clock=self.clock)
        self.app = Hedron(title="flow", session_secret=JOBS_SECRET, job_backend=self.backend)
        self.flow = TaskFlow(
            "count",
            scope=header_scope,
            fields=[Field("N", Input("n", type="number"))],
            payload=parse,
            runner=self.runner,
            policy=lambda scope, job_type, payload: scope.auth_subject != "guest",
            poll_interval_ms=500,
        )
        self.flow.mount(self.app)

        @self.app.page("/")
        def home() -> Page:
            return Page(self.flow.form(), title="Flow")


@pytest.fixture
def harness() -> Harness:
    return Harness()


@pytest.fixture
def client(harness: Harness) -> Iterator[TestClient]:
    with TestClient(harness.app) as c:
        yield c


def _token(client: TestClient) -> str:
    home = client.get("/", headers={"x-user": "alice"})
    match = re.search(r'name="csrf_token" value="([^"]+)"', home.text)
    assert match, home.text
    return match.group(1)


def _submit(client: TestClient, n: str = "2", user: str = "alice") -> Any:
    token = _token(client)
    return client.post(
        "/tasks/count",
        data={"n": n, "csrf_token": token},
        headers={"x-user": user, "HX-Request": "true"},
    )


def _job_id(html: str) -> str:
    match = re.search(r'hx-get="/tasks/count/([A-Za-z0-9_-]+)/status"', html)
    assert match, html
    return match.group(1)


def test_the_form_posts_to_the_flow_with_a_csrf_field(client: TestClient) -> None:
    home = client.get("/", headers={"x-user": "alice"})
    assert 'id="count-flow"' in home.text
    assert 'hx-post="/tasks/count"' in home.text
    assert 'hx-target="#count-flow"' in home.text
    assert 'name="csrf_token"' in home.text


def test_submit_polls_then_stops_on_the_result(client: TestClient, harness: Harness) -> None:
    submitted = _submit(client)
    assert submitted.status_code == 200, submitted.text
    assert 'hx-trigger="every 500ms"' in submitted.text
    assert "Queued…" in submitted.text
    assert ">Cancel</button>" in submitted.text
    job_id = _job_id(submitted.text)
    status_url = f"/tasks/count/{job_id}/status"
    alice = {"x-user": "alice", "HX-Request": "true"}

    harness.runner.step()
    running = client.get(status_url, headers=alice)
    assert running.status_code == 200
    assert "item 1 of 2" in running.text
    assert 'max="2" value="0"' in running.text

    harness.runner.run_until_idle()
    done = client.get(status_url, headers=alice)
    assert done.status_code == STOP_POLLING_STATUS
    assert "Done." in done.text
    assert "&quot;counted&quot;: 2" in done.text or '"counted": 2' in done.text
    assert "Cancel" not in done.text
    # the final view offers the form again, fetched into the flow's region
    assert ">Start another</button>" in done.text
    assert 'hx-get="/tasks/count/form"' in done.text
    assert 'hx-target="#count-flow"' in done.text


def test_start_another_brings_back_a_working_form(client: TestClient, harness: Harness) -> None:
    first = _submit(client, "1")
    harness.runner.run_until_idle()
    form = client.get("/tasks/count/form", headers={"x-user": "alice", "HX-Request": "true"})
    assert form.status_code == 200
    assert 'hx-post="/tasks/count"' in form.text
    assert 'name="n"' in form.text
    assert "<html" not in form.text  # a fragment for the region, not a page
    token = re.search(r'name="csrf_token" value="([^"]+)"', form.text)
    assert token, form.text
    second = client.post(
        "/tasks/count",
        data={"n": "1", "csrf_token": token.group(1)},
        headers={"x-user": "alice", "HX-Request": "true"},
    )
    assert second.status_code == 200
    assert _job_id(second.text) != _job_id(first.text)
    assert len(harness.backend) == 2


def test_restart_can_be_turned_off(harness: Harness) -> None:
    flow = TaskFlow("count", scope=header_scope, restart=False, name="plain")
    flow.mount(harness.app)
    job = harness.backend.submit("count", {"n": 1}, auth_subject="alice", tenant_id="acme")
    harness.runner.run_until_idle()
    done = harness.backend.get(job.id, auth_subject="alice", tenant_id="acme")
    assert done is not None
    assert done.terminal
    assert "Start another" not in render(flow.status_view(done))
    assert "Start another" in render(harness.flow.status_view(done))


def test_submit_needs_csrf(client: TestClient, harness: Harness) -> None:
    _token(client)
    response = client.post("/tasks/count", data={"n": "2"}, headers={"x-user": "alice"})
    assert response.status_code == 403
    assert len(harness.backend) == 0


def test_submit_needs_an_explicit_identity(client: TestClient, harness: Harness) -> None:
    token = _token(client)
    response = client.post("/tasks/count", data={"n": "2", "csrf_token": token})
    assert response.status_code == 401
    assert len(harness.backend) == 0


def test_policy_can_refuse(client: TestClient, harness: Harness) -> None:
    assert _submit(client, user="guest").status_code == 403
    assert len(harness.backend) == 0


def test_bad_input_comes_back_on_the_form(client: TestClient, harness: Harness) -> None:
    response = _submit(client, n="0")
    assert response.status_code == 200
    assert "n must be at least 1" in response.text
    assert 'hx-post="/tasks/count"' in response.text
    assert len(harness.backend) == 0


def test_status_and_cancel_are_scoped(client: TestClient, harness: Harness) -> None:
    job_id = _job_id(_submit(client).text)
    token = _token(client)
    missing = client.get("/tasks/count/" + "x" * 24 + "/status", headers={"x-user": "bob"})
    foreign = client.get(f"/tasks/count/{job_id}/status", headers={"x-user": "bob"})
    anonymous = client.get(f"/tasks/count/{job_id}/status")
    assert missing.status_code == foreign.status_code == anonymous.status_code == 404
    assert missing.content == foreign.content == anonymous.content
    stolen = client.post(
        f"/tasks/count/{job_id}/cancel", headers={"x-user": "bob", "X-CSRF-Token": token}
    )
    assert stolen.status_code == 404
    assert not harness.backend.load(job_id).cancel_requested  # type: ignore[union-attr]


def test_cancel_stops_a_running_job(client: TestClient, harness: Harness) -> None:
    job_id = _job_id(_submit(client, n="5").text)
    harness.runner.step()
    token = _token(client)
    alice = {"x-user": "alice", "HX-Request": "true"}
    no_csrf = client.post(f"/tasks/count/{job_id}/cancel", headers=alice)
    assert no_csrf.status_code == 403
    cancelling = client.post(
        f"/tasks/count/{job_id}/cancel", headers={**alice, "X-CSRF-Token": token}
    )
    assert cancelling.status_code == 200
    assert "Cancelling…" in cancelling.text
    assert ">Cancel</button>" not in cancelling.text
    harness.runner.step(advance=False)
    final = client.get(f"/tasks/count/{job_id}/status", headers=alice)
    assert final.status_code == STOP_POLLING_STATUS
    assert "Cancelled." in final.text


def test_cancel_after_the_job_finished_shows_the_final_status(
    client: TestClient, harness: Harness
) -> None:
    job_id = _job_id(_submit(client, n="1").text)
    harness.runner.run_until_idle()
    alice = {"x-user": "alice", "HX-Request": "true", "X-CSRF-Token": _token(client)}
    late = client.post(f"/tasks/count/{job_id}/cancel", headers=alice)
    assert late.status_code == STOP_POLLING_STATUS  # the result, not "not found"
    assert "Done." in late.text
    assert not harness.backend.load(job_id).cancel_requested  # type: ignore[union-attr]


def test_taskflow_validates_its_arguments() -> None:
    with pytest.raises(ValueError, match="job_type"):
        TaskFlow("", scope=header_scope)
    with pytest.raises(TypeError, match="scope"):
        TaskFlow("x", scope=None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="poll_interval_ms"):
        TaskFlow("x", scope=header_scope, poll_interval_ms=0)
    with pytest.raises(TypeError, match=r"TaskFlow\(poll_interval_ms=...\) must be an int"):
        TaskFlow("x", scope=header_scope, poll_interval_ms=2.5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"fields\[0\]"):
        TaskFlow("x", scope=header_scope, fields=["not a component"])  # type: ignore[list-item]
    app = Hedron(title="no backend", session_secret=JOBS_SECRET)
    with pytest.raises(ValueError, match="backend"):
        TaskFlow("x", scope=header_scope).mount(app)
