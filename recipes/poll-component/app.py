"""Poll basics: a status region that asks the server until it answers HTTP 286."""

from __future__ import annotations

import itertools
import os
import secrets

from fastapi.responses import HTMLResponse

from hedron import (
    Alert,
    ComponentRef,
    Hedron,
    Page,
    Poll,
    ProgressBar,
    Stack,
    Status,
    Text,
    fragment,
)
from hedron_core.htmx import STOP_POLLING_STATUS  # 286: "finished, stop polling"

STEPS = 3  # the work is done on the third status check (count-based, not time-based)

app = Hedron(
    title="Poll component",
    security="standard",
    explorer="off",
    session_secret=os.environ.get("HEDRON_SESSION_SECRET") or secrets.token_urlsafe(48),
)

_run_ids = itertools.count(1)
_checks: dict[int, int] = {}  # run id -> status checks answered so far


@app.page("/")
def home() -> Page:
    run = next(_run_ids)
    _checks[run] = 0
    ref = ComponentRef(logical_id="run-status", path=f"/runs/{run}/status", method="GET")
    return Page(
        Text(f"Run {run}: the region below asks the server for its status every second."),
        Poll(ref=ref, interval_ms=1000, content=Status("Queued…")),
        title="Poll component",
    )


@app.get("/runs/{run}/status")
async def run_status(run: int) -> HTMLResponse:
    if run not in _checks:
        # Unknown run: answer 286 too, so the page stops asking.
        return fragment(Alert(f"No run {run}", tone="error"), status_code=STOP_POLLING_STATUS)
    _checks[run] += 1
    step = _checks[run]
    if step >= STEPS:
        del _checks[run]
        done = Status(f"Done after {step} checks", tone="success")
        return fragment(done, status_code=STOP_POLLING_STATUS)
    working = Stack(
        Status(f"Working… check {step} of {STEPS}"),
        ProgressBar(step, max=STEPS, label="Progress"),
    )
    return fragment(working)
