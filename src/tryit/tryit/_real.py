"""A recipe's ``[real]`` table: what a real run needs that a browser tab cannot run.

A recipe with a ``[real]`` table has no "Try it": its page says why (``why``), offers the
download and shows the transcript of a real run, and the test suite runs it for real
(``docsite.replay.stack``): its app in a process of its own, the services and worker
processes the table names beside it, and the restarts it asks for, at their times.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, fields
from typing import Any

from tryit import _checks
from tryit._demo import doc

SERVICES = ("redis",)  #: what ``services`` may name (``redis``: a real ``redis-server``)


@dataclass(frozen=True)
class Worker:
    """A process started beside the app (a Celery or RQ worker), in the recipe's folder."""

    command: str = doc(
        "The command, as a reader types it; `$NAME` takes the run's environment "
        "(`$HEDRON_REDIS_URL`)."
    )
    ready: str = doc("What it prints once it takes work: the run waits for it before it starts.")

    @property
    def argv(self) -> list[str]:
        """The command's words."""
        return shlex.split(self.command)


@dataclass(frozen=True)
class Restart:
    """Stop the app as Ctrl+C does at ``stop`` seconds, start it again at ``start``."""

    stop: float = doc("Seconds into the run when the app is stopped (as Ctrl+C stops it).")
    start: float = doc("Seconds into the run when it starts again (after `stop`).")


@dataclass(frozen=True)
class Real:
    """The ``[real]`` table."""

    why: str = doc("Why the recipe does not run in a browser; its page says it as is.")
    services: tuple[str, ...] = doc(
        "Services to start first: `redis` (its URL is `$HEDRON_REDIS_URL`).", default=()
    )
    workers: tuple[Worker, ...] = doc(
        "Processes to start beside the app, each `{command = ..., ready = ...}`, each waited for.",
        default=(),
    )
    restart: Restart | None = doc(
        "When to stop the app and start it again, `{stop = SECONDS, start = SECONDS}`.",
        default=None,
    )
    env: tuple[tuple[str, str], ...] = doc(
        "More environment for the app, the workers and the client (a table of strings).",
        default=(),
    )

    @classmethod
    def parse(cls, table: Any, where: str) -> Real:
        """Check and read a ``[real]`` table (every error names its key)."""
        if not isinstance(table, dict):
            raise ValueError(f"{where}: [real] must be a table")
        _checks.only(table, {f.name for f in fields(cls)}, "[real]", where)
        why = _checks.text(table.get("why"), "[real] why", where)
        if '"' in why:
            raise ValueError(f"{where}: [real] why must not contain a double quote")
        services = table.get("services", [])
        if not isinstance(services, list) or any(s not in SERVICES for s in services):
            raise ValueError(f"{where}: [real] services must list some of {list(SERVICES)}")
        workers = []
        for entry in _checks.tables(table.get("workers", []), "[real] workers", where):
            _checks.only(entry, {f.name for f in fields(Worker)}, "[real] workers entry", where)
            command = _checks.text(entry.get("command"), "[real] workers command", where)
            ready = _checks.text(entry.get("ready"), "[real] workers ready", where)
            workers.append(Worker(command, ready))
        restart = None
        if "restart" in table:
            raw = table["restart"]
            if not isinstance(raw, dict):
                raise ValueError(f"{where}: [real] restart must be a table (stop, start)")
            _checks.only(raw, {f.name for f in fields(Restart)}, "[real] restart", where)
            stop = _checks.seconds(raw.get("stop"), "[real] restart stop", where)
            start = _checks.seconds(raw.get("start"), "[real] restart start", where)
            if start <= stop:
                raise ValueError(f"{where}: [real] restart start must come after its stop")
            restart = Restart(stop, start)
        env = table.get("env", {})
        if not isinstance(env, dict) or not all(
            isinstance(k, str) and k and isinstance(v, str) for k, v in env.items()
        ):
            raise ValueError(f"{where}: [real] env must map names to strings")
        return cls(why, tuple(services), tuple(workers), restart, tuple(sorted(env.items())))
