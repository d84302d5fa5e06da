"""The reader's edited code in the worker's protocol (``tryit.browser.handle``), on CPython:
the edit replaces the recipe's file for that session only, Python's errors come back with
their line, and an edit that loops for ever is stopped by its budget."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from tryit import _edits as edits
from tryit import browser, load_recipe, run_blocking

ASYNC = "resq-async-poll"
PAGE = "jobs-poll"


def _source(name: str, file: str) -> str:
    return (load_recipe(name).folder / file).read_text(encoding="utf-8")


async def _send(**message: Any) -> dict[str, Any]:
    return dict(json.loads(await browser.handle(json.dumps(message))))


def _run(code: str, session: str = "e", name: str = ASYNC) -> dict[str, Any]:
    async def go() -> dict[str, Any]:
        try:
            return await _send(
                action="run", recipe=name, session=session, fresh=True, code={"client.py": code}
            )
        finally:
            await _send(action="reset", recipe=name, session=session)

    return dict(run_blocking(go))


def test_an_edit_runs_in_its_session_only() -> None:
    committed = load_recipe(ASYNC).transcript_path.read_text().splitlines()
    code = _source(ASYNC, "client.py").replace("delay=2", "delay=1")

    async def go() -> None:
        edited = await _send(
            action="run", recipe=ASYNC, session="a", fresh=True, code={"client.py": code}
        )
        tested = await _send(action="run", recipe=ASYNC, session="b", fresh=True)
        assert tested["lines"] == committed  # another widget's session runs the recipe
        times = [line.split()[0] for line in edited["lines"] if line.startswith("t=")]
        assert times == ["t=0s", "t=1s", "t=2s", "t=3s"]  # polls 1 s apart
        assert edited["outcome"] == "terminal"
        assert "error" not in edited
        # a fresh start without code is the tested recipe again
        again = await _send(action="run", recipe=ASYNC, session="a", fresh=True)
        assert again["lines"] == committed
        for session in ("a", "b"):
            await _send(action="reset", recipe=ASYNC, session=session)

    run_blocking(go)


def test_a_syntax_error_is_pythons_with_its_line() -> None:
    code = _source(ASYNC, "client.py").replace("delay=2)", "delay=2")
    line = next(i for i, text in enumerate(code.splitlines(), 1) if "delay=2" in text)
    reply = _run(code)
    assert reply["outcome"] == "error"
    assert reply["lines"][-1].startswith("= error: SyntaxError: ")
    error = reply["error"]
    assert error["file"] == "client.py"
    assert line <= error["line"] <= line + 1  # where Python reports the unclosed "("
    assert error["message"].startswith("SyntaxError: ")
    assert 'File "client.py", line' in error["traceback"]


def test_a_runtime_error_is_traced_to_the_edited_line() -> None:
    code = _source(ASYNC, "client.py").replace(
        "    print(r.status_code, r.text)", "    print(r.status_code, r.no_such_thing)"
    )
    line = next(i for i, text in enumerate(code.splitlines(), 1) if "no_such_thing" in text)
    reply = _run(code)
    error = reply["error"]
    assert (error["file"], error["line"]) == ("client.py", line)
    assert error["message"].startswith("AttributeError: ")
    assert error["traceback"].startswith("Traceback (most recent call last):")
    assert f'File "client.py", line {line}, in main' in error["traceback"]
    assert "site-packages" not in error["traceback"]  # only the recipe's own frames
    assert "r.no_such_thing" in error["traceback"]  # the line as the reader wrote it


def test_an_endless_loop_is_stopped_by_the_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(edits, "BUDGET_SECONDS", 0.5)
    monkeypatch.setattr(browser, "armed", lambda: edits.armed(0.5))
    code = _source(ASYNC, "client.py").replace(
        "    print(r.status_code, r.text)", "    while True:\n        pass"
    )
    started = time.monotonic()
    reply = _run(code)
    assert time.monotonic() - started < 5
    assert reply["outcome"] == "budget"
    assert "without reaching its next request" in reply["message"]
    assert "error" not in reply  # not the code's error: the demo stopped it
    assert len([line for line in reply["lines"] if line.startswith("t=")]) == 4


def test_an_edit_that_never_ends_is_stopped_after_its_requests(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(browser, "BUDGET_REQUESTS", 12)
    code = _source(ASYNC, "client.py").replace(
        "    print(r.status_code, r.text)",
        "    while True:\n        await client.get('/job/42')",
    )
    reply = _run(code)
    assert reply["outcome"] == "budget"
    assert "sent 12 requests" in reply["message"]
    assert len([line for line in reply["lines"] if line.startswith("t=")]) == 12


def test_bad_code_messages_are_clear_errors() -> None:
    with pytest.raises(ValueError, match=r"edit client\.py only, not 'server\.py'"):
        _run_raw(code={"server.py": "x = 1"}, fresh=True)
    with pytest.raises(ValueError, match=r"code\['client\.py'\] must be the file's text"):
        _run_raw(code={"client.py": 3}, fresh=True)
    with pytest.raises(ValueError, match="starts a session"):
        _run_raw(code={"client.py": "x = 1"}, fresh=False)


def _run_raw(**message: Any) -> None:
    run_blocking(lambda: _send(action="run", recipe=ASYNC, session="x", **message))


def test_an_edited_app_of_a_hedron_page() -> None:
    """A page-driven recipe: the edited ``app.py`` answers the page; its failure is an
    answer that says so, not a failed message."""
    broken = _source(PAGE, "app.py") + "\nthis is not python\n"
    line = len(broken.splitlines())

    async def go() -> None:
        answer = await _send(action="open", recipe=PAGE, session="p", code={"app.py": broken})
        assert answer["outcome"] == "error"
        assert (answer["error"]["file"], answer["error"]["line"]) == ("app.py", line)
        assert answer["lines"] == [f"= {answer['message']}"]
        fine = _source(PAGE, "app.py")
        settings = await _send(action="open", recipe=PAGE, session="p", code={"app.py": fine})
        assert settings["page"] == "/"
        page = await _send(action="request", recipe=PAGE, session="p", method="GET", url="/", t=0)
        assert page["status"] == 200
        await _send(action="reset", recipe=PAGE, session="p")

    run_blocking(go)
