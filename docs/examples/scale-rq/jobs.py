"""Imported by the web app and by the RQ worker (`rq worker -c jobs`): task and settings."""

from __future__ import annotations

from hedron.integrations import ScaleConfig
from hedron.integrations.rq import RQJobs
from hedron_core.jobs import TaskContext


async def resize(ctx: TaskContext) -> dict[str, int]:
    """The same task code as with local_runner; here an RQ work horse runs it."""
    steps = int(ctx.payload["steps"])
    for k in range(steps):
        ctx.progress(k, steps, f"Resizing image {k + 1} of {steps}")
        await ctx.sleep(1.6)  # a cancellation point too
    return {"resized": steps}


# HEDRON_REDIS_URL (default redis://127.0.0.1:6379/0), HEDRON_JOBS_PREFIX, ... from the
# environment, the same in every process. Redis is pinged here: a wrong URL fails at start.
config = ScaleConfig.from_env()
jobs = RQJobs(config, {"resize": resize})  # RQ imports the task as jobs:resize

# What `rq worker -c jobs` reads from this module: the same Redis, the same queue.
REDIS_URL = config.redis_url
QUEUES = [config.queue]
