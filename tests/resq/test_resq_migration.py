"""The resq snippets of the "Coming from resq 1.0.0 / hedron 1.1.3" page (``migration/``), run
against a job API served by uvicorn on 127.0.0.1, on a virtual clock."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, RedirectResponse, Response

from docsite.testing.live_server import serve
from resq.clock import VirtualClock, use_clock
from resq.http import ClientClosedError
from tests._support.snippets import run_snippet

MIGRATION = Path(__file__).resolve().parents[2] / "docs" / "migration"


class JobAPI:
    """``/job/{id}`` answers 503 twice, then 200; ``/never-done`` always 503; ``/moved/{id}``
    redirects to ``/job/{id}``. Each request is logged with the (virtual) time it arrived."""

    def __init__(self) -> None:
        self.clock = VirtualClock()
        self.hits: dict[str, list[float]] = defaultdict(list)
        self.first_answer_takes = 0.0
        self.seen: list[str] = []  # path and query of every other request
        self.app = FastAPI()

        @self.app.get("/job/{job_id}")
        async def job(job_id: str) -> Response:
            self._hit(job_id)
            if len(self.hits[job_id]) == 1 and self.first_answer_takes:
                self.clock.advance(self.first_answer_takes)  # a slow first answer
            if len(self.hits[job_id]) <= 2:
                return JSONResponse({"state": "pending"}, status_code=503)
            return JSONResponse({"state": "done"})

        @self.app.get("/never-done")
        async def never_done() -> Response:
            self._hit("never-done")
            return JSONResponse({"state": "pending"}, status_code=503)

        @self.app.get("/moved/{job_id}")
        async def moved(job_id: str) -> Response:
            return RedirectResponse(f"/job/{job_id}", status_code=302)

        @self.app.get("/{rest:path}")
        async def anything(request: Request) -> Response:
            query = request.url.query
            self.seen.append(request.url.path + (f"?{query}" if query else ""))
            return JSONResponse({"ok": True})

    def _hit(self, key: str) -> None:
        self.hits[key].append(self.clock.now())


@pytest.fixture
def api() -> Iterator[tuple[JobAPI, str]]:
    job_api = JobAPI()
    with serve(job_api.app) as url:
        yield job_api, url


def load(relative: str) -> Any:
    """The snippet's globals once it has run (its functions keep working)."""
    return SimpleNamespace(**run_snippet(MIGRATION / relative))


def test_resq_1_0_0_code_runs_unchanged_sync(api: Any, capsys: Any) -> None:
    job_api, url = api
    with use_clock(job_api.clock):
        load("resq_unchanged.py").main(url)
    assert capsys.readouterr().out.splitlines() == ["requests 5.0", "200 utf-8 done", "True", "503"]
    assert job_api.clock.sleeps[:4] == [2, 2, 2, 2]  # poll(r, 30, 2) twice, 2 s apart
    assert len(job_api.hits["never-done"]) == 16 + 1  # 0, 2, ... 30 s, then the reload


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_resq_1_0_0_code_runs_unchanged_async(api: Any, capsys: Any) -> None:
    job_api, url = api
    with use_clock(job_api.clock):
        await load("resq_unchanged.py").amain(url)
    assert capsys.readouterr().out.splitlines() == ["True 200", "done"]
    assert len(job_api.hits["44"]) == 3  # the redirect was followed every time, never retried


def test_the_verbs_window_starts_before_the_first_request(api: Any, capsys: Any) -> None:
    job_api, url = api
    job_api.first_answer_takes = 29  # of the 30-second window
    with use_clock(job_api.clock):
        load("window-start/before.py").main(url)
    assert capsys.readouterr().out.splitlines() == ["503"]  # one second was left
    assert job_api.hits["42"] == [0, 30]
    assert job_api.clock.sleeps == [1]


def test_polling_separately_starts_the_window_after_the_first_answer(api: Any, capsys: Any) -> None:
    job_api, url = api
    job_api.first_answer_takes = 29
    with use_clock(job_api.clock):
        load("window-start/after.py").main(url)
    assert capsys.readouterr().out.splitlines() == ["200"]
    assert job_api.hits["42"] == [0, 31, 33]  # the window began at 29 s


@pytest.mark.parametrize(
    ("snippet", "attempts", "sleeps"),
    [
        ("no-request-after-deadline/before.py", [0, 2, 4, 5], [2, 2, 1]),
        ("no-request-after-deadline/after.py", [0, 2, 4, 6], [2, 2, 2]),
    ],
)
def test_no_request_starts_after_the_deadline(
    api: Any, capsys: Any, snippet: str, attempts: list[float], sleeps: list[float]
) -> None:
    job_api, url = api
    with use_clock(job_api.clock):
        load(snippet).main(url)
    assert capsys.readouterr().out.splitlines() == ["503"]
    assert job_api.hits["never-done"] == attempts
    assert job_api.clock.sleeps == sleeps


def test_a_closed_client_is_not_used_again(api: Any) -> None:
    job_api, url = api
    with pytest.raises(ClientClosedError, match=r"get\(\): the client is closed"):
        load("closed-client/before.py").main(url)
    assert job_api.seen == ["/echo/first"]  # nothing was sent after the with block


def test_send_inside_the_block_or_open_a_new_client(api: Any, capsys: Any) -> None:
    job_api, url = api
    load("closed-client/after.py").main(url)
    assert job_api.seen == ["/echo/first", "/echo/second", "/echo/third"]
    assert capsys.readouterr().out.splitlines() == ["200"]


def test_paths_are_added_to_the_base_url_as_written(api: Any) -> None:
    job_api, url = api
    load("paths-and-queries/before.py").main(url)
    assert job_api.seen == ["/api", "/api?page=2", "/api/jobs?key=k"]


def test_the_slash_you_write_is_the_one_sent(api: Any) -> None:
    job_api, url = api
    load("paths-and-queries/after.py").main(url)
    assert job_api.seen == ["/api/", "/api/?page=2", "/jobs"]  # what 1.0.0 sent for the above


@pytest.mark.parametrize(
    ("snippet", "job", "out"),
    [("reload/before.py", "7", ["200"]), ("reload/after.py", "8", ["True 200"])],
)
def test_reload_refreshes_in_place_and_returns_the_response(
    api: Any, capsys: Any, snippet: str, job: str, out: list[str]
) -> None:
    job_api, url = api
    load(snippet).main(url)
    assert capsys.readouterr().out.splitlines() == out
    assert len(job_api.hits[job]) == 3
