"""Scoped jobs: another user's job answers exactly like one that does not exist (404)."""

from __future__ import annotations

import os
import secrets

from fastapi import Request

from hedron import Button, Component, ComponentRef, Hedron, Page, Region, Stack, Text
from hedron.jobs import JobScope, TaskFlow
from hedron_core.jobs import InMemoryJobBackend, TaskContext, local_runner

backend = InMemoryJobBackend()  # local demo only; use SQLiteJobBackend on a real host

# Two users of two tenants. A real app signs users in with its own authentication; here a
# button switches the session from one to the other.
USERS = {"alice": JobScope("alice", "acme"), "bob": JobScope("bob", "globex")}


async def report(ctx: TaskContext) -> dict[str, str]:
    """A report of the caller's tenant (the job knows whose it is: ctx.scope)."""
    for part in range(3):
        ctx.progress(part, 3, f"Building part {part + 1} of 3")
        await ctx.sleep(1.6)
    return {"tenant": ctx.scope.tenant_id}


runner = local_runner(backend, {"report": report})

app = Hedron(
    title="Tenant isolation",
    session_secret=os.environ.get("HEDRON_SESSION_SECRET") or secrets.token_urlsafe(48),
    job_backend=backend,
)


def current_scope(request: Request) -> JobScope:
    """The signed-in user's scope: every read and cancel of a job is checked against it."""
    return USERS[request.session.setdefault("user", "alice")]


def who(scope: JobScope) -> Component:
    return Text(f"Signed in as {scope.auth_subject} (tenant {scope.tenant_id}).")


flow = TaskFlow(
    "report",
    scope=current_scope,
    runner=runner,
    poll_interval_ms=2000,
    submit_label="Build report",
)
flow.mount(app)


@app.page("/")
def home(request: Request) -> Page:
    switch = ComponentRef(logical_id="who", path="/sign-in/bob", method="POST")
    return Page(
        Stack(
            Region(who(current_scope(request)), id="who", live=True),
            Button("Sign in as bob", variant="secondary", ref=switch),
        ),
        flow.form(),
        title="Tenant isolation",
    )


@app.action("/sign-in/{name}")
def sign_in(name: str, request: Request) -> Component:
    if name not in USERS:
        return Text("No such user.")
    request.session["user"] = name
    return who(USERS[name])
