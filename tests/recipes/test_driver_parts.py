"""Parts of the "Try it" driver: the [demo] table, the recorder, virtual time, the lockfile."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from docsite.runtime import lockfile
from hedron_core.jobs import InMemoryJobBackend, SteppingRunner, TaskContext, current_clock
from tryit import Demo, run_blocking
from tryit._real import Real, Restart
from tryit._record import Recorder, RecordingApp, redact, seen
from tryit._server import DemoClock, VirtualTimeApp, engine_verdict
from tryit.recipe import Action

ROOT = Path(__file__).resolve().parents[2]


def test_demo_table_defaults_and_clear_errors() -> None:
    demo = Demo.parse({}, "x/recipe.toml")
    assert (demo.interval, demo.window, demo.page, demo.click) == (1.0, 30.0, "/", None)
    assert Demo.parse({"click": "form button", "interval": 2}, "w").click == "form button"
    # click is one action at 0 s; actions are timed clicks, in the order given
    assert Demo.parse({"click": "b"}, "w").scripted == (Action("b", 0.0),)
    timed = Demo.parse({"actions": [{"click": "form button"}, {"click": ".x", "at": 3}]}, "w")
    assert timed.scripted == (Action("form button", 0.0), Action(".x", 3.0))
    assert timed.as_dict()["actions"] == [
        {"click": "form button", "at": 0.0},
        {"click": ".x", "at": 3.0},
    ]
    bad: list[tuple[dict[str, Any], str]] = [
        ({"clicks": "b"}, r"unknown keys \['clicks'\]"),
        ({"interval": 0}, "interval must be a number of seconds > 0"),
        ({"window": "30"}, "window must be a number of seconds > 0"),
        ({"click": ["a", "b"]}, "click must be a non-empty string"),
        ({"page": "tasks"}, "page must be a path starting with '/'"),
        ({"adapter": "aiohttp"}, "adapter must be 'requests' or 'httpx'"),
        ({"click": "a", "actions": [{"click": "b"}]}, "both click and actions"),
        ({"actions": []}, "actions must be a non-empty list of tables"),
        ({"actions": ["b"]}, "actions entries must be tables"),
        ({"actions": [{"click": "b", "when": 1}]}, r"unknown keys \['when'\]"),
        ({"actions": [{"click": ""}]}, "actions click must be a non-empty CSS selector"),
        ({"actions": [{"click": "b", "at": -1}]}, "actions at must be a number of seconds >= 0"),
        ({"actions": [{"click": "b", "at": True}]}, "actions at must be a number of seconds"),
        ({"actions": [{"click": "b", "at": 40}]}, "actions at 40 s lies beyond the window"),
    ]
    for table, message in bad:
        with pytest.raises(ValueError, match=message):
            Demo.parse(table, "recipes/x/recipe.toml")


def _recorder(clock: DemoClock, **kwargs: Any) -> Recorder:
    return Recorder(clock=clock, interval=2.0, **kwargs)


def test_times_are_shown_as_poll_slots_and_never_before_the_start() -> None:
    clock = DemoClock()
    recorder = _recorder(clock)  # a 2 s interval
    clock.advance(10.0)
    at = recorder.arrived()  # the first request: time 0
    recorder.answered(at, "GET", "/", 200, "<p>page</p>", "text/html")
    recorder.page_ready(at + 0.4)  # a real page that took 0.4 s to be ready
    for late, status in ((1.9, 200), (5.7, 200), (5.85, 286)):
        clock.advance(late - (clock() - at - 0.4))
        recorder.answered(recorder.arrived(), "GET", "/s", status, "s", "text/plain")
    recorder.page_ended("idle")
    assert recorder.lines == [
        "t=0s GET / -> 200 OK | page",  # -0.4 s: shown at 0
        "t=2s GET /s -> 200 OK | s",  # 1.9 s: 0.1 s early
        "t=4s GET /s -> 200 OK | s",  # 5.7 s: 1.7 s late (up to 9/10 of the interval)
        "t=6s GET /s -> 286 Stop Polling | s",  # 5.85 s: 0.15 s early (up to 1/10)
        "= done: terminal state, the app answered 286 at t=6s (htmx swaps it and stops polling)",
    ]
    assert recorder.timeline()[1].split()[:3] == ["1.900s", "GET", "/s"]  # unrounded


def test_the_end_line_names_the_window_or_the_engines_verdict() -> None:
    window = _recorder(DemoClock(), window=3)
    window.page_ended("window")
    assert window.lines == ["= done: window elapsed (3s) before the app answered 286"]
    for adapter, status, outcome in (("requests", 302, "terminal"), ("httpx", 302, "unfinished")):
        recorder = _recorder(DemoClock(), ok=engine_verdict(adapter))
        recorder.answered(recorder.arrived(), "GET", "/j", status, "", "text/plain")
        recorder.returned()
        assert recorder.outcome == outcome  # requests calls a 302 ok, httpx does not


def _app() -> Any:
    async def app(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"text/plain")]})  # fmt: skip
        await send({"type": "http.response.body", "body": b"hi ", "more_body": True})
        await send({"type": "http.response.body", "body": scope["path"].encode()})

    return app


def test_the_recording_middleware_skips_the_apps_static_files() -> None:
    recorder = _recorder(DemoClock())
    app = RecordingApp(_app(), recorder, skip="/_hedron/static")

    async def go() -> list[str]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://x") as client:
            for url in ("/_hedron/static/hedron.css", "/jobs/aBcDeFgHiJkLmNoPqRsT?x=1"):
                assert (await client.get(url)).status_code == 200
        return recorder.lines

    assert run_blocking(go) == ["t=0s GET /jobs/<id>?x=1 -> 200 OK | hi /jobs/<id>"]


def test_a_request_that_says_when_its_page_sent_it_is_timed_then() -> None:
    """The real replay's page puts the instant it sent each htmx request (wall-clock ms) in a
    header: a busy server's delay in taking the request does not move its time. A header
    that is not a finite number is ignored (the arrival counts)."""
    clock = DemoClock()
    recorder = _recorder(clock)
    app = RecordingApp(_app(), recorder)
    clock.advance(100.0)

    async def go() -> None:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://x") as client:
            await client.get("/first")  # the time origin: 100 s
            for sent in ("101900", "nan", "soon"):  # 101.9 s; then the arrival: 100 s
                await client.get("/s", headers={"X-Tryit-Sent": sent})

    run_blocking(go)
    assert [line.split()[0] for line in recorder.timeline()] == [
        "0.000s",
        "1.900s",
        "0.000s",
        "0.000s",
    ]


async def _report(ctx: TaskContext) -> None:
    for _ in range(2):
        ctx.progress(0, 1)
        await ctx.sleep(1.5)


def test_a_request_at_t_runs_the_job_work_due_first_and_a_submit_starts_at_once() -> None:
    backend = InMemoryJobBackend()  # no clock: the demo's, through the seam
    clock = DemoClock(SteppingRunner(backend, {"report": _report}))
    seen_states: list[str] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope["path"] == "/submit":
            backend.submit("report", {}, auth_subject="u", tenant_id="t")
        job = next(iter(backend._jobs.values()), None)
        seen_states.append(f"{current_clock()():g} {job.state.value if job else '-'}")
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    virtual = VirtualTimeApp(app, clock)

    async def go() -> None:
        transport = httpx.ASGITransport(app=virtual)
        async with httpx.AsyncClient(transport=transport, base_url="http://x") as client:
            await client.post("/submit")  # t=0: claimed at 0, right after the request
            clock.sleep(3.0)  # the client waits 3 s: wake-ups at 1.5 and 3.0 run on the way
            await client.get("/status")

    run_blocking(go)
    assert seen_states == ["0 queued", "3 succeeded"]
    job = next(iter(backend._jobs.values()))
    assert (job.created_at, job.started_at, job.finished_at) == (0.0, 0.0, 3.0)


def test_transcript_text_is_short_and_free_of_run_specific_ids() -> None:
    assert redact("/tasks/x/aB3dE5gH7jK9mN1pQ2rS/status") == "/tasks/x/<id>/status"
    assert redact("internationalization") == "internationalization"
    assert seen('{"a":  1}', "application/json") == '{"a": 1}'
    assert seen("<title>T</title><p>Hi <b>there</b></p><script>x()</script>", "text/html") == (
        "Hi there"
    )
    assert seen("x" * 100, "text/plain").endswith("…")
    assert len(seen("x" * 100, "text/plain")) == 72


def test_lockfile_refuses_a_wheel_whose_dependency_is_not_served() -> None:
    wheels = ROOT / ".cache" / "site" / "wheels"
    if not (wheels / ".stamp").exists():
        pytest.skip("the browser wheels are downloaded by the site build (tests/site)")
    httpx_wheel = next(wheels.glob("httpx-*.whl"))
    with pytest.raises(ValueError, match=r"httpx requires .* but no wheel for"):
        lockfile.build_lock([httpx_wheel], {})
    lock = lockfile.build_lock(sorted(wheels.glob("*.whl")), {"python": "3.14.2"})
    assert lock["packages"]["httpx"]["imports"] == ["httpx"]
    assert "sniffio" not in lock["packages"]["anyio"]["depends"]  # not required on 3.14


def test_real_table_reads_what_a_real_run_needs_and_names_each_bad_key() -> None:
    real = Real.parse(
        {
            "why": "It needs Redis.",
            "services": ["redis"],
            "workers": [{"command": "rq worker -u $HEDRON_REDIS_URL q", "ready": "Listening"}],
            "restart": {"stop": 3.5, "start": 5},
            "env": {"B": "2", "A": "1"},
        },
        "w",
    )
    assert real.services == ("redis",)
    assert real.workers[0].argv == ["rq", "worker", "-u", "$HEDRON_REDIS_URL", "q"]
    assert real.restart == Restart(3.5, 5.0)
    assert real.env == (("A", "1"), ("B", "2"))
    good = {"why": "x"}
    bad: list[tuple[dict[str, Any], str]] = [
        ({}, "why must be a non-empty string"),
        ({"why": 'say "no"'}, "why must not contain a double quote"),
        ({**good, "processes": []}, r"unknown keys \['processes'\]"),
        ({**good, "services": ["postgres"]}, r"services must list some of \['redis'\]"),
        ({**good, "workers": ["celery"]}, "workers must be a list of tables"),
        ({**good, "workers": [{"command": "celery"}]}, "workers ready must be a non-empty"),
        ({**good, "restart": {"stop": 5, "start": 3}}, "restart start must come after its stop"),
        ({**good, "restart": {"stop": -1, "start": 3}}, "restart stop must be a number"),
        ({**good, "env": {"A": 1}}, "env must map names to strings"),
    ]
    for table, message in bad:
        with pytest.raises(ValueError, match=message):
            Real.parse(table, "recipes/x/recipe.toml")


@pytest.mark.browser
def test_the_real_replay_clicks_with_the_panels_own_function() -> None:
    """The real page gets the panel frame's scheduleActions (frame.js), read by the browser."""
    from docsite.replay._loop import BrowserLoop
    from docsite.replay.real import driver_function

    with BrowserLoop() as loop:
        source = loop.run(driver_function(loop.browser, "scheduleActions"))
    assert source.startswith("function scheduleActions(win, actions, onNote)")
    assert "win.setTimeout(" in source
    assert "action.at * 1000" in source
