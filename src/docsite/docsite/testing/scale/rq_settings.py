"""RQ worker settings module (``rq worker -c docsite.testing.scale.rq_settings``): imported
once by the worker process, so every forked work horse starts with hedron and the task
functions already loaded.

``HEDRON_TEST_DIE_BEFORE_CLAIM`` makes a worker die after RQ has started a job's message and
before hedron's claim: ``worker`` kills the work horse and its parent (the host went away),
``horse`` only the work horse (the kernel's out-of-memory killer). With
``HEDRON_TEST_DIE_ONCE=<path>`` it dies only while that file does not exist yet."""

import os
import signal
from pathlib import Path
from typing import Any

import docsite.testing.scale.tasks  # noqa: F401
import hedron.integrations.rq

DIE = os.environ.get("HEDRON_TEST_DIE_BEFORE_CLAIM")

if DIE in ("worker", "horse"):
    run_job = hedron.integrations.rq.run_job

    def _die_first(*args: Any, **kwargs: Any) -> Any:
        once = os.environ.get("HEDRON_TEST_DIE_ONCE")
        if once:
            try:
                Path(once).touch(exist_ok=False)
            except FileExistsError:
                return run_job(*args, **kwargs)  # died once already: run normally
        if DIE == "worker":
            os.kill(os.getppid(), signal.SIGKILL)  # the horse runs in its own process group
        os.kill(os.getpid(), signal.SIGKILL)
        raise AssertionError("unreachable")

    hedron.integrations.rq.run_job = _die_first  # type: ignore[assignment]
