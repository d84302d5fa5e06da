"""Tests of client.py: no network and no waiting, thanks to an in-process transport and a
virtual clock. Run them with ``pytest test_client.py``."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from client import ExportNotReady, wait_for_export
from fastapi import FastAPI
from fastapi.responses import JSONResponse
from server import app

from resq import Requests
from resq.clock import VirtualClock, use_clock
from resq.transports import ASGIAdapter


@pytest.fixture
def clock() -> Iterator[VirtualClock]:
    """Every poll in the test pauses on this clock: it moves at once, no real time passes."""
    with use_clock(VirtualClock()) as clock:
        yield clock


def test_returns_the_download_path_once_the_export_is_done(clock: VirtualClock) -> None:
    # the service's own app, called in-process: no server, no port, no socket
    with Requests("http://exports.test", transport=ASGIAdapter(app)) as client:
        assert wait_for_export(client, "7") == "/files/7.csv"
    assert clock.sleeps == [2, 2, 2]  # four requests, 2 s apart, in no time at all


def test_an_export_that_never_finishes_raises(clock: VirtualClock) -> None:
    stuck = FastAPI()  # a fake service for a case the real one cannot be asked for

    @stuck.get("/exports/{export_id}")
    async def always_running(export_id: str) -> JSONResponse:
        return JSONResponse({"export": export_id, "state": "running"}, status_code=503)

    with (
        Requests("http://exports.test", transport=ASGIAdapter(stuck)) as client,
        pytest.raises(ExportNotReady, match="export 9: still 503 after 30 s"),
    ):
        wait_for_export(client, "9")
    assert sum(clock.sleeps) == 30  # the whole window went by on the virtual clock
