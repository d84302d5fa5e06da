"""Imported by the web app and by the Celery worker: the task and one shared configuration."""

from __future__ import annotations

from hedron.integrations import ScaleConfig
from hedron.integrations.celery import CeleryJobs
from hedron_core.jobs import TaskContext


async def resize(ctx: TaskContext) -> dict[str, int]:
    """The same task code as with local_runner; here a Celery worker runs it."""
    steps = int(ctx.payload["steps"])
    for k in range(steps):
        ctx.progress(k, steps, f"Resizing image {k + 1} of {steps}")
        await ctx.sleep(1.6)  # a cancellation point too
    return {"resized": steps}


# HEDRON_REDIS_URL (default redis://127.0.0.1:6379/0), HEDRON_JOBS_PREFIX, ... from the
# environment, the same in every process. Redis is pinged here: a wrong URL fails at start.
config = ScaleConfig.from_env()
jobs = CeleryJobs(config, {"resize": resize})
celery = jobs.celery  # what `celery -A jobs:celery worker` runs
