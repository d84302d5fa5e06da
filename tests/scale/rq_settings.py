"""RQ worker settings module (``rq worker -c rq_settings``): imported once by the worker
process, so every forked work horse starts with hedron and the task functions already loaded."""

import scale_tasks  # noqa: F401

import hedron.integrations.rq  # noqa: F401
