"""A job polled again in the same state answers with the bytes it got last time: the same
bytes a fresh render gives, new bytes as soon as anything shown changes, never another
caller's answer, and a bounded number of jobs remembered."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator

import httpx
import pytest
from fastapi import Request
from hedron_support import SECRET
from starlette.responses import Response

from hedron import Hedron
from hedron.jobs import _responses, job_status_response
from hedron.jobs._answers import AnswerCache, StatusAnswer
from hedron_core import render
from hedron_core.jobs import InMemoryJobBackend, JobScope, JobState, JobStatus, job_status_view

OWNER = {"auth_subject": "ann", "tenant_id": "acme"}
OTHER_TENANT = {"auth_subject": "ann", "tenant_id": "globex"}
OTHER_SUBJECT = {"auth_subject": "bob", "tenant_id": "acme"}
NOT_FOUND_BODY = render(_responses._not_found_view()).encode()


@pytest.fixture(autouse=True)
def empty_cache() -> Iterator[None]:
    _responses._ANSWERS.clear()
    yield
    _responses._ANSWERS.clear()


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def running_job(backend: InMemoryJobBackend, k: int = 3, message: str = "Exporting") -> str:
    job = backend.submit("export", {"rows": 10}, **OWNER)
    backend.mark(job.id, JobState.RUNNING)
    backend.progress(job.id, k, 10, message)
    return job.id


def answer_of(response: Response) -> tuple[int, bytes, list[tuple[bytes, bytes]]]:
    return response.status_code, bytes(response.body), list(response.raw_headers)


def fresh(
    status: JobStatus, retry_after_s: int = 2
) -> tuple[int, bytes, list[tuple[bytes, bytes]]]:
    """The answer rendered afresh: the same default view through the ``view=`` path, which
    is never remembered."""
    return answer_of(
        job_status_response(status, **OWNER, retry_after_s=retry_after_s, view=job_status_view)
    )


def test_a_second_poll_in_the_same_state_reuses_the_bytes_and_they_equal_a_fresh_render() -> None:
    backend = InMemoryJobBackend()
    job_id = running_job(backend)
    first = job_status_response(backend.get(job_id, **OWNER), **OWNER)
    second = job_status_response(backend.get(job_id, **OWNER), **OWNER)
    assert second.body is first.body  # answered from what the first poll made
    assert answer_of(second) == answer_of(first) == fresh(backend.get(job_id, **OWNER))  # type: ignore[arg-type]
    status = backend.get(job_id, **OWNER)
    assert status is not None
    assert first.body == render(job_status_view(status)).encode()
    assert b'value="3"' in first.body
    assert b"Exporting" in first.body


@pytest.mark.parametrize(
    "change",
    ["progress", "progress message", "running", "cancel", "succeeded", "failed", "retry"],
)
def test_anything_shown_that_changes_gives_new_bytes(change: str) -> None:
    backend = InMemoryJobBackend()
    if change == "running":
        job_id = backend.submit("export", {}, **OWNER).id  # QUEUED first
    else:
        job_id = running_job(backend)
    before = job_status_response(backend.get(job_id, **OWNER), **OWNER)
    job_status_response(backend.get(job_id, **OWNER), **OWNER)  # warm
    retry = 2
    if change == "progress":
        backend.progress(job_id, 4, 10, "Exporting")
    elif change == "progress message":
        backend.progress(job_id, 3, 10, "Compressing")
    elif change == "running":
        backend.mark(job_id, JobState.RUNNING)
    elif change == "cancel":
        backend.request_cancel(job_id, **OWNER)
    elif change == "succeeded":
        backend.mark(job_id, JobState.SUCCEEDED, result={"rows": 10})
    elif change == "failed":
        backend.mark(job_id, JobState.FAILED, error="disk full")
    else:
        retry = 5
    status = backend.get(job_id, **OWNER)
    assert status is not None
    after = job_status_response(status, **OWNER, retry_after_s=retry)
    assert answer_of(after) != answer_of(before)
    assert answer_of(after) == fresh(status, retry)


def test_the_job_status_value_decides_not_the_poll_count() -> None:
    # A state that goes back (two backends' views of the same job id, or a stale replica):
    # the answer follows the value handed in, both ways.
    backend = InMemoryJobBackend()
    job_id = running_job(backend, k=3)
    at_3 = backend.get(job_id, **OWNER)
    backend.progress(job_id, 7, 10, "Exporting")
    at_7 = backend.get(job_id, **OWNER)
    assert at_3 is not None
    assert at_7 is not None
    for status in (at_3, at_7, at_3, at_7):
        assert answer_of(job_status_response(status, **OWNER)) == fresh(status)


def test_another_caller_never_gets_the_remembered_answer() -> None:
    backend = InMemoryJobBackend()
    job_id = running_job(backend)
    status = backend.get(job_id, **OWNER)
    assert status is not None
    warm = job_status_response(status, **OWNER)
    assert job_status_response(status, **OWNER).body is warm.body  # the cache is warm
    # The owner's JobStatus handed in for another tenant / subject (a handler that read the
    # job unscoped): still not found, with the not-found bytes.
    for scope in (OTHER_TENANT, OTHER_SUBJECT):
        answer = job_status_response(status, **scope)
        assert answer.status_code == 404
        assert answer.htmx_status_code == 286
        assert bytes(answer.body) == NOT_FOUND_BODY
        assert (b"retry-after", b"2") not in answer.raw_headers
        assert answer.json_response.body == b'{"detail":"Job not found"}'


def test_a_job_of_another_tenant_with_the_same_id_and_look_is_rendered_for_its_owner() -> None:
    # A custom backend may number jobs per tenant: the same id, the same state, two owners.
    first = JobStatus(id="1", state=JobState.QUEUED, type="t", scope=_scope(OWNER))
    second = dataclasses.replace(first, scope=_scope(OTHER_TENANT))
    job_status_response(first, **OWNER)
    job_status_response(first, **OWNER)  # warm: the owner's job "1" is remembered
    # The other tenant's job "1" handed to the first caller: not theirs, so not found,
    # though a remembered answer exists under the same id for this very caller.
    foreign = job_status_response(second, **OWNER)
    assert foreign.status_code == 404
    assert bytes(foreign.body) == NOT_FOUND_BODY
    job_status_response(second, **OTHER_TENANT)
    assert len(_responses._ANSWERS) == 2  # one slot per caller: never shared


def _scope(kwargs: dict[str, str]) -> JobScope:
    return JobScope(**kwargs)


def status_app(
    backend: InMemoryJobBackend, scope_of: Callable[[Request], dict[str, str]]
) -> Hedron:
    """A Hedron app answering ``/jobs/{jid}`` with ``job_status_response`` of an *unscoped*
    read (``backend.load``): the response's own scope check must hold."""
    app = Hedron(title="Jobs", session_secret=SECRET)

    @app.get("/jobs/{jid}")
    async def status(jid: str, request: Request) -> Response:
        return job_status_response(backend.load(jid), **scope_of(request))

    return app


@pytest.mark.anyio
async def test_over_http_another_tenant_polling_a_warm_job_gets_not_found() -> None:
    backend = InMemoryJobBackend()
    job_id = running_job(backend)
    app = status_app(
        backend,
        lambda request: {
            "auth_subject": request.headers["x-user"],
            "tenant_id": request.headers["x-tenant"],
        },
    )
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        owner = {"x-user": "ann", "x-tenant": "acme", "hx-request": "true"}
        first = await client.get(f"/jobs/{job_id}", headers=owner)
        second = await client.get(f"/jobs/{job_id}", headers=owner)
        assert first.status_code == second.status_code == 200
        assert first.content == second.content
        assert b"Exporting" in first.content
        assert first.headers["retry-after"] == "2"
        stranger = await client.get(
            f"/jobs/{job_id}", headers={"x-user": "ann", "x-tenant": "globex", "hx-request": "true"}
        )
        assert stranger.status_code == 286
        assert stranger.content == NOT_FOUND_BODY
        as_json = await client.get(
            f"/jobs/{job_id}", headers={**owner, "accept": "application/json"}
        )
        assert as_json.json()["progress"] == {"k": 3, "n": 10, "message": "Exporting"}
        backend.progress(job_id, 4, 10, "Exporting")
        as_json = await client.get(
            f"/jobs/{job_id}", headers={**owner, "accept": "application/json"}
        )
        assert as_json.json()["progress"]["k"] == 4
        third = await client.get(f"/jobs/{job_id}", headers=owner)
        assert third.content != first.content
        assert b'value="4"' in third.content


def test_changing_one_answer_s_headers_does_not_change_the_next() -> None:
    backend = InMemoryJobBackend()
    job_id = running_job(backend)
    first = job_status_response(backend.get(job_id, **OWNER), **OWNER)
    first.headers["x-extra"] = "1"
    second = job_status_response(backend.get(job_id, **OWNER), **OWNER)
    assert "x-extra" not in second.headers
    assert answer_of(second) == fresh(backend.get(job_id, **OWNER))  # type: ignore[arg-type]


def test_custom_views_and_finished_jobs_are_rendered_on_every_poll() -> None:
    backend = InMemoryJobBackend()
    job_id = running_job(backend)
    calls: list[str] = []

    def view(status: JobStatus) -> object:
        calls.append(status.id)
        return job_status_view(status)

    for _ in range(3):
        job_status_response(backend.get(job_id, **OWNER), **OWNER, view=view)  # type: ignore[arg-type]
    assert len(calls) == 3
    assert len(_responses._ANSWERS) == 0
    job_status_response(backend.get(job_id, **OWNER), **OWNER)
    assert len(_responses._ANSWERS) == 1
    backend.mark(job_id, JobState.SUCCEEDED, result={"ok": True})
    done = job_status_response(backend.get(job_id, **OWNER), **OWNER)
    assert done.status_code == 286
    assert len(_responses._ANSWERS) == 0  # a finished job's slot is freed


def test_values_that_compare_equal_but_render_differently_are_rendered_afresh() -> None:
    backend = InMemoryJobBackend()
    job_id = running_job(backend)
    status = backend.get(job_id, **OWNER)
    assert status is not None
    job_status_response(status, **OWNER)  # warm with the real enum state
    # A custom backend handing over the state as a plain str: equal to JobState.RUNNING,
    # but job_status_view shows it without the progress bar.
    odd = dataclasses.replace(status, state="running")  # type: ignore[arg-type]
    assert odd.state == status.state
    assert answer_of(job_status_response(odd, **OWNER)) == fresh(odd)
    assert fresh(odd) != fresh(status)


def test_the_cache_is_bounded_and_a_job_keeps_one_slot(monkeypatch: pytest.MonkeyPatch) -> None:
    small = AnswerCache(3)
    monkeypatch.setattr(_responses, "_ANSWERS", small)
    backend = InMemoryJobBackend()
    job_id = running_job(backend)
    for k in range(4, 10):  # a job moving forward replaces its answer
        backend.progress(job_id, k, 10, "Exporting")
        job_status_response(backend.get(job_id, **OWNER), **OWNER)
    assert len(small) == 1
    ids = [running_job(backend) for _ in range(5)]
    for other in ids:
        job_status_response(backend.get(other, **OWNER), **OWNER)
    assert len(small) == 3
    # The oldest went first: the three last polled jobs are remembered.
    remembered = [
        job_status_response(backend.get(j, **OWNER), **OWNER).body
        is job_status_response(backend.get(j, **OWNER), **OWNER).body
        for j in ids[2:]
    ]
    assert remembered == [True, True, True]
    assert len(small) == 3


def test_answer_cache_evicts_the_oldest_and_checks_its_size() -> None:
    cache = AnswerCache(2)
    answer = StatusAnswer(b"x", 200, ())
    cache.put(("a", "u", "t", 2), ("queued",), answer)
    cache.put(("b", "u", "t", 2), ("queued",), answer)
    cache.put(("c", "u", "t", 2), ("queued",), answer)
    assert len(cache) == 2
    assert cache.get(("a", "u", "t", 2), ("queued",)) is None
    assert cache.get(("b", "u", "t", 2), ("queued",)) is answer
    assert cache.get(("b", "u", "t", 2), ("running",)) is None
    cache.discard(("b", "u", "t", 2))
    assert cache.get(("b", "u", "t", 2), ("queued",)) is None
    with pytest.raises(ValueError, match="maxsize"):
        AnswerCache(0)
    with pytest.raises(TypeError, match="maxsize"):
        AnswerCache(True)


def test_the_default_cache_size_is_bounded() -> None:
    assert _responses._ANSWERS.maxsize == _responses.ANSWER_CACHE_SIZE <= 10_000


@pytest.mark.anyio
async def test_accept_values_short_and_long_choose_the_same_way_every_time() -> None:
    backend = InMemoryJobBackend()
    job_id = running_job(backend)
    app = status_app(backend, lambda request: OWNER)

    long_json = "text/plain;q=0.1, " * 40 + "application/json"
    long_html = "text/plain;q=0.1, " * 40 + "text/html, application/json;q=0.9"
    assert len(long_json) > 256
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        for _ in range(2):  # the second time from what the first parse remembered
            for accept, kind in (
                ("application/json", "application/json"),
                ("*/*", "text/html; charset=utf-8"),
                (long_json, "application/json"),
                (long_html, "text/html; charset=utf-8"),
            ):
                answer = await client.get(f"/jobs/{job_id}", headers={"accept": accept})
                assert answer.headers["content-type"] == kind, accept
