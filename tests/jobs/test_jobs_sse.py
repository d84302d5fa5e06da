"""The experimental SSE status helper: one event per change, ``end`` on terminal, scoped 404."""

from __future__ import annotations

import json
import warnings
from typing import Any

import pytest
from fastapi import FastAPI, Request

from hedron.jobs import job_status_events
from hedron_core.jobs import InMemoryJobBackend, TaskContext, ThreadPoolRunner

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

ALICE = {"auth_subject": "alice", "tenant_id": "acme"}


async def two_steps(ctx: TaskContext) -> dict[str, int]:
    for k in range(2):
        ctx.progress(k, 2, f"step {k + 1}")
        await ctx.sleep(0.15)
    return {"steps": 2}


def _events(text: str) -> list[tuple[str, Any]]:
    out = []
    for block in text.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines())
        out.append((lines["event"], json.loads(lines["data"])))
    return out


def test_events_follow_the_job_to_its_end() -> None:
    backend = InMemoryJobBackend()
    app = FastAPI()

    @app.get("/jobs/{job_id}/events")
    def stream(job_id: str, request: Request) -> Any:
        who = request.headers.get("x-user", "alice")
        return job_status_events(
            backend, job_id, auth_subject=who, tenant_id="acme", interval_s=0.02
        )

    with ThreadPoolRunner(backend, {"two": two_steps}) as runner, TestClient(app) as client:
        job = runner.submit("two", {}, **ALICE)
        assert client.get(f"/jobs/{job.id}/events", headers={"x-user": "bob"}).status_code == 404
        response = client.get(f"/jobs/{job.id}/events")
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        assert response.headers["cache-control"] == "no-store"
    events = _events(response.text)
    kinds = [kind for kind, _ in events]
    assert kinds[-1] == "end"
    assert set(kinds[:-1]) == {"status"}
    states = [data["state"] for kind, data in events if kind == "status"]
    assert states[-1] == "succeeded"
    assert "running" in states
    assert events[-2][1]["result"] == {"steps": 2}
    bodies = [json.dumps(data) for kind, data in events if kind == "status"]
    assert len(bodies) == len(set(bodies)), "an event only when something changed"


def test_events_validate_arguments() -> None:
    backend = InMemoryJobBackend()
    with pytest.raises(ValueError, match="interval_s"):
        job_status_events(backend, "x", **ALICE, interval_s=0)
    with pytest.raises(ValueError, match="auth_subject"):
        job_status_events(backend, "x", auth_subject="", tenant_id="acme")
