"""What a transcript line says (``tryit._seen``, ``tryit._record``): a page by its title, a
swap by its region, an error htmx does not swap with what the app raised, text cut between
words, and an edited run's times as they are."""

from __future__ import annotations

import asyncio
import base64
from typing import Any

from docsite.examples.docs import _expected
from docsite.examples.plan import Step, Transcript
from tryit import load_recipe
from tryit._record import Recorder, RecordingApp
from tryit._seen import MAX_SEEN, answer_seen, shorten
from tryit._server import PageServer

PAGE = (
    "<!DOCTYPE html><html><head><title>TaskFlow</title></head><body><h1>TaskFlow</h1>"
    "<p>Resize a batch of images in the background.</p></body></html>"
)


def test_a_long_text_is_cut_between_words() -> None:
    text = "Run 1: the region below asks the server for its status every second, then stops."
    cut = shorten(text)
    assert cut == "Run 1: the region below asks the server for its status every second…"
    assert len(cut) <= MAX_SEEN
    assert shorten("word " * 20).endswith("word…")
    assert (
        shorten('{"id":"<id>","state":"queued","terminal":false,"type":"report","x":1}' * 2)[-2:]
        != "ty"
    )  # not inside a word
    assert shorten("x" * 100) == "x" * (MAX_SEEN - 1) + "…"  # one word: cut where it must
    assert shorten("short") == "short"


def test_a_page_is_named_by_its_title_and_a_swap_by_its_region() -> None:
    assert answer_seen(PAGE, "text/html; charset=utf-8", status=200) == 'page "TaskFlow"'
    untitled = "<!doctype html><html><body><p>Hello there</p></body></html>"
    assert answer_seen(untitled, "text/html", status=200) == "page: Hello there"
    fragment = '<div class="h-stack"><div role="status">Running…</div><p>1/3</p></div>'
    assert answer_seen(fragment, "text/html", status=200, region="resize-status") == (
        "#resize-status: Running… 1/3"
    )
    assert answer_seen(fragment, "text/html", status=286, region="resize-status") == (
        "#resize-status: Running… 1/3"
    )
    assert answer_seen("Internal Server Error", "text/plain", status=500, region="s") == (
        "#s not swapped: Internal Server Error"
    )
    raised = answer_seen(
        "Internal Server Error", "text/plain", status=500, region="s", error="KeyError: 'x'"
    )
    assert raised == "#s not swapped: KeyError: 'x'"
    assert answer_seen('{"a": 1}', "application/json", status=200) == '{"a": 1}'


def test_an_edited_page_run_shows_its_times_to_a_tenth_of_a_second() -> None:
    now = [0.0]
    exact = Recorder(clock=lambda: now[0], interval=2, precision=0.1)
    rounded = Recorder(clock=lambda: now[0], interval=2)
    for recorder in (exact, rounded):
        for t in (0.0, 1.02, 2.02, 3.0, 5.02):
            recorder.answered(recorder.arrived(t), "GET", "/s", 200, "ok", "text/plain")
        recorder.page_ended("idle")
    assert [line.split()[0] for line in exact.lines[:-1]] == [
        "t=0s",
        "t=1s",
        "t=2s",
        "t=3s",
        "t=5s",
    ]
    assert [line.split()[0] for line in rounded.lines[:-1]] == [
        "t=0s",
        "t=0s",
        "t=2s",
        "t=2s",
        "t=4s",
    ]


def test_the_end_line_says_when_the_end_came() -> None:
    recorder = Recorder(clock=lambda: 0.0, interval=2, precision=0.1)
    for t, status in ((0.0, 200), (1.02, 200), (5.02, 286)):
        recorder.answered(recorder.arrived(t), "GET", "/s", status, "", "text/plain")
    recorder.page_ended("idle")
    assert recorder.lines[-1] == (
        "= done: terminal state, the app answered 286 at t=5s (htmx swaps it and stops polling)"
    )


async def _failing(scope: Any, receive: Any, send: Any) -> None:
    await send({"type": "http.response.start", "status": 500, "headers": []})
    await send({"type": "http.response.body", "body": b"Internal Server Error"})
    raise ZeroDivisionError("division by zero")


def test_an_app_that_raises_is_a_500_line_naming_the_error() -> None:
    recorder = Recorder(clock=lambda: 0.0)
    app = RecordingApp(_failing, recorder)
    scope = {
        "type": "http",
        "method": "GET",
        "path": "/s",
        "headers": [(b"hx-request", b"true"), (b"hx-target", b"status")],
    }

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b""}

    async def send(message: Any) -> None:
        pass

    async def go() -> None:
        try:
            await app(scope, receive, send)
        except ZeroDivisionError:
            return
        raise AssertionError("the app's error goes on to its server")

    asyncio.run(go())
    assert recorder.lines == [
        "t=0s GET /s -> 500 Internal Server Error | #status not swapped: ZeroDivisionError: "
        "division by zero"
    ]


def test_a_page_whose_app_raises_is_answered_500_and_the_run_goes_on() -> None:
    recipe = load_recipe("poll-component")
    app = (recipe.folder / "app.py").read_text(encoding="utf-8")
    broken = app + (
        "\n\n@app.middleware('http')\nasync def fail_once(request, call_next):\n"
        "    if request.url.path.endswith('/status') and not getattr(app, 'failed', False):\n"
        "        app.failed = True\n"
        "        raise RuntimeError('the database is down')\n"
        "    return await call_next(request)\n"
    )
    server = PageServer(recipe.edited({"app.py": broken}))
    hx = [["HX-Request", "true"], ["HX-Target", "run-1"]]

    async def go() -> list[dict[str, Any]]:
        answers = [await server.request("GET", "/", [], None, 0)]
        for t in (1.02, 2.02):
            answers.append(await server.request("GET", "/runs/1/status", hx, None, t))
        await server.aclose()
        return answers

    _, failed, next_one = asyncio.run(go())
    assert failed["status"] == 500
    assert base64.b64decode(failed["body"]) == b"Internal Server Error"
    assert failed["lines"] == [
        "t=1s GET /runs/1/status -> 500 Internal Server Error | #run-1 not swapped: "
        "RuntimeError: the database is down"
    ]
    assert next_one["status"] == 200  # the app answers the next poll
    assert next_one["lines"][0].startswith("t=2s GET /runs/1/status -> 200 OK | #run-1: ")


def test_a_client_that_ends_at_once_is_not_said_to_take_about_0_s() -> None:
    recipe = load_recipe("csrf-action")
    line = "t=0s POST /api/notes -> 201 Created | {}"
    transcript = Transcript((Step("t=0s", "POST", "/api/notes", 201, line, "{}"),), ("201 x",))
    said = _expected(recipe, recipe.plan, transcript)
    assert said.startswith("It prints")
    later = Transcript((Step("t=4s", "GET", "/j", 200, line, "{}"),), ("done",))
    assert _expected(recipe, recipe.plan, later).startswith("After about 4 s, it prints")


def test_an_error_in_the_end_line_is_cut_between_words() -> None:
    recorder = Recorder(clock=lambda: 0.0)
    recorder.failed("ValueError", "the price is not a number " * 12)
    end = recorder.lines[-1]
    assert end.endswith("…")
    assert end.removesuffix("…").split()[-1] in ["the", "price", "is", "not", "a", "number"], end
    assert len(end) <= len("= error: ValueError: ") + 200
