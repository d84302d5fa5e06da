"""Jobs that survive a restart: the SQLite backend, and a runner stopped with the server."""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
from collections.abc import AsyncIterator

from fastapi import FastAPI, Request

from hedron import Hedron, Page, Text
from hedron.jobs import JobScope, TaskFlow
from hedron_core.jobs import SQLiteJobBackend, TaskContext, local_runner

backend = SQLiteJobBackend("jobs.db")  # a file beside the app: it outlives the process
FILES = 3


async def import_files(ctx: TaskContext) -> dict[str, int]:
    """Import the files one by one, going on from the last one reported after a restart."""
    job = backend.get(ctx.job_id, **ctx.scope.as_kwargs())
    first = job.progress.k if job is not None and job.progress is not None else 0
    for k in range(first, FILES):
        ctx.progress(k, FILES, f"Importing file {k + 1} of {FILES}")
        await ctx.sleep(1.6)
    return {"files": FILES, "attempt": ctx.attempt}


runner = local_runner(backend, {"import": import_files})


@contextlib.asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    yield
    # Ctrl+C: the running task stops at its next ctx.sleep, and its job, still RUNNING in
    # the file, is handed back for the next start of the app to take over.
    await asyncio.to_thread(runner.stop)


app = Hedron(
    title="Jobs survive a restart",
    session_secret=os.environ.get("HEDRON_SESSION_SECRET") or secrets.token_urlsafe(48),
    job_backend=backend,
    lifespan=lifespan,
)


def current_scope(request: Request) -> JobScope:
    """Explicit identity: a demo user kept in the session (use your real auth instead)."""
    session = request.session
    session.setdefault("auth_subject", "demo-user")
    session.setdefault("tenant_id", "demo-tenant")
    return JobScope(session["auth_subject"], session["tenant_id"])


flow = TaskFlow(
    "import",
    scope=current_scope,
    runner=runner,
    poll_interval_ms=2000,
    submit_label="Import files",
)
flow.mount(app)


@app.page("/")
def home() -> Page:
    text = Text("Import three files; stop the server half way, then start it again.")
    return Page(text, flow.form(), title="Jobs survive a restart")
