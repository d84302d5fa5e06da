"""The jobs recipes for real under uvicorn: jobs-poll (TaskFlow, advanced), resq-polls-hedron."""

from __future__ import annotations

import asyncio
import re
import threading
import time
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

import httpx
import pytest

from hedron_core.htmx import STOP_POLLING_STATUS
from tryit.recipe import load_recipe

DEADLINE_S = 15.0


@pytest.fixture
def recipe() -> Iterator[Callable[[str, str], ModuleType]]:
    loaded: list[ModuleType] = []

    def load(name: str, filename: str) -> ModuleType:
        module = load_recipe(name).load(filename)
        loaded.append(module)
        return module

    yield load
    for module in loaded:
        module.runner.stop()


def _poll_to_286(client: httpx.Client, url: str) -> httpx.Response:
    deadline = time.monotonic() + DEADLINE_S
    while time.monotonic() < deadline:
        response = client.get(url, headers={"HX-Request": "true"})
        if response.status_code == STOP_POLLING_STATUS:
            return response
        assert response.status_code == 200, response.text
        time.sleep(0.1)
    raise AssertionError(f"{url} never answered 286")


def test_jobs_poll_taskflow(live_server: Callable[..., str], recipe: Any) -> None:
    module = recipe("jobs-poll", "app.py")
    with httpx.Client(base_url=live_server(module.app), timeout=10) as client:
        home = client.get("/")
        token = re.search(r'name="csrf_token" value="([^"]+)"', home.text)
        assert token, home.text
        started = client.post(
            "/tasks/demo", data={"csrf_token": token.group(1)}, headers={"HX-Request": "true"}
        )
        assert started.status_code == 200, started.text
        assert 'hx-trigger="every 2000ms"' in started.text
        url = re.search(r'hx-get="(/tasks/demo/[^"]+/status)"', started.text)
        assert url, started.text
        done = _poll_to_286(client, url.group(1))
        assert "Done." in done.text
        assert "&quot;ok&quot;: true" in done.text or '"ok": true' in done.text


def test_jobs_poll_advanced(live_server: Callable[..., str], recipe: Any) -> None:
    module = recipe("jobs-poll", "advanced.py")
    with httpx.Client(base_url=live_server(module.app), timeout=10) as client:
        home = client.get("/")
        job = re.search(r'hx-get="(/jobs/[^"]+/status)"', home.text)
        assert job, home.text
        assert "Done." in _poll_to_286(client, job.group(1)).text
        assert client.get("/jobs/" + "Z" * 24 + "/status").status_code == 404


@pytest.mark.slow
def test_resq_waits_for_a_hedron_job_with_both_engines(
    live_server: Callable[..., str], recipe: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from resq import Requests

    server = recipe("resq-polls-hedron", "server.py")
    client_module = load_recipe("resq-polls-hedron").load("client.py")
    base = live_server(server.app)

    async_result: dict[str, Any] = {}

    def with_httpx() -> None:
        async def go() -> None:
            async with Requests(base, adapter="httpx", timeout=5) as client:
                created = await client.post("/reports")
                r = await client.get(created.json()["result"], timeout=30, delay=0.5)
                async_result["status"] = r.status_code
                async_result["body"] = r.json()

        asyncio.run(go())

    thread = threading.Thread(target=with_httpx)
    thread.start()
    with Requests(base, adapter="requests", timeout=5) as client:
        r = client_module.main(client)
    thread.join(DEADLINE_S)
    assert r.status_code == 200
    assert r.json()["state"] == "succeeded"
    assert r.json()["result"] == {"rows": 3}
    assert capsys.readouterr().out == "200 succeeded {'rows': 3}\n"
    assert async_result["status"] == 200
    assert async_result["body"]["result"] == {"rows": 3}


def test_result_endpoint_answers_409_while_running(
    live_server: Callable[..., str], recipe: Any
) -> None:
    server = recipe("resq-polls-hedron", "server.py")
    with httpx.Client(base_url=live_server(server.app), timeout=10) as client:
        created = client.post("/reports")
        assert created.status_code == 201
        waiting = client.get(created.json()["result"])
        assert waiting.status_code == 409
        assert waiting.headers["retry-after"] == "2"
        assert waiting.json()["state"] in ("queued", "running")
        assert client.get("/reports/" + "Q" * 24 + "/result").status_code == 404
