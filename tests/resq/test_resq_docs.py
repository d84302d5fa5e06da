"""The resq guides' code runs as written: every Python block of a page, in order, against a real
server on 127.0.0.1, on a virtual clock (so a poll never waits). Code a guide includes from a
recipe is the recipe's, and runs with it."""

from __future__ import annotations

import asyncio
import collections
import re
import sys
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.responses import JSONResponse
from resq_app import app

from resq import Requests
from resq.clock import VirtualClock, use_clock
from tests._support.docs_blocks import blocks, run_blocks

DOCS = Path(__file__).resolve().parents[2] / "docs" / "resq"


#: What the guides' code talks to: a job done on its fourth check, an export whose JSON says
#: "running" twice before "done", and a jobs collection.
docs_app = FastAPI()
checks: collections.Counter[str] = collections.Counter()


@docs_app.get("/job/{job_id}")
def job(job_id: str) -> JSONResponse:
    checks[job_id] += 1
    if checks[job_id] < 4:
        return JSONResponse({"state": "running"}, status_code=503)
    return JSONResponse({"state": "done", "result": 42})


@docs_app.get("/state/{job_id}")
def state(job_id: str) -> dict[str, str]:
    checks[f"state/{job_id}"] += 1
    return {"state": "running" if checks[f"state/{job_id}"] < 3 else "done"}


@docs_app.post("/jobs")
def new_job() -> dict[str, int]:
    return {"id": 7}


@docs_app.get("/jobs/{job_id}")
def get_job(job_id: int) -> dict[str, int]:
    return {"id": job_id}


@pytest.fixture
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    loop = asyncio.new_event_loop()
    yield loop
    loop.close()


@pytest.fixture
def docs_url(live_server: Callable[..., str]) -> str:
    checks.clear()
    return live_server(docs_app)


@pytest.fixture
def reader(docs_url: str, loop: asyncio.AbstractEventLoop) -> Iterator[dict[str, Any]]:
    """What a page's code takes for granted: a sync ``client`` of the docs app and an
    ``AsyncResponse`` ``ar`` of an open async one, on a virtual clock (a poll never waits)."""

    async def opened() -> Requests[Any]:
        return Requests(docs_url, adapter="httpx", timeout=5)

    aclient = loop.run_until_complete(opened())
    try:
        with use_clock(VirtualClock()), Requests(docs_url, "requests", 5) as client:
            yield {
                "__name__": "docs_example",
                "client": client,
                "aclient": aclient,
                "ar": loop.run_until_complete(aclient.get("/job/ar")),
            }
    finally:
        loop.run_until_complete(aclient.aclose())


def test_clients_page_runs(
    reader: dict[str, Any],
    base_url: str,
    loop: asyncio.AbstractEventLoop,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    myservice = types.ModuleType("myservice")
    myservice.app = app  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "myservice", myservice)
    out = run_blocks(
        "resq/clients.md",
        reader,
        loop=loop,
        # ten thousand polls against the reader's own server: twenty against ours
        replace={"http://127.0.0.1:8000": base_url.rstrip("/"), "range(10_000)": "range(20)"},
    )
    assert out["r"].status_code == 200  # the in-process app's answer
    assert out["c"].closed


def test_responses_page_runs(reader: dict[str, Any], loop: asyncio.AbstractEventLoop) -> None:
    run_blocks("resq/responses.md", reader, loop=loop)
    assert checks["42"] == checks["ar"] == 2  # each reload() sent its request again


def test_polling_page_runs(
    reader: dict[str, Any],
    loop: asyncio.AbstractEventLoop,
    capsys: pytest.CaptureFixture[str],
) -> None:
    reader["r"] = reader["client"].get("/state/extras")  # "running", then "done"
    out = run_blocks(
        "resq/polling.md",
        reader,
        loop=loop,
        before={4: {"client": reader["aclient"]}, 5: {"client": reader["client"]}},
    )
    printed = capsys.readouterr().out
    assert "attempt 1: 503 after 0.0s, next in 2.0s" in printed  # on_attempt's show()
    assert "attempt 4: 200 after 6.0s\n" in printed
    assert out["r"].json()["state"] == "running"  # the clock's example: 503 at 0, 30, 60 s
    assert out["poller"].done
    assert out["clock"].sleeps == [30, 30]


def test_getting_started_shows_recipe_code_only() -> None:
    text = (DOCS / "getting-started.md").read_text(encoding="utf-8")
    assert blocks("resq/getting-started.md") == []
    assert '--8<-- "recipes/resq-verb-timeout/client.py' in text
    assert "<!-- tryit: resq-verb-timeout -->" in text


def test_polling_page_keeps_the_seed_structure():
    text = (DOCS / "polling.md").read_text()
    headings = re.findall(r"^#+ (.+)$", text, re.MULTILINE)
    assert headings[:8] == [
        "Polling",
        "The easy way — a verb with a timeout",
        "Sync poll",
        "Async poll",
        "When you do not need poll directly",
        "Handling exhaustion",
        "Behavior & preconditions",
        "The window, precisely",
    ]
