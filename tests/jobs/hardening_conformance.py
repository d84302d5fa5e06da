"""What probing the job backends under bad input found (issue 19), for every backend.

Subclass :class:`HardeningConformance` with a ``backend_factory`` fixture (the one of the
backend's conformance class: ``backend_factory = TestX.backend_factory``).

- Blank progress messages and error texts (spaces, newlines, ``\\x1d``, NBSP) answered 500 on
  every poll, and a FAILED job with a blank error never answered 286.
- Text with a lone surrogate was stored by one backend (then every poll failed to encode),
  refused by another with an error naming nothing, and sent by Redis as an "unavailable" error.
- A payload nested 100,000 deep raised ``RecursionError``.
- Idempotency keys of scopes that differed only in where a NUL fell collided; a NUL in a scope
  string or key is now refused (issue 29).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import pytest
from fastapi import FastAPI, Request

from hedron.jobs import job_status_response
from hedron_core.htmx import STOP_POLLING_STATUS
from hedron_core.jobs import JobBackend, JobState
from hedron_core.jobs._finish import record_failure, record_success
from tests._support.bad_values import deeply_nested

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

OWNER = {"auth_subject": "alice", "tenant_id": "acme"}
#: Text that is blank to ``str.isspace`` (what the components refuse as a label).
BLANK = [" ", "\n", "\x1d", "\xa0", "\u2003 \t", "\r\n"]


def status_client(backend: JobBackend) -> TestClient:
    """A client of a one-route app: the job's status as ``job_status_response`` answers it."""
    app = FastAPI()

    @app.get("/jobs/{job_id}/status")
    def status(job_id: str, request: Request) -> Any:
        return job_status_response(backend.get(job_id, **OWNER), **OWNER)

    return TestClient(app, raise_server_exceptions=False)


class HardeningConformance:
    """Findings of the probes, checked against one backend."""

    @pytest.fixture
    def backend(self, backend_factory: Callable[..., JobBackend]) -> JobBackend:
        return backend_factory()

    def _running(self, backend: JobBackend) -> str:
        job = backend.submit("demo", {"n": 1}, **OWNER)
        backend.mark(job.id, JobState.RUNNING)
        return job.id

    @pytest.mark.parametrize("text", BLANK)
    def test_a_blank_progress_message_still_answers_every_poll(
        self, backend: JobBackend, text: str
    ) -> None:
        job_id = self._running(backend)
        backend.progress(job_id, 1, 2, text)
        with status_client(backend) as client:
            html = client.get(f"/jobs/{job_id}/status", headers={"HX-Request": "true"})
            as_json = client.get(f"/jobs/{job_id}/status", headers={"Accept": "application/json"})
        assert html.status_code == 200, html.text
        assert 'max="2" value="1"' in html.text
        assert ">Progress</label>" in html.text
        assert as_json.json()["progress"] == {"k": 1, "n": 2, "message": text}

    @pytest.mark.parametrize("text", ["", *BLANK])
    def test_a_blank_error_still_ends_polling_with_286(
        self, backend: JobBackend, text: str
    ) -> None:
        job_id = self._running(backend)
        backend.mark(job_id, JobState.FAILED, error=text)
        with status_client(backend) as client:
            html = client.get(f"/jobs/{job_id}/status", headers={"HX-Request": "true"})
        assert html.status_code == STOP_POLLING_STATUS, html.text
        assert "The job failed." in html.text

    @pytest.mark.parametrize("text", ["\ud800", "file \udcff.txt"])
    def test_text_with_a_lone_surrogate_is_refused_naming_it_and_nothing_changes(
        self, backend: JobBackend, text: str
    ) -> None:
        job_id = self._running(backend)
        backend.progress(job_id, 1, 3, "first")
        with pytest.raises(ValueError, match=r"progress: message holds a lone surrogate"):
            backend.progress(job_id, 2, 3, text)
        with pytest.raises(ValueError, match=r"mark: error holds a lone surrogate"):
            backend.mark(job_id, JobState.FAILED, error=text)
        with pytest.raises(ValueError, match=r"mark: result holds a lone surrogate"):
            backend.mark(job_id, JobState.SUCCEEDED, result={"name": text})
        before = len(backend)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match=r"submit: job_type holds a lone surrogate"):
            backend.submit(text, {}, **OWNER)
        with pytest.raises(ValueError, match=r"submit: payload holds a lone surrogate"):
            backend.submit("demo", [text], **OWNER)
        assert len(backend) == before  # type: ignore[arg-type]
        still = backend.get(job_id, **OWNER)
        assert still is not None
        assert still.state is JobState.RUNNING
        assert still.progress is not None
        assert still.progress.message == "first"
        emoji = backend.submit("demo", ["\U0001f600 ok"], **OWNER)  # a surrogate pair is fine
        assert emoji.payload == ["\U0001f600 ok"]
        stored = backend.get(emoji.id, **OWNER)
        assert stored is not None
        assert stored.payload == ["\U0001f600 ok"]

    def test_a_task_failing_with_a_lone_surrogate_in_its_message_still_ends_failed(
        self, backend: JobBackend
    ) -> None:
        job_id = self._running(backend)
        record_failure(backend, job_id, FileNotFoundError("no file b'\\xff' \udcff.txt"))
        done = backend.get(job_id, **OWNER)
        assert done is not None
        assert done.state is JobState.FAILED
        assert done.error == "FileNotFoundError: no file b'\\xff' \\udcff.txt"
        with status_client(backend) as client:
            final = client.get(f"/jobs/{job_id}/status", headers={"HX-Request": "true"})
        assert final.status_code == STOP_POLLING_STATUS

    def test_a_payload_nested_too_deep_is_refused_and_nothing_is_stored(
        self, backend: JobBackend
    ) -> None:
        before = len(backend)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match=r"submit: payload is nested too deeply"):
            backend.submit("demo", deeply_nested(), **OWNER, idempotency_key="deep")
        assert len(backend) == before  # type: ignore[arg-type]
        job = backend.submit("demo", {"ok": 1}, **OWNER, idempotency_key="deep")
        assert job.payload == {"ok": 1}  # the key was not taken by the refused submit

    def test_a_result_nested_too_deep_fails_the_job_with_a_clear_error(
        self, backend: JobBackend
    ) -> None:
        job_id = self._running(backend)
        with pytest.raises(ValueError, match=r"mark: result is nested too deeply"):
            backend.mark(job_id, JobState.SUCCEEDED, result=deeply_nested())
        running = backend.get(job_id, **OWNER)
        assert running is not None
        assert running.state is JobState.RUNNING
        record_success(backend, job_id, deeply_nested())
        done = backend.get(job_id, **OWNER)
        assert done is not None
        assert done.state is JobState.FAILED
        assert done.error == (
            "ValueError: mark: result is nested too deeply to store as JSON; flatten it"
        )

    @pytest.mark.parametrize("part", ["auth_subject", "tenant_id", "idempotency_key"])
    def test_a_nul_in_a_scope_string_or_key_is_refused_and_nothing_is_stored(
        self, backend: JobBackend, part: str
    ) -> None:
        kwargs = {**OWNER, "idempotency_key": "k", part: "a\x00b"}
        with pytest.raises(ValueError, match=rf"submit: {part} must not contain a NUL"):
            backend.submit("demo", {"n": 1}, **kwargs)  # type: ignore[arg-type]
        assert len(backend) == 0  # type: ignore[arg-type]
        job = backend.submit("demo", {"n": 2}, **OWNER, idempotency_key="k")
        assert job.payload == {"n": 2}  # the key was not taken by the refused submit
