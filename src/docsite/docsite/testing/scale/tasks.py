"""Task functions for the scale tests, written once: the in-process runners run them unchanged."""

from __future__ import annotations

import os
from typing import Any

from hedron_core.jobs import TaskContext


async def count(ctx: TaskContext) -> dict[str, Any]:
    """Count to ``payload["n"]``, reporting progress and sleeping ``payload["step_s"]`` a step."""
    n = int(ctx.payload.get("n", 3))
    step_s = float(ctx.payload.get("step_s", 0.05))
    for i in range(n):
        ctx.progress(i, n, f"counting {i + 1} of {n}")
        await ctx.sleep(step_s)
    ctx.progress(n, n, "done")
    return {"counted": n, "pid": os.getpid(), "attempt": ctx.attempt}


async def boom(ctx: TaskContext) -> None:
    """Always fails, with a message the tests look for."""
    await ctx.sleep(0)
    raise ValueError(f"boom: {ctx.payload.get('why', 'no reason')}")


TASKS = {"count": count, "boom": boom}
