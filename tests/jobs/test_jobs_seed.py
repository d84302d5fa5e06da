"""The seed's ``app.py`` (tests/jobs/seed_app.py, verbatim) runs unmodified, thread and all."""

from __future__ import annotations

import re
import time
import warnings
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from hedron.jobs._binding import _BackendMiddleware
from hedron_core.htmx import STOP_POLLING_STATUS

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # the seed's placeholder session secret warns, by design
    import seed_app

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

DEADLINE_S = 15.0
JOB_TEXT = re.compile(r"Job ([A-Za-z0-9_-]{22,}) \(poll every 2s")


def _poll_until_done(get: Callable[[str], Any], job_id: str) -> Any:
    deadline = time.monotonic() + DEADLINE_S
    seen = []
    while time.monotonic() < deadline:
        response = get(f"/jobs/{job_id}/status")
        seen.append(response.status_code)
        if response.status_code == STOP_POLLING_STATUS:
            return response, seen
        assert response.status_code == 200, response.text
        time.sleep(0.05)  # the seed's worker sleeps 1 s in its own thread
    raise AssertionError(f"job {job_id} did not finish in {DEADLINE_S}s: {seen}")


def _check_run(get: Callable[..., Any]) -> None:
    home = get("/")
    assert home.status_code == 200
    match = JOB_TEXT.search(home.text)
    assert match, home.text
    job_id = match.group(1)
    assert 'hx-trigger="every 2000ms"' in home.text
    assert f'hx-get="/jobs/{job_id}/status"' in home.text
    done, seen = _poll_until_done(get, job_id)
    assert seen[0] == 200
    assert "Done." in done.text
    assert done.headers["cache-control"] == "no-store"
    as_json = get(f"/jobs/{job_id}/status", headers={"Accept": "application/json"})
    assert as_json.json()["state"] == "succeeded"
    assert as_json.json()["result"] == {"ok": True}
    assert get("/jobs/" + "A" * 24 + "/status").status_code == 404


def test_hedron_binds_the_seed_backend_to_its_requests() -> None:
    """The seed calls enqueue_durable() without backend=: Hedron(job_backend=...) binds it."""
    bound = [m for m in seed_app.app.user_middleware if m.cls is _BackendMiddleware]
    assert len(bound) == 1
    assert bound[0].kwargs["backend"] is seed_app.backend


def test_seed_app_under_pytest() -> None:
    with TestClient(seed_app.app) as client:
        _check_run(client.get)


def test_seed_app_under_uvicorn(live_server: Callable[..., str]) -> None:
    base = live_server(seed_app.app)
    with httpx.Client(base_url=base, timeout=10) as client:
        _check_run(client.get)


@pytest.mark.browser
def test_seed_app_in_chromium(live_server: Callable[..., str], chromium: Any) -> None:
    base = live_server(seed_app.app)
    context = chromium.new_context()
    try:
        page = context.new_page()
        statuses: list[int] = []
        page.on(
            "response",
            lambda r: statuses.append(r.status) if r.url.endswith("/status") else None,
        )
        page.goto(base + "/")
        page.wait_for_selector("#job-status .h-tone-success", timeout=DEADLINE_S * 1000)
        assert page.inner_text("#job-status") == "Done."
        assert statuses[-1] == STOP_POLLING_STATUS
    finally:
        context.close()
