"""job_status_response / job_result_response / enqueue_durable over real HTTP (in process)."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import HTMLResponse, JSONResponse
from jobs_support import JOBS_SECRET

from hedron import Hedron
from hedron.jobs import (
    RESULT_NOT_READY_STATUS,
    JobScope,
    JobStatusResponse,
    authorize_submit,
    bind_job_backend,
    current_job_backend,
    enqueue_durable,
    job_result_response,
    job_status_response,
    prefers_json,
    use_job_backend,
)
from hedron_core.htmx import STOP_POLLING_STATUS
from hedron_core.jobs import InMemoryJobBackend, JobState

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

ALICE = {"auth_subject": "alice", "tenant_id": "acme"}
MALLORY = {"auth_subject": "mallory", "tenant_id": "acme"}


def _scope(request: Request) -> dict[str, str]:
    who = request.headers.get("x-user", "alice")
    return {"auth_subject": who, "tenant_id": "acme"}


def build(backend: InMemoryJobBackend) -> Hedron:
    app = Hedron(title="jobs", session_secret=JOBS_SECRET, job_backend=backend)

    @app.post("/jobs")
    def submit(request: Request) -> dict[str, str]:
        return {"id": enqueue_durable("demo", {"n": 1}, **_scope(request))}

    @app.get("/jobs/{job_id}/status")
    def status(job_id: str, request: Request) -> Any:
        scope = _scope(request)
        return job_status_response(backend.get(job_id, **scope), **scope)

    @app.get("/jobs/{job_id}/result")
    def result(job_id: str, request: Request) -> Any:
        scope = _scope(request)
        return job_result_response(backend.get(job_id, **scope), **scope)

    return app


@pytest.fixture
def backend() -> InMemoryJobBackend:
    return InMemoryJobBackend()


@pytest.fixture
def client(backend: InMemoryJobBackend) -> Iterator[TestClient]:
    with TestClient(build(backend)) as c:
        yield c


def _new_job(client: TestClient) -> str:
    client.get("/jobs/none/status")  # receive the CSRF cookie
    token = client.cookies.get("hedron_csrf")
    response = client.post("/jobs", headers={"X-CSRF-Token": token or ""})
    assert response.status_code == 200, response.text
    return str(response.json()["id"])


HX = {"HX-Request": "true"}


def test_enqueue_durable_uses_the_app_backend(
    client: TestClient, backend: InMemoryJobBackend
) -> None:
    job_id = _new_job(client)
    stored = backend.get(job_id, **ALICE)
    assert stored is not None
    assert stored.state is JobState.QUEUED
    assert stored.payload == {"n": 1}


def test_fragment_per_state_and_the_stop_rule(
    client: TestClient, backend: InMemoryJobBackend
) -> None:
    job_id = _new_job(client)
    url = f"/jobs/{job_id}/status"

    queued = client.get(url, headers=HX)
    assert queued.status_code == 200
    assert queued.headers["cache-control"] == "no-store"
    assert queued.headers["retry-after"] == "2"
    assert queued.headers["content-type"].startswith("text/html")
    assert "h-tone-info" in queued.text
    assert "Queued…" in queued.text

    backend.mark(job_id, JobState.RUNNING)
    backend.progress(job_id, 3, 10, "resizing 3 of 10")
    running = client.get(url, headers=HX)
    assert running.status_code == 200
    assert "Running…" in running.text
    assert 'max="10" value="3"' in running.text
    assert "resizing 3 of 10" in running.text

    backend.mark(job_id, JobState.FAILED, error="ValueError: width <must> be > 0")
    failed = client.get(url, headers=HX)
    assert failed.status_code == STOP_POLLING_STATUS
    assert "retry-after" not in failed.headers
    assert failed.headers["cache-control"] == "no-store"
    assert "h-tone-error" in failed.text
    assert "ValueError: width &lt;must&gt; be &gt; 0" in failed.text


@pytest.mark.parametrize(
    ("state", "tone", "text"),
    [
        (JobState.SUCCEEDED, "success", "Done."),
        (JobState.CANCELLED, "warning", "Cancelled."),
    ],
)
def test_terminal_states_answer_286(
    client: TestClient, backend: InMemoryJobBackend, state: JobState, tone: str, text: str
) -> None:
    job_id = _new_job(client)
    backend.mark(job_id, state)
    response = client.get(f"/jobs/{job_id}/status", headers=HX)
    assert response.status_code == STOP_POLLING_STATUS
    assert f"h-tone-{tone}" in response.text
    assert text in response.text


def test_cancelling_reads_as_such(client: TestClient, backend: InMemoryJobBackend) -> None:
    job_id = _new_job(client)
    backend.mark(job_id, JobState.RUNNING)
    backend.request_cancel(job_id, **ALICE)
    response = client.get(f"/jobs/{job_id}/status", headers=HX)
    assert response.status_code == 200
    assert "Cancelling…" in response.text


def test_json_on_request(client: TestClient, backend: InMemoryJobBackend) -> None:
    job_id = _new_job(client)
    url = f"/jobs/{job_id}/status"
    queued = client.get(url, headers={"Accept": "application/json"})
    assert queued.status_code == 200
    assert queued.headers["content-type"] == "application/json"
    assert queued.headers["cache-control"] == "no-store"
    assert queued.headers["retry-after"] == "2"
    assert queued.json()["state"] == "queued"
    backend.mark(job_id, JobState.SUCCEEDED, result={"ok": True})
    done = client.get(url, headers={"Accept": "application/json"})
    assert done.status_code == 200
    body = done.json()
    assert (body["state"], body["terminal"], body["result"]) == ("succeeded", True, {"ok": True})
    assert "payload" not in body
    assert "scope" not in body


def test_html_and_json_answers_carry_the_same_cache_headers(
    client: TestClient, backend: InMemoryJobBackend
) -> None:
    # The HTML variant is sent as built; the JSON one is made only when asked for: both
    # carry the same Cache-Control / Vary / Retry-After, and their own framing headers.
    job_id = _new_job(client)
    url = f"/jobs/{job_id}/status"
    for headers in ({}, HX, {"Accept": "application/json"}):
        answer = client.get(url, headers=headers)
        assert answer.status_code == 200
        assert answer.headers["cache-control"] == "no-store"
        assert answer.headers["vary"] == "Accept, HX-Request"
        assert answer.headers["retry-after"] == "2"
        assert int(answer.headers["content-length"]) == len(answer.content)
    assert client.get(url).headers["content-type"] == "text/html; charset=utf-8"
    backend.mark(job_id, JobState.FAILED, error="disk full")
    for headers in ({}, {"Accept": "application/json"}):
        failed = client.get(url, headers=headers)
        assert "retry-after" not in failed.headers
        assert failed.headers["vary"] == "Accept, HX-Request"
    assert client.get(url, headers={"Accept": "application/json"}).json()["error"] == "disk full"
    missing = job_status_response(None, **ALICE)
    assert missing.json_response.status_code == 404
    assert missing.json_response.body == b'{"detail":"Job not found"}'


def test_job_status_response_built_from_two_responses(backend: InMemoryJobBackend) -> None:
    # The public constructor keeps working: the HTML variant's attributes, the given JSON one.
    html = HTMLResponse("<p>x</p>", status_code=201, headers={"X-Extra": "1"})
    json_variant = JSONResponse({"a": 1})
    response = JobStatusResponse(html, json_variant, htmx_status_code=STOP_POLLING_STATUS)
    assert (response.status_code, response.body) == (201, b"<p>x</p>")
    assert response.headers["x-extra"] == "1"
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    assert response.json_response is json_variant
    assert response.htmx_status_code == STOP_POLLING_STATUS


def test_foreign_and_missing_jobs_get_the_same_404(client: TestClient) -> None:
    job_id = _new_job(client)
    for accept in ("*/*", "application/json"):
        foreign = client.get(
            f"/jobs/{job_id}/status", headers={"x-user": "mallory", "Accept": accept}
        )
        missing = client.get("/jobs/" + "x" * 24 + "/status", headers={"Accept": accept})
        assert foreign.status_code == missing.status_code == 404
        assert foreign.content == missing.content
        assert foreign.headers["content-type"] == missing.headers["content-type"]
        assert "retry-after" not in foreign.headers


def test_htmx_poll_of_a_missing_or_foreign_job_stops_with_the_same_answer(
    client: TestClient,
) -> None:
    job_id = _new_job(client)
    hx = {"HX-Request": "true"}
    foreign = client.get(f"/jobs/{job_id}/status", headers={**hx, "x-user": "mallory"})
    missing = client.get("/jobs/" + "x" * 24 + "/status", headers=hx)
    # 286: htmx swaps "not found" into the Poll and stops (a restart emptied the backend).
    assert foreign.status_code == missing.status_code == STOP_POLLING_STATUS
    assert foreign.content == missing.content
    assert "not found" in missing.text.lower()
    assert "retry-after" not in missing.headers
    # Without htmx (a plain browser, a script) it stays a 404.
    assert client.get("/jobs/" + "x" * 24 + "/status").status_code == 404


def test_result_endpoint_is_pollable(client: TestClient, backend: InMemoryJobBackend) -> None:
    job_id = _new_job(client)
    url = f"/jobs/{job_id}/result"
    waiting = client.get(url)
    assert waiting.status_code == RESULT_NOT_READY_STATUS == 409
    assert waiting.headers["retry-after"] == "2"
    assert waiting.json()["state"] == "queued"
    backend.mark(job_id, JobState.SUCCEEDED, result={"rows": 3})
    done = client.get(url)
    assert done.status_code == 200
    assert done.json()["result"] == {"rows": 3}
    assert client.get(url, headers={"x-user": "mallory"}).status_code == 404


def test_status_helpers_validate_their_arguments(backend: InMemoryJobBackend) -> None:
    job = backend.submit("demo", {}, **ALICE)
    with pytest.raises(ValueError, match="auth_subject"):
        job_status_response(job, auth_subject="", tenant_id="acme")
    with pytest.raises(TypeError, match="status"):
        job_status_response({"id": job.id}, **ALICE)  # type: ignore[arg-type]
    for far in (-1, 86_401, 10**400):
        with pytest.raises(ValueError, match=r"\(retry_after_s=...\) must be between 0 and 86,400"):
            job_status_response(job, **ALICE, retry_after_s=far)
    assert job_status_response(job, **ALICE, retry_after_s=86_400).headers["retry-after"] == "86400"
    with pytest.raises(TypeError, match=r"job_status_response\(retry_after_s=...\) must be an int"):
        job_status_response(job, **ALICE, retry_after_s="2")  # type: ignore[arg-type]


def test_response_defaults_to_html_when_inspected(backend: InMemoryJobBackend) -> None:
    job = backend.mark(backend.submit("demo", {}, **ALICE).id, JobState.SUCCEEDED)
    response = job_status_response(job, **ALICE)
    assert response.status_code == STOP_POLLING_STATUS
    assert b"Done." in response.body
    assert response.json_response.status_code == 200
    assert job_status_response(job, **MALLORY).status_code == 404


def test_prefers_json() -> None:
    assert prefers_json("application/json")
    assert prefers_json("application/json, text/html;q=0.5")
    assert not prefers_json("text/html, application/json;q=0.9")
    assert not prefers_json("*/*")
    assert not prefers_json(None)
    assert not prefers_json("application/json;q=0")
    assert not prefers_json("application/json;q=oops")


def test_enqueue_without_a_backend_is_a_clear_error() -> None:
    assert current_job_backend() is None
    with pytest.raises(RuntimeError, match="no job backend"):
        enqueue_durable("demo", {}, **ALICE)
    with pytest.raises(TypeError, match="backend"):
        enqueue_durable("demo", {}, **ALICE, backend=object())  # type: ignore[arg-type]


def test_enqueue_validates_before_storing() -> None:
    with use_job_backend(InMemoryJobBackend()) as backend:
        with pytest.raises(TypeError, match="payload"):
            enqueue_durable("demo", {"x": object()}, **ALICE)
        with pytest.raises(ValueError, match="tenant_id"):
            enqueue_durable("demo", {}, auth_subject="alice", tenant_id="")
        assert len(backend) == 0  # type: ignore[arg-type]
        first = enqueue_durable("demo", {}, **ALICE, idempotency_key="k")
        assert enqueue_durable("demo", {}, **ALICE, idempotency_key="k") == first
        assert len(backend) == 1  # type: ignore[arg-type]


def test_bind_job_backend_serves_a_plain_fastapi_app() -> None:
    backend = InMemoryJobBackend()
    app = FastAPI()
    bind_job_backend(app, backend)

    @app.post("/jobs")
    def submit() -> dict[str, str]:
        return {"id": enqueue_durable("demo", {}, **ALICE)}

    with TestClient(app) as client:
        job_id = client.post("/jobs").json()["id"]
    assert backend.get(job_id, **ALICE) is not None
    assert current_job_backend() is None  # only inside the app's requests


def test_bind_job_backend_refuses_non_backends() -> None:
    with pytest.raises(TypeError, match="JobBackend"):
        bind_job_backend(FastAPI(), object())  # type: ignore[arg-type]


def test_authorize_submit() -> None:
    assert authorize_submit(JobScope("alice", "acme"), "export") == JobScope("alice", "acme")
    assert authorize_submit(ALICE, "export") == JobScope("alice", "acme")
    with pytest.raises(HTTPException) as unauth:
        authorize_submit(None, "export")
    assert unauth.value.status_code == 401
    with pytest.raises(HTTPException) as forbidden:
        authorize_submit(ALICE, "export", {"big": True}, policy=lambda s, t, p: not p["big"])
    assert forbidden.value.status_code == 403
    with pytest.raises(TypeError, match="scope"):
        authorize_submit("alice", "export")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="tenant_id"):
        authorize_submit({"auth_subject": "alice", "tenant_id": ""}, "export")
