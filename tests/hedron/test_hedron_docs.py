"""The code in the hedron docs pages runs as written (``tests/_support/docs_blocks.py`` runs a
page's blocks in order; a page's own checks follow)."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Protocol

import httpx
import pytest
from hedron_support import ROOT, SECRET, page_token

from hedron import Hedron, Page, Text
from hedron.jobs import job_result_response, use_job_backend
from hedron_core import render
from hedron_core.jobs import InMemoryJobBackend, JobState, JobStatus
from resq import Requests
from resq.clock import VirtualClock, use_clock
from resq.transports import ASGIAdapter
from tests._support.docs_blocks import run_blocks

DOCS = ROOT / "docs" / "hedron"


def blocks(page: str) -> list[str]:
    text = (DOCS / page).read_text(encoding="utf-8")
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def run_block(code: str) -> dict[str, Any]:
    namespace: dict[str, Any] = {"__name__": "docs_example"}
    exec(compile(code, "<docs>", "exec"), namespace)
    return namespace


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
@pytest.mark.parametrize("index", range(len(blocks("getting-started.md"))))
async def test_getting_started_blocks_run(index: int, anyio_backend: str) -> None:
    namespace = run_block(blocks("getting-started.md")[index])
    app = namespace.get("app")
    if app is None:
        return  # the render-only block asserts by itself
    assert isinstance(app, Hedron)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        if app.explorer_mode == "development":  # the explorer example has no page of its own
            assert (await client.get("/_hedron/explorer")).status_code == 200
            return
        page = await client.get("/")
        assert page.status_code == 200
        assert page.text.startswith("<!DOCTYPE html>")
        if "/report/status" in page.text:  # the Poll example runs to its 286
            codes = [(await client.get("/report/status")).status_code for _ in range(3)]
            assert codes == [200, 200, 286]
        if "/subscribe" in page.text:  # the action example, with the page's CSRF token
            token = page_token(page.text)
            r = await client.post("/subscribe", data={"email": "a@b.c", "csrf_token": token})
            assert "Subscribed a@b.c." in r.text


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_components_page_runs(anyio_backend: str) -> None:
    job = SimpleNamespace(finished=False, done=2, total=5)
    app = Hedron(title="Docs", session_secret=SECRET)
    namespace = {"__name__": "docs_example", "app": app, "jobs": {"7": job}}
    out = run_blocks("hedron/components.md", namespace)
    assert 'value="42"' in render(out["panel"])
    assert render(out["Kbd"]("Ctrl")) == '<kbd class="kbd">Ctrl</kbd>'
    with pytest.raises(ValueError, match=r"Kbd\.key"):
        out["Kbd"]("")
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        assert (await client.get("/jobs/7/status")).status_code == 200
        job.finished = True
        done = await client.get("/jobs/7/status")
        assert (done.status_code, "Done" in done.text) == (286, True)


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_jobs_page_runs(anyio_backend: str) -> None:
    app = Hedron(title="Docs", session_secret=SECRET)
    scope = {"auth_subject": "u", "tenant_id": "t"}

    @app.get("/reports/{job_id}/result")
    def result(job_id: str) -> Any:
        return job_result_response(backend.get(job_id, **scope), **scope)

    backend = InMemoryJobBackend()
    report = backend.submit("report", {}, **scope)
    backend.mark(report.id, JobState.SUCCEEDED, result={"rows": 7})

    def the_status_route(namespace: dict[str, Any]) -> dict[str, Any]:
        """The status endpoint's block: the job the previous block made, its scope."""
        job = namespace["job"]
        namespace["backend"].mark(job.id, JobState.RUNNING)
        return {"app": app, "job_id": job.id, "current_scope": lambda request: scope}

    in_process = ASGIAdapter(app)
    with (
        use_job_backend(backend),
        use_clock(VirtualClock()),
        Requests("http://app", "requests", 5, transport=in_process) as client,
    ):
        out = run_blocks(
            "hedron/jobs.md",
            {"__name__": "docs_example", "client": client},
            before={5: the_status_route, 6: {"job_id": report.id}},
        )
    assert out["r"].status_code == 200
    assert out["r"].json()["result"] == {"rows": 7}
    assert isinstance(out["job"], JobStatus)
    assert out["job"].created_at == 5.0  # the current clock's example
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
        status = await http.get(f"/jobs/{out['job'].id}/status", headers={"HX-Request": "true"})
        assert status.status_code == 200
        assert "Running" in status.text


def test_backends_page_runs(tmp_path: Path) -> None:
    async def resize(ctx: Any) -> None:  # the task of the Jobs page
        return None

    namespace: dict[str, Any] = {
        "__name__": "docs_example",
        "resize": resize,
        "job_id": "some-job",
        "Protocol": Protocol,
        "JobStatus": JobStatus,
        "JobState": JobState,
    }
    try:
        out = run_blocks(
            "hedron/backends.md",
            namespace,
            replace={
                "/var/lib/myapp/jobs.db": str(tmp_path / "myapp.db"),
                '"jobs.db"': repr(str(tmp_path / "jobs.db")),
            },
        )
    finally:
        if "runner" in namespace:
            namespace["runner"].stop()
        if hasattr(namespace.get("backend"), "close"):
            namespace["backend"].close()
    assert (tmp_path / "myapp.db").is_file()
    assert (tmp_path / "jobs.db").is_file()
    assert {"submit", "get", "mark", "close"} <= set(vars(out["JobBackend"]))


def test_security_page_blocks_run(monkeypatch: pytest.MonkeyPatch) -> None:
    code = blocks("security.md")
    app = Hedron(title="Docs", session_secret=SECRET)

    @app.page("/")
    def home() -> Page:
        return Page(Text("x"))

    for block in code[:2]:  # the plain-route examples extend an existing app
        namespace = {"__name__": "docs_example", "app": app}
        exec(compile(block, "<docs>", "exec"), namespace)
    monkeypatch.setenv("HEDRON_SESSION_SECRET", SECRET)
    strict = run_block(code[2])["app"]
    assert strict.security_profile == "strict"
    monkeypatch.setenv("HEDRON_SESSION_SECRET", "change-me")
    with pytest.raises(ValueError, match="session_secret"):
        run_block(code[2])
