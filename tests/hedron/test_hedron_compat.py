"""What code written for hedron 1.1.3 relies on: the top-level jobs names, ``Card(header=,
footer=)`` and dotted logical ids in ``ComponentRef`` (mapped to a safe element id)."""

from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import Any

import pytest
import requests
from fastapi import Request
from hedron_support import SECRET

import hedron
import hedron.jobs
from hedron import (
    Button,
    Card,
    ComponentRef,
    Heading,
    Hedron,
    JobScope,
    Lazy,
    Page,
    Poll,
    PollPolicy,
    RefreshButton,
    Stack,
    Status,
    TaskFlow,
    Text,
    render,
)
from hedron.responses import fragment
from hedron_core.htmx import STOP_POLLING_STATUS

# -- top-level jobs names ----------------------------------------------------------------------


def test_the_jobs_names_of_the_top_level_are_the_hedron_jobs_objects():
    assert (hedron.JobScope, hedron.TaskFlow, hedron.PollPolicy) == (
        hedron.jobs.JobScope,
        hedron.jobs.TaskFlow,
        hedron.jobs.PollPolicy,
    )
    assert {"JobScope", "TaskFlow", "PollPolicy"} <= set(hedron.__all__)
    namespace: dict[str, Any] = {}
    exec("from hedron import *", namespace)
    assert namespace["TaskFlow"] is TaskFlow


def test_a_scope_part_left_none_is_refused_with_what_to_write():
    with pytest.raises(TypeError, match=r"auth_subject is required.*JobScope\(auth_subject="):
        JobScope(auth_subject=None, tenant_id="acme")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="tenant_id is required; a job's scope is explicit"):
        JobScope(auth_subject="ann", tenant_id=None)  # type: ignore[arg-type]
    assert JobScope(auth_subject="ann", tenant_id="acme").as_kwargs() == {
        "auth_subject": "ann",
        "tenant_id": "acme",
    }


def test_poll_policy_refuses_not_stopping_at_the_end():
    assert PollPolicy().interval_ms == 1000
    with pytest.raises(ValueError, match="286"):
        PollPolicy(stop_on_terminal=False)
    with pytest.raises(TypeError, match=r"PollPolicy\.interval_ms must be an int"):
        PollPolicy(interval_ms=1.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"PollPolicy\.interval_ms must be >= 1"):
        PollPolicy(interval_ms=0)


def test_include_needs_something_that_mounts():
    app = Hedron(title="t", session_secret=SECRET)
    with pytest.raises(TypeError, match=r"Hedron.include\(feature\).*TaskFlow; got int"):
        app.include(3)


# -- Card(header=, footer=) -----------------------------------------------------------------


def test_card_header_and_footer_wrap_the_body():
    html = render(Card(Text("body"), header=Text("H"), footer=Text("F")))
    assert html == (
        '<section class="h-card"><header class="h-card-header"><p class="h-text">H</p></header>'
        '<p class="h-text">body</p>'
        '<footer class="h-card-footer"><p class="h-text">F</p></footer></section>'
    )


def test_card_header_footer_take_text_and_are_escaped():
    html = render(Card("b", title="T", footer="<b>&</b>"))
    assert '<h2 class="h-card-title">T</h2>' in html
    assert '<footer class="h-card-footer">&lt;b&gt;&amp;&lt;/b&gt;</footer>' in html


def test_card_refuses_a_title_and_a_header_together_and_bad_slots():
    with pytest.raises(ValueError, match=r"title= or header=, not both.*Heading"):
        Card(Text("b"), title="T", header=Heading("H"))
    with pytest.raises(TypeError, match=r"Card\.header must be a Component or str, got int"):
        Card(header=1)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"Card\.footer must be a Component or str, got list"):
        Card(footer=[Text("x")])  # type: ignore[arg-type]


def test_card_header_and_footer_are_styled():
    text = (Path(hedron.__file__).parent / "static" / "hedron.css").read_text(encoding="utf-8")
    assert ".h-card-header {" in text
    assert ".h-card-footer {" in text


# -- dotted logical ids -----------------------------------------------------------------------


def test_a_dotted_logical_id_keeps_its_name_and_gets_a_safe_element_id():
    ref = ComponentRef("activity.latest", "/activity")
    assert ref.logical_id == "activity.latest"
    assert ref.dom_id == "activity-latest"
    assert 'id="activity-latest"' in render(ref)
    assert 'id="activity-latest"' in render(Poll(ref=ref, interval_ms=500))
    assert 'id="activity-latest"' in render(Lazy(ref=ref))
    assert 'hx-target="#activity-latest"' in render(RefreshButton(ref=ref))
    assert 'hx-target="#activity-latest"' in render(Button("Go", ref=ref))
    assert "activity.latest" not in render(Stack(Poll(ref=ref, interval_ms=500)))


def test_plain_ids_are_unchanged():
    ref = ComponentRef("job-status", "/jobs/7/status")
    assert ref.dom_id == ref.logical_id == "job-status"


@pytest.mark.parametrize(
    "bad", ["a..b", ".a", "a.", "1a.b", "a.b c", "a.b#c", "a" * 60 + ".bbbb", "a. b"]
)
def test_malformed_dotted_ids_are_refused(bad):
    with pytest.raises(ValueError, match=r"logical_id must be an element id or dotted names"):
        ComponentRef(bad, "/x")


def test_two_logical_ids_with_the_same_element_id_collide_in_one_page():
    page = Stack(
        Poll(ref=ComponentRef("stats.daily", "/a"), interval_ms=500),
        Poll(ref=ComponentRef("stats-daily", "/b"), interval_ms=500),
    )
    with pytest.raises(ValueError, match="duplicate id 'stats-daily'"):
        render(page)


def test_a_dotted_id_works_in_a_real_browser(chromium: Any, live_server: Any) -> None:
    """Lazy loads into #activity-latest, the refresh button targets it, a poll stops on 286."""
    hits = {"activity": 0, "job": 0}
    lock = threading.Lock()

    def hit(name: str) -> int:
        with lock:
            hits[name] += 1
            return hits[name]

    app = Hedron(title="Dotted", session_secret=SECRET)
    activity = ComponentRef("activity.latest", "/activity")
    job = ComponentRef("jobs.current.status", "/job")

    @app.page("/")
    def home() -> Page:
        return Page(
            Lazy(ref=activity),
            RefreshButton(ref=activity, label="Refresh activity"),
            Poll(ref=job, interval_ms=100, content=Status("Queued…")),
            title="Dotted",
        )

    @app.get("/activity")
    async def latest() -> Any:
        return fragment(Text(f"activity {hit('activity')}"))

    @app.get("/job")
    async def status() -> Any:
        n = hit("job")
        if n >= 3:
            return fragment(Status("Done", tone="success"), status_code=STOP_POLLING_STATUS)
        return fragment(Status(f"step {n}"))

    base = live_server(app)
    context = chromium.new_context()
    page = context.new_page()
    try:
        page.goto(base + "/")
        page.wait_for_selector("#activity-latest >> text=activity 1", timeout=10_000)
        page.click("text=Refresh activity")
        page.wait_for_selector("#activity-latest >> text=activity 2", timeout=10_000)
        page.wait_for_selector("#jobs-current-status >> text=Done", timeout=10_000)
        assert page.locator("[id='activity.latest']").count() == 0
    finally:
        context.close()
    assert hits["job"] == 3


def test_a_dotted_id_page_served_over_http(live_server: Any) -> None:
    app = Hedron(title="Dotted", session_secret=SECRET)

    @app.page("/")
    def home(request: Request) -> Page:
        ref = ComponentRef("activity.latest", "/activity")
        return Page(Card(Lazy(ref=ref), header=Heading("Activity"), footer="Updated live"))

    base = live_server(app)
    html = requests.get(base + "/", timeout=10).text
    assert re.search(r'<div id="activity-latest" class="h-lazy" hx-get="/activity"', html)
    assert '<header class="h-card-header">' in html
    assert '<footer class="h-card-footer">Updated live</footer>' in html
