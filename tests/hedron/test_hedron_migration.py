"""The hedron snippets of the "Coming from resq 1.0.0 / hedron 1.1.3" page (``migration/``):
each app is served by uvicorn on 127.0.0.1 and driven over HTTP; each old spelling that is
refused here fails with the message the page quotes."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from hedron_core.htmx import STOP_POLLING_STATUS
from hedron_core.jobs import (
    IdempotencyConflictError,
    InMemoryJobBackend,
    JobState,
    SQLiteJobBackend,
)
from tests._support.snippets import run_snippet

MIGRATION = Path(__file__).resolve().parents[2] / "docs" / "migration"
HX = {"HX-Request": "true"}


def run(relative: str) -> dict[str, Any]:
    return run_snippet(MIGRATION / relative)


class Browser:
    """A cookie-keeping HTTP client for one served snippet app."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.http = requests.Session()

    def get(self, path: str, **kwargs: Any) -> requests.Response:
        return self.http.get(self.base + path, timeout=10, **kwargs)

    def submit(self, page: str, action: str, fields: dict[str, str]) -> requests.Response:
        token = re.search(r'name="csrf_token" value="([^"]+)"', page)
        assert token, page
        data = {**fields, "csrf_token": token.group(1)}
        return self.http.post(self.base + action, data=data, headers=HX, timeout=10)


@pytest.fixture
def served(live_server: Any) -> Any:
    """``served(snippet)``: its ``app`` on a live server, with a client for it."""
    return lambda namespace: Browser(live_server(namespace["app"]))


def _job_id(html: str, prefix: str) -> str:
    match = re.search(rf'hx-get="{re.escape(prefix)}/([A-Za-z0-9_-]+)/status"', html)
    assert match, html
    return match.group(1)


def _final(browser: Browser, path: str) -> str:
    """The status answer that ends a poll (286), as text."""
    answer = browser.get(path, headers=HX)
    assert answer.status_code == STOP_POLLING_STATUS, answer.text
    return answer.text


# -- what runs unchanged ----------------------------------------------------------------------


def test_hedron_1_1_3_code_runs_unchanged(served: Any) -> None:
    snippet = run("hedron_unchanged.py")
    browser = served(snippet)
    page = browser.get("/").text
    assert '<header class="h-card-header"><p class="h-text">Export rows</p></header>' in page
    assert '<footer class="h-card-footer"><p class="h-text">Scoped to you</p></footer>' in page
    assert 'id="activity-latest" class="h-lazy" hx-get="/activity"' in page
    assert browser.get("/activity", headers=HX).text == '<p class="h-text">No activity yet.</p>'

    # the jobs-poll endpoint: scoped, 200 while queued, 286 once finished
    backend, scope = snippet["backend"], snippet["SCOPE"]
    job_id = re.search(r'hx-get="/jobs/([A-Za-z0-9_-]+)/status"', page)
    assert job_id
    queued = browser.get(f"/jobs/{job_id.group(1)}/status", headers=HX)
    assert queued.status_code == 200
    assert "Queued" in queued.text
    backend.mark(job_id.group(1), JobState.SUCCEEDED, result={"ok": True})
    assert "Done." in _final(browser, f"/jobs/{job_id.group(1)}/status")

    # TaskFlow in the keyword form: validated form, then the result view of the value
    invalid = browser.submit(page, "/tasks/export-rows", {"rows": "0"})
    assert "Rows: Input should be greater than or equal to 1" in invalid.text
    submitted = browser.submit(page, "/tasks/export-rows", {"rows": "12", "fmt": "json"})
    flow_job = _job_id(submitted.text, "/tasks/export-rows")
    assert backend.get(flow_job, **scope).payload == {"rows": 12, "fmt": "json"}
    backend.mark(flow_job, JobState.SUCCEEDED, result={"rows": 12})
    assert "12 rows exported" in _final(browser, f"/tasks/export-rows/{flow_job}/status")


# -- what differs -----------------------------------------------------------------------------


def test_a_component_from_app_get_is_html_but_never_stops_a_poll(served: Any) -> None:
    snippet = run("stop-rule/before.py")
    browser = served(snippet)
    snippet["finished"].add("7")
    answer = browser.get("/jobs/7/status", headers=HX)
    assert answer.status_code == 200  # not 286: a Poll would keep asking
    assert answer.headers["content-type"] == "text/html; charset=utf-8"
    assert answer.text == (
        '<div class="h-status h-tone-success" role="status" aria-live="polite">Done</div>'
    )


def test_fragment_and_286_end_the_poll(served: Any) -> None:
    snippet = run("stop-rule/after.py")
    browser = served(snippet)
    running = browser.get("/jobs/7/status", headers=HX)
    assert running.status_code == 200
    assert running.headers["content-type"].startswith("text/html")
    assert "Running…" in running.text
    snippet["finished"].add("7")
    assert "Done" in _final(browser, "/jobs/7/status")


def test_poll_policy_that_would_not_stop_is_refused() -> None:
    with pytest.raises(ValueError, match=r"always stops polling once the job is finished.*286"):
        run("poll-policy/before.py")


def test_poll_policy_sets_the_interval(served: Any) -> None:
    browser = served(run("poll-policy/after.py"))
    form = browser.get("/tasks/export/form", headers=HX).text
    submitted = browser.submit(form, "/tasks/export", {})
    assert 'hx-trigger="every 2000ms"' in submitted.text


def test_a_scope_without_a_subject_is_refused() -> None:
    with pytest.raises(TypeError, match=r"auth_subject is required; a job's scope is explicit"):
        run("job-scope/before.py")


def test_a_full_scope_submits_and_reads(served: Any) -> None:
    snippet = run("job-scope/after.py")
    browser = served(snippet)
    page = browser.get("/").text
    job_id = re.search(r"Job ([A-Za-z0-9_-]+)", page)
    assert job_id
    status = browser.get(f"/jobs/{job_id.group(1)}/status", headers=HX)
    assert status.status_code == 200
    assert "Queued" in status.text
    other = snippet["backend"].get(job_id.group(1), auth_subject="bob", tenant_id="acme")
    assert other is None  # another subject of the same tenant does not see it


def test_the_old_form_spelling_says_what_to_write() -> None:
    with pytest.raises(AttributeError, match=r"'submit_command'; flow.form\(\) renders the submit"):
        run("taskflow-form/before.py")


def test_the_flow_renders_its_form_under_its_path(served: Any) -> None:
    snippet = run("taskflow-form/after.py")
    browser = served(snippet)
    page = browser.get("/").text
    assert 'hx-post="/report"' in page
    submitted = browser.submit(page, "/report", {"label": "Q3"})
    job_id = _job_id(submitted.text, "/report")
    backend = snippet["reports"].backend
    backend.mark(job_id, JobState.SUCCEEDED, result="4 pages")
    assert "4 pages" in _final(browser, f"/report/{job_id}/status")


def test_a_card_with_a_title_and_a_header_is_refused() -> None:
    with pytest.raises(ValueError, match=r"give title= or header=, not both"):
        run("card-title-header/before.py")


def test_the_title_goes_inside_the_header(served: Any) -> None:
    page = served(run("card-title-header/after.py")).get("/").text
    assert '<header class="h-card-header"><div class="h-stack h-gap-sm"><h2' in page
    assert "Nightly import" in page
    assert '<footer class="h-card-footer">Updated 5 minutes ago</footer>' in page


def test_there_is_no_experimental_module() -> None:
    with pytest.raises(ModuleNotFoundError, match=r"hedron\.experimental"):
        run("job-events/before.py")


def test_job_status_events_stream_until_the_end(served: Any) -> None:
    snippet = run("job-events/after.py")
    browser = served(snippet)
    backend, scope = snippet["backend"], snippet["SCOPE"]
    job = backend.submit("demo", {"n": 1}, **scope)
    backend.mark(job.id, JobState.SUCCEEDED, result={"ok": True})
    stream = browser.get(f"/jobs/{job.id}/events")
    assert stream.headers["content-type"].startswith("text/event-stream")
    assert stream.text.startswith("event: status\n")
    assert stream.text.endswith("event: end\ndata: {}\n\n")
    assert browser.get("/jobs/nope/events").status_code == 404


def test_there_is_no_process_wide_backend() -> None:
    with pytest.raises(ImportError, match="set_job_backend"):
        run("job-backend/before.py")


def test_the_apps_backend_is_used_inside_its_requests(served: Any) -> None:
    snippet = run("job-backend/after.py")
    page = served(snippet).get("/").text
    job_id = re.search(r"Job ([A-Za-z0-9_-]+) queued", page)
    assert job_id
    job = snippet["backend"].get(job_id.group(1), auth_subject="demo-user", tenant_id="demo-tenant")
    assert job is not None
    assert job.state is JobState.QUEUED


# -- jobs: code that runs unchanged, and what differs ----------------------------------------


@pytest.fixture(params=["memory", "sqlite", pytest.param("redis", marks=pytest.mark.redis)])
def any_backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    """Each job backend: in memory, SQLite and Redis (the session's real redis-server)."""
    if request.param == "memory":
        yield InMemoryJobBackend()
        return
    if request.param == "sqlite":
        backend: Any = SQLiteJobBackend(tmp_path / "jobs.db")
    else:
        from hedron_core.jobs.redis_backend import RedisJobBackend

        server = request.getfixturevalue("redis_server")
        backend = RedisJobBackend(server.url, prefix=f"migration:{uuid.uuid4().hex}:")
    try:
        yield backend
    finally:
        backend.close()


def test_hedron_1_1_3_job_code_runs_unchanged_on_every_backend(
    any_backend: Any, capsys: Any
) -> None:
    run("jobs_unchanged.py")["main"](any_backend)
    assert capsys.readouterr().out.splitlines() == [
        "export acme ann",
        "2",
        "cancel requested",
        "nothing left to cancel",
    ]


def test_a_key_used_again_with_another_payload_is_refused() -> None:
    with pytest.raises(IdempotencyConflictError, match=r"'order-7' was already used in this scope"):
        run("idempotency-key/before.py")


def test_a_key_stands_for_one_request(capsys: Any) -> None:
    run("idempotency-key/after.py")
    assert capsys.readouterr().out.splitlines() == ["True False"]


def test_request_cancel_answers_the_job_not_true(capsys: Any) -> None:
    run("request-cancel/before.py")
    assert capsys.readouterr().out.splitlines() == ["False"]


def test_request_cancel_is_true_once_recorded_and_none_when_not(capsys: Any) -> None:
    run("request-cancel/after.py")
    assert capsys.readouterr().out.splitlines() == ["cancelled", "already finished"]


def test_a_read_without_a_scope_is_refused() -> None:
    with pytest.raises(TypeError, match=r"get\(\) missing 2 required keyword-only arguments"):
        run("worker-calls/before.py")


def test_a_worker_loads_and_marks(capsys: Any) -> None:
    run("worker-calls/after.py")
    assert capsys.readouterr().out.splitlines() == ["job 'no-such-job' not found", "0"]
