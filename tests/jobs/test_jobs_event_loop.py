"""A slow SQLite backend does not stall the app (issue 19, finding 1).

Another process holds SQLite's write lock for 3 s; TaskFlow's submit and cancel wait for it
inside the backend. Meanwhile an unrelated ``async def /ping`` must answer within 300 ms (it
took 2,756 ms when TaskFlow called the backend on the event loop).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from loop_probe import (
    OWNER,
    Browser,
    Probe,
    assert_ping_answers_while_blocked,
    assert_submitted_and_cancelled,
    flow_app,
)

from hedron_core.jobs import SQLiteJobBackend

LOCK_S = 3.0
HOLD_LOCK = """
import sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
conn.execute("COMMIT")
"""

pytestmark = pytest.mark.slow


def test_an_unrelated_route_answers_while_sqlite_waits_for_its_write_lock(
    tmp_path: Path, live_server: Any
) -> None:
    backend = SQLiteJobBackend(tmp_path / "jobs.db")
    try:
        job = backend.submit("demo", {}, **OWNER)
        probe = Probe(backend)
        base = live_server(flow_app(probe))
        browser = Browser(base)
        holder = subprocess.Popen(
            [sys.executable, "-c", HOLD_LOCK, str(tmp_path / "jobs.db"), str(LOCK_S)],
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert holder.stdout is not None
            assert holder.stdout.readline().strip() == "locked"
            answers = assert_ping_answers_while_blocked(
                base,
                probe,
                {
                    "submit": ("submit", browser.submit),
                    "cancel": ("request_cancel", lambda: browser.cancel(job.id)),
                },
            )
        finally:
            holder.wait(LOCK_S + 10)
            holder.stdout.close()  # type: ignore[union-attr]
            browser.close()
        assert_submitted_and_cancelled(answers, backend, job.id)
    finally:
        backend.close()
