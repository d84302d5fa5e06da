"""Exact rendering of the components the seed uses (snapshot-like strings)."""

from __future__ import annotations

from hedron import ComponentRef, Page, Poll, Status, Text, render
from hedron_core.htmx import STOP_POLLING_STATUS


def test_stop_polling_status_is_286() -> None:
    assert STOP_POLLING_STATUS == 286


def test_seed_page_renders_exactly() -> None:
    ref = ComponentRef(logical_id="job-status", path="/jobs/abc/status", method="GET")
    page = Page(
        Text("Job abc"), Poll(ref=ref, interval_ms=2000, content=Status("Queued…")), title="Jobs"
    )
    assert render(page) == (
        '<main class="h-page" id="hedron-main"><h1 class="h-page-title">Jobs</h1>'
        '<p class="h-text">Job abc</p>'
        '<div id="job-status" class="h-poll" hx-get="/jobs/abc/status" hx-target="this" '
        'hx-swap="innerHTML" hx-trigger="every 2000ms">'
        '<div class="h-status h-tone-info" role="status" aria-live="polite">Queued…</div>'
        "</div></main>"
    )
