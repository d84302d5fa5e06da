"""Parts of the "Try it" driver: the hedron window rule, the htmx scan, the lockfile builder."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import lockfile  # scripts/site (on the path through conftest.py)
import pytest
from tryit import Stepper, load_recipe, run_blocking
from tryit._hedron_demo import scenario
from tryit._htmx_scan import scan
from tryit._record import redact, seen

ROOT = Path(__file__).resolve().parents[2]


def test_hedron_demo_stops_when_the_window_elapses_before_286() -> None:
    base = load_recipe("poll-component")  # answers 286 on the third poll, 1 s apart
    recipe = dataclasses.replace(base, demo={**base.demo, "window": 2})

    async def go() -> list[str]:
        stepper = Stepper(lambda s, r: scenario(recipe, s, r))
        try:
            result = await stepper.run_to_end()
        finally:
            await stepper.close()
        assert result.outcome == "window"
        return result.lines

    lines = run_blocking(go)
    assert [line.split(" ->")[0] for line in lines[:-1]] == [
        "t=0s GET /",
        "t=1s GET /runs/1/status",
        "t=2s GET /runs/1/status",
    ]
    assert lines[-1] == "= done: window elapsed (2s) before the app answered 286"


def test_scan_finds_the_poll_and_the_form_defaults() -> None:
    markup = (
        '<div id="s" hx-get="/s" hx-trigger="every 2s" hx-swap="outerHTML"></div>'
        '<form hx-post="/go" hx-target="#out"><input name="csrf_token" value="t">'
        '<input type="checkbox" name="skip" value="1"><select name="size">'
        '<option value="s">S</option><option value="m">M</option></select>'
        '<textarea name="note">hi</textarea></form>'
    )
    poll, form = scan(markup)
    assert poll is not None
    assert (poll.url, poll.interval_s, poll.target, poll.swap) == ("/s", 2.0, "#s", "outerHTML")
    assert form is not None
    assert (form.url, form.target, form.swap) == ("/go", "#out", "innerHTML")
    assert form.fields == {"csrf_token": "t", "size": "s", "note": "hi"}
    assert scan("<p>nothing</p>") == (None, None)
    ms_poll = scan('<div hx-get="/x" hx-trigger="load, every 1500ms"></div>')[0]
    assert ms_poll is not None
    assert (ms_poll.interval_s, ms_poll.target) == (1.5, "div")


def test_transcript_text_is_short_and_free_of_run_specific_ids() -> None:
    assert redact("/tasks/x/aB3dE5gH7jK9mN1pQ2rS/status") == "/tasks/x/<id>/status"
    assert redact("internationalization") == "internationalization"
    assert seen('{"a":  1}', "application/json") == '{"a": 1}'
    assert seen("<p>Hi <b>there</b></p><script>x()</script>", "text/html") == "Hi there"
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
