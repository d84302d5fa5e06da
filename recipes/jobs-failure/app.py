"""A task that raises: the job ends FAILED, the page shows the error text, polling stops."""

from __future__ import annotations

import os
import secrets

from fastapi import Request

from hedron import Hedron, Page, Text
from hedron.jobs import JobScope, TaskFlow
from hedron_core.jobs import InMemoryJobBackend, TaskContext, local_runner

backend = InMemoryJobBackend()  # local demo only; use SQLiteJobBackend on a real host

PRICES = [("Tea", "4.20"), ("Coffee", "6.90"), ("Cocoa", "n/a"), ("Milk", "1.10")]


async def import_prices(ctx: TaskContext) -> dict[str, float]:
    """Import a price list; a row that is not a number ends the job."""
    total = 0.0
    for row, (name, price) in enumerate(PRICES, start=1):
        ctx.progress(row - 1, len(PRICES), f"Importing {name}")
        try:
            total += float(price)
        except ValueError:
            # The message is what the user reads: say what is wrong and where.
            raise ValueError(f"row {row} ({name}): the price {price!r} is not a number") from None
        await ctx.sleep(1.6)
    return {"rows": len(PRICES), "total": round(total, 2)}


runner = local_runner(backend, {"import": import_prices})

app = Hedron(
    title="A failing job",
    session_secret=os.environ.get("HEDRON_SESSION_SECRET") or secrets.token_urlsafe(48),
    job_backend=backend,
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
    submit_label="Import prices",
)
flow.mount(app)


@app.page("/")
def home() -> Page:
    return Page(Text("Import a price list with one bad row."), flow.form(), title="A failing job")
