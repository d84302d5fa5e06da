"""The worker's message protocol (``tryit.browser.handle``), exercised on CPython.

In the worker every message is handled on the same event loop; so is each test here.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from tryit import browser, load_recipe, run_blocking


async def _send(**message: Any) -> dict[str, Any]:
    return dict(json.loads(await browser.handle(json.dumps(message))))


def test_sessions_step_run_and_reset_independently() -> None:
    committed = load_recipe("resq-async-poll").transcript_path.read_text().splitlines()
    name = "resq-async-poll"

    async def go() -> None:
        first = await _send(action="step", recipe=name, session="a", fresh=True)
        assert first["lines"] == committed[:1]
        assert first["done"] is False
        assert first["swaps"][0]["style"] == "innerHTML"
        other = await _send(action="run", recipe=name, session="b", fresh=True)
        assert other["lines"] == committed  # a second widget has its own run
        rest = await _send(action="run", recipe=name, session="a")
        assert rest["lines"] == committed[1:]
        assert rest["outcome"] == "terminal"
        assert (await _send(action="reset", recipe=name, session="a"))["lines"] == []
        again = await _send(action="step", recipe=name, session="a")
        assert again["lines"] == committed[:1]  # after Reset the run starts over
        await _send(action="reset", recipe=name, session="a")
        await _send(action="reset", recipe=name, session="b")

    run_blocking(go)


def test_sync_recipe_without_jspi_is_reported_unsupported() -> None:
    reply = run_blocking(
        lambda: _send(action="step", recipe="resq-sync-poll", session="s", fresh=True)
    )
    assert "no JSPI" in reply["unsupported"]  # CPython has no pyodide.ffi.run_sync
    assert reply["lines"] == []


def test_bad_messages_are_clear_errors() -> None:
    with pytest.raises(ValueError, match="'recipe'"):
        run_blocking(lambda: _send(action="step"))
    with pytest.raises(ValueError, match="action must be"):
        run_blocking(lambda: _send(action="jump", recipe="resq-async-poll"))
